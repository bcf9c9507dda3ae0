"""The reference agent and a step whose call keeps failing (a file a replayed session's filesystem does not hold): it
tries the step again once, then stops and says which step failed and why, in that turn and in every later one, rather
than call it again until LangGraph's recursion limit (the served replay of the shipped session, 2026-11-29)."""

from langchain_core.messages import HumanMessage, ToolMessage

from harness.reference.policy import GIVE_UP_AFTER, decide
from harness.reference.view import ReplyAction, ToolAction
from harness.task_format import Step, render_task
from tests._messages import call

STEPS = [Step(1, "read_file", "/l/a.md"), Step(2, "read_file", "/l/b.md"), Step(3, "reply")]
TASK = render_task("Audit the ledgers.", STEPS)
READ_B = ToolAction("read_file", {"file_path": "/l/b.md"})
MISSING = "Error: File '/l/b.md' not found"


def _failed_reads(n: int, status: str = "error") -> list:
    out = []
    for k in range(n):
        ai, _ = call("read_file", {"file_path": "/l/b.md"}, MISSING, f"rb{k}")
        out += [ai, ToolMessage(MISSING, tool_call_id=f"rb{k}", status=status)]
    return out


def _done_a() -> list:
    return call("read_file", {"file_path": "/l/a.md"}, "ledger a", "ra")


def test_a_failed_step_is_tried_once_more():
    assert GIVE_UP_AFTER == 2
    assert decide([HumanMessage(TASK), *_done_a(), *_failed_reads(1)]) == READ_B


def test_after_its_second_failure_the_agent_stops_naming_the_step_and_the_error():
    action = decide([HumanMessage(TASK), *_done_a(), *_failed_reads(GIVE_UP_AFTER)])
    assert isinstance(action, ReplyAction)
    assert "step 2 (read_file /l/b.md)" in action.text and MISSING in action.text and "stopping" in action.text


def test_a_later_question_it_cannot_parse_gets_the_same_stop_not_another_call():
    # the served replay's probe turn: a prose question, the plan still in view, the step's failures before it
    seen = [HumanMessage(TASK), *_done_a(), *_failed_reads(GIVE_UP_AFTER), HumanMessage("Whose ledgers are these?")]
    assert isinstance(decide(seen), ReplyAction)


def test_failures_read_from_the_text_alone_stop_it_too():
    # over OpenAI's wire a tool result carries no status: the served agent reads "Error: ..." from the text
    assert isinstance(decide([HumanMessage(TASK), *_done_a(), *_failed_reads(GIVE_UP_AFTER, status="success")]), ReplyAction)


def test_failures_of_another_target_do_not_stop_a_step():
    other = []
    for k in range(GIVE_UP_AFTER):
        other += call("read_file", {"file_path": "/l/z.md"}, "Error: File '/l/z.md' not found", f"rz{k}")
    assert decide([HumanMessage(TASK), *_done_a(), *other]) == READ_B
