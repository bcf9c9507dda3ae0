"""The redo eval's case (`harness.scenarios.redo`): a review cut part-way, its finished steps in a recorded prefix that
is a well-formed conversation, its expected steps the ones left, reproducible, and found by id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.scenarios.conversation import load_conversation
from harness.scenarios.generate import generated_case
from harness.scenarios.redo import note, redo_case_id, redo_row
from harness.scenarios.schema import _scenario, scenario_row, validate_row
from harness.suites.eval_suite import REDO_CASE
from harness.task_format import parse_steps


def test_the_prefix_holds_the_finished_steps_and_the_task_the_plan_with_only_the_rest_expected(tmp_path: Path):
    row, prefix = redo_row(6, 3, seed=7)
    assert row["id"] == redo_case_id(6, 3) == "redo-docs-06-cut-03"
    steps = parse_steps(row["task"])
    assert [s.number for s in steps] == list(range(1, 14))  # 6 fetches, 6 notes, the reply
    assert row["expected_steps"] == [{"tool": s.tool, "target": s.target} for s in steps[6:]]
    calls = [m["tool_calls"][0]["function"] for m in prefix if m.get("tool_calls")]
    assert [(c["name"], json.loads(c["arguments"]).get("doc_id") or json.loads(c["arguments"])["file_path"]) for c in calls] == [
        (s.tool, s.target) for s in steps[:6]
    ]
    texts = {d["id"]: d["text"] for d in row["documents"]}
    assert json.loads(calls[1]["arguments"])["content"] == note("DOC-001", texts["DOC-001"])
    path = tmp_path / "prefix.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in prefix))
    assert load_conversation(path) == prefix  # every call answered, every message well formed


def test_the_case_is_generated_by_id_the_same_every_time_with_its_prefix():
    case = generated_case(REDO_CASE)
    assert REDO_CASE == "redo-docs-06-cut-04"
    assert case.kind == "goal" and len(case.conversation) == 1 + 2 * 8 + 1
    assert case == generated_case(REDO_CASE)


def test_the_row_kept_with_a_run_is_a_valid_row_that_loads_back_without_the_prefix():
    case = generated_case("redo-docs-04-cut-02")
    row = json.loads(json.dumps(scenario_row(case)))  # as a run's scenarios.jsonl holds it
    validate_row(row, "scenarios.jsonl", 1)  # raises DatasetError naming the field when it is not
    loaded = _scenario(row, "scenarios.jsonl")
    assert loaded.conversation == () and loaded.expected_steps == case.expected_steps


def test_a_cut_that_leaves_nothing_to_do_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        redo_row(3, 3, seed=7)
