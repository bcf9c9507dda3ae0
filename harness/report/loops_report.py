"""The loops eval's section of run and experiment reports: per case, each compaction's ratio of tokens after to
before (the largest), whether every summary left the request below the trigger, and the longest run of compactions
without progress (`harness.trace.loops`), with the cause named by its upstream evidence."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.trace.loops import COMPACTION_LOOP_LIMIT

HEADING = "Compaction that does not shrink, or loops (loops)"
EVIDENCE = ("https://github.com/openai/codex/issues/40619", "https://github.com/anthropics/claude-code/issues/24179")


def loops_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per row scored with ``compaction_shrinks``: case, arm, trial, outcome, compactions, the largest ratio,
    the longest run without progress, and the check's finding."""
    out = []
    for row in rows:
        passed = row.get("passed") or {}
        if "compaction_shrinks" not in passed:
            continue
        scores = row.get("scores") or {}
        out.append(
            {
                "case": row.get("case_id"),
                "arm": row.get("arm"),
                "trial": row.get("trial"),
                "outcome": row.get("outcome"),
                "compactions": sum((row.get("events") or {}).get(k, 0) for k in ("summary", "mask", "trim")),
                "largest after/before": _value(scores.get("compaction_ratio_max")),
                "longest run without progress": _value(scores.get("compactions_without_progress")),
                "shrinks below the trigger": "yes" if passed["compaction_shrinks"] else "no",
                "finding": (row.get("explanations") or {}).get("compaction_shrinks", "")[:160],
            }
        )
    columns = ["case", "arm", "trial", "outcome", "compactions", "largest after/before", "longest run without progress"]
    return pd.DataFrame(out, columns=[*columns, "shrinks below the trigger", "finding"])


def _value(value: Any) -> Any:  # noqa: ANN401 - a row's score value (a number), or '-' when there is none
    return "-" if value is None else value


def add_loops_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> None:
    """The section, when a row was scored with the check (nothing otherwise)."""
    table = loops_table(rows)
    if table.empty:
        return
    doc.heading(HEADING)
    doc.text(
        "A compaction must leave the request smaller than it found it and, for a summary, below the trigger that fired "
        "it: otherwise the next call compacts again. A summary bigger than what it replaced (a ratio of 1 or more) and "
        "a keep window larger than the trigger both do that; "
        f"{COMPACTION_LOOP_LIMIT} compactions in a row with no new tool call and no reply between them are a loop "
        "(Anthropic's `compaction_limit_reached_error`). Reported by users: " + ", ".join(EVIDENCE) + "."
    )
    doc.table(table)
