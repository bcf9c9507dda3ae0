"""``POST /v1/responses`` and ``POST /v1/responses/compact``: the OpenAI Responses API over the reference models.

Input items (messages, ``function_call``, ``function_call_output``, ``compaction``) and ``instructions`` become
LangChain messages for `wire.reference_reply`; the reply is written as output items (``message`` with
``output_text``, ``function_call``) in a ``response`` object, with usage in the Responses fields (exact tokens in
the model's encoding, `harness.trace.exact_tokens.openai_api_encoding`) and the prompt cache simulated (``input_tokens_details.cached_tokens`` and ``cache_write_tokens``). The semantics served:

- ``context_management=[{"type": "compaction", "compact_threshold": N}]``: when the input reaches N tokens the
  reference summarizer summarizes it and the output starts with a ``compaction`` item whose ``encrypted_content`` is
  the harness's envelope (`native.encode_compaction`, decoded offline by `native.decode_compaction`); the model
  answers from the summary. The summary pass is counted in the response's usage (the Responses usage has no
  per-iteration breakdown).
- A ``compaction`` item in the input replaces every item before it (its summary is what the model sees); an
  envelope the harness cannot read is a 400.
- ``/responses/compact`` returns the user messages of the input followed by one compaction item.
- ``previous_response_id`` continues a stored response (``store`` is on by default, as OpenAI's); the id of a
  compaction (a ``/responses/compact`` result or a compaction item) is rejected with a 400 naming it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from harness.reference import native
from harness.reference.names import AGENT_NAME
from harness.reference.prompt_cache import CacheUse, PromptCache
from harness.reference.provider_tokens import counted_text, output_tokens, provider_tokens
from harness.reference.reasoning import reasoning_text
from harness.reference.serve.api import CompactionFault, ServedAPI
from harness.reference.serve.pairing import check_responses
from harness.reference.serve.state import COMPACTION_ID_PREFIX, ResponseStore, ServerState
from harness.reference.serve.wire import (
    Outcome,
    RequestError,
    cache_key,
    message_unit,
    openai_error,
    reference_reply,
    require,
    require_objects,
    scope_of,
    sse,
    stable_id,
    tool_unit,
)
from harness.trace.exact_tokens import openai_api_encoding
from harness.trace.schema import SIMULATED_FINGERPRINT


def input_items(body: dict[str, Any], store: ResponseStore) -> list[dict[str, Any]]:
    """The request's items in context order: a previous response's, then this request's input."""
    raw = body.get("input")
    items = [{"type": "message", "role": "user", "content": raw}] if isinstance(raw, str) else list(raw or [])
    previous = body.get("previous_response_id")
    return [*(store.get(previous) if previous else []), *items]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text")
    )


