"""The recorder's subagent probe (`harness.trace.subagents`): what each subagent request weighed, against what
window, and whether it was refused as too long."""

from types import SimpleNamespace

import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from harness.trace.recorder import Recorder

SYSTEM = SystemMessage("You review documents.")
TASK = HumanMessage("Delegated batch DOC-001..DOC-002: fetch and review these documents, then report back.")
CALL = AIMessage("", tool_calls=[{"name": "fetch_document", "args": {"doc_id": "DOC-001"}, "id": "c1"}])
RESULT = ToolMessage("x" * 4000, tool_call_id="c1")
SUMMARY = HumanMessage(
    "You are in the middle of a conversation that has been summarized. ...", additional_kwargs={"lc_source": da.SUMMARY_SOURCE}
)


def request(messages, window=16_000):
    return SimpleNamespace(
        messages=messages, system_message=SYSTEM, tools=[], model=SimpleNamespace(profile={"max_input_tokens": window})
    )


def test_each_request_is_recorded_with_its_size_the_window_its_model_declares_and_what_was_sent_in_all():
    rec = Recorder()
    probe = rec.subagent_middleware
    assert probe.wrap_model_call(request([TASK, CALL, RESULT]), lambda r: "ok") == "ok"
    probe.wrap_model_call(request([SUMMARY, CALL, RESULT]), lambda r: "ok")
    whole = count_tokens_approximately([SYSTEM, TASK, CALL, RESULT])
    first, second = rec.subagent_requests
    assert first == {
        "turn": 0,
        "approx_tokens": whole,
        "conversation_tokens": whole,
        "window": 16_000,
        "summary_at_head": False,
        "error": None,
        "context_overflow": False,
    }
    assert second["approx_tokens"] == count_tokens_approximately([SYSTEM, SUMMARY, CALL, RESULT])
    assert second["summary_at_head"] is True
    assert second["conversation_tokens"] == whole  # the summary is not work sent; the kept messages are counted once


def test_a_request_refused_as_too_long_is_recorded_and_the_error_goes_on():
    rec = Recorder()

    def refuse(_):
        raise ContextOverflowError("prompt is too long: 17000 tokens > 16000 maximum (simulated provider)")

    with pytest.raises(ContextOverflowError):
        rec.subagent_middleware.wrap_model_call(request([TASK, CALL, RESULT]), refuse)
    (entry,) = rec.subagent_requests
    assert entry["context_overflow"] is True
    assert entry["error"].startswith("ContextOverflowError: prompt is too long")


def test_another_error_is_recorded_but_not_as_an_overflow():
    rec = Recorder()

    def fail(_):
        raise RuntimeError("503 Service Unavailable")

    with pytest.raises(RuntimeError):
        rec.subagent_middleware.wrap_model_call(request([TASK], window=None), fail)
    (entry,) = rec.subagent_requests
    assert (entry["context_overflow"], entry["window"], entry["error"]) == (False, None, "RuntimeError: 503 Service Unavailable")
