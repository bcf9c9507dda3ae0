"""The versions section of an experiment report (a spec with a ``versions:`` axis): which package versions each arm
ran, as its rows recorded them, and every paired cell (same eval, case, threshold and trial) where an arm's outcome, agent
calls, summaries or peak context differ from the baseline's: what changed between the versions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.rows import CellRow, ExperimentMeta
from harness.runs.results import row_events, row_outcome

COMPARED = ("outcome", "agent calls", "summaries", "peak context")


def _signature(row: CellRow) -> dict[str, Any]:
    outcome, keys = row_outcome(row)
    return {
        "outcome": outcome + (f" ({', '.join(keys)})" if keys else ""),
        "agent calls": (row.get("calls") or {}).get("agent"),
        "summaries": row_events(row).get("summary", 0),
        "peak context": (row.get("tokens") or {}).get("peak_context"),
    }


def recorded_versions(rows: Sequence[CellRow], arms: list[str]) -> pd.DataFrame:
    """One line per arm: each recorded package's version as the arm's rows have it (several, comma-joined, would mean
    an arm ran in more than one environment)."""
    records = []
    for arm in arms:
        mine = [r.get("packages") or {} for r in rows if r["arm"] == arm]
        names = list(dict.fromkeys(n for p in mine for n in p))
        records.append({"arm": arm, **{n: ", ".join(sorted({str(p.get(n)) for p in mine})) for n in names}})
    return pd.DataFrame(records)


def version_baselines(arms: Sequence[str], baseline: str) -> dict[str, str]:
    """Each arm's own baseline: with variants or strategies crossed with versions (``<inner>+<versions>``), the same
    inner arm at the baseline's versions, so a row is compared across versions only, never across strategies; else
    (or when that arm is not in the grid) the baseline."""
    inner, plus, versions = baseline.partition("+")
    out = {}
    for arm in arms:
        mine = f"{arm.partition('+')[0]}+{versions}"
        out[arm] = mine if plus and "+" in arm and mine in arms else baseline
    return out


def changed_cells(rows: Sequence[CellRow], baseline: str, baselines: dict[str, str] | None = None) -> pd.DataFrame:
    """Paired cells whose outcome, agent calls, summaries or peak context differ from their baseline arm's (``baselines``:
    each arm's, `version_baselines`; default ``baseline`` for every arm): one line per (arm, eval, case, threshold,
    trial), 'baseline -> arm' in each compared column that differs."""
    theirs = baselines or {}
    signatures = {(r["arm"], *_pair(r)): _signature(r) for r in rows}
    records = []
    for row in rows:
        key, against = _pair(row), theirs.get(str(row["arm"]), baseline)
        base = signatures.get((against, *key))
        if row["arm"] == against or base is None:
            continue
        mine = _signature(row)
        diff = {c: f"{base[c]} -> {mine[c]}" for c in COMPARED if mine[c] != base[c]}
        if diff:
            records.append({"arm": row["arm"], "eval": key[0], "case": key[1], "threshold": key[2], "trial": key[3], **diff})
    return pd.DataFrame(records, columns=["arm", "eval", "case", "threshold", "trial", *COMPARED]).fillna("")


def _pair(row: CellRow) -> tuple[str, str, str, Any]:
    """A row's paired unit: (eval, case, threshold, trial); a case run as two evals is two units."""
    return (str(row.get("eval") or row.get("kind")), row["case_id"], str(row.get("threshold")), row.get("trial"))


def add_versions_section(doc: Document, meta: ExperimentMeta, rows: Sequence[CellRow], arms: list[str]) -> None:
    """The section, when the experiment has a versions axis (meta.json ``versions``); nothing otherwise."""
    if not meta.get("versions"):
        return
    baseline = meta["baseline"]
    doc.heading("Versions")
    doc.text(
        "Each arm ran in its own environment (requirements.lock, or the arm's own lock file, with the arm's pins; "
        "`harness/runs/versions.py`). "
        "The versions below are what each arm's rows recorded from the environment that ran them."
    )
    doc.table(recorded_versions(rows, arms))
    baselines = version_baselines(arms, baseline)
    changed = changed_cells(rows, baseline, baselines)
    against = sorted(set(baselines.values()))
    named = (
        f"the baseline **{baseline}**"
        if against == [baseline]
        else "the same arm at the baseline's versions (" + ", ".join(f"**{a}**" for a in against) + ")"
    )
    doc.heading("What changed between versions", level=3)
    if changed.empty:
        doc.text(
            f"No paired cell (same eval, case, threshold and trial) differs from {named} in outcome, agent calls, "
            "summaries or peak context."
        )
    else:
        doc.text(f"Paired cells that differ from {named} ('baseline -> arm'); blank: the same.")
        doc.table(changed)
