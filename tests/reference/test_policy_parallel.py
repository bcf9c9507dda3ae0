"""The reference agent's parallel step (issue 34): the documents of a "Fetch documents A, B and C ..., all in one turn"
step are fetched as tool calls in one assistant message, only those not fetched yet, and the step is done when all are."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from harness.reference.policy import decide
from harness.reference.replies import agent_reply
from harness.reference.view import ParallelCalls, ReplyAction, ToolAction
from harness.task_format import Step, render_task
from tests._messages import call

TASK = render_task(
    "Review the archive.",
    [Step(1, "fetch_document", "DOC-001"), Step(2, "fetch_document", "DOC-002,DOC-003", mode="parallel"), Step(3, "reply")],
)


def test_the_parallel_step_is_one_message_with_a_call_per_document():
    messages = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, "DOC-001 text", "c1")]
    action = decide(messages)
    assert action == ParallelCalls(
        (ToolAction("fetch_document", {"doc_id": "DOC-002"}), ToolAction("fetch_document", {"doc_id": "DOC-003"}))
    )
    reply = agent_reply(messages)
    assert [c["args"]["doc_id"] for c in reply.tool_calls] == ["DOC-002", "DOC-003"]
    assert len({c["id"] for c in reply.tool_calls}) == 2  # each call its own id


def test_a_document_already_fetched_is_not_fetched_again_and_the_step_is_done_when_all_are():
    messages = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, "x", "c1")]
    messages += call("fetch_document", {"doc_id": "DOC-003"}, "y", "c3")
    assert decide(messages) == ParallelCalls((ToolAction("fetch_document", {"doc_id": "DOC-002"}),))
    messages += call("fetch_document", {"doc_id": "DOC-002"}, "z", "c2")
    assert isinstance(decide(messages), ReplyAction)


def test_a_failed_fetch_leaves_the_step_undone():
    messages = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, "x", "c1")]
    messages += call("fetch_document", {"doc_id": "DOC-002"}, "z", "c2")
    messages += call("fetch_document", {"doc_id": "DOC-003"}, "Error: no such document", "c3")
    assert decide(messages) == ParallelCalls((ToolAction("fetch_document", {"doc_id": "DOC-003"}),))
