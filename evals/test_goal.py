"""Goal preservation: after every summary the agent keeps working on its task.

Each case is a long multi-step task that spans several summaries. After each summary
the next action must be a step of the task (no request for clarification, no
premature "done"), and every expected step must be done by the end.
"""

import pytest

pytestmark = pytest.mark.goal


@pytest.mark.langsmith
def test_goal_kept_across_summaries(goal_case, eval_session):
    result = eval_session.run(goal_case)
    result.require("run_completed")
    result.require("structure_ok")  # tool calls paired, summary at the head, system prompt intact
    result.require("compressed")  # no summary: the case is invalid, not passed
    result.require("goal_continued_after_summary")
    result.require("goal_no_clarification")
    result.require("goal_no_premature_completion")
    assert result.scores["goal_steps_completed"].value == 1.0, result.scores["goal_steps_completed"].explanation
