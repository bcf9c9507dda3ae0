"""A model call a tool makes itself (trace schema 4): role ``tool``, never ``subagent`` (which is deepagents' ``task``
tool running a subagent's graph) and never the parent's agent call. The metadata below is what LangGraph 1.2.24 gives a
chat model's start in a `create_deep_agent` run (printed from a real run, 2026-11-29); the last test runs one."""

from __future__ import annotations

import itertools
import uuid

from langchain_core.exceptions import ContextOverflowError
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.tools import tool

from harness.trace.recorder import Recorder, call_role
from harness.trace.schema import Trace

PARENT = {"checkpoint_ns": "model:2391", "langgraph_node": "model", "langgraph_checkpoint_ns": "model:2391"}
TOOL = {"checkpoint_ns": "tools:d3ef", "langgraph_node": "tools", "langgraph_checkpoint_ns": "tools:d3ef"}
SUBAGENT = {
    "checkpoint_ns": "tools:468f",
    "langgraph_node": "model",
    "langgraph_checkpoint_ns": "tools:468f|model:c1cb",
    "lc_agent_name": "general-purpose",
}
SUBAGENTS_TOOL = {**SUBAGENT, "langgraph_node": "tools", "langgraph_checkpoint_ns": "tools:468f|tools:94b7"}
NAMED = {"ls_provider": "openai", "ls_model_name": "gpt-5-mini"}
USAGE = {"input_tokens": 300, "output_tokens": 20, "total_tokens": 320, "input_token_details": {"cache_read": 0}}


def test_whose_call_it_is_is_read_from_the_node_that_made_it():
    assert call_role(PARENT) is None  # the parent's: its middleware records it
    assert call_role(TOOL) == "tool"  # made in the tools node itself
    assert call_role(SUBAGENT) == "subagent"  # made by a graph the task tool runs
    assert call_role(SUBAGENTS_TOOL) == "tool"  # a subagent's tool's own call is a tool's call too
    assert call_role({**SUBAGENT, "lc_source": "summarization"}) == "summarizer"


def _record(rec: Recorder, metadata: dict, reply: AIMessage | None = None, error: BaseException | None = None) -> None:
    run = uuid.uuid4()
    rec.callback.on_chat_model_start({}, [[HumanMessage("Summarize https://example.com/a")]], run_id=run, metadata=metadata)
    if error is not None:
        rec.callback.on_llm_error(error, run_id=run)
    else:
        rec.callback.on_llm_end(LLMResult(generations=[[ChatGeneration(message=reply or AIMessage("a page"))]]), run_id=run)


def test_a_tools_own_model_call_is_a_tool_call_with_its_usage_model_and_error():
    rec = Recorder()
    _record(rec, {**TOOL, **NAMED}, AIMessage("The page lists three prices.", usage_metadata=USAGE))
    _record(rec, {**SUBAGENTS_TOOL, **NAMED})
    _record(rec, {**TOOL, **NAMED}, error=ContextOverflowError("prompt is too long: 200000 tokens > 128000 maximum"))
    _record(rec, {**SUBAGENT, **NAMED})
    first, nested, refused, sub = rec.calls
    assert [c["role"] for c in rec.calls] == ["tool", "tool", "tool", "subagent"]
    assert first["model"] == "openai:gpt-5-mini" and first["usage"] == USAGE and first["namespace"] == ""
    assert first["response"]["text"] == "The page lists three prices." and first["error"] is None
    assert nested["namespace"] == "subagent"  # the tool ran inside a subagent
    assert refused["error"]["context_overflow"] is True and refused["usage"] is None
    assert sub["namespace"] == "subagent" and rec.events == []  # nothing of the parent's is read from them
    trace = Trace(case_id="c", kind="goal", calls=rec.calls, messages=rec.messages)
    assert trace.tool_model_calls() == [first, nested, refused] and trace.subagent_calls() == [sub]
    assert trace.agent_calls() == []


class _Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN201 - the script needs no schemas
        return self


def test_in_a_real_deep_agent_a_tools_model_is_a_tool_call_and_the_task_tools_subagent_a_subagent_call():
    from deepagents import create_deep_agent

    page_model = _Scripted(messages=itertools.repeat(AIMessage("a summary of the page")))

    @tool
    def summarize_page(url: str) -> str:
        """Summarize a web page."""
        return page_model.invoke(f"Summarize {url}").text

    parent = _Scripted(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": "summarize_page", "args": {"url": "a"}, "id": "t1"}]),
                AIMessage(
                    "",
                    tool_calls=[{"name": "task", "args": {"description": "b", "subagent_type": "general-purpose"}, "id": "t2"}],
                ),
                AIMessage("", tool_calls=[{"name": "summarize_page", "args": {"url": "c"}, "id": "t3"}]),  # the subagent's
                AIMessage("subagent done"),
                AIMessage("all done"),
            ]
        )
    )
    rec = Recorder()
    agent = create_deep_agent(model=parent, tools=[summarize_page])
    agent.invoke({"messages": [HumanMessage("go")]}, config={"callbacks": [rec.callback]})
    roles = [(c["role"], c["namespace"], rec.messages[c["message_keys"][-1]]["data"]["content"]) for c in rec.calls]
    assert roles == [
        ("tool", "", "Summarize a"),  # the parent's tool called a model: not a subagent
        ("subagent", "subagent", "b"),  # the general-purpose subagent's model, run by the task tool
        ("tool", "subagent", "Summarize c"),  # the subagent's own tool's model
        ("subagent", "subagent", "a summary of the page"),  # the subagent's next call, after its tool's result
    ]
