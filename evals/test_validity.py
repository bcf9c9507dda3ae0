"""Eval validity: every eval catches each seeded fault its registry entry names, by the check it names, and never on a healthy run.

One test per eval, so pytest-xdist deals the evals to its workers and no worker computes another's runs again. By
default (CI, `make test`) each eval runs healthy over 3 seeds and under each fault its entry names: everything the test
asserts, in 168 runs. With ``--validity-full`` (`make test-validity-full`, the nightly
workflow) it is the whole matrix: healthy over 10 seeds and every eval under all the seeded faults (1,457 runs),
the same assertion. Each session writes the part it computed to reports/runs/<time>-validity[-<worker>]/ with a report
showing the detection matrix (eval x fault).
"""

import os
from datetime import UTC, datetime

import pytest

from harness.report.validity_report import write_validity
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import SUITES, matrix_suites
from harness.suites.validity import ValidityResult, run_validity

pytestmark = pytest.mark.validity
SEEDS = 10  # healthy seeds of the full matrix (--validity-full), as `harness validity`
CI_SEEDS = 3  # healthy seeds by default, with only the faults each eval names
EVALS = [s.name for s in matrix_suites()]


@pytest.fixture(scope="session")
def full_matrix(pytestconfig) -> bool:
    """--validity-full: every seeded fault and ten healthy seeds; otherwise the faults each eval names, three seeds."""
    return bool(pytestconfig.getoption("--validity-full"))


@pytest.fixture(scope="session")
def seeds(full_matrix) -> int:
    return SEEDS if full_matrix else CI_SEEDS


@pytest.fixture(scope="session")
def validity(pytestconfig, full_matrix, seeds, live_options):
    """``validity(eval_name)``: that eval's runs, healthy over ``seeds`` seeds and under the seeded faults (those its
    entry names, or all with --validity-full)."""
    live = live_options
    if live:
        pytest.skip(
            f"the validity matrix proves the evals with the offline reference models; it does not use {', '.join(live)}: "
            "run `pytest evals/ -m validity` without them"
        )
    computed: dict[str, ValidityResult] = {}

    def of(eval_name: str) -> ValidityResult:
        computed[eval_name] = run_validity(
            seeds=seeds, evals=[eval_name], progress=lambda _: None, named_faults_only=not full_matrix
        )
        return computed[eval_name]

    yield of
    if computed:
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        merged = ValidityResult.from_runs([r for result in computed.values() for r in result.runs], seeds)
        write_validity(merged, f"{pytestconfig.getoption('--runs-dir')}/{stamp}-validity{f'-{worker}' if worker else ''}")


@pytest.mark.parametrize("eval_name", EVALS)
def test_eval_catches_every_fault_its_entry_names_by_that_check_and_passes_healthy_runs(validity, seeds, eval_name):
    runs = validity(eval_name).runs
    problems = []
    for fault, check in SUITES[eval_name].faults.items():
        injected = [r for r in runs if r["fault"] == fault]
        if not injected:
            problems.append(f"{fault} was never injected")
        elif not any(check in r["failed"] for r in injected):
            failed = [r["failed"] for r in injected]
            problems.append(f"did not catch {fault} ({SEEDED_FAULTS[fault].description}) by {check}; failed: {failed}")
    healthy = [r for r in runs if r["fault"] is None]
    if len({r["seed"] for r in healthy}) < seeds:
        problems.append(f"healthy runs over {len({r['seed'] for r in healthy})} seeds, not {seeds}")
    problems += [f"false alarm on a healthy run: {r}" for r in healthy if r["failed"]][:2]
    assert not problems, f"{eval_name}: " + "; ".join(problems)
