"""The boundary eval's generated cases and the row field they use (issue 34): ``system_in_state`` moves a row's system
prompt into the message state as message 0, and a row asking for it without a system prompt is refused naming the
field; a generated case round-trips through its row."""

from __future__ import annotations

import pytest

from harness.errors import DatasetError
from harness.scenarios.boundary import BOUNDARY_CASES, PARALLEL, boundary_scenario
from harness.scenarios.generate import generated_case
from harness.scenarios.schema import _scenario, scenario_row, validate_row
from harness.task_format import parse_steps


def test_the_system_case_holds_its_prompt_in_the_state_not_in_the_agents_system_prompt():
    case = generated_case("boundary-system")
    assert case.system_in_state and case.system_prompt and case.agent_system_prompt() is None
    assert _scenario(scenario_row(case), case.source) == case  # the field survives the row a run keeps in scenarios.jsonl


def test_the_parallel_case_has_one_parallel_step_of_the_documents_the_keep_cannot_hold():
    case = generated_case("boundary-parallel")
    parallel = [s for s in parse_steps(case.task) if s.mode == "parallel"]
    assert len(parallel) == 1 and len(parallel[0].targets) == PARALLEL and not case.system_in_state
    assert [e.target for e in case.expected_steps] == [d for d, _ in case.documents]


@pytest.mark.parametrize("case_id", BOUNDARY_CASES)
def test_each_row_is_valid_data(case_id):
    validate_row(boundary_scenario(case_id, 7), "generated", None)


def test_system_in_state_without_a_system_prompt_is_refused_naming_the_field():
    row = boundary_scenario("boundary-parallel", 7)
    with pytest.raises(DatasetError) as info:
        validate_row({**row, "system_in_state": True}, "datasets/x.jsonl", 3)
    assert info.value.field == "system_in_state" and "no system_prompt" in str(info.value)
