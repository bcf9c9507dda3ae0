"""Comparing two result sets: ``harness compare A B`` and the nightly gate ``harness regress``.

A result set is a run directory (results.jsonl) or an experiment directory
(cells.jsonl). Cells are paired on (arm, threshold, case, trial).

The regression gate compares the current results with a committed baseline file, a
JSON snapshot of per-cell outcomes. What is gated comes from the eval registry
(``suites/registry.py``): per eval, arm and threshold, the eval's pass rate and each of its
``gated`` checks under the arm's strategy (``EvalSuite.gated_for``), so a new eval is gated
by its entry alone. Only cells valid on both sides are paired (an invalid cell counts in
no rate). A gate fails only for a drop that is significant after Holm adjustment across
every gate tested (exact McNemar on the paired cells). ``--update`` rewrites the baseline
from the current results.

A cell that ended in ERROR (a provider error) is not valid, so it is never paired and can
never read as a regression; instead the gate fails on its own when the share of ERROR
cells passes ``max_error_rate`` (default 5 %): an outage leaves too little to vouch for.

A cell that ran as no eval (an ad-hoc grid: ``eval`` null, as its row) is gated on the checks the eval of its kind
gates, in a group of its own named "<kind> cases, no eval" (`harness.rows.eval_label`, as the run report heads such
rows): never as that eval, in the table, the notes, the verdict or the baseline file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness._version import __version__
from harness.analysis.baseline_file import BASELINE_SCHEMA, read_baseline_file, write_baseline_file
from harness.analysis.compare import ALPHA, cells_frame, compare, format_cell, format_diff, holm
from harness.errors import HarnessError
from harness.rows import ResultRow, eval_label, eval_said
from harness.runs.results import row_eval_version
from harness.scoring.metrics import RATE_METRICS, VALUE_METRICS
from harness.suites.registry import SUITES

MAX_ERROR_RATE = 0.05


def error_gate(rows: Sequence[ResultRow], max_error_rate: float = MAX_ERROR_RATE) -> str | None:
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


# BASELINE_SCHEMA (`harness.analysis.baseline_file`): 2, cells name their eval and carry its gated checks; 1 still loads.
# A schema-2 cell that ran as no eval has eval null; one written before 2026-11-28 has its kind there, with
# eval_version null (which no cell of an eval has): read as null (`_ad_hoc_as_null`).


def load_rows(path: str | Path) -> tuple[str, Sequence[ResultRow]]:
    """(name, rows) of a run or experiment directory."""
    from harness.runs.merge import unmerged_shards
    from harness.runs.results import read_cells, read_rows

    path = Path(path)
    if (path / "cells.jsonl").exists():
        return path.name, read_cells(path / "cells.jsonl")
    if (path / "results.jsonl").exists():
        return path.name, read_rows(path / "results.jsonl")
    raise HarnessError(
        unmerged_shards(path) or f"{path}: neither a run directory (results.jsonl) nor an experiment directory (cells.jsonl)"
    )


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


def _side(letter: str, name: str, frame: pd.DataFrame) -> str:
    """A side's column heading: its letter, its run or experiment, and what it ran (the arm and the strategy, each
    once): ``A: nightly (forced-20, deepagents-default)``."""
    ran = dict.fromkeys(str(v) for v in [*frame["arm"], *frame["strategy"]] if v is not None)
    return f"{letter}: {name} ({', '.join(ran)})" if ran else f"{letter}: {name}"


def compare_sets(a: str | Path, b: str | Path, *, arm_a: str | None = None, arm_b: str | None = None) -> pd.DataFrame:
    """Side-by-side table: each metric for A and B (mean [interval] n) and B - A paired on case and trial."""
    name_a, rows_a = load_rows(a)
    name_b, rows_b = load_rows(b)
    fa = _pick(cells_frame(rows_a), arm_a, str(a))
    fb = _pick(cells_frame(rows_b), arm_b, str(b))
    label_a, label_b = _side("A", name_a, fa), _side("B", name_b, fb)
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
_CELL_KEYS = ("arm", "threshold", "eval", "strategy", "case_id", "kind", "trial", "outcome", "valid", "passed")
_V1_CHECKS = {
    "needle_correct": "needle_recovered",
    "needle_via_history": "needle_via_history",
    "goal_preserved": "goal_preserved",
}


def _gated(eval_name: str, strategy: str) -> tuple[str, ...]:
    """The checks the gate holds for an eval under a strategy (none for an eval this version does not know)."""
    suite = SUITES.get(eval_name)
    return suite.gated_for(strategy) if suite else ()


def _by_group(cells: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """Cells by (eval label, arm, threshold): what one set of gates compares. The label is the eval, or for cells that
    ran as no eval "<kind> cases, no eval" (`eval_label`)."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for cell in cells:
        groups.setdefault((eval_label(cell), cell["arm"], cell["threshold"]), []).append(cell)
    return groups


