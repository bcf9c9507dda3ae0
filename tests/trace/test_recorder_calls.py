"""The recorder's call records, driven by hand (no agent runs): the message table and token counts, the call dict,
how a call is finished (response, usage, error), the agent-call middleware and the summarizer callback."""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import uuid
from types import SimpleNamespace

import pytest
from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, message_to_dict
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, Generation, LLMResult
from langchain_core.tools import tool

import harness.trace.recorder as recorder_module
from harness import _deepagents_adapter as da
from harness.trace.recorder import Recorder, RecorderMiddleware, SummarizerCallback
from harness.trace.schema import SIMULATED_FINGERPRINT
from tests._recorder_inputs import SYSTEM, TOOL, overhead, request, tokens

TASK = HumanMessage("Review the archive and report the vault code.")
SUMMARIZE = {"lc_source": "summarization"}


class Clock:
    """A recorder clock that returns the given readings in turn."""

    def __init__(self, *readings: float) -> None:
        self.readings = list(readings)

    def __call__(self) -> float:
        return self.readings.pop(0)


# -- the message table ------------------------------------------------------------------------------------------------
def test_a_message_key_is_the_first_16_hex_digits_of_the_sha1_of_its_sorted_json():
    """Keys are stable across runs and processes: two traces of one conversation name its messages alike."""
    rec = Recorder()
    key, n = rec._entry(TASK)
    data = message_to_dict(TASK)
    assert key == hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
    assert len(key) == 16
    assert n == count_tokens_approximately([TASK])
    assert rec.messages == {key: data}


def test_a_message_carrying_a_value_json_cannot_write_is_still_keyed():
    rec = Recorder()
    msg = HumanMessage("hello", additional_kwargs={"at": datetime.datetime(2024, 1, 2, 3, 4, 5)})
    key, _ = rec._entry(msg)
    assert rec.messages[key]["data"]["additional_kwargs"]["at"] == datetime.datetime(2024, 1, 2, 3, 4, 5)


def test_two_message_objects_with_the_same_content_are_stored_once_under_one_key():
    rec = Recorder()
    assert rec._entry(HumanMessage("same"))[0] == rec._entry(HumanMessage("same"))[0]
    assert rec._entry(HumanMessage("other"))[0] != rec._entry(HumanMessage("same"))[0]
    assert len(rec.messages) == 2


def test_a_message_re_sent_in_every_request_is_serialized_and_counted_once(monkeypatch):
    serialized, counted = [], []
    monkeypatch.setattr(recorder_module, "message_to_dict", lambda m: serialized.append(m) or message_to_dict(m))
    monkeypatch.setattr(recorder_module, "count_tokens_approximately", lambda ms, **kw: counted.append(ms) or 7)
    rec = Recorder()
    first = rec._entry(TASK)
    assert rec._entry(TASK) == first == (first[0], 7)
    assert serialized == [TASK] and counted == [[TASK]]


def test_a_message_object_seen_before_keeps_its_first_key_even_if_edited_in_place():
    rec = Recorder()
    msg = HumanMessage("first text")
    key, n = rec._entry(msg)
    msg.content = "a much longer text than the first one"
    assert rec._entry(msg) == (key, n)


# -- overhead: the system prompt and the tool schemas ------------------------------------------------------------------
def test_a_request_without_system_prompt_or_tools_has_no_overhead():
    rec = Recorder()
    call = rec.before_agent_call(request([TASK], system=None, tools=[]))
    assert call["overhead_tokens"] == 0 and call["approx_tokens"] == tokens(TASK)
    assert call["system_sha"] is None


def test_a_request_like_object_whose_tools_are_none_has_no_tool_overhead():
    rec = Recorder()
    req = SimpleNamespace(messages=[TASK], system_message=None, tools=None, state={"messages": [TASK]})
    assert rec.before_agent_call(req)["overhead_tokens"] == 0


def test_the_overhead_counts_the_system_prompt_and_the_tool_schemas():
    only_system = Recorder().before_agent_call(request([TASK], tools=[]))["overhead_tokens"]
    only_tools = Recorder().before_agent_call(request([TASK], system=None))["overhead_tokens"]
    both = Recorder().before_agent_call(request([TASK]))
    assert only_system == count_tokens_approximately([SYSTEM]) > 0
    assert only_tools == count_tokens_approximately([], tools=[TOOL]) > 0
    assert both["overhead_tokens"] == overhead() == count_tokens_approximately([SYSTEM], tools=[TOOL])
    assert both["approx_tokens"] == both["overhead_tokens"] + tokens(TASK)


