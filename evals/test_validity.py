"""Eval validity: every eval fails under the seeded fault it guards, and never on a healthy run.

The matrix runs once per session (about three minutes offline: 8 evals x 12 faults, 130 healthy runs) and is written to
reports/runs/<time>-validity/ with a report showing the detection matrix (eval x fault).
"""

from datetime import UTC, datetime

import pytest

from harness.suites.validity import EVALS, FAULTS, expected, run_validity, write_validity

pytestmark = pytest.mark.validity
GUARDED = [(e, f) for e in EVALS for f in FAULTS if expected(e, FAULTS[f])]


@pytest.fixture(scope="module")
def validity(pytestconfig):
    result = run_validity(seeds=10, progress=lambda _: None)
    runs_dir = pytestconfig.getoption("--runs-dir")
    write_validity(result, f"{runs_dir}/{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-validity")
    return result


@pytest.mark.parametrize(("eval_name", "fault"), GUARDED, ids=[f"{e}-{f}" for e, f in GUARDED])
def test_eval_detects_the_fault_it_guards(validity, eval_name, fault):
    runs = [r for r in validity.runs if r["eval"] == eval_name and r["fault"] == fault]
    assert runs and any(r["failed"] for r in runs), f"{eval_name} passed with {fault} injected: {FAULTS[fault].description}"


@pytest.mark.parametrize("eval_name", list(EVALS))
def test_eval_passes_healthy_runs_over_ten_seeds(validity, eval_name):
    healthy = [r for r in validity.runs if r["eval"] == eval_name and r["fault"] is None]
    assert len({r["seed"] for r in healthy}) >= 10
    alarms = [r for r in healthy if r["failed"]]
    assert not alarms, f"false alarms: {alarms[:2]}"
