"""`harness import anthropic`: Anthropic Messages, a list of messages or a request body with ``system`` and ``messages``.

Mapped: ``system`` (a string or text blocks) to a system message; an assistant's ``text`` blocks to its content and
its ``tool_use`` blocks to ``tool_calls``; a user's ``tool_result`` blocks to ``tool`` messages (before the user's
text, as the API orders them) and its ``text`` blocks to a user message. ``thinking`` and ``redacted_thinking`` blocks
are kept out of the text and counted (``meta["thinking_blocks"]``); a ``compaction`` block (context management's
server-side summary) is a `Compaction` where it stands, its ``content`` the summary (`provider_compaction`, the rule
every reader shares; a failed one, null ``content``, is no compaction: counted in ``meta["failed_compactions"]``). Other blocks (images, server
tools) are counted in ``meta["dropped_parts"]`` by type.
"""

from __future__ import annotations

from typing import Any

from harness.errors import DatasetError
from harness.sessions.messages import message, text_of, tool_call
from harness.sessions.model import Compaction, Session, provider_compaction
from harness.sessions.source import messages_field, read_json_or_lines

THINKING = ("thinking", "redacted_thinking")


def read(source: str, **options: Any) -> Session:  # noqa: ANN401 - no options
    """The session in ``source``; a `DatasetError` names the file and ``messages[i].content[j].field``."""
    data = read_json_or_lines(source)
    raw = messages_field(data, source)
    messages: list[dict[str, Any]] = []
    if isinstance(data, dict) and data.get("system"):
        system = text_of(data["system"], source, "system", {})
        messages.append(message("system", system))
    compactions: list[Compaction] = []
    dropped: dict[str, int] = {}
    counts = {"thinking_blocks": 0}
    calls: set[str] = set()
    for i, msg in enumerate(raw):
        where = f"messages[{i}]"
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            got = msg.get("role") if isinstance(msg, dict) else type(msg).__name__
            raise DatasetError(source, None, f"{where}.role", f"expected user or assistant, got {got!r}")
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            raise DatasetError(source, None, f"{where}.content", "expected a string or a list of content blocks")
        texts: list[str] = []
        uses: list[dict[str, Any]] = []
        for j, block in enumerate(blocks):
            at = f"{where}.content[{j}]"
            kind = block.get("type") if isinstance(block, dict) else None
            if not isinstance(kind, str):
                raise DatasetError(source, None, f"{at}.type", "a content block needs its type")
            if kind == "text":
                texts.append(text_of([block], source, at, dropped))
            elif kind in THINKING:
                counts["thinking_blocks"] += 1
            elif kind == "compaction":  # the provider's rule, shared with every reader (`provider_compaction`)
                if (found := provider_compaction(block, len(messages), counts)) is not None:
                    compactions.append(found)
            elif kind == "tool_use" and msg["role"] == "assistant":
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    raise DatasetError(source, None, at, "a tool_use block needs its id and name")
                if not isinstance(block.get("input", {}), dict):
                    raise DatasetError(source, None, f"{at}.input", "expected a JSON object")
                uses.append(tool_call(block["id"], block["name"], block.get("input", {})))
                calls.add(block["id"])
            elif kind == "tool_result" and msg["role"] == "user":
                call_id = block.get("tool_use_id")
                if call_id not in calls:
                    raise DatasetError(source, None, f"{at}.tool_use_id", f"{call_id!r} answers no earlier tool_use block")
                messages.append(
                    message("tool", text_of(block.get("content"), source, f"{at}.content", dropped), tool_call_id=call_id)
                )
            elif kind in ("tool_use", "tool_result"):
                raise DatasetError(source, None, f"{at}.type", f"a {kind} block in a {msg['role']} message")
            else:
                dropped[kind] = dropped.get(kind, 0) + 1
        text = "\n".join(texts)
        if msg["role"] == "assistant" and (text or uses):
            messages.append(message("assistant", text, tool_calls=uses))
        elif msg["role"] == "user" and text.strip():
            messages.append(message("user", text))
    meta = {**counts, **({"dropped_parts": dropped} if dropped else {})}
    if isinstance(data, dict) and isinstance(data.get("model"), str):
        meta["model"] = data["model"]
    return Session("anthropic", source, tuple(messages), tuple(compactions), meta=meta)
