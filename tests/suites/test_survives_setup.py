"""The survives eval runs on its own agent assembly (the memory file and skill it audits); a session's own --agent is
listed as not run for it, with the reason, and still runs every other eval."""

import pytest

from harness.suites.execute import NotRun, Settings, find_case, prepared

pytestmark = pytest.mark.slow  # loads the shipped scenarios (2.8 s in pytest --durations on a 2-core machine)

OWN = "harness.scenarios.survives:assembly"


def test_the_eval_runs_its_cases_on_its_own_assembly():
    _, _, _, kwargs = prepared("survives", find_case("survives-ledgers-08"), Settings.offline(), None)
    assert kwargs["agent"] == OWN


def test_a_sessions_own_agent_is_not_run_for_it_and_is_for_the_others():
    mine = Settings(**{**Settings.offline().__dict__, "agent": "examples.my_agent.agent:make"})
    with pytest.raises(NotRun, match="runs on its own agent assembly"):
        prepared("survives", find_case("survives-ledgers-08"), mine, None)
    _, _, _, kwargs = prepared("todos", find_case("todos-ledgers-08"), mine, None)
    assert kwargs["agent"] == "examples.my_agent.agent:make"
