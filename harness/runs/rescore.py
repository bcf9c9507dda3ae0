"""Scoring stored traces again, without re-running the agent.

Running and scoring are separate: a new or fixed scorer is applied to the traces of
an old run. Each row is scored with the scorer set recorded in it (mechanism evals have
their own), against the scenario the run used: the run's own scenarios.jsonl for cases
generated in memory, else the dataset files. The original results.jsonl is left
untouched; the new rows go to ``rescored.jsonl`` beside it.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import HarnessError
from harness.rows import ResultRow
from harness.runs.results import SCENARIOS_FILE, append_row, read_rows, result_row
from harness.scenarios.schema import Scenario, all_scenario_files, load_scenarios
from harness.scoring.scorers import score_case, scorer_sets
from harness.trace.schema import load_trace


def run_scenarios(run_dir: Path, datasets: list[str] | None = None) -> dict[str, Scenario]:
    """The scenarios a run used, by id: the run's own scenarios.jsonl (cases generated in memory) over the dataset
    files (``datasets``, default the shipped ones)."""
    scenarios = {s.id: s for s in load_scenarios(datasets or all_scenario_files())}
    kept = run_dir / SCENARIOS_FILE
    if kept.exists():
        scenarios.update({s.id: s for s in load_scenarios([kept])})
    return scenarios


def rescore(run_dir: Path, datasets: list[str] | None = None) -> list[ResultRow]:
    """Score every row of ``run_dir``'s results.jsonl again from its trace, into rescored.jsonl beside it (the rows
    with their scores, outcome and explanations replaced); returns the new rows."""
    results = run_dir / "results.jsonl"
    if not results.exists():
        raise HarnessError(f"{run_dir}: no results.jsonl to re-score")
    scenarios = run_scenarios(run_dir, datasets)
    out = run_dir / "rescored.jsonl"
    tmp = out.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    rows: list[ResultRow] = []
    try:
        for old in read_rows(results):
            rows.append(_rescored(run_dir, old, scenarios))
            append_row(tmp, rows[-1])
    except BaseException:
        tmp.unlink(missing_ok=True)  # nothing written when a row or trace is bad: an earlier rescored.jsonl stays
        raise
    tmp.replace(out)
    return rows


def _rescored(run_dir: Path, old: ResultRow, scenarios: dict[str, Scenario]) -> ResultRow:
    """One row of a run scored again from its trace; a HarnessError naming the case for a missing scenario, a damaged
    trace or an unknown scorer set."""
    scenario = scenarios.get(old["case_id"])
    if scenario is None:
        raise HarnessError(f"{run_dir}: case {old['case_id']!r} is not in the scenario files; pass --datasets")
    try:
        trace = load_trace(run_dir / old["trace"])
    except HarnessError as exc:
        raise HarnessError(f"{run_dir}: case {old['case_id']!r}: {exc}") from None
    scorers = old.get("scorers", "default")
    if scorers not in scorer_sets():
        raise HarnessError(f"{run_dir}: case {old['case_id']!r} was scored by an unknown scorer set {scorers!r}")
    scores = score_case(trace, scenario, scorers)
    new = result_row(trace, scores, trace_file=old["trace"], scenario=scenario, scorers=scorers, eval_name=old.get("eval"))
    return {**old, **new}
