"""``POST /v1/chat/completions``: OpenAI's chat completions over the reference models.

A request with tools is answered by the reference agent, one without by the reference summarizer, one naming
``reference-judge`` by the stand-in judge; usage is the exact count in the model's encoding
(`harness.trace.exact_tokens.openai_api_encoding`: o200k_base for the reference models; left out under
``--no-usage``, as some servers do), and a request with ``reasoning_effort`` gets the agent's reasoning as
DeepSeek-style APIs return it (``reasoning_content``). Nothing is cached, nothing streams.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from langchain_core.messages import convert_to_messages

from harness.reference.names import AGENT_NAME, SUMMARIZER_NAME
from harness.reference.prompt_cache import CacheUse
from harness.reference.provider_tokens import counted_text, provider_tokens, simulated_usage
from harness.reference.reasoning import reasoning_text
from harness.reference.serve.api import CompactionFault, ServedAPI
from harness.reference.serve.pairing import check_chat
from harness.reference.serve.state import ServerState
from harness.reference.serve.wire import Outcome, reference_reply, scope_of, stable_id
from harness.trace.exact_tokens import openai_api_encoding
from harness.trace.schema import SIMULATED_FINGERPRINT


def usage(used: CacheUse, output: int) -> dict[str, Any]:
    """The chat completions usage object (no cache fields: every input token is prompt)."""
    return {"prompt_tokens": used.total, "completion_tokens": output, "total_tokens": used.total + output}


def answer(body: dict[str, Any], seed: int, with_usage: bool = True) -> dict[str, Any]:
    """The chat.completion for an OpenAI-format request, from the reference models (a pure function of the request);
    RequestError for a tool message no call came before (`pairing`)."""
    check_chat(body.get("messages") or [])
    messages = convert_to_messages(body.get("messages") or [])
    tools = body.get("tools") or None
    scope = scope_of(body.get("model"), body.get("tools"))
    reply, name = reference_reply(messages, tools, scope, int(body.get("seed", seed)))
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if body.get("reasoning_effort") and scope == "agent":  # a reasoning request: the reasoning, as DeepSeek-style APIs
        message["reasoning_content"] = reasoning_text(reply)
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
            for c in reply.tool_calls
        ]
    counted = simulated_usage(messages, tools, reply, openai_api_encoding(body.get("model")))
    out = {
        "id": "chatcmpl-" + hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": name,
        "system_fingerprint": SIMULATED_FINGERPRINT,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop", "logprobs": None}
        ],
        "usage": usage(CacheUse(0, 0, counted["input_tokens"]), counted["output_tokens"]),
    }
    if not with_usage:
        del out["usage"]
    return out


class ChatCompletions(ServedAPI):
    """OpenAI's chat completions (see the module docstring)."""

    name = "chat"
    path = "/chat/completions"
    context_param = "messages"

    def answer(
        self, body: dict[str, Any], state: ServerState, compaction_fault: CompactionFault, cache_scope: str | None = None
    ) -> Outcome:
        return Outcome(answer(body, state.seed, state.usage))  # nothing cached here: the scope changes nothing

    def usage(self, used: CacheUse, output: int, reasoning: int = 0) -> dict[str, Any]:
        return usage(used, output)

    def empty(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "chatcmpl-empty",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": AGENT_NAME,
            "choices": [],
            "usage": usage(CacheUse(0, 0, 0), 0),
        }

    def said(self, body: dict[str, Any], text: str, reasoning: str | None) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if reasoning is not None:  # DeepSeek-style, as a reasoning request is answered
            message["reasoning_content"] = reasoning
        encoding = openai_api_encoding(body.get("model"))  # counted as the served reply is (exact for OpenAI's APIs)
        output = counted_text(text, encoding) + (counted_text(reasoning, encoding) if reasoning else 0)
        return {
            "id": stable_id("chatcmpl-", body.get("messages"), message),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or SUMMARIZER_NAME),
            "system_fingerprint": SIMULATED_FINGERPRINT,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": usage(CacheUse(0, 0, self.request_tokens(body)), output),
        }

    def count_tokens(self, body: dict[str, Any]) -> int:
        messages = convert_to_messages(body.get("messages") or [])
        return provider_tokens(messages, body.get("tools"), openai_api_encoding(body.get("model")))
