"""The "Message structure across the cut" section of run and experiment reports: one line per boundary-eval row, with
what the cut did to tool pairs and to a system prompt held in the message state, each cause named by its upstream
issue (langchain#38352, deer-flow#5454) and a provider's refusal shown as the ERROR it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.suites.eval_suite import DEER_FLOW_5454, LANGCHAIN_38352

EVAL = "boundary"
HEADING = "Message structure across the cut"


def _said(row: Mapping[str, Any], key: str) -> str:
    """A check's result in a cell: held, failed (with the upstream link for a declared one), or not scored."""
    if key not in row["passed"]:
        return "-"
    if row["passed"][key]:
        return "kept" if key == "system_prompt_kept" else "none"
    declared = (row.get("known_upstream") or {}).get(key)
    failed = "lost" if key == "system_prompt_kept" else "orphan result(s)"
    return f"{failed} ({declared})" if declared else failed


def boundary_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per boundary row: case, arm, trial, outcome (a provider error's cause), orphan tool results, the
    system prompt in the state, and why."""
    out = []
    for row in rows:
        if row.get("eval") != EVAL:
            continue
        error = row.get("error") or {}
        provider = error.get("provider_error") or {}
        why = (
            row["explanations"].get("no_orphan_tool_results", "") if not row["passed"].get("no_orphan_tool_results", True) else ""
        )
        if provider:
            why = f"provider refused: {provider.get('message', '')[:160]}"
        elif not why and not row["passed"].get("system_prompt_kept", True):
            why = row["explanations"].get("system_prompt_kept", "")
        out.append(
            {
                "case": row["case_id"],
                "arm": row.get("arm") or row["strategy"],
                "trial": row["trial"],
                "outcome": row["outcome"],
                "orphan tool results": _said(row, "no_orphan_tool_results"),
                "system prompt in state": _said(row, "system_prompt_kept"),
                "why": why[:240],
            }
        )
    return pd.DataFrame(out)


def add_boundary_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> bool:
    """The section, when any row ran as the boundary eval; False (nothing added) otherwise."""
    table = boundary_table(rows)
    if table.empty:
        return False
    doc.heading(HEADING)
    doc.text(
        "Each compaction's cut, read from every request the agent model received. An orphan tool result is a result "
        f"whose call the cut summarized away: LangChain's `_find_safe_cutoff_point` can leave one ({LANGCHAIN_38352}), "
        "and a provider answers the next request with a 400, which `harness serve` answers too (an ERROR, never a FAIL "
        "or a pass). A system prompt held as the first message of the state (an agent made with no system prompt) is "
        f"sliced away with the messages before the cut ({DEER_FLOW_5454}): KNOWN_UPSTREAM where the released code loses "
        "it, counted in no rate."
    )
    doc.table(table)
    return True
