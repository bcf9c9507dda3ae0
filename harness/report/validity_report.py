"""The validity matrix's result and report: eval x seeded fault, from ``validity.json``.

Kept apart from the runner (``suites/validity.py``) so ``harness report`` renders a
matrix without importing the agent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import SUITES, matrix_suites


def expected(eval_name: str, fault: str) -> bool:
    """The eval's registry entry names this fault: it must catch it."""
    suite = SUITES.get(eval_name)
    return suite is not None and fault in suite.faults


def detected_by(eval_name: str, fault: str, runs: list[dict[str, Any]]) -> bool:
    """Whether ``eval_name`` caught ``fault`` in ``runs``: by the check its entry names for it, or (for a fault it
    does not name) by any check it asserts."""
    mine = [r for r in runs if r["eval"] == eval_name and r["fault"] == fault]
    if expected(eval_name, fault):
        check = SUITES[eval_name].faults[fault]
        return any(check in r["failed"] for r in mine)
    return any(r["failed"] for r in mine)


@dataclass
class ValidityResult:
    matrix: pd.DataFrame  # rows: eval, columns: fault, values: detected (bool)
    expected_misses: list[str]
    false_alarms: list[str]
    runs: list[dict[str, Any]] = field(default_factory=list)
    healthy_seeds: int = 0

    @property
    def ok(self) -> bool:
        return not self.expected_misses and not self.false_alarms

    @classmethod
    def from_runs(cls, runs: list[dict[str, Any]], healthy_seeds: int) -> ValidityResult:
        evals = list(dict.fromkeys(r["eval"] for r in runs))
        faults = list(dict.fromkeys(r["fault"] for r in runs if r["fault"]))
        matrix = pd.DataFrame(index=evals, columns=faults, dtype=object)
        misses = []
        for name in evals:
            for fault in faults:
                hit = detected_by(name, fault, runs)
                matrix.loc[name, fault] = hit
                if expected(name, fault) and not hit:
                    misses.append(f"{name} did not catch {fault} by {SUITES[name].faults[fault]}")
        for suite in matrix_suites():
            for fault in suite.faults:
                if suite.name in evals and fault not in faults:
                    misses.append(f"{suite.name}: fault {fault} was never injected")
        alarms = [
            f"{r['eval']} failed a healthy run ({r['case_id']}, seed {r['seed']}): {r['explanations']}"
            for r in runs
            if r["fault"] is None and r["failed"]
        ]
        return cls(matrix, misses, alarms, runs, healthy_seeds)


def matrix_table(result: ValidityResult) -> pd.DataFrame:
    """eval x fault: 'DETECTED' where an eval caught a fault it must catch, 'missed' where it did not, 'detected' /
    '-' for faults it does not name, 'not run' where the eval never ran under the fault; and the healthy runs that
    passed."""
    rows = []
    for name in result.matrix.index:
        row = {"eval": name}
        for fault in result.matrix.columns:
            hit = bool(result.matrix.loc[name, fault])
            ran = any(r["eval"] == name and r["fault"] == fault for r in result.runs)
            if not ran:  # `pytest -m validity` in CI runs only the faults each eval names
                row[fault] = "not run"
            else:
                row[fault] = ("DETECTED" if hit else "missed") if expected(name, fault) else ("detected" if hit else "-")
        healthy = [r for r in result.runs if r["eval"] == name and r["fault"] is None]
        row["healthy runs passed"] = f"{sum(not r['failed'] for r in healthy)}/{len(healthy)}"
        rows.append(row)
    return pd.DataFrame(rows)


def write_validity(result: ValidityResult, out_dir: str | Path) -> Path:
    """validity.json (every run, the matrix, what was expected) and its report."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payload = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "healthy_seeds": result.healthy_seeds,
        "matrix": {e: {f: bool(result.matrix.loc[e, f]) for f in result.matrix.columns} for e in result.matrix.index},
        "expected_misses": result.expected_misses,
        "false_alarms": result.false_alarms,
        "runs": result.runs,
    }
    (out / "validity.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return render_validity(out)


def load_validity(out_dir: str | Path) -> ValidityResult:
    """The result in ``validity.json``, re-judged against the current registry (runs record which checks failed)."""
    data = json.loads((Path(out_dir) / "validity.json").read_text(encoding="utf-8"))
    return ValidityResult.from_runs(data["runs"], data["healthy_seeds"])


def render_validity(out_dir: str | Path) -> Path:
    """report.md / report.html with the detection matrix, from validity.json (``harness report`` calls this)."""
    out = Path(out_dir)
    result = load_validity(out)
    doc = Document("Eval validity: detection matrix")
    doc.text(
        "Each eval runs its cases with each seeded fault. DETECTED: the eval caught a fault its registry entry names, "
        "by the check the entry names (as it must); missed: it did not (a blind spot); detected / -: faults it does "
        f"not name. The last column: healthy runs over {result.healthy_seeds} seeds that passed every check the eval "
        "asserts (anything below all is a false alarm). Simulated: offline reference models."
    )
    doc.table(matrix_table(result))
    doc.heading("Faults")
    doc.bullets(
        [
            f"`{f.name}`: {f.description}; caught by "
            + (", ".join(f"{s.name} ({s.faults[f.name]})" for s in SUITES.values() if f.name in s.faults) or "no eval")
            for f in SEEDED_FAULTS.values()
        ]
    )
    doc.heading("Evals")
    doc.bullets(
        [
            f"`{s.name}`: cases {', '.join(s.matrix_cases)}; preset {s.preset or 'the default'}; asserts {', '.join(s.required)}"
            for s in matrix_suites()
        ]
    )
    if result.expected_misses or result.false_alarms:
        doc.heading("Problems")
        doc.bullets([*result.expected_misses, *result.false_alarms])
    md, _ = doc.write(out)
    return md
