"""A subagent's model calls (trace schema 3): the recorder's callback records each call made inside a subagent (its
run's ``checkpoint_ns`` names the parent's tools node) as a ``subagent`` call with its request, usage, model and error,
so the case's cost can count it, and never as the parent's agent call."""

from __future__ import annotations

import uuid

from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatGeneration, LLMResult

from harness.reference import ReferenceAgentModel
from harness.trace.recorder import Recorder, model_name
from harness.trace.schema import Trace
from tests._recorder_inputs import TOOL

IN_SUBAGENT = {"checkpoint_ns": "tools:0b1c", "langgraph_node": "model", "langgraph_checkpoint_ns": "tools:0b1c|model:7d2e"}
BRIEF = [SystemMessage("You are a general-purpose subagent."), HumanMessage("Fetch DOC-001 and report.")]
USAGE = {"input_tokens": 900, "output_tokens": 12, "total_tokens": 912, "input_token_details": {"cache_read": 400}}


def test_a_reference_models_call_inside_a_subagent_is_a_subagent_call_on_the_model_the_harness_names():
    rec = Recorder()
    rec.callback.on_chat_model_start({}, [BRIEF], run_id=uuid.uuid4(), metadata={"checkpoint_ns": "model:1a2b"})
    assert rec.calls == []  # the parent's own model start: its call is the middleware's to record
    model = ReferenceAgentModel().bind_tools([TOOL])
    reply = model.invoke(BRIEF, config={"callbacks": [rec.callback], "metadata": IN_SUBAGENT})
    (call,) = rec.calls
    assert call["role"] == "subagent" and call["namespace"] == "subagent"
    assert call["model"] == "reference-agent"  # the name the harness prices, not LangChain's guess from the class
    assert call["approx_tokens"] == count_tokens_approximately(BRIEF, tools=[TOOL])  # its messages and tool schemas
    assert call["response"]["tool_calls"] == [{"name": tc["name"], "args": tc["args"], "id": tc["id"]} for tc in reply.tool_calls]
    assert call["usage"] is None and call["error"] is None and call["duration_s"] is not None  # in process: no usage
    trace = Trace(case_id="c", kind="goal", calls=rec.calls, messages=rec.messages)
    assert trace.agent_calls() == [] and trace.subagent_calls() == [call]  # never the parent's
    assert trace.request(call) == BRIEF


def test_a_subagent_calls_usage_and_model_are_recorded_from_the_callbacks():
    rec = Recorder()
    run = uuid.uuid4()
    meta = {**IN_SUBAGENT, "ls_provider": "anthropic", "ls_model_name": "claude-sonnet-4-5-20250929"}
    rec.callback.on_chat_model_start({}, [BRIEF], run_id=run, metadata=meta)
    reply = AIMessage("DOC-001 reviewed.", usage_metadata=USAGE)
    rec.callback.on_llm_end(LLMResult(generations=[[ChatGeneration(message=reply)]]), run_id=run)
    (call,) = rec.calls
    assert call["model"] == "anthropic:claude-sonnet-4-5-20250929" and call["usage"] == USAGE
    assert call["response"]["text"] == "DOC-001 reviewed." and rec.events == []


def test_a_refused_subagent_call_records_its_error():
    rec = Recorder()
    run = uuid.uuid4()
    rec.callback.on_chat_model_start({}, [BRIEF], run_id=run, metadata=IN_SUBAGENT)
    rec.callback.on_llm_error(ContextOverflowError("prompt is too long: 17000 tokens > 16000 maximum"), run_id=run)
    (call,) = rec.calls
    assert call["role"] == "subagent" and call["error"]["context_overflow"] is True and call["usage"] is None


def test_a_model_is_named_provider_colon_model_from_the_run_metadata():
    assert model_name({"ls_provider": "openai", "ls_model_name": "gpt-5-mini"}) == "openai:gpt-5-mini"
    assert model_name({"ls_model_name": "reference-agent"}) == "reference-agent"
    assert model_name({"ls_provider": "openai"}) is None and model_name({}) is None
