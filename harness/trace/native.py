"""Provider-native compaction as the recorder sees it: what a response from Anthropic or OpenAI says was compacted.

A native compaction happens on the provider's side, so the request LangChain sends still holds the whole history;
what shows is the response: a ``compaction`` content block (Anthropic, its ``content`` the summary, null when the
compaction failed) or item (OpenAI Responses, the summary in an opaque ``encrypted_content``; `harness serve`'s
envelope is decoded by `decode_compaction`, a real provider's stays opaque), and Anthropic's
``context_management.applied_edits`` (tool results cleared). The recorder turns them into ``summary`` and ``mask``
events so reports and token curves mark them.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage

from harness import _deepagents_adapter as da

ENVELOPE_MARKER = "harness-simulated-compaction"
ENVELOPE_VERSION = 1
ENVELOPE_PREFIX = "hsc1."  # encrypted_content = prefix + base64(JSON envelope)
NATIVE_SUMMARY_OPENING = da.SUMMARY_OPENINGS[1]  # "Here is a summary of the conversation to date:"
OPAQUE = "[opaque provider compaction: the summary is encrypted by the provider]"


@dataclass(frozen=True)
class NativeCompaction:
    provider: str  # "anthropic" or "openai"
    summary: str | None  # None: the compaction failed (a null block); OPAQUE when the provider's ciphertext is unread
    readable: bool  # the summary is the provider's text (not OPAQUE, not a failure)


def compactions(message: Any) -> list[NativeCompaction]:
    """The native compactions in a response message's content, in order (none for a message without them)."""
    content = getattr(message, "content", None)
    return [found for block in (content if isinstance(content, list) else []) if (found := block_compaction(block))]


def block_compaction(block: Any) -> NativeCompaction | None:  # noqa: ANN401 - a content block, any JSON value
    """The provider compaction one content block records, or None for any other block: the one rule for "this block is
    a provider's server-side compaction, and this is its summary", read by the recorder and by every session reader
    (`harness.sessions.model.provider_compaction`). Anthropic's is a ``compaction`` block with its ``content`` (null:
    the compaction failed, and the provider treats the block as a no-op); OpenAI's Responses compaction item is kept by
    LangChain among an AI message's content blocks as ``{"type": "compaction", "id", "encrypted_content"}`` (no
    ``content``): `harness serve`'s envelope is decoded, a real provider's ciphertext stays `OPAQUE`."""
    if not isinstance(block, dict) or block.get("type") != "compaction":
        return None
    if "encrypted_content" in block and "content" not in block:
        try:
            return NativeCompaction("openai", decode_compaction(block["encrypted_content"]), True)
        except ValueError:
            return NativeCompaction("openai", OPAQUE, False)
    text = block.get("content")
    return NativeCompaction("anthropic", text if isinstance(text, str) and text else None, bool(text))


def cleared_tool_uses(message: Any) -> int:
    """How many tool results the provider's ``clear_tool_uses`` edit cleared for this response (0: none reported)."""
    meta = getattr(message, "response_metadata", None) or {}
    edits = (meta.get("context_management") or {}).get("applied_edits") or []
    return sum(int(e.get("cleared_tool_uses") or 0) for e in edits if isinstance(e, dict))


def summary_message(summary: str) -> HumanMessage:
    """What the reference models see in place of a compaction block or item: the summary as a user turn."""
    return HumanMessage(content=f"{NATIVE_SUMMARY_OPENING}\n\n{summary}")


def encode_compaction(summary: str, *, source: str = "responses") -> str:
    """The ``encrypted_content`` of a simulated OpenAI compaction item: a versioned, marked base64 JSON envelope."""
    envelope = {"marker": ENVELOPE_MARKER, "version": ENVELOPE_VERSION, "source": source, "summary": summary}
    return ENVELOPE_PREFIX + base64.urlsafe_b64encode(json.dumps(envelope, sort_keys=True).encode()).decode()


def decode_compaction(encrypted_content: str) -> str:
    """The summary inside an ``encrypted_content`` made by `encode_compaction`; ValueError names what is wrong
    (not one of ours, a broken envelope, a version this harness does not read)."""
    if not isinstance(encrypted_content, str) or not encrypted_content.startswith(ENVELOPE_PREFIX):
        raise ValueError(f"not a harness compaction envelope (it does not start with {ENVELOPE_PREFIX!r})")
    try:
        envelope = json.loads(base64.urlsafe_b64decode(encrypted_content[len(ENVELOPE_PREFIX) :].encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("a harness compaction envelope whose body is not base64 JSON") from None
    if not isinstance(envelope, dict) or envelope.get("marker") != ENVELOPE_MARKER:
        raise ValueError(f"a compaction envelope without the marker {ENVELOPE_MARKER!r}")
    if envelope.get("version") != ENVELOPE_VERSION:
        raise ValueError(f"compaction envelope version {envelope.get('version')!r}: this harness reads {ENVELOPE_VERSION}")
    if not isinstance(envelope.get("summary"), str):
        raise ValueError("a compaction envelope without a summary")
    return envelope["summary"]
