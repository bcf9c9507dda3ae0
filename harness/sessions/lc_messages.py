"""LangChain messages to a session's OpenAI chat messages, by LangChain's own converters (the LangGraph and LangSmith readers).

A LangGraph thread holds `BaseMessage` objects; a LangSmith run holds them serialized (``dumpd``'s ``{"lc": 1, ...}``
constructor form, ``messages_to_dict``'s ``{"type", "data"}`` form) or already in OpenAI shape. `revive` reads each
shape into a `BaseMessage` (chat-message classes only: a run export is untrusted input), and `to_openai` writes the
conversation file's format with ``convert_to_openai_messages``. Nothing is re-implemented: what LangChain cannot read
is refused with the place it came from. `take_compactions` takes a provider's server-side compaction (a content block
of an AI message: Anthropic's compaction block, OpenAI's Responses compaction item) out of the messages as the
`Compaction` it records, where it stood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from harness.sessions.model import Compaction, provider_compaction


def revive(obj: Any) -> BaseMessage:  # noqa: ANN401 - a message in any of LangChain's serialized shapes
    """One message from its serialized form; ValueError (LangChain's, or naming the shape) when it is none."""
    if isinstance(obj, BaseMessage):
        return obj
    if isinstance(obj, dict) and obj.get("lc") == 1:
        import warnings

        from langchain_core._api import LangChainBetaWarning
        from langchain_core.load import load

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LangChainBetaWarning)  # load is marked beta; it is how LangChain reads its own
            message = load(obj, allowed_objects="messages")
        if not isinstance(message, BaseMessage):
            raise ValueError(f"a serialized {obj.get('id')!r} is not a chat message")
        return message
    if isinstance(obj, dict) and isinstance(obj.get("data"), dict) and "type" in obj:
        from langchain_core.messages import messages_from_dict

        return messages_from_dict([obj])[0]
    if isinstance(obj, dict) and ("role" in obj or "type" in obj):
        from langchain_core.messages import convert_to_messages

        return convert_to_messages([obj])[0]
    raise ValueError(f"not a chat message: expected a LangChain or OpenAI message object, got {type(obj).__name__}")


def to_openai(messages: Sequence[BaseMessage], source: str, fmt: str) -> tuple[dict[str, Any], ...]:
    """``messages`` as OpenAI chat messages (the format of a case's conversation file): converted by LangChain, then
    written by `harness.sessions.openai.from_messages` as every reader's are (text content, tool calls, nothing else).
    The callers have taken deepagents' summary messages out (they are compactions): one left in is an error here."""
    from langchain_core.messages import convert_to_openai_messages

    from harness.sessions.openai import from_messages

    session = from_messages(list(convert_to_openai_messages(list(messages))), source, fmt)
    if session.compactions:
        raise ValueError(f"{source}: a summary message was left among the session's messages")  # a reader's own bug
    return session.messages


@dataclass(frozen=True)
class Taken:
    """Messages with the provider compactions taken out: ``messages`` (an AI message without its compaction blocks;
    one left with no content and no tool call is no message: its index in the input is in ``dropped``), each
    ``compactions`` after the messages kept before it, and ``counts`` for the session's meta (failed compactions)."""

    messages: list[BaseMessage]
    compactions: list[Compaction]
    dropped: tuple[int, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)

    def position(self, at: int) -> int:
        """Where ``at`` (a count of the input messages) falls among the kept messages."""
        return at - sum(i < at for i in self.dropped)


def take_compactions(messages: Sequence[BaseMessage]) -> Taken:
    """``messages`` with each provider compaction block of an AI message taken out as a `Compaction` where it stood
    (`harness.sessions.model.provider_compaction`: the rule the anthropic reader and the recorder share); the
    message keeps its other blocks and its tool calls. A compaction block opens the response the provider answered
    from its summary, so the messages before that AI message are what it compacted."""
    kept: list[BaseMessage] = []
    found: list[Compaction] = []
    dropped: list[int] = []
    counts: dict[str, int] = {}
    for i, message in enumerate(messages):
        content = message.content
        if not isinstance(message, AIMessage) or not isinstance(content, list):  # a chunk is an AIMessage too
            kept.append(message)
            continue
        rest = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "compaction":  # what it records: the shared rule
                if (compaction := provider_compaction(block, len(kept), counts)) is not None:
                    found.append(compaction)
            else:
                rest.append(block)
        compacted = len(rest) < len(content)
        if not compacted:
            kept.append(message)
        elif rest or getattr(message, "tool_calls", None):
            kept.append(message.model_copy(update={"content": rest}))
        else:
            dropped.append(i)
    return Taken(kept, found, tuple(dropped), counts)
