"""Hand-built model requests and messages for the recorder's unit tests (no agent runs).

Each compaction mark is made the way its producer makes it: the summary message by deepagents' and LangChain's own
builders, the eviction notice in deepagents' wording, the clipped argument with the adapter's suffix, the masked tool
result with the marker LangChain's ClearToolUsesEdit sets.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware.summarization import SummarizationMiddleware
from langchain.agents.middleware.types import ModelRequest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from tests._messages import summary_message

MODEL = FakeListChatModel(responses=["unused"])
SYSTEM = SystemMessage("You are a careful archivist. Use the tools.")
TOOL = {
    "type": "function",
    "function": {
        "name": "fetch_document",
        "description": "Fetch one archive document by its id.",
        "parameters": {"type": "object", "properties": {"doc_id": {"type": "string"}}, "required": ["doc_id"]},
    },
}
HISTORY = da.HISTORY_PREFIX + "session_abc.md"


def request(
    messages: list[BaseMessage],
    *,
    state: dict[str, Any] | None = None,
    system: SystemMessage | None = SYSTEM,
    tools: list[Any] | None = None,
) -> ModelRequest:
    """A request as the recorder middleware receives it; by default the state is the request (nothing compacted)."""
    return ModelRequest(
        model=MODEL,
        messages=list(messages),
        system_message=system,
        tools=[TOOL] if tools is None else tools,
        state={"messages": list(messages)} if state is None else state,
    )


def tokens(*messages: BaseMessage) -> int:
    """The recorder's count: each message counted on its own."""
    return sum(count_tokens_approximately([m]) for m in messages)


def overhead(system: SystemMessage | None = SYSTEM, tools: list[Any] | None = None) -> int:
    return count_tokens_approximately([system] if system is not None else [], tools=[TOOL] if tools is None else tools or None)


def fetch(call_id: str, result: str) -> list[BaseMessage]:
    """One fetch_document call and its result."""
    return [
        AIMessage("", tool_calls=[{"name": "fetch_document", "args": {"doc_id": call_id}, "id": call_id, "type": "tool_call"}]),
        ToolMessage(result, tool_call_id=call_id, name="fetch_document"),
    ]


def masked(result: ToolMessage) -> ToolMessage:
    """``result`` as LangChain's ClearToolUsesEdit sends it: placeholder text, ``context_editing.cleared`` marker."""
    return result.model_copy(
        update={
            "content": "[cleared]",
            "response_metadata": {
                **result.response_metadata,
                "context_editing": {"cleared": True, "strategy": "clear_tool_uses"},
            },
        }
    )


def evicted(call_id: str, path: str | None = None) -> ToolMessage:
    """deepagents' replacement of a too-large tool result (FilesystemMiddleware's notice)."""
    path = path or da.LARGE_RESULTS_PREFIX + call_id
    text = (
        f"Tool result too large, the result of this tool call {call_id} was saved in the filesystem at this path: {path}\n\n"
        "You can read the result from the filesystem by using the read_file tool.\n\nHere is a preview:\n\nline 1\nline 2\n"
    )
    return ToolMessage(text, tool_call_id=call_id, name="fetch_document")


def clipped(value: str, suffix: str = da.TRUNCATION_TEXT) -> str:
    """A write/edit argument as deepagents clips it: its first 20 characters plus the suffix."""
    return value[:20] + suffix


def write(call_id: str, content: str, name: str = "write_file") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"file_path": "/notes/a.md", "content": content}, "id": call_id}])


def deepagents_summary(text: str, path: str | None = HISTORY) -> HumanMessage:
    """The message deepagents puts at the head of a summarized request (its own builder)."""
    return summary_message(text, path)


def langchain_summary(text: str) -> HumanMessage:
    """The message LangChain's SummarizationMiddleware writes into the state (its own builder)."""
    return SummarizationMiddleware._build_new_messages(text)[0]


def summarized_state(messages: list[BaseMessage], summary: HumanMessage, cutoff: int) -> dict[str, Any]:
    """Agent state after deepagents summarized: all messages kept, plus its private event (cutoff, summary)."""
    return {"messages": list(messages), da.EVENT_KEY: {"cutoff_index": cutoff, "summary_message": summary, "file_path": HISTORY}}
