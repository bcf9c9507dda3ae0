"""LangChain messages to a session's OpenAI chat messages, by LangChain's own converters (the LangGraph and LangSmith readers).

A LangGraph thread holds `BaseMessage` objects; a LangSmith run holds them serialized (``dumpd``'s ``{"lc": 1, ...}``
constructor form, ``messages_to_dict``'s ``{"type", "data"}`` form) or already in OpenAI shape. `revive` reads each
shape into a `BaseMessage` (chat-message classes only: a run export is untrusted input), and `to_openai` writes the
conversation file's format with ``convert_to_openai_messages``. Nothing is re-implemented: what LangChain cannot read
is refused with the place it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage


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
