"""A subagent and its parent (the parent eval): the report section drawn from the rows' scores.

One line per case and arm: its outcome; whether the parent compacted on the call its task's report arrived and the
report reached the parent's model paired with its call; and the subagent declared with a smaller window: its largest
request as a share of that window, and whether every request stayed within it. The causes are named by their upstream
issues: a subagent's summarization computed from its parent's model (deepagents#802) and a tool result kept across
the cut without its call (langchain#38352). Rows that ended in ERROR measured nothing and are left out, said so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.scoring.scorers import ERROR
from harness.suites.eval_suite import DEEPAGENTS_802

EVAL = "parent"
LANGCHAIN_38352 = "https://github.com/langchain-ai/langchain/issues/38352"
HEADING = "A subagent and its parent"


def _mark(row: Mapping[str, Any], key: str) -> str:
    passed = (row.get("passed") or {}).get(key)
    return "n/a" if passed is None else "yes" if passed else "**no**"


def parent_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per parent-eval case and arm (ERROR rows left out)."""
    out = []
    for r in rows:
        if r.get("eval") != EVAL or r.get("outcome") == ERROR:
            continue
        share = (r.get("scores") or {}).get("subagent_peak_share")
        out.append(
            {
                "case": r["case_id"],
                "arm": r.get("arm") or r.get("strategy"),
                "trial": r.get("trial", 0),
                "outcome": r["outcome"],
                "parent compacted as the report arrived": _mark(r, "parent_compacted_at_task"),
                "report kept with its call": _mark(r, "task_result_kept"),
                "subagent's largest request / its window": f"{share:.0%}" if isinstance(share, (int, float)) else "n/a",
                "subagent within its window": _mark(r, "subagent_window_respected"),
            }
        )
    return pd.DataFrame(out)


def add_parent_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> None:
    """The section, when the run has parent-eval rows (nothing otherwise)."""
    mine = [r for r in rows if r.get("eval") == EVAL]
    if not mine:
        return
    table = parent_table(mine)
    doc.heading(HEADING)
    doc.text(
        "The parent compacts on the call its delegated task's report arrives (the cut falls on the report, and must "
        f"move back to the task call: a result kept without its call is [langchain#38352]({LANGCHAIN_38352})'s orphan); "
        "the report must reach the parent's model paired with its call. The subagent is declared with a smaller window "
        "than its parent: none of its requests may exceed it (approximate tokens, the count deepagents compares). A "
        f"subagent whose summarization is computed from its parent's model is [deepagents#802]({DEEPAGENTS_802})."
    )
    left_out = len(mine) - len(table)
    if left_out:
        doc.note(f"{left_out} case(s) ended in ERROR (a provider error) and measured nothing: left out.")
    if len(table):
        doc.table(table)
