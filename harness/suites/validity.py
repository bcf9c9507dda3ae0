"""Eval validity: every eval catches the faults it must catch, by the check it names, and passes when healthy.

For each eval in the registry with matrix cases, the cases run healthy over many seeds and
once under every seeded fault. A fault the eval's entry names is *detected* only when the
check the entry names for it fails (not merely any check); a fault it does not name is
shown as detected when any asserted check fails. ``harness validity`` writes
``validity.json`` and its report (``report/validity_report.py``, which renders its `suites.matrix.ValidityResult`); ``pytest -m validity``
asserts it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from harness.scenarios.generate import generated_case
from harness.suites.eval_suite import EvalSuite
from harness.suites.execute import Settings, run_eval_case, shipped_scenarios
from harness.suites.faults import SEEDED_FAULTS, SeededFault
from harness.suites.matrix import ValidityResult
from harness.suites.registry import matrix_suites

__all__ = ["ValidityResult", "run_validity", "validity_plan"]


def _run(spec: EvalSuite, scenario, seed: int, fault: SeededFault | None) -> dict[str, Any]:
    """One matrix run: the case run as the eval runs it (`harness.runs.executor.run_eval_case`, offline, the default
    preset's session, ``seed``), with ``fault`` injected; which of the eval's required keys failed."""
    result = run_eval_case(spec.name, scenario, Settings.offline(seed=seed), fault=fault)
    failed = [k for k in spec.required if k in result.scores and not result.scores[k].value]
    return {
        "eval": spec.name,
        "case_id": scenario.id,
        "seed": seed,
        "fault": fault.name if fault else None,
        "failed": failed,
        "explanations": {k: result.scores[k].explanation for k in failed},
    }


def _case(spec: EvalSuite, scenarios: dict, case_id: str, seed: int):  # noqa: ANN202
    if case_id not in scenarios:
        scenarios[case_id] = generated_case(case_id)
    if not spec.vary_documents or seed == 0:
        return scenarios[case_id]
    from harness.scenarios.generate import regenerate_truncation_case
    from harness.scenarios.schema import _scenario

    return _scenario(
        regenerate_truncation_case(case_id, seed), f"harness.scenarios.generate.regenerate_truncation_case (seed {seed})"
    )


def validity_plan(
    suites: Sequence[EvalSuite], seeds: int, *, named_faults_only: bool = False
) -> list[tuple[EvalSuite, str, int, SeededFault | None]]:
    """The runs of the matrix, in order: (eval, case, seed, fault or None for healthy). Each eval's cases healthy over
    ``seeds`` seeds, then under every seeded fault at seed 0, or with ``named_faults_only`` under the faults its entry
    names (all that `pytest -m validity` asserts; the other cells only fill in the report's matrix)."""
    plan: list[tuple[EvalSuite, str, int, SeededFault | None]] = [
        (spec, case, seed, None) for spec in suites for seed in range(seeds) for case in spec.matrix_cases
    ]
    for fault in SEEDED_FAULTS.values():
        plan += [
            (spec, case, 0, fault)
            for spec in suites
            if not named_faults_only or fault.name in spec.faults
            for case in spec.matrix_cases
        ]
    return plan


def _step(entry: tuple[EvalSuite, str, int, SeededFault | None], seeds: int) -> str:
    """The progress line's group of a plan entry: one eval's healthy runs, or one fault's runs."""
    spec, _, _, fault = entry
    return f"{spec.name} healthy over {seeds} seeds" if fault is None else f"fault {fault.name}"


def run_validity(
    *,
    seeds: int = 10,
    progress: Callable[[str], None] = print,
    evals: Sequence[str] | None = None,
    named_faults_only: bool = False,
) -> ValidityResult:
    """Every matrix eval (or those named in ``evals``) healthy over ``seeds`` seeds, then under every seeded fault
    (seed 0), or only the faults each eval's entry names (``validity_plan``). The evals' runs are independent: the
    matrix of several evals is the union of theirs."""
    suites = [s for s in matrix_suites() if evals is None or s.name in evals]
    unknown = sorted(set(evals or ()) - {s.name for s in matrix_suites()})
    if unknown:
        raise KeyError(f"no eval {unknown[0]!r} in the validity matrix; it has {', '.join(s.name for s in matrix_suites())}")
    scenarios = {s.id: s for s in shipped_scenarios()}
    runs: list[dict[str, Any]] = []
    started = time.perf_counter()
    plan = validity_plan(suites, seeds, named_faults_only=named_faults_only)
    for i, (spec, case, seed, fault) in enumerate(plan):
        runs.append(_run(spec, _case(spec, scenarios, case, seed), seed, fault))
        if i + 1 == len(plan) or _step(plan[i + 1], seeds) != _step(plan[i], seeds):
            progress(f"validity: {_step(plan[i], seeds)} ({time.perf_counter() - started:.0f}s)")
    return ValidityResult.from_runs(runs, seeds)
