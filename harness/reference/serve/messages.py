"""``POST /v1/messages``: the Anthropic Messages API over the reference models, with native context management.

A request is turned into LangChain messages (system, user text, ``tool_use`` / ``tool_result``, ``thinking``, and
a ``compaction`` block as the summary it carries), edited as ``context_management.edits`` ask, answered by
`wire.reference_reply` and written back as a ``message`` (or, with ``stream``, its server-sent events), with usage
in Anthropic's fields, the prompt cache simulated (``prompt_cache``). The semantics served:

- ``compact_20260112``: a ``trigger`` under ``native.ANTHROPIC_MIN_TRIGGER`` input tokens is a 400. When the input
  reaches the trigger (150,000 by default) the reference summarizer summarizes it, shaped by ``instructions``; the
  reply starts with a ``compaction`` block carrying the summary (``content`` null when the summary failed, the
  ``null-compaction`` fault) and the model answers from the summary alone, or stops there with ``stop_reason``
  ``compaction`` under ``pause_after_compaction``. The summary pass is billed only in ``usage.iterations`` (a
  ``compaction`` entry, then the ``message`` entry the top-level usage repeats). On a later request every block
  before the latest compaction block with content is dropped; a null one is a no-op.
- ``clear_tool_uses_20250919``: past its trigger (input tokens, 100,000 by default, or a count of tool uses), the
  results of all but the ``keep`` latest tool uses (3 by default, ``exclude_tools`` never) are replaced by a
  placeholder (and their inputs with ``clear_tool_inputs``), unless fewer than ``clear_at_least`` tokens would go.
- ``clear_thinking_20251015``: thinking blocks of all but the ``keep`` latest assistant turns (1 by default) go.
  Both report ``context_management.applied_edits``.
- A block sent back with a field the API does not know is a 400 naming it, as Anthropic answers: langchain-anthropic
  up to 1.7.7 sent a streamed compaction block back with its ``index`` (langchain#36976), so the request after a
  streamed compaction failed; 1.7.10 (the lock) drops it and the request is accepted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from harness.reference import native
from harness.reference.names import AGENT_NAME
from harness.reference.prompt_cache import CacheUse, PromptCache
from harness.reference.provider_tokens import output_tokens, text_tokens
from harness.reference.reasoning import (
    ThinkingError,
    check_thinking,
    check_tool_use_continuation,
    reasoning_text,
    sign,
    thinking_enabled,
)
from harness.reference.serve.api import CompactionFault, ServedAPI
from harness.reference.serve.pairing import check_messages
from harness.reference.serve.state import ServerState
from harness.reference.serve.wire import (
    Outcome,
    RequestError,
    cache_key,
    message_unit,
    reference_reply,
    require,
    require_objects,
    scope_of,
    sse,
    stable_id,
    tool_unit,
)
from harness.trace.schema import SIMULATED_FINGERPRINT

CLEARED_PLACEHOLDER = "[cleared]"  # what replaces a cleared tool result (LangChain's ClearToolUsesEdit says the same)
CLEAR_TOOL_USES_DEFAULT_TRIGGER = 100_000
CLEAR_TOOL_USES_DEFAULT_KEEP = 3
COMPACTION_KEYS = {"type", "content", "encrypted_content", "signature", "tool_changes", "cache_control"}
BLOCK_KEYS = {
    "text": {"type", "text", "cache_control", "citations"},
    "tool_use": {"type", "id", "name", "input", "cache_control", "caller"},
    "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
    "thinking": {"type", "thinking", "signature"},
    "redacted_thinking": {"type", "data"},
    "compaction": COMPACTION_KEYS,
}
EDIT_TYPES = ("clear_thinking_20251015", "clear_tool_uses_20250919", "compact_20260112")
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error"}


def error_body(status: int, message: str) -> dict[str, Any]:
    """Anthropic's error body for ``status``."""
    kind = ERROR_TYPES.get(status, "overloaded_error" if status in (503, 529) else "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


@dataclass
class Conversation:
    """A request as the reference models see it: LangChain messages, the indices that carry a cache breakpoint,
    and OpenAI-format tools."""

    system: list[BaseMessage]
    messages: list[BaseMessage]
    tools: list[dict[str, Any]]
    tool_units: list[tuple[str, int]]
    breakpoints: set[int] = field(default_factory=set)  # indices into units(): tools, system, messages

    def units(self) -> list[tuple[str, int]]:
        """The cache units in Anthropic's order: tools, system, messages."""
        return [*self.tool_units, *(message_unit(m) for m in [*self.system, *self.messages])]

    def input_tokens(self) -> int:
        """The simulated input tokens of the request as it stands (after any edits)."""
        return sum(n for _, n in self.units())


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def _check_block(block: Any, where: str) -> None:
    if not isinstance(block, dict) or block.get("type") not in BLOCK_KEYS:
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        raise RequestError(f"{where}: unknown content block type {kind!r}")
    extra = sorted(set(block) - BLOCK_KEYS[block["type"]])
    if extra:
        raise RequestError(f"{where}.{block['type']}.{extra[0]}: Extra inputs are not permitted")
    if block["type"] == "compaction" and block.get("content") == "":
        raise RequestError(f"{where}.compaction.content: empty content is not allowed (null marks a failed compaction)")


def latest_compaction(messages: list[dict[str, Any]]) -> tuple[int, int] | None:
    """(message, block) index of the latest compaction block with content: everything before it is dropped."""
    for i in range(len(messages) - 1, -1, -1):
        content = messages[i].get("content")
        if isinstance(content, list):
            for j in range(len(content) - 1, -1, -1):
                block = content[j]
                if isinstance(block, dict) and block.get("type") == "compaction" and block.get("content"):
                    return i, j
    return None


def check_body(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's top-level fields and messages are of the types the API takes (a 400 naming the field otherwise,
    before anything reads them); returns the messages."""
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestError("messages: at least one message is required")
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        require_objects(system, "system")
    require_objects(body.get("tools"), "tools")
    for i, msg in enumerate(raw):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            raise RequestError(f"messages.{i}.role: must be 'user' or 'assistant'")
        require(msg.get("content"), (str, list), f"messages.{i}.content", "a string or a list of content blocks is required")
    return raw


def parse_request(body: dict[str, Any]) -> Conversation:
    """The request's conversation, validated as the API validates it (RequestError on what it refuses)."""
    raw = check_body(body)
    for i, msg in enumerate(raw):
        if isinstance(msg.get("content"), list):
            for j, block in enumerate(msg["content"]):
                _check_block(block, f"messages.{i}.content.{j}")
    check_messages(raw)
    cut = latest_compaction(raw)
    kept = [dict(m) for m in raw]
    if cut is not None:
        i, j = cut
        kept = [{**kept[i], "content": kept[i]["content"][j:]}, *kept[i + 1 :]]
    system = body.get("system")
    conv = Conversation(
        system=[SystemMessage(content=_text(system))] if system else [],
        messages=[],
        tools=[],
        tool_units=[],
    )
    for t, tool in enumerate(body.get("tools") or []):
        conv.tools.append(
            {
                "type": "function",
                "function": {
                    "name": tool.get("name"),
                    "description": tool.get("description", ""),
                    "parameters": tool.get("input_schema", {}),
                },
            }
        )
        conv.tool_units.append(tool_unit(tool))
        if "cache_control" in tool:
            conv.breakpoints.add(t)
    offset = len(conv.tool_units)
    if isinstance(system, list) and any(isinstance(b, dict) and "cache_control" in b for b in system):
        conv.breakpoints.add(offset)
    offset += len(conv.system)
    for msg in kept:
        converted = _convert(msg)
        conv.messages.extend(converted)
        if converted and _has_cache_control(msg):
            conv.breakpoints.add(offset + len(conv.messages) - 1)
    if body.get("cache_control") and (conv.messages or conv.system):
        conv.breakpoints.add(offset + len(conv.messages) - 1)
    return conv


def _has_cache_control(msg: dict[str, Any]) -> bool:
    return isinstance(msg.get("content"), list) and any(isinstance(b, dict) and "cache_control" in b for b in msg["content"])


def _convert(msg: dict[str, Any]) -> list[BaseMessage]:
    content = msg.get("content")
    if isinstance(content, str):
        return [HumanMessage(content=content) if msg["role"] == "user" else AIMessage(content=content)]
    out: list[BaseMessage] = []
    if msg["role"] == "user":
        for block in content or []:
            if block["type"] == "tool_result":
                # is_error travels on this wire (langchain-anthropic sends the ToolMessage's status as it): kept
                status = "error" if block.get("is_error") is True else "success"
                out.append(ToolMessage(content=_text(block.get("content")), tool_call_id=block["tool_use_id"], status=status))
        text = _text(content)
        if text:
            out.append(HumanMessage(content=text))
        return out
    blocks: list[dict[str, Any]] = []
    calls = []
    for block in content or []:
        kind = block["type"]
        if kind == "compaction":
            if block.get("content"):
                out.append(native.summary_message(block["content"]))
        elif kind == "text":
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": block.get("thinking", ""), "signature": block.get("signature", "")})
        elif kind == "tool_use":
            calls.append({"name": block["name"], "args": block.get("input") or {}, "id": block["id"], "type": "tool_call"})
    if blocks or calls:
        out.append(AIMessage(content=blocks, tool_calls=calls))  # type: ignore[arg-type]
    return out


def edits_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """``context_management.edits``, validated: known types only, and a compaction trigger the API accepts."""
    management = body.get("context_management") or {}
    require(management, dict, "context_management", "an object is required")
    edits = management.get("edits") or []
    require(edits, list, "context_management.edits", "a list of edits is required")
    for k, edit in enumerate(edits):
        if not isinstance(edit, dict) or edit.get("type") not in EDIT_TYPES:
            kind = edit.get("type") if isinstance(edit, dict) else edit
            raise RequestError(f"context_management.edits.{k}.type: {kind!r} is not one of {', '.join(EDIT_TYPES)}")
        if edit["type"] == "compact_20260112":
            trigger = edit.get("trigger") or {}
            require(trigger, dict, f"context_management.edits.{k}.trigger", "an object is required")
            value = trigger.get("value", native.ANTHROPIC_DEFAULT_TRIGGER)
            require(value, int, f"context_management.edits.{k}.trigger.value", "a whole number of input tokens is required")
            problem = native.trigger_error(value)
            if problem:
                raise RequestError(problem)
    return edits


def clear_thinking(conv: Conversation, edit: dict[str, Any]) -> dict[str, Any] | None:
    """Apply ``clear_thinking_20251015``: the applied edit, or None when nothing was cleared."""
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return None
    turns = [i for i, m in enumerate(conv.messages) if isinstance(m, AIMessage) and _thinking(m)]
    cleared = turns[: max(0, len(turns) - int(keep.get("value", 1)))]
    if not cleared:
        return None
    before = conv.input_tokens()
    for i in cleared:
        msg = conv.messages[i]
        assert isinstance(msg, AIMessage)
        rest = [b for b in msg.content if not (isinstance(b, dict) and b.get("type") == "thinking")]
        conv.messages[i] = AIMessage(content=rest, tool_calls=msg.tool_calls)
    return {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": len(cleared),
        "cleared_input_tokens": before - conv.input_tokens(),
    }


def _thinking(msg: AIMessage) -> bool:
    return isinstance(msg.content, list) and any(isinstance(b, dict) and b.get("type") == "thinking" for b in msg.content)


def clear_tool_uses(conv: Conversation, edit: dict[str, Any]) -> dict[str, Any] | None:
    """Apply ``clear_tool_uses_20250919``: the applied edit, or None when it did not trigger or cleared too little."""
    names = {c["id"]: c["name"] for m in conv.messages if isinstance(m, AIMessage) for c in m.tool_calls}
    excluded = set(edit.get("exclude_tools") or [])
    uses = [i for i, m in enumerate(conv.messages) if isinstance(m, ToolMessage) and m.text != CLEARED_PLACEHOLDER]
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": CLEAR_TOOL_USES_DEFAULT_TRIGGER}
    reached = len(uses) if trigger.get("type") == "tool_uses" else conv.input_tokens()
    if reached < int(trigger.get("value", CLEAR_TOOL_USES_DEFAULT_TRIGGER)):
        return None
    keep = int((edit.get("keep") or {}).get("value", CLEAR_TOOL_USES_DEFAULT_KEEP))
    candidates = [i for i in uses if names.get(conv.messages[i].tool_call_id) not in excluded]  # type: ignore[attr-defined]
    chosen = candidates[: max(0, len(candidates) - keep)]
    if not chosen:
        return None
    inputs = edit.get("clear_tool_inputs") or False
    before = conv.input_tokens()
    edited = list(conv.messages)
    for i in chosen:
        tool_msg = edited[i]
        assert isinstance(tool_msg, ToolMessage)
        edited[i] = ToolMessage(content=CLEARED_PLACEHOLDER, tool_call_id=tool_msg.tool_call_id)
        if inputs:
            _clear_input(edited, tool_msg.tool_call_id, inputs)
    trial = Conversation(conv.system, edited, conv.tools, conv.tool_units, conv.breakpoints)
    cleared = before - trial.input_tokens()
    if cleared < int((edit.get("clear_at_least") or {}).get("value", 0)):
        return None
    conv.messages = edited
    return {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(chosen), "cleared_input_tokens": cleared}


def _clear_input(messages: list[BaseMessage], call_id: str, which: bool | list[str]) -> None:
    for k, msg in enumerate(messages):
        if isinstance(msg, AIMessage) and any(c["id"] == call_id for c in msg.tool_calls):
            calls = [
                {**c, "args": {}}
                if c["id"] == call_id and (which is True or (isinstance(which, list) and c["name"] in which))
                else c
                for c in msg.tool_calls
            ]
            messages[k] = AIMessage(content=msg.content, tool_calls=calls)


def answer(
    body: dict[str, Any], seed: int, cache: PromptCache, compaction_fault: Any = None, tool_use_rule: bool = False
) -> Outcome:
    """The ``message`` for a Messages API request, a pure function of the request and the cache's earlier entries.
    ``compaction_fault`` (called once, only when a compaction fires) returns None, ``"null-compaction"`` or
    ``"compaction-midstream"``; ``tool_use_rule`` also enforces the tool-use continuation rule (see `checked_thinking`)."""
    check_body(body)
    edits = edits_of(body)
    body = checked_thinking(body, tool_use_rule)
    conv = parse_request(body)
    applied = []
    for edit in edits:
        if edit["type"] == "clear_thinking_20251015":
            applied.append(clear_thinking(conv, edit))
        elif edit["type"] == "clear_tool_uses_20250919":
            applied.append(clear_tool_uses(conv, edit))
    scope = scope_of(body.get("model"), conv.tools)
    key = cache_key("anthropic", body, conv.messages)
    compact = next((e for e in edits if e["type"] == "compact_20260112"), None)
    content: list[dict[str, Any]] = []
    iterations: list[dict[str, Any]] = []
    fault = None
    if compact is not None:
        trigger = int((compact.get("trigger") or {}).get("value", native.ANTHROPIC_DEFAULT_TRIGGER))
        total = conv.input_tokens()
        if total >= trigger:
            fault = compaction_fault() if compaction_fault else None
            summary = native.compaction_summary(conv.messages, compact.get("instructions"), seed=seed)
            block_content = None if fault == "null-compaction" else summary
            content.append({"type": "compaction", "content": block_content})
            # the summary pass reads the conversation's cached prefix (and stores it) like any request over it
            pass_use = cache.use(key, conv.units(), sorted(conv.breakpoints))
            iterations.append(usage(pass_use, output_tokens(AIMessage(content=summary))) | {"type": "compaction"})
            if block_content is not None:
                conv.messages = [native.summary_message(summary)]
                conv.breakpoints = {i for i in conv.breakpoints if i < len(conv.tool_units) + len(conv.system)}
                if body.get("cache_control"):
                    conv.breakpoints.add(len(conv.tool_units) + len(conv.system))
            if compact.get("pause_after_compaction"):
                message = _message(body, content, "compaction", usage(CacheUse(0, 0, 0), 0), applied, iterations)
                return Outcome(message, fault)
    reply, _name = reference_reply([*conv.system, *conv.messages], conv.tools or None, scope, seed)
    # after a compaction the conversation is the summary's, as the next request (which starts with it) will be
    used = cache.use(cache_key("anthropic", body, conv.messages), conv.units(), sorted(conv.breakpoints))
    output = output_tokens(reply)
    if thinking_enabled(body) and scope == "agent":
        content.append(thinking_block(body, content, reasoning_text(reply)))
        output += int(text_tokens(content[-1]["thinking"]))
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["args"]})
    billed = usage(used, output)
    if iterations:
        iterations.append(billed | {"type": "message"})
    stop = "tool_use" if reply.tool_calls else "end_turn"
    return Outcome(_message(body, content, stop, billed, applied, iterations), fault)