def test_requests_with_other_tools_under_the_same_system_prompt_are_counted_apart():
    small = {"name": "a", "description": "x", "parameters": {"type": "object"}}
    large = {"name": "b", "description": "a long description " * 30, "parameters": {"type": "object"}}
    rec = Recorder()
    first = rec.before_agent_call(request([TASK], tools=[small]))["overhead_tokens"]
    second = rec.before_agent_call(request([TASK], tools=[large]))["overhead_tokens"]
    assert (first, second) == (overhead(tools=[small]), overhead(tools=[large])) and first < second


def test_requests_with_other_tool_objects_under_the_same_system_prompt_are_counted_apart():
    @tool
    def short(x: str) -> str:
        """Short."""
        return x

    @tool
    def verbose(x: str) -> str:
        """A tool whose description is long enough to change the count, and then some more words, and more."""
        return x

    class Anonymous(type(short)):  # the same repr for every tool: only the name tells them apart
        def __repr__(self) -> str:
            return "tool"

    a, b = Anonymous(**short.__dict__), Anonymous(**verbose.__dict__)
    rec = Recorder()
    first = rec.before_agent_call(request([TASK], tools=[a]))["overhead_tokens"]
    second = rec.before_agent_call(request([TASK], tools=[b]))["overhead_tokens"]
    assert (first, second) == (overhead(tools=[a]), overhead(tools=[b])) and first != second


def test_the_overhead_is_counted_once_per_system_text_and_tool_names(monkeypatch):
    counted = []
    real = count_tokens_approximately
    monkeypatch.setattr(recorder_module, "count_tokens_approximately", lambda ms, **kw: counted.append(kw) or real(ms, **kw))
    rec = Recorder()
    for _ in range(3):
        rec._overhead_tokens(SystemMessage(SYSTEM.content), [TOOL])  # a new system message object, the same text
    assert len(counted) == 1
    rec._overhead_tokens(SystemMessage("another prompt"), [TOOL])
    assert len(counted) == 2


# -- the system prompt's hash ---------------------------------------------------------------------------------------------
def test_a_call_names_its_system_prompt_by_the_first_12_hex_digits_of_its_sha1():
    call = Recorder().before_agent_call(request([TASK]))
    assert call["system_sha"] == hashlib.sha1(str(SYSTEM.content).encode()).hexdigest()[:12]


def test_the_system_prompt_hash_is_computed_once_per_message_object():
    rec = Recorder()
    system = SystemMessage("prompt one")
    sha = rec._system_sha(system)
    system.content = "prompt two"
    assert rec._system_sha(system) == sha
    assert rec._system_sha(SystemMessage("prompt two")) == hashlib.sha1(b"prompt two").hexdigest()[:12] != sha


def test_a_recycled_object_id_does_not_return_another_prompts_hash():
    """The cache holds the message itself: an entry under the same id() but for another object is not trusted."""
    rec = Recorder()
    system = SystemMessage("prompt")
    rec._system_shas[id(system)] = (SystemMessage("old"), "stale")
    assert rec._system_sha(system) == hashlib.sha1(b"prompt").hexdigest()[:12]


def test_a_recycled_object_id_does_not_return_another_messages_key():
    rec = Recorder()
    msg = HumanMessage("now")
    rec._by_id[id(msg)] = (HumanMessage("gone"), "stale", 1)
    assert rec._entry(msg) == (Recorder()._entry(HumanMessage("now")))


# -- the call dict ---------------------------------------------------------------------------------------------------------
def test_a_new_call_has_every_field_with_its_defaults_and_extras_override_them():
    rec = Recorder()
    rec.now = lambda: 2.71828182
    rec.turn = 1
    first = rec.new_call("summarizer", ["k1", "k2"], 42)
    second = rec.new_call("agent", [], 5, overhead_tokens=3, namespace="subagent", extra="x")
    assert first == {
        "index": 0,
        "role": "summarizer",
        "turn": 1,
        "started_s": 2.718282,
        "duration_s": None,
        "message_keys": ["k1", "k2"],
        "approx_tokens": 42,
        "overhead_tokens": 0,
        "usage": None,
        "summary_at_head": False,
        "response": None,
        "error": None,
        "namespace": "",
    }
    assert second["index"] == 1 and second["overhead_tokens"] == 3 and second["namespace"] == "subagent"
    assert second["extra"] == "x" and rec.calls == [first, second]