def gate_cells(rows: Sequence[ResultRow]) -> list[dict[str, Any]]:
    """One record per cell: its ids, outcome, the eval it ran as (None: as no eval, an ad-hoc cell; a row from before
    rows named their eval: its kind's), and ``checks``, the gated checks of that eval (an ad-hoc cell: of its kind's)
    under the cell's strategy (``EvalSuite.gated_for``), None on a cell that is not valid; then the metrics, for
    people."""
    frame = cells_frame(rows)
    records = json.loads(frame.to_json(orient="records"))
    out = []
    for row, cell in zip(rows, records):
        name = row["eval"] if "eval" in row else row["kind"]
        keys = _gated(name or row["kind"], cell["strategy"])
        scores = row.get("scores") or {}
        out.append(
            {
                **{k: (name if k == "eval" else cell.get(k)) for k in _CELL_KEYS},
                "eval_version": row_eval_version(row),
                "checks": {k: (bool(scores[k]) if cell["valid"] else None) for k in keys if k in scores},
                **{m: cell[m] for m in (*RATE_METRICS, *VALUE_METRICS) if m in cell},
            }
        )
    return out


def snapshot(rows: Sequence[ResultRow], source: str) -> dict[str, Any]:
    """The gate's baseline of ``rows``: one record per cell (`gate_cells`), sorted, with where and when it was made."""
    return {
        "schema": BASELINE_SCHEMA,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "source": source,
        "harness_version": __version__,
        "simulated": any(bool(r.get("simulated")) for r in rows),
        # sorted, so a rewritten baseline differs from the old one only where a cell did
        "cells": sorted(gate_cells(rows), key=lambda c: tuple(str(u) for u in _unit(c))),
    }


def write_baseline(rows: Sequence[ResultRow], source: str, path: str | Path) -> Path:
    """Write the gate's baseline (`snapshot` of ``rows``: one record per cell, its gated checks) to ``path``."""
    return write_baseline_file(path, snapshot(rows, source))