def checked_thinking(body: dict[str, Any], tool_use_rule: bool = False) -> dict[str, Any]:
    """``body`` with its thinking blocks checked as Claude checks them (`reasoning.check_thinking`; with
    ``tool_use_rule`` the tool-use continuation rule too, off by default: how it meets a summary's kept turns is not
    confirmed, see docs/live.md): a copy without the blocks dropped under ``drop_block``, or a RequestError."""
    copy = {
        **body,
        "messages": [
            {**m, "content": list(m["content"])} if isinstance(m.get("content"), list) else m for m in body.get("messages") or []
        ],
    }
    try:
        check_thinking(copy)
        if tool_use_rule:
            check_tool_use_continuation(copy)
    except ThinkingError as exc:
        raise RequestError(str(exc)) from None
    return copy


def thinking_block(body: dict[str, Any], content: list[dict[str, Any]], text: str) -> dict[str, Any]:
    """A thinking block after ``content`` (the reply's blocks so far), signed to the request it answers."""
    before = list(body.get("messages") or [])
    if content:
        before.append({"role": "assistant", "content": list(content)})
    return {"type": "thinking", "thinking": text, "signature": sign(body, before, text)}


def usage(used: CacheUse, output: int) -> dict[str, Any]:
    """The Messages usage object: uncached input, cache writes and reads, output."""
    return {
        "input_tokens": used.uncached,
        "cache_creation_input_tokens": used.write,
        "cache_read_input_tokens": used.read,
        "cache_creation": {"ephemeral_5m_input_tokens": used.write, "ephemeral_1h_input_tokens": 0},
        "output_tokens": output,
    }