def test_a_fresh_recorder_starts_empty_at_turn_zero_with_its_clock_at_zero():
    rec = Recorder()
    assert (rec.calls, rec.events, rec.messages, rec.turn, rec.served_simulated, rec.own_time_s) == ([], [], {}, 0, False, 0.0)
    assert rec.strategy == "deepagents-summarization"
    assert 0 <= rec.now() < 5
    assert isinstance(rec.middleware, RecorderMiddleware) and rec.middleware.recorder is rec
    assert isinstance(rec.callback, SummarizerCallback) and rec.callback.recorder is rec


def test_time_spent_in_the_recorders_hooks_is_added_up():
    rec = Recorder()
    call = rec.before_agent_call(request([TASK]))
    after_before = rec.own_time_s
    rec.finish_call(call, rec.now(), message=AIMessage("done"))
    assert 0 < after_before < rec.own_time_s < 1


def test_each_hook_adds_its_own_time_to_what_was_spent_before():
    rec = Recorder()
    rec.own_time_s = 100.0
    rec.before_agent_call(request([TASK]))
    after_call = rec.own_time_s
    assert 100.0 < after_call < 101.0
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=uuid.uuid4(), metadata={"lc_source": da.SUMMARY_SOURCE})
    assert after_call < rec.own_time_s < 101.0


def test_the_overhead_of_system_prompts_made_of_blocks_is_counted_for_each_prompt():
    short = SystemMessage([{"type": "text", "text": "Be brief."}])
    long = SystemMessage([{"type": "text", "text": "Be thorough and cite every source you used. " * 20}])
    rec = Recorder()
    first = rec.before_agent_call(request([TASK], system=short, tools=[]))["overhead_tokens"]
    second = rec.before_agent_call(request([TASK], system=long, tools=[]))["overhead_tokens"]
    assert (first, second) == (count_tokens_approximately([short]), count_tokens_approximately([long]))
    assert second > first