def _from_schema_1(cell: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 cell (``variant``; the gated rates as metrics) as schema 2 has it: the eval is the case's kind, and
    its gated checks are the ones schema 1 kept (needle recovered, through the history file, goal preserved)."""
    cell = {("arm" if k == "variant" else k): v for k, v in cell.items()}
    keys = _gated(cell["kind"], "deepagents-summarization")
    cell.setdefault("eval", cell["kind"])
    cell.setdefault("strategy", "deepagents-summarization")
    cell["checks"] = {k: cell.get(_V1_CHECKS[k]) for k in keys if k in _V1_CHECKS and cell.get(_V1_CHECKS[k]) is not None}
    return cell


def load_baseline(path: str | Path) -> list[dict[str, Any]]:
    """The baseline file's cells as the gate reads them (the file checked by `read_baseline_file`): a schema-1 cell
    upgraded (`_from_schema_1`), an ad-hoc cell of before 2026-11-28 with eval null (`_ad_hoc_as_null`)."""
    schema, cells = read_baseline_file(path)
    return [_from_schema_1(c) for c in cells] if schema == 1 else [_ad_hoc_as_null(c) for c in cells]


def _ad_hoc_as_null(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell that ran as no eval with eval null, as the gate writes it since 2026-11-28: before, such a cell had its
    kind as its eval, told apart by its eval_version null (a cell of an eval always has a version)."""
    if (
        cell.get("eval") is not None
        and cell["eval"] == cell.get("kind")
        and "eval_version" in cell
        and cell["eval_version"] is None
    ):
        return {**cell, "eval": None}
    return cell


def _gate_frame(cells: list[dict[str, Any]], keys: list[str]) -> pd.DataFrame:
    """The cells with one column per gated check."""
    frame = pd.DataFrame([{k: c.get(k) for k in _CELL_KEYS} for c in cells])
    for key in keys:
        frame[key] = [(c.get("checks") or {}).get(key) for c in cells]
    return frame


VALIDITY_METRIC = "case_valid"  # the share of cells that tested what they claim (non-ERROR cells of both sides)


def _unit(cell: dict[str, Any]) -> tuple:
    """What one cell of a comparison is: (eval label, arm, threshold, case, trial)."""
    return (eval_label(cell), cell["arm"], cell["threshold"], cell["case_id"], cell["trial"])


def _validity_frame(cells: list[dict[str, Any]]) -> pd.DataFrame:
    """The non-ERROR cells with their validity as a metric: every one of them counts, so a night where compaction
    stopped happening (cases INVALID) shows as a drop instead of leaving nothing to pair."""
    kept = [c for c in cells if c.get("outcome") != "ERROR"]
    frame = _gate_frame(kept, [])
    return frame.assign(**{VALIDITY_METRIC: frame["valid"].astype(bool) if len(frame) else []}, valid=True)


def missing_cells(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[tuple]:
    """The baseline's cells (eval label, arm, threshold, case, trial) that have no result in the current set."""
    current_units = {_unit(c) for c in now}
    return [u for u in map(_unit, base) if u not in current_units]


def incomplete_message(missing: list[tuple], total: int, name: str) -> str:
    """What a partial grid lacks, by eval, arm and threshold: a lost shard or a shrunken spec reads as such."""
    groups: dict[tuple, int] = {}
    for eval_name, arm, threshold, *_ in missing:
        groups[(eval_name, arm, threshold)] = groups.get((eval_name, arm, threshold), 0) + 1
    listed = "; ".join(f"{eval_said(e)}, {a} at {t}: {n}" for (e, a, t), n in sorted(groups.items())[:8])
    more = f"; and {len(groups) - 8} more groups" if len(groups) > 8 else ""
    return (
        f"INCOMPLETE: {len(missing)} of {total} baseline cells have no result in {name} ({listed}{more}). A lost shard "
        "or a shrunken spec is not a pass: rerun the missing cells, or gate on what is there with --allow-partial."
    )


def gate_verdicts(diffs: list[float], pvalues: list[float | None]) -> tuple[list[float], list[str]]:
    """Each gated comparison's Holm-adjusted p-value (over all the comparisons of the run: a missing p counts as 1)
    and its verdict: REGRESSION for a drop, "improved" for a rise, when the adjusted p is under ALPHA; "ok" otherwise."""
    p_adj = holm([1.0 if p is None or math.isnan(p) else p for p in pvalues])
    verdicts = [
        "REGRESSION" if d < 0 and p < ALPHA else ("improved" if d > 0 and p < ALPHA else "ok") for d, p in zip(diffs, p_adj)
    ]
    return p_adj, verdicts


def version_mismatches(base: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[str]:
    """One line per eval whose baseline cells were scored under another version of it than the current cells (a
    cell without a version was scored under version 1; a cell that ran as no eval, with the ad-hoc cells of its kind,
    has none): such results are not comparable, whatever their rates."""

    def versions(cells: list[dict[str, Any]]) -> dict[str, set[int | None]]:
        out: dict[str, set[int | None]] = {}
        for cell in cells:
            out.setdefault(cell["eval"] or cell["kind"], set()).add(cell["eval_version"] if "eval_version" in cell else 1)
        return out

    def said(found: set[int | None]) -> str:
        return ", ".join("none (run as no eval)" if v is None else str(v) for v in sorted(found, key=str))

    old, new = versions(base), versions(now)
    return [
        f"eval {name!r}: the baseline was scored under version {said(old[name])}, the current results under version "
        f"{said(new[name])}"
        for name in sorted(old.keys() & new.keys())
        if old[name] != new[name]
    ]


def regress(
    current: str | Path, baseline_file: str | Path, *, allow_partial: bool = False
) -> tuple[bool, pd.DataFrame, list[str]]:
    """(passed, gate table, notes). passed is False for a significant drop on a gated metric, per eval of the
    registry (``suites/registry.py``), arm and threshold: the eval's pass rate, each of its gated checks, and the share
    of cells that tested what they claim; and, unless ``allow_partial``, when a baseline cell has no result."""
    name, rows = load_rows(current)
    now = gate_cells(rows)
    base = load_baseline(baseline_file)
    changed = version_mismatches(base, now)
    if changed:
        raise HarnessError(
            f"{baseline_file}: not comparable with {name}: "
            + "; ".join(changed)
            + ". An eval's version changes when its cases, checks or scoring change meaning (suites/registry.py). "
            f"Rewrite the baseline from results of the current version: harness regress RESULTS --baseline {baseline_file} --update"
        )
    notes = []
    records = []
    now_groups = _by_group(now)
    for (eval_name, arm, threshold), base_part in sorted(_by_group(base).items()):
        cur_part = now_groups.get((eval_name, arm, threshold), [])
        if not cur_part:
            notes.append(f"{eval_said(eval_name)}, {arm} at {threshold}: in the baseline, not in {name} (not gated)")
            continue
        keys = list(dict.fromkeys(k for c in base_part + cur_part for k in (c.get("checks") or {})))
        frame = pd.concat(
            [_gate_frame(base_part, keys).assign(arm="baseline"), _gate_frame(cur_part, keys).assign(arm="current")],
            ignore_index=True,
        )
        validity = pd.concat(
            [_validity_frame(base_part).assign(arm="baseline"), _validity_frame(cur_part).assign(arm="current")],
            ignore_index=True,
        )
        table = pd.concat(
            [compare(validity, "baseline", [VALIDITY_METRIC]), compare(frame, "baseline", ["passed", *keys])], ignore_index=True
        )
        for rec in table[table["arm"] == "current"].to_dict("records"):
            if rec["n_pairs"] == 0:  # e.g. a check the current rows no longer score, or no cell valid on both sides
                notes.append(
                    f"{eval_said(eval_name)}, {arm} at {threshold}: {rec['metric']} has no paired valid cells (not gated)"
                )
                continue
            base_rec = table[(table["arm"] == "baseline") & (table["metric"] == rec["metric"])].iloc[0]
            records.append(
                {
                    "eval": eval_name,
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
    gates = pd.DataFrame(records, columns=["eval", "arm", "threshold", "metric", "baseline", "current", "diff", "p", "n_pairs"])
    gates["p_adj"], gates["verdict"] = gate_verdicts(gates["diff"].tolist(), gates["p"].tolist())
    gates["diff"] = gates["diff"].map(lambda d: f"{d * 100:+.1f} pts" if not math.isnan(d) else "n/a")
    gates["p_adj"] = gates["p_adj"].map(lambda p: f"{p:.3g}")
    gates = gates.drop(columns=["p"])
    missing = missing_cells(base, now)
    incomplete = bool(missing) and not allow_partial
    if missing:
        notes.append(
            incomplete_message(missing, len(base), name)
            if incomplete
            else f"{len(missing)} of {len(base)} baseline cells have no result in {name} (--allow-partial: not gated)"
        )
    return not incomplete and not (gates["verdict"] == "REGRESSION").any(), gates, notes
