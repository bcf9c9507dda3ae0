"""Provider-native compaction as the recorder sees it: what a response from Anthropic or OpenAI says was compacted.

A native compaction happens on the provider's side, so the request LangChain sends still holds the whole history;
what shows is the response: a ``compaction`` content block (Anthropic, its ``content`` the summary, null when the
compaction failed) or item (OpenAI Responses, the summary in an opaque ``encrypted_content``; `harness serve`'s
envelope is decoded by `harness.reference.native.decode_compaction`, a real provider's stays opaque), and Anthropic's
``context_management.applied_edits`` (tool results cleared). The recorder turns them into ``summary`` and ``mask``
events so reports and token curves mark them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OPAQUE = "[opaque provider compaction: the summary is encrypted by the provider]"


@dataclass(frozen=True)
class NativeCompaction:
    provider: str  # "anthropic" or "openai"
    summary: str | None  # None: the compaction failed (a null block); OPAQUE when the provider's ciphertext is unread
    readable: bool  # the summary is the provider's text (not OPAQUE, not a failure)


def compactions(message: Any) -> list[NativeCompaction]:
    """The native compactions in a response message's content, in order (none for a message without them)."""
    from harness.reference.native import decode_compaction

    content = getattr(message, "content", None)
    out = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") != "compaction":
            continue
        if "encrypted_content" in block and "content" not in block:
            try:
                out.append(NativeCompaction("openai", decode_compaction(block["encrypted_content"]), True))
            except ValueError:
                out.append(NativeCompaction("openai", OPAQUE, False))
        else:
            text = block.get("content")
            out.append(NativeCompaction("anthropic", text if isinstance(text, str) and text else None, bool(text)))
    return out


def cleared_tool_uses(message: Any) -> int:
    """How many tool results the provider's ``clear_tool_uses`` edit cleared for this response (0: none reported)."""
    meta = getattr(message, "response_metadata", None) or {}
    edits = (meta.get("context_management") or {}).get("applied_edits") or []
    return sum(int(e.get("cleared_tool_uses") or 0) for e in edits if isinstance(e, dict))
