"""The checks every imported session passes, whatever its format, and its size in messages and tokens.

One place: each message is checked as a case's conversation file is (`harness.scenarios.conversation.check_message`:
roles, content, tool calls, every tool result answering an earlier call), so what an import accepts, a case loads.
A problem names the session's source and the message (``messages[i].field``). The size is the message count and
LangChain's ``count_tokens_approximately`` per message (additive, so the cut's token share reads it from a prefix sum).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import DatasetError
from harness.sessions.model import Session

MAX_MESSAGE_TOKENS = 2_000_000
"""A message larger than any model's window (approximate tokens): a file read whole into one message, refused."""


@dataclass(frozen=True)
class SessionSize:
    """A checked session's size: ``tokens`` in all, ``per_message`` in order, and the tool calls it left unanswered
    (``open_calls``: a session may end on a call; a cut never leaves one before it)."""

    messages: int
    tokens: int
    per_message: tuple[int, ...]
    open_calls: tuple[str, ...]


def check_session(session: Session) -> SessionSize:
    """``session`` checked message by message; a `DatasetError` names its source and the first bad message."""
    from harness.scenarios.conversation import check_message

    if not session.messages:
        raise DatasetError(session.source, None, "messages", "the session has no messages")
    from harness.tool_pairs import ToolPairs

    pairs = ToolPairs()
    for i, msg in enumerate(session.messages):
        try:
            check_message(msg, session.source, i, pairs)
        except DatasetError as exc:
            field = f"messages[{i}]" + (f".{exc.field}" if exc.field else "")
            raise DatasetError(session.source, None, field, exc.problem) from None
    for c in session.compactions:
        if not 0 <= c.at <= len(session.messages):
            raise DatasetError(session.source, None, "compactions", f"a compaction at {c.at} is outside the session")
    per_message = message_tokens(session.messages)
    for i, n in enumerate(per_message):
        if n > MAX_MESSAGE_TOKENS:
            raise DatasetError(
                session.source, None, f"messages[{i}].content", f"{n:,} tokens, more than any window ({MAX_MESSAGE_TOKENS:,})"
            )
    unanswered = tuple(pairs.unanswered())
    return SessionSize(len(session.messages), sum(per_message), per_message, unanswered)


def message_tokens(messages: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> tuple[int, ...]:
    """Approximate tokens of each message (``count_tokens_approximately``, as deepagents' trigger counts them)."""
    from langchain_core.messages import convert_to_messages
    from langchain_core.messages.utils import count_tokens_approximately

    return tuple(count_tokens_approximately([m]) for m in convert_to_messages(list(messages)))