# -- finishing a call ------------------------------------------------------------------------------------------------------
def test_a_finished_call_records_duration_text_tool_calls_and_usage():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.now = lambda: 3.1234567
    usage = {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    ai = AIMessage(
        "Fetching.",
        tool_calls=[{"name": "fetch_document", "args": {"doc_id": "D1"}, "id": "c1"}],
        usage_metadata=usage,
    )
    rec.finish_call(call, 1.0, message=ai)
    assert call["duration_s"] == 2.123457
    assert call["response"] == {
        "text": "Fetching.",
        "tool_calls": [{"name": "fetch_document", "args": {"doc_id": "D1"}, "id": "c1"}],
    }
    assert call["usage"] == usage and call["error"] is None
    assert rec.served_simulated is False


def test_a_response_in_content_blocks_records_its_text_and_no_usage_is_none():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.finish_call(call, 0.0, message=AIMessage([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]))
    assert call["response"] == {"text": "ab", "tool_calls": []}
    assert call["usage"] is None


def test_a_message_without_tool_calls_records_an_empty_list():
    rec = Recorder()
    call = rec.new_call("summarizer", [], 0)
    rec.finish_call(call, 0.0, message=HumanMessage("not an ai message"))
    assert call["response"] == {"text": "not an ai message", "tool_calls": []}


def test_a_call_without_a_message_records_only_its_duration():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.now = lambda: 2.5
    rec.finish_call(call, 2.0)
    assert (call["duration_s"], call["response"], call["usage"], call["error"]) == (0.5, None, None, None)


def test_an_answer_from_harness_serve_marks_the_run_as_served_simulated():
    rec = Recorder()
    other = AIMessage("x", response_metadata={"system_fingerprint": "fp_123"})
    rec.finish_call(rec.new_call("agent", [], 0), 0.0, message=other)
    assert rec.served_simulated is False
    served = AIMessage("x", response_metadata={"system_fingerprint": SIMULATED_FINGERPRINT})
    rec.finish_call(rec.new_call("agent", [], 0), 0.0, message=served)
    assert rec.served_simulated is True


def test_a_responses_api_answer_from_harness_serve_is_marked_by_its_metadata():
    rec = Recorder()
    rec.finish_call(rec.new_call("agent", [], 0), 0.0, message=AIMessage("x", response_metadata={"metadata": {"user": "a"}}))
    assert rec.served_simulated is False
    served = AIMessage("x", response_metadata={"metadata": {"system_fingerprint": SIMULATED_FINGERPRINT}})
    rec.finish_call(rec.new_call("agent", [], 0), 0.0, message=served)
    assert rec.served_simulated is True


def test_a_failed_call_records_the_error_type_message_and_that_it_was_no_overflow():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.now = lambda: 4.0
    rec.finish_call(call, 1.5, message=AIMessage("ignored"), error=ValueError("bad request"))
    assert call["error"] == {"type": "ValueError", "message": "bad request", "context_overflow": False}
    assert call["duration_s"] == 2.5 and call["response"] is None and call["usage"] is None


def test_a_context_overflow_is_recorded_as_such():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.finish_call(call, 0.0, error=ContextOverflowError("prompt is too long: context_length_exceeded"))
    assert call["error"]["type"] == "ContextOverflowError" and call["error"]["context_overflow"] is True


def test_an_error_message_is_redacted_and_cut_to_2000_characters():
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.finish_call(call, 0.0, error=RuntimeError("key sk-abcdefghijklmnop rejected " + "x" * 3000))
    message = call["error"]["message"]
    assert message.startswith("key [REDACTED] rejected x") and "sk-abc" not in message
    assert len(message) == 2000


# -- the middleware ----------------------------------------------------------------------------------------------------------
def test_the_middleware_has_its_own_name():
    assert Recorder().middleware.name == "HarnessRecorderMiddleware"


def test_the_middleware_records_the_request_then_the_models_answer_and_returns_it_unchanged():
    rec = Recorder()
    rec.now = Clock(1.0, 1.5, 4.0)  # started_s, the start for the duration, the end
    req = request([TASK])
    response = ModelResponse(result=[AIMessage("first"), ToolMessage("structured", tool_call_id="s"), AIMessage("answer")])
    seen = []
    out = rec.middleware.wrap_model_call(req, lambda r: seen.append(r) or response)
    assert out is response and seen == [req]
    (call,) = rec.calls
    assert (call["role"], call["started_s"], call["duration_s"]) == ("agent", 1.0, 2.5)
    assert call["response"] == {"text": "answer", "tool_calls": []}


def test_the_middleware_reads_an_extended_response():
    rec = Recorder()
    response = ExtendedModelResponse(model_response=ModelResponse(result=[AIMessage("inner")]))
    assert rec.middleware.wrap_model_call(request([TASK]), lambda r: response) is response
    assert rec.calls[0]["response"]["text"] == "inner"


def test_the_async_middleware_records_the_request_it_passes_on_and_the_answer():
    rec = Recorder()
    req = request([TASK])
    seen = []

    async def handler(r):  # noqa: ANN001, ANN202
        seen.append(r)
        return ModelResponse(result=[AIMessage("async answer")])

    out = asyncio.run(rec.middleware.awrap_model_call(req, handler))
    assert seen == [req] and out.result[0].text == "async answer"
    assert rec.calls[0]["response"] == {"text": "async answer", "tool_calls": []}


def test_a_response_without_an_ai_message_records_no_answer():
    rec = Recorder()
    rec.middleware.wrap_model_call(request([TASK]), lambda r: ModelResponse(result=[ToolMessage("x", tool_call_id="s")]))
    assert rec.calls[0]["response"] is None and rec.calls[0]["duration_s"] is not None


def test_a_model_call_that_raises_is_recorded_and_the_error_re_raised():
    rec = Recorder()

    def reject(_request):  # noqa: ANN001, ANN202
        raise ContextOverflowError("prompt is too long")

    with pytest.raises(ContextOverflowError):
        rec.middleware.wrap_model_call(request([TASK]), reject)
    assert rec.calls[0]["error"]["context_overflow"] is True and rec.calls[0]["response"] is None


def test_the_async_middleware_records_the_same_way():
    rec = Recorder()

    async def answer(_request):  # noqa: ANN001, ANN202
        return ModelResponse(result=[AIMessage("async answer")])

    async def reject(_request):  # noqa: ANN001, ANN202
        raise ValueError("down")

    out = asyncio.run(rec.middleware.awrap_model_call(request([TASK]), answer))
    assert out.result[0].text == "async answer" and rec.calls[0]["response"]["text"] == "async answer"
    with pytest.raises(ValueError, match="down"):
        asyncio.run(rec.middleware.awrap_model_call(request([TASK]), reject))
    assert rec.calls[1]["error"]["type"] == "ValueError"


# -- the summarizer callback ---------------------------------------------------------------------------------------------
def test_the_callback_runs_inline_never_raises_into_the_run_and_skips_non_model_events():
    cb = Recorder().callback
    assert (cb.run_inline, cb.raise_error) == (True, False)
    assert (cb.ignore_chain, cb.ignore_agent, cb.ignore_retriever, cb.ignore_retry, cb.ignore_custom_event) == (True,) * 5


def test_a_summarizer_call_is_recorded_from_start_to_end():
    rec = Recorder()
    rec.now = Clock(0.5, 0.75, 2.0)
    run = uuid.uuid4()
    prompt = [SystemMessage("Summarize."), HumanMessage("the conversation " * 20)]
    rec.callback.on_chat_model_start({}, [prompt], run_id=run, metadata={**SUMMARIZE, "checkpoint_ns": "model:1"})
    (call,) = rec.calls
    assert call == {
        "index": 0,
        "role": "summarizer",
        "turn": 0,
        "started_s": 0.5,
        "duration_s": None,
        "message_keys": [rec._entry(m)[0] for m in prompt],
        "approx_tokens": tokens(*prompt),
        "overhead_tokens": 0,
        "usage": None,
        "summary_at_head": False,
        "response": None,
        "error": None,
        "namespace": "",
    }
    assert rec.own_time_s > 0
    usage = {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55}
    result = LLMResult(generations=[[ChatGeneration(message=AIMessage("The summary.", usage_metadata=usage))]])
    rec.callback.on_llm_end(result, run_id=run)
    assert (
        call["duration_s"] == 1.25 and call["response"] == {"text": "The summary.", "tool_calls": []} and call["usage"] == usage
    )
    rec.callback.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage("again"))]]), run_id=run)
    assert call["response"]["text"] == "The summary."  # a run is finished once


