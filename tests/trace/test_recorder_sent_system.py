"""The recorder keeps the system prompt an agent call was sent when deepagents' tail (memory, skills) changed it after
the recorder's middleware: read from the model's start in its callback, as the model received it."""

import uuid

from langchain_core.messages import HumanMessage, SystemMessage

from harness import _deepagents_adapter as da
from harness.trace.recorder import Recorder
from harness.trace.schema import Trace
from tests._recorder_inputs import SYSTEM, request

SENT = SystemMessage(SYSTEM.content + "\n\n<agent_memory>\n/memories/AGENTS.md\n\nnotes\n</agent_memory>")


def _call(rec):
    return rec.before_agent_call(request([HumanMessage("Audit.")]))


def _start(rec, batch, **metadata):
    rec.callback.on_chat_model_start({}, [batch], run_id=uuid.uuid4(), metadata=metadata)


def test_a_system_prompt_changed_after_the_recorder_is_kept_as_sent():
    rec = Recorder()
    call = _call(rec)
    _start(rec, [SENT, HumanMessage("Audit.")])
    assert rec.messages[call["sent_system_key"]]["data"]["content"] == SENT.content
    trace = Trace(case_id="c", kind="goal", calls=rec.calls, messages=rec.messages)
    assert trace.sent_system_text(call) == SENT.content and trace.system_text(call) == SYSTEM.content


def test_the_same_prompt_records_nothing_more():
    rec = Recorder()
    call = _call(rec)
    _start(rec, [SYSTEM, HumanMessage("Audit.")])
    assert "sent_system_key" not in call
    call = _call(rec)
    _start(rec, [SystemMessage(SYSTEM.content), HumanMessage("Audit.")])  # a copy with the same text
    assert "sent_system_key" not in call
    assert Trace(case_id="c", kind="goal", calls=rec.calls, messages=rec.messages).sent_system_text(call) == SYSTEM.content


def test_a_subagents_model_and_the_summarizer_are_not_the_agent_call():
    rec = Recorder()
    call = _call(rec)
    _start(rec, [SystemMessage("the subagent's prompt")], checkpoint_ns="tools:abc|model:1")
    _start(rec, [HumanMessage("summarize")], lc_source=da.SUMMARY_SOURCE)
    assert "sent_system_key" not in call
    _start(rec, [SENT])  # the agent's own model start, after them
    assert call["sent_system_key"]
    _start(rec, [SystemMessage("a later start with no agent call recorded before it")])
    assert rec.messages[call["sent_system_key"]]["data"]["content"] == SENT.content
