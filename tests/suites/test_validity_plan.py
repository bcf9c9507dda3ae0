"""Which runs the validity matrix makes: CI's subset (the faults each eval names) and the whole matrix (nightly).

CI's subset must still prove every eval against every fault its entry names, with healthy runs over several seeds;
the report shows the cells it did not run as 'not run', never as a miss or a pass.
"""

from __future__ import annotations

from harness.report.validity_report import ValidityResult, matrix_table
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import matrix_suites
from harness.suites.validity import validity_plan


def _cells(plan) -> dict[str, set[str]]:
    """eval -> the faults it runs under."""
    cells: dict[str, set[str]] = {}
    for spec, _, _, fault in plan:
        cells.setdefault(spec.name, set())
        if fault is not None:
            cells[spec.name].add(fault.name)
    return cells


def _healthy_seeds(plan, eval_name: str) -> set[int]:
    return {seed for spec, _, seed, fault in plan if spec.name == eval_name and fault is None}


def test_the_ci_subset_runs_every_eval_under_exactly_the_faults_it_names_and_healthy_over_the_seeds():
    suites = matrix_suites()
    plan = validity_plan(suites, 3, named_faults_only=True)
    assert _cells(plan) == {s.name: set(s.faults) for s in suites}
    for spec in suites:
        assert spec.faults, f"{spec.name} names no fault: the subset would prove nothing against a fault"
        assert _healthy_seeds(plan, spec.name) == {0, 1, 2}
        for fault in spec.faults:  # every matrix case under each fault it names
            assert {c for s, c, _, f in plan if s is spec and f is not None and f.name == fault} == set(spec.matrix_cases)
    assert len(plan) < len(validity_plan(suites, 10)) / 4


def test_the_whole_matrix_runs_every_eval_under_every_fault_over_ten_seeds_in_the_order_harness_validity_writes():
    suites = matrix_suites()
    plan = validity_plan(suites, 10)
    assert _cells(plan) == {s.name: set(SEEDED_FAULTS) for s in suites}
    assert all(_healthy_seeds(plan, s.name) == set(range(10)) for s in suites)
    healthy = [entry for entry in plan if entry[3] is None]
    assert plan[: len(healthy)] == healthy  # healthy runs first, then fault by fault
    faults = [f.name for *_, f in plan[len(healthy) :]]
    assert list(dict.fromkeys(faults)) == list(SEEDED_FAULTS)


def test_the_subset_check_fails_on_a_plan_that_drops_a_named_fault_or_runs_every_fault():
    suites = matrix_suites()
    named = {s.name: set(s.faults) for s in suites}
    plan = validity_plan(suites, 3, named_faults_only=True)
    first = suites[0]
    dropped = [e for e in plan if not (e[0] is first and e[3] is not None and e[3].name == next(iter(first.faults)))]
    assert _cells(dropped) != named
    assert _cells(validity_plan(suites, 3)) != named


def _run(eval_name: str, fault: str | None, failed: list[str]) -> dict:
    return {"eval": eval_name, "case_id": "c", "seed": 0, "fault": fault, "failed": failed, "explanations": {}}


def test_the_report_says_not_run_for_a_cell_the_subset_skipped_and_judges_the_cells_it_ran():
    spec = next(s for s in matrix_suites() if s.name == "needle")
    named, check = next(iter(spec.faults.items()))
    other = next(f for f in SEEDED_FAULTS if f not in spec.faults)
    goal = next(s for s in matrix_suites() if s.name == "goal")
    goal_fault = next(f for f in goal.faults if f not in spec.faults)
    runs = [_run("needle", None, []), _run("needle", named, [check]), _run("goal", goal_fault, [goal.faults[goal_fault]])]
    table = matrix_table(ValidityResult.from_runs(runs, 1)).set_index("eval")
    assert table.loc["needle", named] == "DETECTED"
    assert table.loc["needle", goal_fault] == "not run"  # the column exists (goal ran it), needle never did
    missed = matrix_table(ValidityResult.from_runs([_run("needle", named, []), *runs[2:]], 1)).set_index("eval")
    assert missed.loc["needle", named] == "missed"
    ran_other = [*runs, _run("needle", other, [])]
    assert matrix_table(ValidityResult.from_runs(ran_other, 1)).set_index("eval").loc["needle", other] == "-"