def _message(
    body: dict[str, Any],
    content: list[dict[str, Any]],
    stop: str,
    usage: dict[str, Any],
    applied: list[dict[str, Any] | None],
    iterations: list[dict[str, Any]],
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": stable_id("msg_", body.get("messages"), content),
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or AGENT_NAME),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {**usage, **({"iterations": iterations} if iterations else {})},
        # labelled simulated under the name chat completions use (an extra field the SDK keeps; LangChain puts it in
        # response_metadata, where the recorder looks)
        "system_fingerprint": SIMULATED_FINGERPRINT,
    }
    if "context_management" in body:
        out["context_management"] = {"applied_edits": [e for e in applied if e]}
    return out


def sse_events(message: dict[str, Any], fail_midstream: bool = False) -> bytes:
    """The message as the server-sent events of a streamed response; ``fail_midstream`` ends the stream with an
    ``error`` event right after the compaction block starts (a compaction that fails mid-stream)."""
    events: list[tuple[str, dict[str, Any]]] = []
    usage = message["usage"]
    start_usage = {k: v for k, v in usage.items() if k != "iterations"} | {"output_tokens": 1}
    events.append(
        (
            "message_start",
            {"type": "message_start", "message": {**message, "content": [], "stop_reason": None, "usage": start_usage}},
        )
    )
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "compaction":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "compaction", "content": None}},
                )
            )
            if fail_midstream:
                events.append(("error", error_body(500, "compaction failed mid-stream (injected by harness serve)")))
                return sse(events)
            delta = {"type": "compaction_delta", "content": block["content"]}
        elif kind == "thinking":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            thinking = {"type": "thinking_delta", "thinking": block["thinking"]}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": thinking}))
            delta = {"type": "signature_delta", "signature": block["signature"]}
        elif kind == "text":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    final: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": usage,
    }
    if "context_management" in message:
        final["context_management"] = message["context_management"]
    events.append(("message_delta", final))
    events.append(("message_stop", {"type": "message_stop"}))
    return sse(events)


