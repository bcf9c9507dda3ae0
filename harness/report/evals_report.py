"""The evals section of an experiment report (a spec with ``evals:``): per eval, each arm's outcomes (PASS, FAIL,
KNOWN_UPSTREAM, INVALID, ERROR, and the cells not run with their reason), then each arm's pass rate against the
baseline's, paired per eval on the same case, threshold and trial. With a versions axis the first table is the
modes x versions table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pandas as pd

from harness.analysis.compare import cells_frame, compare, format_cell, format_diff
from harness.report._document import Document
from harness.rows import CellRow, ExperimentMeta
from harness.runs.results import row_outcome
from harness.scoring.scorers import ERROR, FAIL, INVALID, KNOWN_UPSTREAM, PASS

ORDER = (PASS, FAIL, KNOWN_UPSTREAM, INVALID, ERROR)


def outcome_text(outcomes: list[str], reasons: list[str]) -> str:
    """One table cell: 'PASS 2/2', 'PASS 1/2, KNOWN_UPSTREAM 1/2', 'not run 2/2: <reason>'; '-' when nothing ran or was
    decided."""
    total = len(outcomes) + len(reasons)
    counts = Counter(outcomes)
    parts = [f"{k} {counts[k]}/{total}" for k in ORDER if counts[k]]
    if reasons:
        parts.append(f"not run {len(reasons)}/{total}: " + "; ".join(dict.fromkeys(reasons)))
    return ", ".join(parts) or "-"


def eval_outcomes(rows: Sequence[CellRow], not_run: list[dict[str, Any]], arms: list[str], evals: list[str]) -> pd.DataFrame:
    """One line per eval, one column per arm: the arm's outcomes over that eval's cells (`outcome_text`)."""
    records = []
    for name in evals:
        record: dict[str, Any] = {"eval": name}
        for arm in arms:
            outcomes = [row_outcome(r)[0] for r in rows if r.get("eval") == name and r["arm"] == arm]
            reasons = [str(r["not_run"]) for r in not_run if r.get("eval") == name and r["arm"] == arm]
            record[arm] = outcome_text(outcomes, reasons)
        records.append(record)
    return pd.DataFrame(records, columns=["eval", *arms])


def eval_comparison(rows: Sequence[CellRow], baseline: str, arms: list[str], evals: list[str]) -> pd.DataFrame:
    """Per eval, threshold and arm: the pass rate over valid runs and its paired difference from the baseline's on the
    same eval's cells (`harness.analysis.compare.compare` on that eval's rows only)."""
    records = []
    frame = cells_frame(rows)
    for name in evals:
        part = frame[frame["eval"] == name] if not frame.empty else frame
        if part.empty:
            continue
        table = compare(part, baseline, ["passed"])
        for rec in sorted(table.to_dict("records"), key=lambda r: arms.index(r["arm"]) if r["arm"] in arms else len(arms)):
            records.append(
                {
                    "eval": name,
                    "threshold": rec["threshold"],
                    "arm": rec["arm"],
                    "pass rate": format_cell(rec),
                    "vs baseline": format_diff(rec),
                }
            )
    return pd.DataFrame(records, columns=["eval", "threshold", "arm", "pass rate", "vs baseline"])


def add_evals_section(
    doc: Document, meta: ExperimentMeta, rows: Sequence[CellRow], not_run: list[dict[str, Any]], arms: list[str]
) -> None:
    """The section, when the spec named evals (meta.json ``evals``); nothing otherwise."""
    evals = list(meta.get("evals") or [])
    if not evals:
        return
    doc.heading("Evals")
    doc.text(
        "Each eval's cases ran as the eval (`harness.suites.execute`, as `pytest evals/` runs them: its preset, scorer "
        "set and declared known upstream failures). Per eval and arm, over every threshold and trial: how many cells "
        "ended in each outcome, and the cells not run with the reason (the eval does not apply, or the installed "
        "deepagents lacks what it tests): listed, never counted."
    )
    doc.table(eval_outcomes(rows, not_run, arms, evals))
    comparison = eval_comparison(rows, meta["baseline"], arms, evals)
    if not comparison.empty:
        doc.heading("Pass rate against the baseline, per eval", level=3)
        doc.text(
            "Valid runs only; the difference is paired on the same eval, case, threshold and trial (exact McNemar test, "
            "Holm-adjusted across arms)."
        )
        doc.table(comparison)
