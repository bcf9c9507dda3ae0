"""Todo survival (deepagents#4161, #4164): the agent keeps its plan with write_todos (LangChain's TodoListMiddleware,
which deepagents 0.7.32 does not add by default) while summaries fire. After every summary the current list must
reach the model (in the summary or a write_todos call still in the request), and the final state's todo list must
hold every item of the plan, completed, none set back."""

import pytest

pytestmark = pytest.mark.todos


@pytest.mark.langsmith
def test_the_todo_list_reaches_the_model_after_every_summary_and_is_finished(case, eval_session):
    result = eval_session.run_eval("todos", case)
    # Validity first (compacted, todos_planned), then todos_reach_model, todos_continued and the goal checks:
    # harness.suites.registry.SUITES["todos"].
    result.require_eval("todos")