class AnthropicMessages(ServedAPI):
    """Anthropic's Messages API (see the module docstring), in Anthropic's error and usage shapes."""

    name = "messages"
    path = "/messages"
    streams = True

    def answer(
        self, body: dict[str, Any], state: ServerState, compaction_fault: CompactionFault, cache_scope: str | None = None
    ) -> Outcome:
        return answer(body, state.seed, state.cache.scoped(cache_scope), compaction_fault, state.tool_use_rule)

    def usage(self, used: CacheUse, output: int, reasoning: int = 0) -> dict[str, Any]:
        return usage(used, output)

    def sse(self, body: dict[str, Any], fail_midstream: bool = False) -> bytes:
        return sse_events(body, fail_midstream)

    def error(
        self, status: int, message: str, code: str | None = None, param: str | None = None, type_: str = "invalid_request_error"
    ) -> dict[str, Any]:
        return error_body(status, message)

    def context_message(self, size: int) -> str:
        return f"prompt is too long: {size} tokens > {max(1, size // 2)} maximum"

    def said(self, body: dict[str, Any], text: str, reasoning: str | None) -> dict[str, Any]:
        content = [thinking_block(body, [], reasoning)] if reasoning is not None else []
        content += [{"type": "text", "text": text}] if text else []
        output = int(text_tokens(text)) + (int(text_tokens(reasoning)) if reasoning else 0)
        return _message(body, content, "end_turn", usage(CacheUse(0, 0, self.request_tokens(body)), output), [], [])

    def empty(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "msg_empty",
            "type": "message",
            "role": "assistant",
            "model": str(body.get("model") or AGENT_NAME),
            "content": [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }

    def count_tokens(self, body: dict[str, Any]) -> int:
        return parse_request(body).input_tokens()
