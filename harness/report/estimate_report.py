"""The run report's estimate section: per content type, where compaction really fired by an exact count, with the
upstream cause named (langchain#39754: the approximate counter assumes four characters a token)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.analysis.trigger_share import estimate_table
from harness.report._document import Document
from harness.suites.eval_suite import LANGCHAIN_39754


def add_estimate_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> None:
    """The section, when any row ran as the estimate eval (nothing otherwise)."""
    table = estimate_table(rows)
    if table.empty:
        return
    doc.heading("Token estimates and the trigger")
    doc.text(
        "deepagents decides when to compact with LangChain's `count_tokens_approximately` (about four characters a "
        "token). Per content type: approximate and exact tokens of the conversation where compaction first fired (at "
        "the largest request when nothing compacted), their ratio, and the share of the declared window it really fired "
        f"at by the exact count. Below 1 the counter under-counts and the trigger fires late: [langchain#39754]({LANGCHAIN_39754}). "
        "A share past 100 % is a request a real provider rejects; offline the reference agent accepts it, so the share "
        "is measured. Exact counts: o200k_base for the messages and system prompt, tool schemas at the approximate count."
    )
    doc.table(table)
