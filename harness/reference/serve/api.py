"""The contract every served API keeps, and the one path a fault takes on all of them.

A `ServedAPI` is one endpoint's wire format over the reference models: the path it answers, the scope of a request
(agent, summary or judge), its answer (the body checked first: a malformed one is the API's 400 via `RequestError`),
its usage object, its server-sent events when a request streams, its error body, and its shape of an empty answer
and of a context-length refusal. The HTTP handler (`harness.reference.serve.http`) dispatches through this contract
alone, and `ServedAPI.injected` answers a fired fault the same way on every API, in that API's shapes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from harness.reference.not_summaries import REASONING, REASONING_ONLY, shape_text
from harness.reference.prompt_cache import CacheUse
from harness.reference.serve.faults import SUMMARY_MODES, Fault
from harness.reference.serve.state import ServerState
from harness.reference.serve.wire import Outcome, Reply, RequestError, openai_error, scope_of

CompactionFault = Callable[[], "str | None"]  # asked once when a native compaction fires: None or a compaction mode
OPENAI_KEY_HINT = "You can find your API key at https://platform.openai.com."


class ServedAPI(ABC):
    """One served API (see the module docstring); OpenAI's wire format unless a subclass says otherwise."""

    name: str  # how stats, verdicts and compaction counts name it
    path: str  # the route under /v1
    streams: bool = False  # answers ``"stream": true`` with server-sent events
    context_param: str = "input"  # the field a context-length refusal names

    def scope(self, body: dict[str, Any]) -> str:
        """A judge request names the stand-in judge; an agent request carries tools; a summary request has none."""
        return scope_of(body.get("model"), body.get("tools"))

    @abstractmethod
    def answer(
        self, body: dict[str, Any], state: ServerState, compaction_fault: CompactionFault, cache_scope: str | None = None
    ) -> Outcome:
        """The API's answer to ``body`` (RequestError for a body the API refuses), with the compaction fault that
        fired while making it. ``cache_scope``: the request's prompt-cache scope (`harness.agent.cache_scope`), None
        when it sent none (the shared entries)."""

    @abstractmethod
    def usage(self, used: CacheUse, output: int, reasoning: int = 0) -> dict[str, Any]:
        """The API's usage object for input tokens ``used`` (read from the cache, written to it, neither) and
        ``output`` tokens, ``reasoning`` of them reasoning."""

    @abstractmethod
    def empty(self, body: dict[str, Any]) -> dict[str, Any]:
        """A 200 with nothing in it, in the API's shape (the ``empty`` fault)."""

    @abstractmethod
    def said(self, body: dict[str, Any], text: str, reasoning: str | None) -> dict[str, Any]:
        """A 200 answering ``body`` with ``text`` (none when empty) and ``reasoning`` (a reasoning block or item, when
        given) and nothing else, in the API's shape: the summary-scope faults' answer."""

    @abstractmethod
    def count_tokens(self, body: dict[str, Any]) -> int:
        """The input tokens of ``body`` (exact in the model's encoding for OpenAI's APIs, simulated for Anthropic's); may
        raise on a malformed body (`request_tokens` reads it)."""

    def request_tokens(self, body: dict[str, Any]) -> int:
        """The input tokens of ``body`` (`count_tokens`: exact for OpenAI's APIs, simulated for Anthropic's) for the
        ``context`` fault's message; 0 for a body too malformed to count (the fault answers it all the same)."""
        try:
            return self.count_tokens(body)
        except (RequestError, KeyError, TypeError, ValueError):
            return 0

    def sse(self, body: dict[str, Any], fail_midstream: bool = False) -> bytes:
        """The answer ``body`` as server-sent events; ``fail_midstream``: an error event once a compaction starts."""
        raise NotImplementedError(f"{self.name} does not stream")

    def error(
        self, status: int, message: str, code: str | None = None, param: str | None = None, type_: str = "invalid_request_error"
    ) -> dict[str, Any]:
        """The API's error body for ``status``."""
        return openai_error(message, type_, code, param)

    def context_message(self, size: int) -> str:
        """The API's words for a request of ``size`` tokens over a limit of half that."""
        return (
            f"This model's maximum context length is {max(1, size // 2)} tokens. However, your messages resulted in "
            f"{size} tokens. Please reduce the length of the messages."
        )

    def reply(self, outcome: Outcome, streamed: bool) -> Reply:
        """How an answered request goes out: its events when it streams, a 500 when the compaction failed mid-stream
        but nothing streams, else the body."""
        midstream = outcome.fault == "compaction-midstream"
        if streamed and self.streams:
            return Reply(200, self.sse(outcome.body, midstream), content_type="text/event-stream")
        if midstream:
            return Reply(500, self.error(500, "compaction failed (injected by harness serve)", "server_error"))
        return Reply(200, outcome.body)

    def injected(self, fault: Fault, body: dict[str, Any], credentials: str) -> Reply:
        """The answer to a request ``fault`` fired on (every mode but ``stall``, which the handler plays by waiting,
        then answering): the same for every API, in the API's shapes. ``credentials``: the key header the client
        sent, which the ``auth`` fault echoes (a provider that leaks keys)."""
        mode = fault.mode
        if mode == "429":
            body_429 = self.error(429, "Rate limit reached (injected by harness serve)", "rate_limit_exceeded", type_="requests")
            return Reply(429, body_429, {"Retry-After": f"{fault.retry_after:g}"})
        if mode in ("500", "503"):
            return Reply(int(mode), self.error(int(mode), f"The server had an error (injected {mode})", type_="server_error"))
        if mode == "context":
            message = self.context_message(self.request_tokens(body))
            return Reply(400, self.error(400, message, "context_length_exceeded", self.context_param))
        if mode == "malformed":
            return Reply(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        if mode == "empty":
            return Reply(200, self.empty(body))
        if mode in SUMMARY_MODES:  # answered as a model answers, streamed when asked
            shape = mode.removeprefix("summary-")
            said = self.said(body, shape_text(shape), REASONING if shape == REASONING_ONLY else None)
            return self.reply(Outcome(said), bool(body.get("stream")))
        if mode == "auth":
            message = f"Incorrect API key provided: {credentials}. {OPENAI_KEY_HINT}"
            return Reply(401, self.error(401, message, "invalid_api_key"))
        raise ValueError(f"fault mode {mode!r} is not answered by an injected reply")
