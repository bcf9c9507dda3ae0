"""What every served API's wire shares: which reference model answers a request, its reply as a LangChain message,
the refusal of a malformed body, OpenAI's error body, server-sent events, deterministic ids and cache units.

Each API module (`chat`, `messages`, `responses`) turns its request into LangChain messages and OpenAI-format tool
schemas, asks `reference_reply`, and writes the reply in its own wire format; so the endpoints answer a request the
same way, from the same pure functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from harness.reference.judge import ReferenceJudgeModel
from harness.reference.names import AGENT_NAME, JUDGE_NAME, SUMMARIZER_NAME
from harness.reference.provider_tokens import counted_text, provider_tokens
from harness.reference.replies import agent_reply, summary_reply
from harness.trace import exact_tokens


class RequestError(Exception):
    """A request the API refuses (a 400 unless ``status`` says otherwise), with the message the client sees and the
    field it names (``param``, where the API's error body has one)."""

    def __init__(self, message: str, status: int = 400, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.param = param


def require(value: Any, types: type | tuple[type, ...], where: str, expected: str) -> None:
    """A field of a request body is of the type the API takes, else the 400 a provider answers a malformed body with
    (never a crash: a 500 the SDKs would retry as if the server had failed)."""
    if not isinstance(value, types) or (isinstance(value, bool) and types is int):  # True is an int to Python only
        raise RequestError(f"{where}: {expected}")


def require_objects(value: Any, where: str, *, optional: bool = True) -> None:
    """``value`` is a list of JSON objects (or absent, when ``optional``)."""
    if value is None and optional:
        return
    require(value, list, where, "a list of objects is required")
    for k, item in enumerate(value):
        require(item, dict, f"{where}.{k}", "an object is required")


def openai_error(
    message: str, type_: str = "invalid_request_error", code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """OpenAI's error body (chat completions and Responses alike, and the server's own routes)."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def sse(events: Iterable[tuple[str, dict[str, Any]]]) -> bytes:
    """Server-sent events: each (name, data) as an ``event:`` line and a JSON ``data:`` line."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


@dataclass
class Reply:
    """One HTTP answer: status, body (a JSON object, or bytes sent as they are), headers and content type."""

    status: int
    body: dict[str, Any] | bytes
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


@dataclass
class Outcome:
    """One answered request: the response body, and the compaction fault that fired while making it (None,
    ``"null-compaction"`` or ``"compaction-midstream"``, which the HTTP layer plays: an error mid-stream, or a 500)."""

    body: dict[str, Any]
    fault: str | None = None


def scope_of(model: object, tools: object) -> str:
    """A judge request names the stand-in judge; an agent request carries tools; deepagents' summary request is a
    single prompt without any."""
    if model == JUDGE_NAME:
        return "judge"
    return "agent" if tools else "summary"


def reference_reply(
    messages: Sequence[BaseMessage], tools: list[dict[str, Any]] | None, scope: str, seed: int
) -> tuple[AIMessage, str]:
    """The reply of the reference model for ``scope`` to ``messages`` (with OpenAI-format ``tools``), and its name."""
    if scope == "judge":
        return ReferenceJudgeModel()._generate(list(messages), tools=tools).generations[0].message, JUDGE_NAME  # type: ignore[return-value]
    if scope == "agent":
        return agent_reply(list(messages)), AGENT_NAME
    return summary_reply(list(messages), seed=seed), SUMMARIZER_NAME


def stable_id(prefix: str, *parts: object) -> str:
    """A deterministic id: ``prefix`` and 24 hex digits of the parts' JSON (same reply, same id, run after run)."""
    return prefix + hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


def cache_key(api: str, body: dict[str, Any], messages: Sequence[BaseMessage]) -> str:
    """The simulated prompt cache's key for a request: the API, the model and the conversation, named by its first
    user turn (a summary's, after a compaction), so concurrent cases never share entries (``prompt_cache``)."""
    first = next((m.text for m in messages if m.type == "human"), "")
    return f"{api}:{body.get('model')}:{first}"


def message_unit(msg: BaseMessage, encoding: str | None = None) -> tuple[str, int]:
    """One message as a prompt-cache unit: its canonical text and its tokens (thinking blocks included), exact in
    ``encoding`` (OpenAI's APIs), else simulated (Anthropic's)."""
    content = msg.content if isinstance(msg.content, list) else []
    thinking = [b.get("thinking", "") for b in content if isinstance(b, dict) and b.get("type") == "thinking"]
    key = json.dumps([msg.type, msg.text, getattr(msg, "tool_calls", None), thinking], sort_keys=True, default=str)
    tokens = exact_tokens.message_tokens(msg, encoding) if encoding else provider_tokens([msg])
    return key, tokens + sum(counted_text(t, encoding) for t in thinking)


def tool_unit(tool: dict[str, Any], encoding: str | None = None) -> tuple[str, int]:
    """One tool schema as a prompt-cache unit (exact in ``encoding``, else simulated)."""
    return json.dumps(tool, sort_keys=True), counted_text(json.dumps(tool, default=str), encoding)
