"""Checks made before a run: the fixed per-call overhead the trigger must clear.

The summarization trigger counts the system prompt and the tool schemas too (the
default deep-agent tools alone are about 2,700 approximate tokens). A 10 % trigger on a
small window sits below that floor and fires on every call. We measure the floor on
the real agent: build it with a probe model that records the first request and stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.outputs import ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.agent.assembly import AgentSpec, assembly_kwargs
from harness.agent.build import build_agent
from harness.agent.tools import tools_for
from harness.compaction.config import CompactionConfig
from harness.scenarios.schema import Scenario


class _Probed(Exception):
    pass


class _ProbeModel(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "harness-probe"

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        system = [m for m in messages if m.type == "system"]
        raise _Probed(count_tokens_approximately(system, tools=kwargs.get("tools") or None))


class _FirstCallModel(_ProbeModel):
    """The probe that counts the first request twice: whole (system prompt, tool schemas and every message), as
    deepagents' trigger counts it, and its messages alone, as LangChain's middleware (summarization, context editing,
    trimming) counts them."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        whole = count_tokens_approximately(messages, tools=kwargs.get("tools") or None)
        raise _Probed(whole, count_tokens_approximately([m for m in messages if m.type != "system"]))


def first_call_tokens(config: CompactionConfig, scenario: Scenario, agent: AgentSpec | None = None) -> tuple[int, int]:
    """Approximate tokens of ``scenario``'s first agent request, (whole, its messages alone): system prompt + tool
    schemas (the fixed overhead the pre-flight measures) + its recorded conversation + its first turn, and the
    conversation and first turn alone; measured on the real agent (the user's assembly when ``agent`` names one) with
    nothing compacting (strategy ``none`` on a
    window that fits), so the counts are the request as built, before any trigger."""
    from dataclasses import replace

    from langchain_core.messages import HumanMessage

    from harness.scenarios.conversation import to_messages

    probe_config = replace(config, strategy="none", custom_strategy=None, window=max(config.window, 10_000_000))
    model = _FirstCallModel(profile={"max_input_tokens": probe_config.window})
    built = build_agent(
        probe_config,
        model,
        tools=tools_for(scenario.documents_dict()),
        system_prompt=scenario.agent_system_prompt(),
        assembly=assembly_kwargs(agent) if agent is not None else None,
    )
    messages = [*to_messages(scenario.conversation), HumanMessage(scenario.task)]
    try:
        built.graph.invoke({"messages": messages}, {"configurable": {"thread_id": "probe"}})
    except _Probed as probe:
        return int(probe.args[0]), int(probe.args[1])
    raise RuntimeError("the probe model was never called")


def fixed_overhead_tokens(config: CompactionConfig, scenarios: Sequence[Scenario] = (), agent: AgentSpec | None = None) -> int:
    """Approximate tokens of system prompt + tool schemas in the agent's first request (largest tool set), on the
    user's assembly when ``agent`` names one (its tools, system prompt, memory and skills count too)."""
    documents = next((s.documents_dict() for s in scenarios if s.documents), {})
    model = _ProbeModel(profile={"max_input_tokens": config.window})
    assembly = assembly_kwargs(agent) if agent is not None else None
    built = build_agent(config, model, tools=tools_for(documents), assembly=assembly)
    try:
        built.graph.invoke({"messages": [("user", "probe")]}, {"configurable": {"thread_id": "probe"}})
    except _Probed as probe:
        return int(probe.args[0])
    raise RuntimeError("the probe model was never called")
