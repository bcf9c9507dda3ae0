"""Goal preservation: after every summary the agent keeps working on its task.

Each case is a long multi-step task that spans several summaries. After each summary
the next action must be a step of the task (no request for clarification, no
premature "done"), and every expected step must be done by the end.
"""

import pytest

pytestmark = pytest.mark.goal


@pytest.mark.langsmith
def test_goal_kept_across_summaries(case, eval_session):
    result = eval_session.run_eval("goal", case)
    # Validity first (compacted), then: the next action after each summary was a task step, no
    # clarification request, no premature stop, every expected step done: harness.suites.registry.SUITES["goal"].
    result.require_eval("goal")