def to_messages(items: list[dict[str, Any]]) -> list[BaseMessage]:
    """LangChain messages for the reference models; items before the latest compaction item are dropped (its
    summary stands for them). RequestError on an item type this server does not read or an unreadable envelope."""
    last = max((k for k, it in enumerate(items) if isinstance(it, dict) and it.get("type") == "compaction"), default=None)
    out: list[BaseMessage] = []
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            raise RequestError(f"input[{k}]: an item must be an object")
        kind = item.get("type", "message")
        if kind == "compaction":
            try:
                summary = native.decode_compaction(item.get("encrypted_content", ""))
            except ValueError as exc:
                raise RequestError(f"input[{k}].encrypted_content: {exc}") from None
            if k == last:
                out = [native.summary_message(summary)]  # it stands for every item before it
            continue
        if kind == "message":
            role, text = item.get("role"), _text(item.get("content"))
            if role == "assistant":
                out.append(AIMessage(content=text))
            elif role in ("system", "developer"):
                out.append(SystemMessage(content=text))
            else:
                out.append(HumanMessage(content=text))
        elif kind == "function_call":
            call = {
                "name": item["name"],
                "args": json.loads(item.get("arguments") or "{}"),
                "id": item["call_id"],
                "type": "tool_call",
            }
            prev = out[-1] if out else None
            if isinstance(prev, AIMessage):
                out[-1] = AIMessage(content=prev.content, tool_calls=[*prev.tool_calls, call])
            else:
                out.append(AIMessage(content="", tool_calls=[call]))
        elif kind == "function_call_output":
            output = item.get("output")
            out.append(ToolMessage(content=output if isinstance(output, str) else _text(output), tool_call_id=item["call_id"]))
        elif kind == "reasoning":
            continue  # reasoning the agent made earlier: kept in context, not read by the reference models
        else:
            raise RequestError(f"input[{k}].type: {kind!r} is not an item type harness serve reads")
    return out


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses function tools in the chat-completions shape the reference agent takes."""
    out = []
    for tool in tools:
        if tool.get("type") != "function":
            raise RequestError(f"tools: type {tool.get('type')!r}: harness serve serves function tools only")
        out.append(
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description") or "",
                    "parameters": tool.get("parameters") or {},
                },
            }
        )
    return out


def compact_threshold(body: dict[str, Any]) -> int | None:
    """The compaction threshold ``context_management`` asks for, or None (RequestError on an entry it does not know)."""
    threshold = None
    for k, entry in enumerate(body.get("context_management") or []):
        if not isinstance(entry, dict) or entry.get("type") != "compaction":
            raise RequestError(
                f"context_management[{k}].type: only 'compaction' is supported",
            )
        if not isinstance(entry.get("compact_threshold"), int) or entry["compact_threshold"] < 1:
            raise RequestError(f"context_management[{k}].compact_threshold: a positive number of tokens is required")
        threshold = entry["compact_threshold"]
    return threshold


def _tokens(
    system: Sequence[BaseMessage], messages: Sequence[BaseMessage], tools: list[dict[str, Any]], encoding: str
) -> list[tuple[str, int]]:
    """The request as prompt-cache units, counted exactly in ``encoding`` (`openai_api_encoding` of its model)."""
    return [*(tool_unit(t, encoding) for t in tools), *(message_unit(m, encoding) for m in [*system, *messages])]


def usage(used: CacheUse, output: int, reasoning: int = 0) -> dict[str, Any]:
    """The Responses usage object (``output`` includes the ``reasoning`` tokens, as OpenAI counts them)."""
    return {
        "input_tokens": used.total,
        "input_tokens_details": {"cached_tokens": used.read, "cache_write_tokens": used.write},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": used.total + output,
    }


def compaction_item(summary: str, context: object) -> dict[str, Any]:
    """A ``compaction`` output item carrying ``summary`` in the harness envelope."""
    return {
        "type": "compaction",
        "id": stable_id(COMPACTION_ID_PREFIX, context, summary),
        "encrypted_content": native.encode_compaction(summary),
    }


def check_body(body: dict[str, Any]) -> None:
    """The top-level fields of a Responses request are of the types the API takes (a 400 otherwise)."""
    require(body.get("input", ""), (str, list), "input", "a string or a list of items is required")
    require_objects(body.get("tools"), "tools")
    require(body.get("instructions") or "", str, "instructions", "a string is required")


def answer(
    body: dict[str, Any], seed: int, cache: PromptCache, store: ResponseStore, compaction_fault: Callable[[], Any] | None = None
) -> Outcome:
    """The ``response`` for a Responses API request (a pure function of the request, the stored responses it names
    and the cache's earlier entries). ``compaction_fault`` returning ``"null-compaction"`` makes the compaction
    fail: no item, the model answers from the whole input."""
    check_body(body)
    threshold = compact_threshold(body)
    items = input_items(body, store)
    check_responses(items)
    messages = to_messages(items)
    system: list[BaseMessage] = [SystemMessage(content=body["instructions"])] if body.get("instructions") else []
    tools = chat_tools(body.get("tools") or [])
    output: list[dict[str, Any]] = []
    key = cache_key("openai", body, messages)
    encoding = openai_api_encoding(body.get("model"))
    summary_pass = CacheUse(0, 0, 0)
    summary_out = 0
    fault = None
    if threshold is not None:
        total = sum(n for _, n in _tokens(system, messages, tools, encoding))
        fault = (compaction_fault() if compaction_fault else None) if total >= threshold else None
        if total >= threshold and fault != "null-compaction":
            summary = native.compaction_summary(messages, seed=seed)
            output.append(compaction_item(summary, items))
            # the summary pass reads the conversation's cached prefix (and stores it) like any request over it
            summary_pass = cache.use(key, _tokens(system, messages, tools, encoding))
            summary_out = output_tokens(AIMessage(content=summary), encoding)
            messages = [native.summary_message(summary)]
    scope = scope_of(body.get("model"), tools)
    reply, _ = reference_reply([*system, *messages], tools or None, scope, seed)
    reasoning = reasoning_text(reply) if body.get("reasoning") and scope == "agent" else None
    if reasoning is not None:
        output.append(
            {
                "type": "reasoning",
                "id": stable_id("rs_", items, reasoning),
                "summary": [{"type": "summary_text", "text": reasoning}],
            }
        )
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": stable_id("msg_", items, reply.text),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for call in reply.tool_calls:
        output.append(
            {
                "type": "function_call",
                "id": stable_id("fc_", call["id"]),
                "call_id": call["id"],
                "name": call["name"],
                "arguments": json.dumps(call["args"]),
                "status": "completed",
            }
        )
    # after a compaction the conversation is the summary's, as the next request (which starts with it) will be
    used = cache.use(cache_key("openai", body, messages), _tokens(system, messages, tools, encoding))
    reasoning_tokens = counted_text(reasoning, encoding) if reasoning else 0
    out_tokens = output_tokens(reply, encoding) + reasoning_tokens
    response = {
        "id": stable_id("resp_", body.get("model"), items, output),
        "object": "response",
        "created_at": int(time.time()),
        "model": str(body.get("model") or AGENT_NAME),
        "status": "completed",
        "output": output,
        "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": body.get("tools") or [],
        "instructions": body.get("instructions"),
        "previous_response_id": body.get("previous_response_id"),
        "metadata": {**(body.get("metadata") or {}), "system_fingerprint": SIMULATED_FINGERPRINT},
        "error": None,
        "incomplete_details": None,
        "temperature": body.get("temperature"),
        "top_p": body.get("top_p"),
        "store": body.get("store", True),
        "text": {"format": {"type": "text"}},
        "usage": usage(
            CacheUse(used.read + summary_pass.read, used.write + summary_pass.write, used.uncached + summary_pass.uncached),
            out_tokens + summary_out,
            reasoning_tokens,
        ),
    }
    if body.get("store", True) is not False:
        store.put(response["id"], [*items, *output])  # a compaction item among them drops what precedes it
    return Outcome(response, fault)


def compact(body: dict[str, Any], seed: int, store: ResponseStore) -> dict[str, Any]:
    """The ``response.compaction`` for ``/responses/compact``: the user messages, then one compaction item."""
    check_body(body)
    items = input_items(body, store)
    messages = to_messages(items)
    summary = native.compaction_summary(messages, seed=seed)
    users = [m for m in messages if isinstance(m, HumanMessage)]
    output: list[dict[str, Any]] = [
        {
            "type": "message",
            "id": stable_id("msg_", items, k),
            "role": "user",
            "status": "completed",
            "content": [{"type": "input_text", "text": m.text}],
        }
        for k, m in enumerate(users)
    ]
    output.append(compaction_item(summary, items))
    encoding = openai_api_encoding(body.get("model"))
    total = sum(n for _, n in _tokens([], messages, [], encoding))
    return {
        "id": stable_id(COMPACTION_ID_PREFIX, body.get("model"), items),
        "object": "response.compaction",
        "created_at": int(time.time()),
        "output": output,
        "usage": usage(CacheUse(0, 0, total), output_tokens(AIMessage(content=summary), encoding)),
    }


def sse_events(response: dict[str, Any], fail_midstream: bool = False) -> bytes:
    """The response as the server-sent events of a streamed Responses request; ``fail_midstream`` ends the stream
    with an ``error`` event right after the compaction item is added (a compaction that fails mid-stream)."""
    events: list[dict[str, Any]] = []
    shell = {**response, "status": "in_progress", "output": [], "usage": None}
    events.append({"type": "response.created", "response": shell})
    events.append({"type": "response.in_progress", "response": shell})
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "status": "in_progress", "content": []},
                }
            )
            part = item["content"][0]
            base = {"item_id": item["id"], "output_index": index, "content_index": 0}
            events.append({"type": "response.content_part.added", **base, "part": {**part, "text": ""}})
            events.append({"type": "response.output_text.delta", **base, "delta": part["text"], "logprobs": []})
            events.append({"type": "response.output_text.done", **base, "text": part["text"], "logprobs": []})
            events.append({"type": "response.content_part.done", **base, "part": part})
        elif item["type"] == "function_call":
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "status": "in_progress", "arguments": ""},
                }
            )
            base = {"item_id": item["id"], "output_index": index}
            events.append({"type": "response.function_call_arguments.delta", **base, "delta": item["arguments"]})
            events.append(
                {"type": "response.function_call_arguments.done", **base, "arguments": item["arguments"], "name": item["name"]}
            )
        else:
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            if fail_midstream and item["type"] == "compaction":
                failure = openai_error("compaction failed mid-stream (injected by harness serve)", "server_error", "server_error")
                # the event's own fields (ResponseErrorEvent) and the "error" object the SDK raises on
                events.append(
                    {"type": "error", "code": "server_error", "message": failure["error"]["message"], "param": None, **failure}
                )
                break
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    else:
        events.append({"type": "response.completed", "response": response})
    return sse((e["type"], {**e, "sequence_number": n}) for n, e in enumerate(events))


class OpenAIResponses(ServedAPI):
    """OpenAI's Responses API (see the module docstring)."""

    name = "responses"
    path = "/responses"
    streams = True

    def answer(
        self, body: dict[str, Any], state: ServerState, compaction_fault: CompactionFault, cache_scope: str | None = None
    ) -> Outcome:
        return answer(body, state.seed, state.cache.scoped(cache_scope), state.responses, compaction_fault)

    def usage(self, used: CacheUse, output: int, reasoning: int = 0) -> dict[str, Any]:
        return usage(used, output, reasoning)

    def sse(self, body: dict[str, Any], fail_midstream: bool = False) -> bytes:
        return sse_events(body, fail_midstream)

    def empty(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "resp_empty",
            "object": "response",
            "created_at": int(time.time()),
            "model": str(body.get("model") or AGENT_NAME),
            "status": "completed",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    def said(self, body: dict[str, Any], text: str, reasoning: str | None) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        if reasoning is not None:
            output.append(
                {"type": "reasoning", "id": stable_id("rs_", reasoning), "summary": [{"type": "summary_text", "text": reasoning}]}
            )
        if text:
            output.append(
                {
                    "type": "message",
                    "id": stable_id("msg_", text),
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
        encoding = openai_api_encoding(body.get("model"))  # counted as every served reply is
        reasoning_tokens = counted_text(reasoning, encoding) if reasoning else 0
        return {
            **self.empty(body),
            "id": stable_id("resp_", body.get("model"), body.get("input"), output),
            "output": output,
            "metadata": {"system_fingerprint": SIMULATED_FINGERPRINT},
            "usage": usage(
                CacheUse(0, 0, self.request_tokens(body)), counted_text(text, encoding) + reasoning_tokens, reasoning_tokens
            ),
        }

    def count_tokens(self, body: dict[str, Any]) -> int:
        return provider_tokens(to_messages(input_items(body, ResponseStore())), encoding=openai_api_encoding(body.get("model")))


class ResponsesCompact(OpenAIResponses):
    """``/responses/compact``: a summary request whatever it carries, answered whole (never streamed)."""

    name = "compact"
    path = "/responses/compact"
    streams = False

    def scope(self, body: dict[str, Any]) -> str:
        return "summary"

    def answer(
        self, body: dict[str, Any], state: ServerState, compaction_fault: CompactionFault, cache_scope: str | None = None
    ) -> Outcome:
        return Outcome(compact(body, state.seed, state.responses))

    def said(self, body: dict[str, Any], text: str, reasoning: str | None) -> dict[str, Any]:
        """The compaction whose summary is ``text`` (reasoning has no place in a compaction item)."""
        items = input_items(body, ResponseStore())
        return {
            "id": stable_id(COMPACTION_ID_PREFIX, body.get("model"), items, text),
            "object": "response.compaction",
            "created_at": int(time.time()),
            "output": [compaction_item(text, items)],
            "usage": usage(CacheUse(0, 0, self.request_tokens(body)), counted_text(text, openai_api_encoding(body.get("model")))),
        }
