"""The validity matrix as data: which eval caught which seeded fault, the misses and the false alarms.

`harness.suites.validity` fills it by running the cases; `harness.report.validity_report` renders it. It imports
neither, so a report never reaches the agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

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
