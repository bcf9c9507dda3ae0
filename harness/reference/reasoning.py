"""Reasoning the served reference agent returns when asked, and Claude's rules for thinking blocks sent back.

The reasoning is a pure function of the reply (`reasoning_text`), so it is a pure function of the request. Each API
carries it in its own form: an Anthropic ``thinking`` block with a ``signature`` (`serve.messages`), an OpenAI
Responses ``reasoning`` item (`serve.responses`), chat completions' ``reasoning_content`` (`serve.chat`).

A served thinking block is bound to the conversation before it, as Claude binds it ("preserved thinking",
https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks): its prefix is the
top-level ``system``, the ``tools`` and every message (and block) before it. The signature is ``hsig1.`` followed by
the SHA-256 of the canonical JSON of that prefix and the block's text (`sign`); the canonical form keeps what a
change means (texts, tool calls and results, earlier thinking with its signature) and drops what the wire adds
(``cache_control``, empty text blocks, how consecutive turns of one role are split), so the same conversation signs
the same whichever SDK sent it. `check_thinking` refuses, with Anthropic's 400, a request whose thinking block no
longer matches its prefix (that block and every later one are invalid), or drops those blocks under
``thinking.block_binding.prefix_mismatch_behavior: "drop_block"``; `check_tool_use_continuation` is the rule that a
tool result must come back with the thinking of the assistant turn that called the tool.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from langchain_core.messages import AIMessage

SIGNATURE_PREFIX = "hsig1."
DROP_BLOCK = "drop_block"
THINKING_TYPES = ("thinking", "redacted_thinking")
BOUND_TO_ANOTHER = (
    "{where}: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the "
    'block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)
NOT_A_SIGNATURE = "{where}: Invalid `signature` in `thinking` block"
TOOL_USE_WITHOUT_THINKING = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When `thinking` is "
    "enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` "
    "and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this "
    "requirement, disable `thinking`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)


class ThinkingError(ValueError):
    """A request whose thinking blocks Anthropic refuses: the message its 400 carries."""


def reasoning_text(reply: AIMessage) -> str:
    """The reasoning behind ``reply``: what the reference agent decided, in words (a pure function of the reply)."""
    if reply.tool_calls:
        calls = ", ".join(f"{c['name']}({json.dumps(c['args'], sort_keys=True)[:80]})" for c in reply.tool_calls)
        return f"The next step needs a tool: {calls}."
    return f"Enough is in view to answer ({len(reply.text)} characters)."


def thinking_enabled(body: dict[str, Any]) -> bool:
    """Whether a Messages request asks for thinking (``thinking.type`` ``enabled`` or ``adaptive``)."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _block(block: Any) -> dict[str, Any] | None:
    """A block as the binding sees it: its meaning, none of what the wire adds (None: a block that means nothing)."""
    if isinstance(block, str):
        block = {"type": "text", "text": block}
    if not isinstance(block, dict):
        return {"type": type(block).__name__}
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")} if block.get("text") else None
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": block.get("input") or {}}
    if kind == "tool_result":
        content = block.get("content")
        parts = [_block(b) for b in content] if isinstance(content, list) else [_block(content or "")]
        return {
            "type": "tool_result",
            "tool_use_id": block.get("tool_use_id"),
            "content": [p for p in parts if p],
            "is_error": bool(block.get("is_error")),
        }
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.get("thinking", ""), "signature": block.get("signature", "")}
    return {k: v for k, v in block.items() if k != "cache_control"}


def canonical_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the binding sees them: blocks normalized, consecutive messages of one role joined."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        content = msg.get("content")
        blocks = [b for b in (_block(x) for x in (content if isinstance(content, list) else [content or ""])) if b]
        if out and out[-1]["role"] == msg.get("role"):
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": msg.get("role"), "content": blocks})
    return out


def _system(system: Any) -> str:
    if isinstance(system, list):
        return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
    return str(system or "")


def sign(body: dict[str, Any], before: list[dict[str, Any]], thinking: str) -> str:
    """The signature binding ``thinking`` to its prefix: ``body``'s system and tools, and the messages ``before`` it
    (Anthropic-format; the blocks before it in its own turn end the list as an assistant message)."""
    tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in body.get("tools") or []]
    prefix = {"system": _system(body.get("system")), "tools": tools, "messages": canonical_messages(before)}
    data = json.dumps({"prefix": prefix, "thinking": thinking}, sort_keys=True, default=str)
    return SIGNATURE_PREFIX + hashlib.sha256(data.encode()).hexdigest()


def _before(messages: list[dict[str, Any]], i: int, j: int) -> list[dict[str, Any]]:
    head = list(messages[:i])
    content = messages[i].get("content")
    if isinstance(content, list) and j:
        head.append({"role": messages[i].get("role"), "content": content[:j]})
    return head


def check_thinking(body: dict[str, Any]) -> list[str]:
    """Check every thinking block of a Messages request against its prefix, as Claude's prefix check does.

    The first block that no longer matches makes it and every later thinking block invalid: a ThinkingError with
    Anthropic's message, or, under ``thinking.block_binding.prefix_mismatch_behavior: "drop_block"``, those blocks
    removed from ``body["messages"]`` in place. Returns where each dropped block was (``messages.I.content.J``).
    A ``redacted_thinking`` block is not checked (the harness never makes one).
    """
    messages = body.get("messages") or []
    binding = (body.get("thinking") or {}).get("block_binding") if isinstance(body.get("thinking"), dict) else None
    drop = isinstance(binding, dict) and binding.get("prefix_mismatch_behavior") == DROP_BLOCK
    invalid: list[tuple[int, int]] = []
    for i, msg in enumerate(messages):
        content = msg.get("content") if msg.get("role") == "assistant" else None
        for j, block in enumerate(content if isinstance(content, list) else []):
            if not isinstance(block, dict) or block.get("type") != "thinking":
                continue
            where = f"messages.{i}.content.{j}"
            signature = str(block.get("signature") or "")
            if invalid:
                invalid.append((i, j))
            elif not signature.startswith(SIGNATURE_PREFIX):
                raise ThinkingError(NOT_A_SIGNATURE.format(where=where))
            elif signature != sign(body, _before(messages, i, j), str(block.get("thinking", ""))):
                if not drop:
                    raise ThinkingError(BOUND_TO_ANOTHER.format(where=where))
                invalid.append((i, j))
    for i, j in reversed(invalid):
        del messages[i]["content"][j]
    return [f"messages.{i}.content.{j}" for i, j in invalid]


def check_tool_use_continuation(body: dict[str, Any]) -> None:
    """With thinking on, a tool result must come back with the thinking of the assistant turn that called the tool
    (https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows): the final assistant message before
    the trailing tool results must start with a thinking block, or ThinkingError with Anthropic's message."""
    if not thinking_enabled(body):
        return
    messages = body.get("messages") or []
    last = next((k for k in range(len(messages) - 1, -1, -1) if messages[k].get("role") == "assistant"), None)
    if last is None or last == len(messages) - 1:
        return
    after = messages[last + 1 :]
    results = any(
        isinstance(b, dict) and b.get("type") == "tool_result"
        for m in after
        for b in (m.get("content") if isinstance(m.get("content"), list) else [])
    )
    content = messages[last].get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    if results and blocks and (not isinstance(blocks[0], dict) or blocks[0].get("type") not in THINKING_TYPES):
        found = blocks[0].get("type") if isinstance(blocks[0], dict) else "text"
        raise ThinkingError(TOOL_USE_WITHOUT_THINKING.format(i=last, found=found))
