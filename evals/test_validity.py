"""Eval validity: every eval catches each seeded fault its registry entry names, by the check it names, and never on a healthy run.

The matrix runs once per session (about three minutes offline: 8 evals x 12 faults, 130 healthy runs) and is written to
reports/runs/<time>-validity/ with a report showing the detection matrix (eval x fault).
"""

from datetime import UTC, datetime

import pytest

from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import matrix_suites
from harness.suites.validity import run_validity, write_validity

# One worker computes the matrix (with `--dist loadgroup`, as CI runs): it is a module fixture, so every xdist worker
# given one of these tests would otherwise run the whole matrix again.
pytestmark = [pytest.mark.validity, pytest.mark.xdist_group("validity")]
GUARDED = [(s.name, f, check) for s in matrix_suites() for f, check in s.faults.items()]


@pytest.fixture(scope="module")
def validity(pytestconfig):
    live = [
        f"{o} {v}"
        for o in ("--model", "--summary-model", "--base-url")
        if (v := pytestconfig.getoption(o)) not in (None, "reference")
    ]
    if live:
        pytest.skip(
            f"the validity matrix proves the evals with the offline reference models; it does not use {', '.join(live)}: "
            "run `pytest evals/ -m validity` without them"
        )
    result = run_validity(seeds=10, progress=lambda _: None)
    runs_dir = pytestconfig.getoption("--runs-dir")
    write_validity(result, f"{runs_dir}/{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-validity")
    return result


@pytest.mark.parametrize(("eval_name", "fault", "check"), GUARDED, ids=[f"{e}-{f}" for e, f, _ in GUARDED])
def test_eval_catches_the_fault_by_the_check_its_entry_names(validity, eval_name, fault, check):
    runs = [r for r in validity.runs if r["eval"] == eval_name and r["fault"] == fault]
    assert runs, f"{fault} was never injected into {eval_name}"
    caught = [r for r in runs if check in r["failed"]]
    assert caught, (
        f"{eval_name} did not catch {fault} ({SEEDED_FAULTS[fault].description}) by {check}; "
        f"failed: {[r['failed'] for r in runs]}"
    )


@pytest.mark.parametrize("eval_name", [s.name for s in matrix_suites()])
def test_eval_passes_healthy_runs_over_ten_seeds(validity, eval_name):
    healthy = [r for r in validity.runs if r["eval"] == eval_name and r["fault"] is None]
    assert len({r["seed"] for r in healthy}) >= 10
    alarms = [r for r in healthy if r["failed"]]
    assert not alarms, f"false alarms: {alarms[:2]}"
