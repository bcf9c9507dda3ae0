"""Recorded sessions replayed (the session eval): the report section drawn from the rows' ``session`` records.

Two tables, per session and arm (and threshold, in an experiment):

- the replay: the window chosen for the cut, the tokens before and after each compaction, the control's score
  (probes it answered right of those asked) and its size, the arm's probes that count, and the whole cost of the arm's
  case beside the control's;
- by fact type: over the probes that count (the control answered them right and compaction took their answer out of
  view), how many were retained (right from the summary or a kept message), recovered (right through a history page),
  right with no source seen, stale and lost, each with its n.

Rows that ended in ERROR measured nothing and are left out; a probe that does not count is in no figure but the
``n asked`` column, and the run's case table gives each one's reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.scoring.scorers import ERROR
from harness.scoring.scorers.session import BUCKETS

_LABELS = {
    "retained": "retained",
    "recovered": "recovered",
    "right_unsourced": "right, no source seen",
    "stale": "stale",
    "lost": "lost",
}


def _session_rows(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("session") and r.get("outcome") != ERROR]


def _arm(row: Mapping[str, Any]) -> str:
    threshold = row.get("threshold")
    return f"{row.get('arm')} @ {threshold}" if threshold is not None else str(row.get("arm"))


def _size(value: Any) -> str:  # noqa: ANN401 - a compaction's tokens: a count, or unknown (None)
    return "unknown" if value is None else str(value)


def _usd(value: Any) -> str:  # noqa: ANN401 - a row's figure: a number or unknown
    return "unknown" if value is None else f"${value:.4f}"


def replay_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per session row: case, arm, trial, outcome, window, compactions (before -> after tokens), the
    control's score and size, the probes that count, and the cost of the arm and of its control."""
    out = []
    for row in _session_rows(rows):
        record = row["session"]
        control = record.get("control") or {}
        probes = record.get("probes") or []
        compactions = ", ".join(f"{c['type']} {_size(c['before'])}->{_size(c['after'])}" for c in record.get("compactions") or [])
        compactions = compactions or "none"
        out.append(
            {
                "session": row.get("case_id"),
                "arm": _arm(row),
                "trial": row.get("trial"),
                "outcome": row.get("outcome"),
                "first call": record.get("first_call_tokens"),
                "window": record.get("window"),
                "compactions (tokens)": compactions,
                "control right": f"{control.get('right', 0)}/{control.get('n', len(probes))}" if control else "no control",
                "control peak": control.get("peak_context"),
                "probes that count": f"{sum(p['valid'] for p in probes)}/{len(probes)}",
                "cost": _usd(((row.get("cost") or {}).get("total") or {}).get("usd")),
                "control cost": _usd(control.get("cost_usd")) if control else "-",
            }
        )
    return pd.DataFrame(out)


def retention_by_type(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Per arm and probe type, over the probes that count: each bucket's count of n, and n asked."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for row in _session_rows(rows):
        for probe in row["session"].get("probes") or []:
            cell = counts.setdefault((_arm(row), probe["type"]), {"asked": 0, "n": 0, **dict.fromkeys(BUCKETS, 0)})
            cell["asked"] += 1
            if probe["valid"]:
                cell["n"] += 1
                cell[probe["bucket"]] += 1
    out = []
    for (arm, kind), cell in counts.items():
        n = cell["n"]
        out.append(
            {
                "arm": arm,
                "probe type": kind,
                **{_LABELS[b]: f"{cell[b]}/{n}" if n else "-" for b in BUCKETS},
                "n asked": cell["asked"],
            }
        )
    return pd.DataFrame(out)


def add_sessions_section(doc: Document, rows: Sequence[Mapping[str, Any]]) -> bool:
    """The section in a run or experiment report; False (nothing added) when no row replayed a session."""
    table = replay_table(rows)
    if table.empty:
        return False
    doc.heading("Recorded sessions replayed")
    doc.text(
        "Each session is replayed from its cut on a window chosen so the arm's trigger fires at the first call after it "
        "(`first call` tokens; `window` declared). The full-context control (strategy none, a window that fits) answers "
        "every probe first; a probe counts for an arm only where the control answered it right and compaction took its "
        "answer out of view. Compactions list the tokens before and after each; cost is the arm's whole case and the "
        "control's, unknown where a provider reported no usage. ERROR runs are left out."
    )
    doc.table(table)
    doc.heading("Retention and recovery per fact type", level=3)
    doc.text(
        "Over the probes that count (k/n): retained (answered right from the summary or a kept message), recovered "
        "(right through a page of the history file read for it), right with no source seen, stale (a value the session "
        "had overridden) and lost (another value, don't know, nothing); `n asked` counts every probe, counted or not."
    )
    doc.table(retention_by_type(rows))
    return True
