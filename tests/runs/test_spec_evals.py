"""A spec's ``evals:`` (`harness.runs.spec`, `harness.runs.grid`): validated against the registry, each eval's cases
become cells that run through `harness.suites.execute`, and a cell the executor does not run is listed with its
reason (not_run.jsonl, the report), never dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agent import preflight
from harness.errors import ConfigError
from harness.report.evals_report import eval_outcomes, outcome_text
from harness.runs import grid
from harness.runs.results import read_not_run
from harness.runs.spec import load_spec
from harness.suites import execute
from harness.suites.execute import NotRun


def _spec(tmp_path: Path, evals: str, extra: str = "") -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(f"variants: [deepagents-default]\nthresholds: [25%]\nevals: {evals}\n{extra}")
    return path


@pytest.mark.parametrize(
    ("evals", "extra", "match"),
    [
        ("[needle, nope]", "", r"s.yaml: evals\[1\]: no eval 'nope'; known: needle, goal, .*blobs"),
        ("needle", "", r"s.yaml: evals: a non-empty list of eval names; known: needle"),
        ("[]", "", r"s.yaml: evals: a non-empty list"),
        ("[goal, goal]", "", r"s.yaml: evals: names an eval twice"),
        ("[goal]", "scenarios: {datasets: [x.jsonl]}\n", r"scenarios.datasets: an eval runs its own cases"),
    ],
)
def test_a_bad_evals_list_is_refused_naming_the_file_and_key(tmp_path, evals, extra, match):
    with pytest.raises(ConfigError, match=match):
        load_spec(_spec(tmp_path, evals, extra))


def test_an_unknown_eval_exits_2_naming_the_known_ones(tmp_path, capsys):
    from harness.cli.main import EXIT_BAD_INPUT, main

    out = tmp_path / "out"
    assert main(["experiment", "run", str(_spec(tmp_path, "[needle, nope]")), "--out", str(out), "--no-langsmith"]) == 2
    assert EXIT_BAD_INPUT == 2
    err = capsys.readouterr().err
    assert "no eval 'nope'; known: needle, goal" in err and "Traceback" not in err
    assert not out.exists()


def test_each_evals_cases_filtered_by_scenarios_become_cells_named_by_the_eval(tmp_path):
    spec = load_spec(_spec(tmp_path, "[needle, history]", "scenarios: {cases: [needle-h24k-d000, goal-*]}\n"))
    pairs = [(name, s.id) for name, s in grid.spec_eval_cases(spec)]
    assert pairs == [("needle", "needle-h24k-d000"), ("history", "goal-ledgers-12"), ("history", "needle-h24k-d000")]
    cells = grid.plan_cells(spec, grid.spec_scenarios(spec))
    assert [c.id for c in cells] == [
        "deepagents-default|25%|needle:needle-h24k-d000|t0",
        "deepagents-default|25%|history:goal-ledgers-12|t0",
        "deepagents-default|25%|history:needle-h24k-d000|t0",
    ]
    assert len({c.file_stem for c in cells}) == 3  # one case as two evals: two traces
    plain = grid.Cell("a", "25%", "c", 0)  # a cell without an eval keeps the id shipped specs' results have
    assert plain.id == "a|25%|c|t0"


def test_an_eval_that_does_not_apply_to_a_strategy_is_left_out_with_the_reason(tmp_path):
    spec = load_spec(
        _spec(tmp_path, "[todos]", "strategies: [deepagents-summarization, observation-masking]\nscenarios: {cases: [todos-*]}\n")
    )
    cells = grid.plan_cells(spec, grid.spec_scenarios(spec))
    assert [c.arm for c in cells] == ["deepagents-summarization"]
    (left,) = grid.not_applicable(spec, grid.spec_scenarios(spec))
    assert (left["arm"], left["eval"], left["case_id"]) == ("observation-masking", "todos", "todos-ledgers-08")


def test_a_cell_the_executor_does_not_run_is_a_not_run_record_with_the_reason(tmp_path, monkeypatch):
    spec = load_spec(_spec(tmp_path, "[blobs]"))

    def refuse(name, scenario, settings, **kwargs):
        raise NotRun(f"eval {name}: deepagents 0.7.6 has no offload_binary_content")

    monkeypatch.setattr(execute, "run_eval_case", refuse)
    cell = grid.plan_cells(spec, grid.spec_scenarios(spec))[0]
    got: list = []
    grid.run_cells(spec, grid.spec_scenarios(spec), [(cell, 1)], 1, lambda record, trace: got.append((record, trace)))
    ((record, trace),) = got
    assert trace is None
    assert record["cell_id"] == cell.id == "deepagents-default|25%|blobs:media-blob-recovery|t0"
    assert record["not_run"] == "eval blobs: deepagents 0.7.6 has no offload_binary_content"
    assert record["packages"]["deepagents"]  # a version arm's parent checks them as it checks rows


def test_not_run_cells_are_listed_in_the_directory_and_count_as_done_on_resume(tmp_path, monkeypatch):
    spec = load_spec(_spec(tmp_path, "[blobs]"))
    calls = []

    def refuse(name, scenario, settings, **kwargs):
        calls.append(scenario.id)
        raise NotRun("no blob store here")

    monkeypatch.setattr(execute, "run_eval_case", refuse)
    monkeypatch.setattr(preflight, "fixed_overhead_tokens", lambda config, scenarios, agent=None: 1000)
    lines: list[str] = []
    run = grid.run_experiment(spec, out_dir=tmp_path / "out", progress=lines.append)
    (listed,) = read_not_run(run.path)
    assert (listed["eval"], listed["case_id"], listed["not_run"]) == ("blobs", "media-blob-recovery", "no blob store here")
    assert run.rows == [] and any(line.startswith("not run: ") for line in lines)
    again = grid.run_experiment(spec, out_dir=tmp_path / "out", progress=lines.append)
    assert calls == ["media-blob-recovery"] and again.ran == 0  # decided once, not asked again
    assert "1 already done, 0 to run" in lines[-1]


def test_the_eval_table_counts_outcomes_and_lists_not_run_cells_with_their_reason():
    assert outcome_text(["PASS", "PASS"], []) == "PASS 2/2"
    assert outcome_text(["PASS", "KNOWN_UPSTREAM"], []) == "PASS 1/2, KNOWN_UPSTREAM 1/2"
    assert outcome_text([], ["no X", "no X"]) == "not run 2/2: no X"
    assert outcome_text([], []) == "-"
    rows = [{"eval": "parity", "arm": "new", "outcome": "KNOWN_UPSTREAM", "outcome_keys": ["k"]}]
    not_run = [{"eval": "blobs", "arm": "old", "not_run": "no X"}]
    table = eval_outcomes(rows, not_run, ["new", "old"], ["parity", "blobs"])
    assert table.to_dict("records") == [
        {"eval": "parity", "new": "KNOWN_UPSTREAM 1/1", "old": "-"},
        {"eval": "blobs", "new": "-", "old": "not run 1/1: no X"},
    ]
