"""The validity matrix's result and report: eval x seeded fault, from ``validity.json``.

Kept apart from the runner (``suites/validity.py``) so ``harness report`` renders a
matrix without importing the agent.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from harness.report._document import Document
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.matrix import ValidityResult, expected
from harness.suites.registry import SUITES, matrix_suites


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
