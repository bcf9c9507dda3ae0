"""`harness import openai`: OpenAI chat messages, a JSON array, a JSONL file (one message a line) or ``{"messages": [...]}``.

Kept: ``role`` (system, developer as system, user, assistant, tool), the text of ``content``, an assistant's
``tool_calls`` and a tool result's ``tool_call_id``; a legacy ``function_call`` or ``function`` message is refused
naming it. A user message that opens the way deepagents' summary message does (a request recorded after a
summarization, or `harness export`'s JSONL) is the compaction it records, not a message.
"""

from __future__ import annotations

from typing import Any

from harness.errors import DatasetError
from harness.sessions.messages import arguments_text, message, text_of, tool_call
from harness.sessions.model import DEEPAGENTS_SUMMARY, Compaction, Session
from harness.sessions.source import messages_field, read_json_or_lines

ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool"}


def read(source: str, **options: Any) -> Session:  # noqa: ANN401 - no options
    """The session in ``source``; a `DatasetError` names the file and ``messages[i].field`` of the first problem."""
    raw = messages_field(read_json_or_lines(source), source)
    return from_messages(raw, source, "openai")


def from_messages(
    raw: list[Any], source: str, fmt: str, meta: dict[str, Any] | None = None, summaries: frozenset[int] = frozenset()
) -> Session:
    """A `Session` from OpenAI chat message dicts (also the mini-swe-agent and LangChain readers', which map onto
    these); the messages at ``summaries`` (indices in ``raw``) are compactions whatever their text."""
    from harness._deepagents_adapter import SUMMARY_OPENINGS, summary_body

    messages: list[dict[str, Any]] = []
    compactions: list[Compaction] = []
    dropped: dict[str, int] = {}
    for i, msg in enumerate(raw):
        where = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise DatasetError(source, None, where, f"a message must be a JSON object, got {type(msg).__name__}")
        role = ROLES.get(str(msg.get("role")))
        if role is None:
            raise DatasetError(source, None, f"{where}.role", f"expected one of {', '.join(ROLES)}, got {msg.get('role')!r}")
        text = text_of(msg.get("content"), source, f"{where}.content", dropped)
        if i in summaries or (role == "user" and text.lstrip().startswith(SUMMARY_OPENINGS)):
            compactions.append(Compaction(len(messages), DEEPAGENTS_SUMMARY, summary_body(text)))
            continue
        if msg.get("function_call"):
            raise DatasetError(source, None, f"{where}.function_call", "legacy function calls are not read: record tool_calls")
        calls = []
        for j, call in enumerate(msg.get("tool_calls") or () if role == "assistant" else ()):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(call.get("id"), str) or not isinstance(fn.get("name"), str):
                raise DatasetError(source, None, f"{where}.tool_calls[{j}]", 'expected {"id", "function": {"name", "arguments"}}')
            args = arguments_text(fn.get("arguments", "{}"), source, f"{where}.tool_calls[{j}].function.arguments")
            calls.append(tool_call(call["id"], fn["name"], args))
        call_id = msg.get("tool_call_id") if role == "tool" else None
        if role == "tool" and not isinstance(call_id, str):
            raise DatasetError(source, None, f"{where}.tool_call_id", "a tool result needs the id of the call it answers")
        messages.append(message(role, text, tool_calls=calls, tool_call_id=call_id))
    return Session(
        fmt, source, tuple(messages), tuple(compactions), meta={**(meta or {}), **({"dropped_parts": dropped} if dropped else {})}
    )