def test_a_summarizer_call_inside_a_subagent_is_in_the_subagent_namespace():
    rec = Recorder()
    rec.callback.on_chat_model_start(
        {}, [[TASK]], run_id=uuid.uuid4(), metadata={**SUMMARIZE, "checkpoint_ns": "tools:abc|model:1"}
    )
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=uuid.uuid4(), metadata=SUMMARIZE)
    assert [c["namespace"] for c in rec.calls] == ["subagent", ""]


def test_chat_model_starts_that_are_not_the_summarizer_are_ignored():
    rec = Recorder()
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=uuid.uuid4(), metadata={"lc_source": "agent"})
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=uuid.uuid4(), metadata=None)
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=uuid.uuid4())
    assert rec.calls == [] and rec.own_time_s == 0.0


def test_a_summarizer_call_with_no_messages_is_an_empty_call():
    rec = Recorder()
    rec.callback.on_chat_model_start({}, [], run_id=uuid.uuid4(), metadata=SUMMARIZE)
    assert (rec.calls[0]["message_keys"], rec.calls[0]["approx_tokens"]) == ([], 0)


def test_an_end_for_a_run_the_recorder_did_not_start_changes_nothing():
    rec = Recorder()
    run = uuid.uuid4()
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=run, metadata=SUMMARIZE)
    rec.callback.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage("x"))]]), run_id=uuid.uuid4())
    rec.callback.on_llm_error(ValueError("x"), run_id=uuid.uuid4())
    assert rec.calls[0]["duration_s"] is None and rec.calls[0]["response"] is None and rec.calls[0]["error"] is None


@pytest.mark.parametrize(
    "result",
    [LLMResult(generations=[]), LLMResult(generations=[[]]), LLMResult(generations=[[Generation(text="plain text")]])],
    ids=["no-generations", "empty-generation-list", "not-a-chat-generation"],
)
def test_a_summarizer_end_without_a_chat_message_records_no_response(result):
    rec = Recorder()
    run = uuid.uuid4()
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=run, metadata=SUMMARIZE)
    rec.callback.on_llm_end(result, run_id=run)
    assert rec.calls[0]["duration_s"] is not None and rec.calls[0]["response"] is None


def test_a_failed_summarizer_call_records_its_error_once():
    rec = Recorder()
    rec.now = Clock(0.0, 1.0, 3.0)
    run = uuid.uuid4()
    rec.callback.on_chat_model_start({}, [[TASK]], run_id=run, metadata=SUMMARIZE)
    rec.callback.on_llm_error(TimeoutError("summarizer timed out"), run_id=run)
    call = rec.calls[0]
    assert call["error"] == {"type": "TimeoutError", "message": "summarizer timed out", "context_overflow": False}
    assert call["duration_s"] == 2.0
    rec.callback.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage("late"))]]), run_id=run)
    assert call["response"] is None
