"""Agent assemblies for the tests of ``--agent`` (`harness.agent.assembly`): factories as a user writes them, good and
bad, named ``tests._assemblies:NAME`` (the repository root is importable from where the tests run)."""

from __future__ import annotations

import itertools
from typing import Any

from deepagents.backends import CompositeBackend, StateBackend
from deepagents.backends.protocol import ReadResult
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

PROMPT = "ASSEMBLY-PROMPT: you work for the assembly under test."


@tool
def lookup_widget(widget_id: str) -> str:
    """Look a widget up by its id."""
    return f"widget {widget_id}: blue"


@tool
def fetch_document(doc_id: str) -> str:
    """A tool of the user's that has the name of the harness's scenario tool."""
    return doc_id


class NotedMiddleware(AgentMiddleware):
    """A middleware of the user's own (a name deepagents does not know): it lands after the core entries."""


class OwnSummarizer(AgentMiddleware):
    """A user's summarization middleware: named as deepagents' slot, it would take the harness's strategy's place."""

    @property
    def name(self) -> str:
        return "SummarizationMiddleware"


class OwnFilesystem(AgentMiddleware):
    """A user's middleware named as deepagents' filesystem middleware."""

    @property
    def name(self) -> str:
        return "FilesystemMiddleware"


class UnreadableRoute(StateBackend):
    """Files written here are kept, but read_file cannot read them back (an archive the agent has no read access to)."""

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return ReadResult(error=f"{file_path} is in a write-only archive (no read access)")


def plain() -> dict[str, Any]:
    """A small assembly: a tool of its own, a system prompt, a middleware, a subagent."""
    return {
        "tools": [lookup_widget],
        "system_prompt": PROMPT,
        "middleware": [NotedMiddleware()],
        "subagents": [{"name": "helper", "description": "Helps with widgets.", "system_prompt": "Help.", "tools": []}],
    }


def history_hidden() -> dict[str, Any]:
    """``/conversation_history/`` routed where read_file cannot read it back."""
    return {"backend": CompositeBackend(default=StateBackend(), routes={"/conversation_history/": UnreadableRoute()})}


def evictions_hidden() -> dict[str, Any]:
    """``/large_tool_results/`` routed where read_file cannot read it back."""
    return {"backend": CompositeBackend(default=StateBackend(), routes={"/large_tool_results/": UnreadableRoute()})}


def own_filesystem() -> dict[str, Any]:
    return {"middleware": [OwnFilesystem()]}


NOT_CALLABLE = 42


def raises() -> dict[str, Any]:
    raise RuntimeError("no credentials configured for the ticket system")


def returns_list() -> list[Any]:
    return [lookup_widget]


def own_model() -> dict[str, Any]:
    return {"model": "openai:gpt-5.2", "tools": [lookup_widget]}


def own_summarization() -> dict[str, Any]:
    return {"middleware": [NotedMiddleware(), OwnSummarizer()]}


def subagent_summarization() -> dict[str, Any]:
    return {"subagents": [{"name": "helper", "description": "d", "system_prompt": "s", "middleware": [OwnSummarizer()]}]}


def unknown_keyword() -> dict[str, Any]:
    return {"tool": [lookup_widget]}  # a typo of tools


def own_checkpointer() -> dict[str, Any]:
    from langgraph.checkpoint.memory import InMemorySaver

    return {"checkpointer": InMemorySaver()}


def subagent_model() -> dict[str, Any]:
    return {"subagents": [{"name": "helper", "description": "d", "system_prompt": "s", "model": "openai:gpt-5-mini"}]}


def tool_clash() -> dict[str, Any]:
    return {"tools": [fetch_document]}


def tools_not_a_list() -> dict[str, Any]:
    return {"tools": lookup_widget}


SCREEN_USAGE = {"input_tokens": 120, "output_tokens": 3, "total_tokens": 123, "input_token_details": {"cache_read": 0}}


class ScreeningModel(GenericFakeChatModel):
    """A chat model a user's code calls itself, answering as a provider's does: its usage reported, its model named
    ``openai:gpt-5-mini`` in the run metadata LangChain gives (``ls_provider``, ``ls_model_name``)."""

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return {**super()._get_ls_params(stop=stop, **kwargs), "ls_provider": "openai", "ls_model_name": "gpt-5-mini"}


class ScreenedReads(AgentMiddleware):
    """A user's middleware that has a chat model screen every file read_file returns, from inside the tool's call (as a
    ``summarize_page`` tool that invokes an LLM does: the model runs in the parent's tools node, in no subagent); the
    file reaches the agent unchanged."""

    def __init__(self) -> None:
        super().__init__()
        self.model = ScreeningModel(messages=itertools.repeat(AIMessage("clean", usage_metadata=SCREEN_USAGE)))

    def wrap_tool_call(self, request, handler):  # noqa: ANN001, ANN201
        result = handler(request)
        if request.tool_call["name"] == "read_file":
            self.model.invoke([HumanMessage(f"Screen this file for leaked secrets: {str(result.content)[:400]}")])
        return result

    async def awrap_tool_call(self, request, handler):  # noqa: ANN001, ANN201
        result = await handler(request)
        if request.tool_call["name"] == "read_file":
            await self.model.ainvoke([HumanMessage(f"Screen this file for leaked secrets: {str(result.content)[:400]}")])
        return result


def screened_reads() -> dict[str, Any]:
    """An assembly whose tool calls make model calls of their own (role ``tool`` in the trace)."""
    return {"middleware": [ScreenedReads()]}
