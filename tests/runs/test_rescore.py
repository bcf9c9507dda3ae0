"""`harness score`: a stored run scored again, row by row, with the scorer set and scenario each row ran with."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.runs.rescore import rescore
from harness.runs.results import append_jsonl, append_row, read_rows, result_row
from harness.scenarios.schema import all_scenario_files, load_scenarios, scenario_row
from harness.scoring.scorers import score_case
from tests._traces import HISTORY, Conversation

NEEDLE = next(s for s in load_scenarios(all_scenario_files()) if s.kind == "needle")
ANSWER = NEEDLE.needles[0].answer


def needle_trace(case_id: str, answer: str):
    conv = Conversation()
    conv.user(NEEDLE.task)
    conv.agent(tools=[("read_file", {"file_path": "/doc.txt"}, f"... {ANSWER} ...")])
    conv.summarize("The archive review is under way: documents read so far were filed, the rest are next. " * 3)
    conv.answer("Reviewed the documents.")
    conv.user(NEEDLE.followups[0])
    conv.agent(tools=[("read_file", {"file_path": HISTORY}, f"... {ANSWER} ...")])
    conv.answer(answer)
    return conv.trace(case_id, "needle")


def stored_run(tmp_path: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A run directory: (case id, answer, scorer set) per row, each row scored as the run scored it."""
    run = tmp_path / "run"
    for i, (case_id, answer, scorers) in enumerate(rows):
        trace = needle_trace(case_id, answer)
        name = f"traces/t{i}.json.gz"
        trace.save(run / name)
        scenario = replace(NEEDLE, id=case_id)
        row = result_row(trace, score_case(trace, scenario, scorers), trace_file=name, scenario=scenario, scorers=scorers)
        append_row(run / "results.jsonl", {**row, "scores": {"stale": 1}, "kept": i})
    return run


def test_each_row_is_scored_again_from_its_trace_and_keeps_the_rest_of_the_row(tmp_path):
    run = stored_run(tmp_path, [(NEEDLE.id, f"It is {ANSWER}.", "default"), (NEEDLE.id, "I don't know.", "eviction")])
    before = (run / "results.jsonl").read_text()
    rows = rescore(run)
    assert [r["kept"] for r in rows] == [0, 1]  # fields the scorers do not write are carried over
    assert [r["trace"] for r in rows] == ["traces/t0.json.gz", "traces/t1.json.gz"]
    assert rows[0]["case"] == {"haystack_tokens": NEEDLE.haystack_tokens, "needle_depth": NEEDLE.needle_depth}
    assert [r["scorers"] for r in rows] == ["default", "eviction"]
    for row, (answer, scorers) in zip(rows, [(f"It is {ANSWER}.", "default"), ("I don't know.", "eviction")]):
        fresh = score_case(needle_trace(NEEDLE.id, answer), NEEDLE, scorers)
        assert row["scores"] == {s.key: s.value for s in fresh}
    assert rows[0]["scores"]["needle_correct"] and "evicted" in rows[1]["scores"] and "evicted" not in rows[0]["scores"]
    assert read_rows(run / "rescored.jsonl") == rows
    assert (run / "results.jsonl").read_text() == before  # the original rows are left untouched
    assert not (run / "rescored.tmp").exists()


def test_a_row_keeps_the_eval_it_ran_as(tmp_path):
    run = stored_run(tmp_path, [(NEEDLE.id, ANSWER, "default")])
    row = json.loads((run / "results.jsonl").read_text())
    (run / "results.jsonl").write_text(json.dumps({**row, "eval": "needle-long"}) + "\n")
    assert rescore(run)[0]["eval"] == "needle-long"


def test_a_row_without_a_recorded_scorer_set_is_scored_by_the_default_set(tmp_path):
    run = stored_run(tmp_path, [(NEEDLE.id, ANSWER, "default")])
    row = json.loads((run / "results.jsonl").read_text())
    del row["scorers"]
    (run / "results.jsonl").write_text(json.dumps(row) + "\n")
    [new] = rescore(run)
    assert new["scorers"] == "default" and new["scores"]["needle_correct"]


def test_a_stale_partial_output_from_an_interrupted_rescore_is_discarded(tmp_path):
    run = stored_run(tmp_path, [(NEEDLE.id, ANSWER, "default")])
    (run / "rescored.tmp").write_text('{"case_id": "left over"}\n')
    rows = rescore(run)
    assert [r["case_id"] for r in read_rows(run / "rescored.jsonl")] == [NEEDLE.id] == [r["case_id"] for r in rows]
    assert sorted(p.name for p in run.iterdir()) == ["rescored.jsonl", "results.jsonl", "traces"]


def test_a_case_kept_with_the_run_is_scored_against_the_kept_scenario(tmp_path):
    kept = replace(NEEDLE, id="generated-1")
    run = stored_run(tmp_path, [("generated-1", ANSWER, "default")])
    with pytest.raises(HarnessError, match=r"case 'generated-1' is not in the scenario files; pass --datasets"):
        rescore(run)
    append_jsonl(run / "scenarios.jsonl", scenario_row(kept))  # a scenario row, not a result row
    assert rescore(run)[0]["scores"]["needle_correct"]


def test_the_datasets_given_replace_the_shipped_ones(tmp_path):
    run = stored_run(tmp_path, [(NEEDLE.id, ANSWER, "default")])
    goal_only = [f for f in all_scenario_files() if f.name == "goal.jsonl"]
    with pytest.raises(HarnessError, match=f"case '{NEEDLE.id}' is not in the scenario files"):
        rescore(run, goal_only)
    assert rescore(run, [f for f in all_scenario_files() if f.name == "needle.jsonl"])[0]["case_id"] == NEEDLE.id


def test_a_run_without_results_or_with_an_unknown_scorer_set_is_refused_naming_it(tmp_path):
    with pytest.raises(HarnessError, match=f"^{tmp_path}: no results.jsonl to re-score$"):
        rescore(tmp_path)
    run = stored_run(tmp_path, [(NEEDLE.id, ANSWER, "default")])
    row = json.loads((run / "results.jsonl").read_text())
    (run / "results.jsonl").write_text(json.dumps({**row, "scorers": "nope"}) + "\n")
    with pytest.raises(HarnessError, match=f"case '{NEEDLE.id}' was scored by an unknown scorer set 'nope'"):
        rescore(run)
    assert not (run / "rescored.jsonl").exists()
