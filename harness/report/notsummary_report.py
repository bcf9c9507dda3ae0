"""The notsummary eval's section of run and experiment reports: per case, whether every summary was a summary, the
shape of the first that was not (`harness.scoring.scorers.summary_shape`), and whether the agent kept its goal, with
the cause named by its upstream evidence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document

HEADING = "Summaries that are not summaries (notsummary)"
EVIDENCE = (
    "https://github.com/anomalyco/opencode/issues/42363",
    "https://github.com/open-webui/open-webui/issues/29308",
    "https://github.com/anthropics/claude-code/issues/90218",
)


def _said(row: Mapping[str, Any], key: str) -> str:
    passed = (row.get("passed") or {}).get(key)
    return "-" if passed is None else "yes" if passed else "no"


def notsummary_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per row scored with ``summary_is_summary``: case, arm, trial, outcome, the check, what it found, and
    whether the goal was kept (every step done, no clarification asked)."""
    out = []
    for row in rows:
        if "summary_is_summary" not in (row.get("passed") or {}):
            continue
        found = (row.get("explanations") or {}).get("summary_is_summary", "")
        out.append(
            {
                "case": row.get("case_id"),
                "arm": row.get("arm"),
                "trial": row.get("trial"),
                "outcome": row.get("outcome"),
                "every summary a summary": _said(row, "summary_is_summary"),
                "found": found[:160],
                "goal kept": _said(row, "goal_all_steps_done") if _said(row, "goal_no_clarification") != "no" else "no",
            }
        )
    return pd.DataFrame(out, columns=["case", "arm", "trial", "outcome", "every summary a summary", "found", "goal kept"])


def add_notsummary_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> None:
    """The section, when a row was scored with the check (nothing otherwise)."""
    table = notsummary_table(rows)
    if table.empty:
        return
    doc.heading(HEADING)
    doc.text(
        "LangChain 1.5.2's `_create_summary` returns the summarizer's `response.text.strip()` and deepagents 0.7.32 "
        "puts it in the summary message as it is: the next assistant turn, a function call's JSON, an empty text (a "
        "reasoning-only reply), LangChain's own 'Previous conversation was too long to summarize.' or an instruction in "
        "a system's voice all become the summary the agent works from. Reported by users: "
        + ", ".join(EVIDENCE)
        + ". `summary_is_summary` reads each summary's text alone and names the shape."
    )
    doc.table(table)
