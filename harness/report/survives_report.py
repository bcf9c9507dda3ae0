"""The survives eval's section of run and experiment reports: what came back after each compaction, per item kind and
arm (`harness.scoring.scorers.survives.audit`, read again from each row's trace).

One table, item kinds down, arms across: each cell counts the items in view on the last call before a compaction that
were, on the first call after it, kept, re-injected, summarized or lost (over every compaction of the arm's valid and
failed runs; ERROR and INVALID rows measured nothing and are left out, and said so). The causes are named with their
upstream issue: deepagents re-injects its memory and skills sections on every call, and nothing else (the todo list,
deepagents#4161; the files read, which come back only when the agent reads them again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.scoring.scorers import FAIL, KNOWN_UPSTREAM, PASS
from harness.scoring.scorers.survives import KINDS, audit, said
from harness.suites.eval_suite import DEEPAGENTS_4161
from harness.trace.schema import Trace

EVAL = "survives"
HEADING = "What comes back after a compaction"


def _arm(row: Mapping[str, Any]) -> str:
    """The row's arm, with its strategy when the arm does not name it (a run's arm is its variant), and threshold."""
    arm, strategy, threshold = str(row.get("arm")), str(row.get("strategy")), row.get("threshold")
    arm = arm if strategy in arm else f"{arm}@{strategy}"
    return f"{arm} @ {threshold}" if threshold is not None else arm


def survives_table(rows: Sequence[Mapping[str, Any]], traces: Sequence[Trace]) -> tuple[pd.DataFrame, int, int]:
    """The table (item kind x arm), the compactions it covers and the rows left out (ERROR, INVALID)."""
    counts: dict[str, dict[str, Counter[str]]] = {}
    compactions = left_out = 0
    for row, trace in zip(rows, traces):
        if row.get("eval") != EVAL:
            continue
        if row.get("outcome") not in (PASS, FAIL, KNOWN_UPSTREAM):
            left_out += 1
            continue
        arm = counts.setdefault(_arm(row), {kind: Counter() for kind in KINDS})
        for record in audit(trace):
            compactions += 1
            for kind, statuses in record["items"].items():
                arm[kind].update(statuses)
    frame = pd.DataFrame(
        [{"item": kind, **{name: said(by_kind[kind]) for name, by_kind in counts.items()}} for kind in KINDS] if counts else []
    )
    return frame, compactions, left_out


def add_survives_section(doc: Document, rows: Sequence[Mapping[str, Any]], traces: Sequence[Trace]) -> None:
    """The section, when any row ran as the survives eval (nothing otherwise)."""
    if not any(r.get("eval") == EVAL for r in rows):
        return
    frame, compactions, left_out = survives_table(rows, traces)
    doc.heading(HEADING)
    doc.text(
        "On the first model call after each compaction, against the last call before it: each item that was in view "
        "was kept (a message carried over, or the agent's own system prompt), re-injected (rebuilt by a middleware from "
        "state or disk: deepagents' memory and skills sections of the system prompt, or put back by the "
        "`summary-reinject` reference arm, Claude Code's published set), summarized (only in the summary, line for line) "
        f"or lost. {compactions} compaction(s)"
        + (f"; {left_out} run(s) that ended in ERROR or INVALID left out" if left_out else "")
        + ". deepagents 0.7.32 re-injects its memory and skills sections on every call and nothing else: the todo list "
        f"lives only in write_todos calls and the summary ({DEEPAGENTS_4161}), and a file read before the cut comes back "
        "only when the agent reads it again."
    )
    if not frame.empty:
        doc.table(frame)
