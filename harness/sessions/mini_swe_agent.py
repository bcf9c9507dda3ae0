"""`harness import mini-swe-agent`: a mini-swe-agent ``.traj.json``, in either of its trajectory formats.

``mini-swe-agent-1.1`` records OpenAI chat messages with ``tool_calls`` and ``role: tool``: read as OpenAI messages
(`harness.sessions.openai.from_messages`), ``content`` only (each message's ``extra`` repeats the output: dropped).
``mini-swe-agent-1`` (text actions; also a file with no ``trajectory_format``) records each action as a bash block in
the assistant's text and its output as the next user message: an assistant message with exactly one bash block and a
user message after it become a ``bash`` tool call (``{"command": ...}``, id ``bash-<index>``; the block is taken out
of the text) and its ``tool`` result, so every format's sessions have their commands as tool calls; an assistant
message with no block or several (mini-swe-agent answers those with a format error) stays text. The final ``exit``
message (the exit status and the submitted patch) is not a message: its status goes to ``meta``.
"""

from __future__ import annotations

import re
from typing import Any

from harness.errors import DatasetError
from harness.sessions.messages import message, tool_call
from harness.sessions.model import Session
from harness.sessions.openai import from_messages
from harness.sessions.source import messages_field, read_json

TEXT_FORMAT, TOOL_FORMAT = "mini-swe-agent-1", "mini-swe-agent-1.1"
_BASH = re.compile(r"```(?:bash|sh)[ \t]*\n(.*?)\n?```", re.DOTALL)


def read(source: str, **options: Any) -> Session:  # noqa: ANN401 - no options
    """The session in ``source``; a `DatasetError` names the file and the field."""
    data = read_json(source)
    raw = messages_field(data, source)
    fmt = data.get("trajectory_format", TEXT_FORMAT) if isinstance(data, dict) else TEXT_FORMAT
    if fmt not in (TEXT_FORMAT, TOOL_FORMAT):
        raise DatasetError(source, None, "trajectory_format", f"expected {TEXT_FORMAT} or {TOOL_FORMAT}, got {fmt!r}")
    meta: dict[str, Any] = {"trajectory_format": fmt}
    info = data.get("info") if isinstance(data, dict) else None
    if isinstance(info, dict):
        meta["exit_status"] = info.get("exit_status")
        model = ((info.get("config") or {}).get("model") or {}).get("model_name")
        if isinstance(model, str):
            meta["model"] = model
    if raw and isinstance(raw[-1], dict) and raw[-1].get("role") == "exit":
        raw = raw[:-1]
        meta["exit_message"] = True
    if fmt == TEXT_FORMAT:
        raw = _text_actions(raw)
    session = from_messages(raw, source, "mini-swe-agent", meta)
    return session


def _text_actions(raw: list[Any]) -> list[Any]:  # noqa: ANN401 - JSON values
    """Text actions as tool calls: an assistant message with one bash block and the user message after it."""
    out: list[Any] = []
    i = 0
    while i < len(raw):
        msg = raw[i]
        nxt = raw[i + 1] if i + 1 < len(raw) else None
        text = msg.get("content") if isinstance(msg, dict) else None
        blocks = _BASH.findall(text) if isinstance(text, str) and msg.get("role") == "assistant" else []
        if len(blocks) == 1 and isinstance(nxt, dict) and nxt.get("role") == "user" and isinstance(nxt.get("content"), str):
            call_id = f"bash-{i}"
            thought = _BASH.sub("", str(text)).strip()
            out.append(message("assistant", thought, tool_calls=[tool_call(call_id, "bash", {"command": blocks[0].strip()})]))
            out.append(message("tool", nxt["content"], tool_call_id=call_id))
            i += 2
            continue
        out.append(msg)
        i += 1
    return out
