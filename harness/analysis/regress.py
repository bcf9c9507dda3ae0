"""Comparing two result sets: ``harness compare A B`` and the nightly gate ``harness regress``.

A result set is a run directory (results.jsonl) or an experiment directory
(cells.jsonl). Cells are paired on (arm, threshold, case, trial).

The regression gate compares the current results with a committed baseline file, a
JSON snapshot of per-cell outcomes. Only cells valid on both sides are paired (an invalid
cell counts in no rate). Gated metrics are rates where higher is better; a
gate fails only for a drop that is significant after Holm adjustment across every gate
tested (exact McNemar on the paired cells). ``--update`` rewrites the baseline from the
current results.

A cell that ended in ERROR (a provider error) is not valid, so it is never paired and can
never read as a regression; instead the gate fails on its own when the share of ERROR
cells passes ``max_error_rate`` (default 5 %): an outage leaves too little to vouch for.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness import __version__
from harness.analysis.compare import ALPHA, cells_frame, compare, format_cell, format_diff, holm
from harness.errors import HarnessError
from harness.scoring.metrics import RATE_METRICS, VALUE_METRICS

GATED = ("passed", "needle_recovered", "needle_via_history", "goal_preserved")
MAX_ERROR_RATE = 0.05


def error_gate(rows: list[dict[str, Any]], max_error_rate: float = MAX_ERROR_RATE) -> str | None:
    """A message when more than ``max_error_rate`` of the cells ended in ERROR, else None."""
    from harness.runs.results import error_causes

    causes = error_causes(rows)
    errors = sum(causes.values())
    if not rows or errors / len(rows) <= max_error_rate:
        return None
    listed = "; ".join(f"{n} x {cause}" for cause, n in causes.most_common())
    return (
        f"ERROR RATE {errors}/{len(rows)} cells ({errors / len(rows):.1%}) ended in a provider error, above the "
        f"{max_error_rate:.0%} allowed (--max-error-rate): too few valid cells to gate on ({listed}). Not a regression: "
        "rerun the experiment to retry them."
    )


BASELINE_SCHEMA = 1


def load_rows(path: str | Path) -> tuple[str, list[dict[str, Any]]]:
    """(name, rows) of a run or experiment directory."""
    from harness.runs.results import read_cells, read_rows

    path = Path(path)
    if (path / "cells.jsonl").exists():
        return path.name, read_cells(path / "cells.jsonl")
    if (path / "results.jsonl").exists():
        return path.name, read_rows(path / "results.jsonl")
    raise HarnessError(f"{path}: neither a run directory (results.jsonl) nor an experiment directory (cells.jsonl)")


def _pick(frame: pd.DataFrame, arm: str | None, source: str) -> pd.DataFrame:
    if arm is None:
        arms = list(dict.fromkeys(frame["arm"]))
        if len(arms) > 1:
            raise HarnessError(f"{source} holds arms {', '.join(arms)}: choose one with --arm-a/--arm-b")
        return frame
    picked = frame[frame["arm"] == arm]
    if picked.empty:
        raise HarnessError(f"{source} has no arm {arm!r}; it has {', '.join(dict.fromkeys(frame['arm']))}")
    return picked


def compare_sets(a: str | Path, b: str | Path, *, arm_a: str | None = None, arm_b: str | None = None) -> pd.DataFrame:
    """Side-by-side table: each metric for A and B (mean [interval] n) and B - A paired on case and trial."""
    name_a, rows_a = load_rows(a)
    name_b, rows_b = load_rows(b)
    fa = _pick(cells_frame(rows_a), arm_a, str(a))
    fb = _pick(cells_frame(rows_b), arm_b, str(b))
    label_a, label_b = f"A: {name_a}", f"B: {name_b}"
    if set(fa["threshold"]) != set(fb["threshold"]):
        if fa["threshold"].nunique() > 1 or fb["threshold"].nunique() > 1:
            raise HarnessError("A and B use different thresholds; compare single-threshold results or matching grids")
        pair_label = f"{fa['threshold'].iloc[0]} vs {fb['threshold'].iloc[0]}"
        fa, fb = fa.assign(threshold=pair_label), fb.assign(threshold=pair_label)
    frame = pd.concat([fa.assign(arm=label_a), fb.assign(arm=label_b)], ignore_index=True)
    table = compare(frame, label_a, ["passed", *RATE_METRICS, *VALUE_METRICS])
    out = []
    for (threshold, metric), grp in table.groupby(["threshold", "metric"], sort=False):
        recs = {r["arm"]: r for r in grp.to_dict("records")}
        if label_a not in recs or label_b not in recs or (recs[label_a]["n"] == 0 and recs[label_b]["n"] == 0):
            continue
        out.append(
            {
                "threshold": threshold,
                "metric": metric,
                label_a: format_cell(recs[label_a]),
                label_b: format_cell(recs[label_b]),
                "B - A": format_diff(recs[label_b]),
            }
        )
    return pd.DataFrame(out)


# -- the regression gate -------------------------------------------------------------------
def snapshot(rows: list[dict[str, Any]], source: str) -> dict[str, Any]:
    frame = cells_frame(rows)
    keep = [
        "arm",
        "threshold",
        "case_id",
        "kind",
        "trial",
        "outcome",
        "valid",
        "passed",
        *[m for m in (*RATE_METRICS, *VALUE_METRICS) if m in frame.columns],
    ]
    records = json.loads(frame[keep].to_json(orient="records"))
    return {
        "schema": BASELINE_SCHEMA,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": source,
        "harness_version": __version__,
        "simulated": bool(frame["simulated"].any()),
        "cells": records,
    }


def write_baseline(rows: list[dict[str, Any]], source: str, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(snapshot(rows, source), indent=1) + "\n", encoding="utf-8")
    return path


def load_baseline(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise HarnessError(f"{path}: no baseline file; create it with --update")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != BASELINE_SCHEMA:
        raise HarnessError(f"{path}: baseline schema {data.get('schema')!r} is not {BASELINE_SCHEMA}")
    # Baselines written before the ``arm`` field named it ``variant``.
    return pd.DataFrame(data["cells"]).rename(columns={"variant": "arm"})


def regress(
    current: str | Path, baseline_file: str | Path, *, metrics: tuple[str, ...] = GATED
) -> tuple[bool, pd.DataFrame, list[str]]:
    """(passed, gate table, notes). passed is False only for a significant drop on a gated metric."""
    name, rows = load_rows(current)
    now = cells_frame(rows)
    base = load_baseline(baseline_file)
    notes = []
    records = []
    for (arm, threshold), base_part in base.groupby(["arm", "threshold"], sort=True):
        cur_part = now[(now["arm"] == arm) & (now["threshold"] == threshold)]
        if cur_part.empty:
            notes.append(f"{arm} at {threshold}: in the baseline, not in {name} (not gated)")
            continue
        frame = pd.concat([base_part.assign(arm="baseline"), cur_part.assign(arm="current")], ignore_index=True)
        table = compare(frame, "baseline", [m for m in metrics if m in frame.columns])
        for rec in table[table["arm"] == "current"].to_dict("records"):
            if rec["n_pairs"] == 0:
                continue
            base_rec = table[(table["arm"] == "baseline") & (table["metric"] == rec["metric"])].iloc[0]
            records.append(
                {
                    "arm": arm,
                    "threshold": threshold,
                    "metric": rec["metric"],
                    "baseline": format_cell(base_rec.to_dict()),
                    "current": format_cell(rec),
                    "diff": rec["diff"],
                    "p": rec["p"],
                    "n_pairs": rec["n_pairs"],
                }
            )
    gates = pd.DataFrame(records)
    if gates.empty:
        raise HarnessError(f"{name} shares no paired cells with the baseline {baseline_file}")
    gates["p_adj"] = holm(gates["p"].fillna(1.0).tolist())
    gates["verdict"] = [
        "REGRESSION" if d < 0 and p < ALPHA else ("improved" if d > 0 and p < ALPHA else "ok")
        for d, p in zip(gates["diff"], gates["p_adj"])
    ]
    gates["diff"] = gates["diff"].map(lambda d: f"{d * 100:+.1f} pts" if not math.isnan(d) else "n/a")
    gates["p_adj"] = gates["p_adj"].map(lambda p: f"{p:.3g}")
    gates = gates.drop(columns=["p"])
    missing = len(base) - len(
        now.merge(base[["arm", "threshold", "case_id", "trial"]], on=["arm", "threshold", "case_id", "trial"])
    )
    if missing:
        notes.append(f"{missing} baseline cell(s) have no counterpart in {name}")
    return not (gates["verdict"] == "REGRESSION").any(), gates, notes
