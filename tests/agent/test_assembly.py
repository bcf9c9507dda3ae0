"""A user's own agent assembly (``--agent MODULE:FUNCTION``, `harness.agent.assembly`): what is refused, naming the
factory and what, and how `build_agent` merges it with the harness's parts (the model's request is read)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.agent.assembly import agent_name, assembly_kwargs, load_factory
from harness.agent.build import build_agent
from harness.agent.tools import tools_for
from harness.compaction.variants import make_config
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel
from tests import _assemblies
from tests._assemblies import PROMPT

A = "tests._assemblies:"


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("tests._assemblies", "write MODULE:FUNCTION"),
        (A, "write MODULE:FUNCTION"),
        (
            "no_such_package_xyz.agent:make",
            "cannot import 'no_such_package_xyz.agent' (No module named 'no_such_package_xyz')",
        ),
        (A + "missing", "module 'tests._assemblies' has no 'missing'"),
        (A + "NOT_CALLABLE", "'NOT_CALLABLE' is not callable (int)"),
        (A + "raises", "calling it raised RuntimeError: no credentials configured for the ticket system"),
        (A + "returns_list", "it returned a list, not a dict of create_deep_agent keyword arguments"),
        (A + "own_model", "it passes its own 'model': the harness supplies the model under test"),
        (A + "own_checkpointer", "it passes its own 'checkpointer'"),
        (A + "unknown_keyword", "'tool' is not a keyword of create_deep_agent"),
        (A + "own_summarization", "middleware[1] is a summarization middleware (OwnSummarizer)"),
        (A + "subagent_summarization", "subagents[0].middleware[0] is a summarization middleware"),
        (A + "subagent_model", "subagents[0] ('helper') passes its own 'model'"),
        (A + "tool_clash", "tools[0] is named 'fetch_document', as the harness's scenario tool"),
        (A + "tools_not_a_list", "'tools' is a StructuredTool, not a list"),
    ],
)
def test_a_factory_the_harness_cannot_run_is_refused_naming_it_and_what(spec, named):
    with pytest.raises(ConfigError) as caught:
        assembly_kwargs(spec)
    assert named in str(caught.value)
    assert str(caught.value).startswith(f"--agent {spec}") or str(caught.value).startswith(f"--agent {spec!r}")


def test_the_option_a_door_names_is_the_one_an_error_names():
    with pytest.raises(ConfigError, match=r"^spec.yaml: agent tests._assemblies:raises: calling it raised"):
        assembly_kwargs(A + "raises", "spec.yaml: agent")


def test_a_function_given_itself_runs_and_is_recorded_by_its_module_and_name():
    assert load_factory(_assemblies.plain) is _assemblies.plain
    assert agent_name(_assemblies.plain) == "tests._assemblies:plain" and agent_name(A + "plain") == A + "plain"
    assert set(assembly_kwargs(_assemblies.plain)) == {"tools", "system_prompt", "middleware", "subagents"}
    with pytest.raises(ConfigError, match="is not a function"):
        assembly_kwargs(42)  # type: ignore[arg-type]


SEEN: list[dict[str, Any]] = []


class _Spy(BaseChatModel):
    """Records what each request carries (system prompt, tool names) and answers "done"."""

    @property
    def _llm_type(self) -> str:
        return "spy"

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN201
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        system = next((m.text for m in messages if m.type == "system"), "")
        SEEN.append({"system": system, "tools": [t["function"]["name"] for t in kwargs.get("tools") or []]})
        return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])


def _ask(assembly: dict[str, Any], system_prompt: str | None = "CASE-PROMPT") -> dict[str, Any]:
    cfg = make_config("forced-20")
    built = build_agent(
        cfg,
        _Spy(profile={"max_input_tokens": cfg.window}),
        tools=tools_for({"DOC-001": "text"}),
        system_prompt=system_prompt,
        assembly=assembly,
    )
    SEEN.clear()
    built.graph.invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}})
    return SEEN[-1]


def test_the_assemblys_tools_and_prompt_reach_the_models_request_beside_the_cases():
    seen = _ask(assembly_kwargs(A + "plain"))
    assert {"lookup_widget", "fetch_document", "read_file", "task"} <= set(seen["tools"])
    assert seen["system"].startswith(PROMPT + "\n\nCASE-PROMPT"), seen["system"][:200]
    assert _ask(assembly_kwargs(A + "plain"), system_prompt=None)["system"].startswith(PROMPT)


def test_the_example_assemblys_memory_file_is_read_through_its_store_route():
    from examples.my_agent import agent

    seen = _ask(assembly_kwargs("examples.my_agent.agent:make"))
    assert "lookup_ticket" in seen["tools"] and seen["system"].startswith(agent.SYSTEM_PROMPT)
    assert "Keep answers short: one or two sentences." in seen["system"]  # AGENTS.md, from /memories/ (the store)


def test_every_subagent_of_the_assembly_gets_the_harness_summarization_and_no_other(captured):
    cfg = make_config("forced-20")
    built = build_agent(cfg, ReferenceAgentModel(profile={"max_input_tokens": cfg.window}), assembly=assembly_kwargs(A + "plain"))
    assert len(captured) >= 3, "the main agent, the general-purpose subagent and the assembly's helper"
    for stack in captured:
        assert [m for m in stack if m.name == "SummarizationMiddleware"] == [built.summarization]
    names = [m.name for m in captured[-1]]
    assert names.index("NotedMiddleware") > names.index("SummarizationMiddleware")


def test_an_assembly_middleware_in_the_place_of_the_harness_own_under_the_config_is_refused():
    cfg = make_config("forced-20")
    model = ReferenceAgentModel(profile={"max_input_tokens": cfg.window})
    build_agent(cfg, model, assembly=assembly_kwargs(A + "own_filesystem"))  # deepagents' default eviction: not replaced
    evicting = replace(cfg, eviction_tokens=5_000)
    with pytest.raises(ConfigError, match="middleware 'FilesystemMiddleware' takes the place of the harness's own"):
        build_agent(evicting, model, assembly=assembly_kwargs(A + "own_filesystem"))
