"""Work redone after compaction, and intent kept (the redo eval): the report section drawn from the rows' scores.

One line per redo row (case, arm, trial): its outcome, its compactions, the calls repeated after them (in all and
after the worst one), the most model calls it took to make new progress after one, the compactions followed by no
progress, and the agreement of its first actions after the cut with the full-context control's. Every figure is a
score of the row (`harness.scoring.scorers.redo`), so a re-scored run shows the same. ERROR rows measured nothing and
are left out; an INVALID row is listed with its outcome and counted in no rate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.scoring.scorers import ERROR
from harness.scoring.scorers.redo import INTENT_SHARE, INTENT_STEPS, REDO_ALLOWANCE

EVAL = "redo"
CAUSES = (
    "finished work listed as pending and redone ([opencode#50816](https://github.com/anomalyco/opencode/issues/50816), "
    "[codex#38931](https://github.com/openai/codex/issues/38931)); step limits hit re-reading after compaction "
    "([CooperBench#54](https://github.com/cooperbench/CooperBench/issues/54)); next actions compared with a "
    "full-context fork ([Slipstream, arXiv 2605.08580](https://arxiv.org/abs/2605.08580))"
)


def _arm(row: Mapping[str, Any]) -> str:
    threshold = row.get("threshold")
    return f"{row.get('arm')} @ {threshold}" if threshold is not None else str(row.get("arm"))


def _figure(value: Any, digits: int = 2) -> Any:  # noqa: ANN401 - a score's value: a number, a bool or unknown
    if value is None:
        return "-"
    if isinstance(value, float):
        return round(value, digits)
    return value


def redo_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per redo row that did not end in ERROR."""
    out = []
    for row in rows:
        if row.get("eval") != EVAL or row.get("outcome") == ERROR:
            continue
        scores = row.get("scores") or {}
        events = row.get("events") or {}
        out.append(
            {
                "case": row.get("case_id"),
                "arm": _arm(row),
                "trial": row.get("trial"),
                "outcome": row.get("outcome"),
                "compactions": sum(int(events.get(k) or 0) for k in ("summary", "mask", "trim")),
                "repeats": _figure(scores.get("redo_repeats")),
                "worst compaction": _figure(scores.get("redo_repeats_max")),
                "rounds to progress": _figure(scores.get("redo_rounds_to_progress")),
                "no progress": _figure(scores.get("redo_no_progress")),
                "intent agreement": _figure(scores.get("intent_agreement")),
                "first action kept": _figure(scores.get("intent_first_match")),
            }
        )
    return pd.DataFrame(out)


def add_redo_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> bool:
    """The section in a run or experiment report; False (nothing added) when no row ran as the redo eval."""
    table = redo_table(rows)
    if table.empty:
        return False
    doc.heading("Work redone after compaction, and intent kept")
    doc.text(
        f"The cause this eval looks for: {CAUSES}. Each case is carried on from a recorded prefix, once compacting at the "
        "first call after the cut and once in full (the control, strategy none). `repeats`: calls after a compaction "
        "that repeat a successful call made before it (same tool, same arguments; reads of the history file or an "
        f"evicted result are recovery and left out), `worst compaction` the most after one (`no_work_redone` allows "
        f"{REDO_ALLOWANCE}); `rounds to progress`: the most model calls a compaction took to a call or reply not made "
        f"before; `no progress`: compactions after which none came. `intent agreement`: share of the control's first "
        f"{INTENT_STEPS} actions the arm also took (`intent_kept`: the first is the control's, or >= {INTENT_SHARE}). "
        "ERROR rows are left out."
    )
    doc.table(table)
    return True
