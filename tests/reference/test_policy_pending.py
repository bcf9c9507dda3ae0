"""The reference agent and a summary that lists steps as pending ("Step N pending"): it believes the summary about a
step it cannot see done, does the lowest such step next, and never undoes what it sees done (the redo eval's seeded
fault `done-listed-pending` relies on it)."""

from langchain_core.messages import HumanMessage

from harness.reference.policy import decide
from harness.reference.view import ToolAction
from harness.task_format import Step, render_task
from tests._messages import call, summary_message

PATH = "/conversation_history/session_abc.md"
STEPS = [
    Step(1, "fetch_document", "DOC-001"),
    Step(2, "fetch_document", "DOC-002"),
    Step(3, "fetch_document", "DOC-003"),
    Step(4, "fetch_document", "DOC-004"),
    Step(5, "reply"),
]
TASK = render_task("Review the archive.", STEPS)


def _fetched(doc: str) -> list:
    return call("fetch_document", {"doc_id": doc}, f"{doc}: memo.", f"c_{doc.lower()}")


def test_a_summary_saying_steps_are_done_has_the_agent_carry_on_after_them():
    summary = summary_message("- Step 1 done: fetch_document DOC-001\n- Step 2 done: fetch_document DOC-002", PATH)
    assert decide([summary, HumanMessage(TASK)]) == ToolAction("fetch_document", {"doc_id": "DOC-003"})


def test_steps_a_summary_lists_as_pending_are_done_again_from_the_lowest():
    summary = summary_message("- Step 1 pending: fetch_document DOC-001\n- Step 2 pending: fetch_document DOC-002", PATH)
    assert decide([summary, HumanMessage(TASK)]) == ToolAction("fetch_document", {"doc_id": "DOC-001"})


def test_a_pending_step_seen_done_in_view_is_done_and_the_next_pending_one_comes():
    summary = summary_message("- Step 1 pending: fetch_document DOC-001\n- Step 2 pending: fetch_document DOC-002", PATH)
    msgs = [summary, HumanMessage(TASK), *_fetched("DOC-001")]
    assert decide(msgs) == ToolAction("fetch_document", {"doc_id": "DOC-002"})
    both = [*msgs, *_fetched("DOC-002")]
    assert decide(both) == ToolAction("fetch_document", {"doc_id": "DOC-003"})


def test_without_a_summary_pending_text_in_a_message_changes_nothing():
    msgs = [HumanMessage(TASK + "\nStep 1 pending is a phrase, not a summary."), *_fetched("DOC-001")]
    assert decide(msgs) == ToolAction("fetch_document", {"doc_id": "DOC-002"})
