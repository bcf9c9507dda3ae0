"""``harness serve``: the reference models behind real OpenAI- and Anthropic-compatible HTTP endpoints.

The live path (``init_chat_model("openai:...")``, the OpenAI SDK's retries and timeouts,
deepagents' live code paths) can only be trusted once it has met a server that misbehaves.
This one answers ``POST /v1/chat/completions`` with the reference agent policy (a request
that carries tools), the reference summarizer (a request without tools) or, when the request
names the model ``reference-judge``, the stand-in judge (`harness.reference.judge`), reports
``usage`` from the calibrated provider tokenizer, lists ``GET /v1/models`` (with vLLM's
``max_model_len``). The same models answer Anthropic's ``POST /v1/messages``
(``serve_anthropic.py``: streaming, tool use, cache usage fields, native compaction and context
editing) and OpenAI's ``POST /v1/responses`` and ``POST /v1/responses/compact``
(``serve_responses.py``: compaction items, ``previous_response_id``), each with a simulated
prompt cache (``prompt_cache.py``). It injects faults on request, in each API's error shape:

    429       rate limited, with a Retry-After header
    500, 503  server errors
    stall     answer only after ``sleep`` seconds (past the client's timeout)
    context   the provider's context-length 400 (OpenAI's ``context_length_exceeded``, Anthropic's "prompt is too long")
    malformed a 200 whose body is not JSON
    empty     a 200 with no choices (no content blocks, no output items)
    auth      a 401 whose message echoes the key header (a provider that leaks keys)
    null-compaction       a native compaction that fails: a compaction block with null content (Anthropic), no
                          compaction item (OpenAI); fires only on a request that compacts
    compaction-midstream  a native compaction that fails mid-stream: an ``error`` event after the compaction block
                          (item) starts, or a 500 when the request is not streamed

Faults are given at start (``--fault MODE[:COUNT][@agent|@summary|@judge]``) or at run time
(``POST /admin/faults`` with ``{"mode", "count", "scope", "after", "retry_after", "sleep"}``);
``GET /admin/stats`` returns request counts, peak concurrency, the time from the first
to the latest request and the server's CPU time; ``POST /admin/reset``
clears faults, counters, the prompt cache and stored responses. Answers are marked simulated
(``system_fingerprint``) so a run through the server is labelled as such. Loopback by default;
the server stops by itself after ``max_requests`` requests or ``max_seconds`` seconds.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import convert_to_messages

from harness.errors import ConfigError
from harness.reference import AGENT_NAME, SUMMARIZER_NAME, serve_anthropic, serve_responses
from harness.reference.judge import JUDGE_NAME
from harness.reference.prompt_cache import PromptCache
from harness.reference.provider_tokens import provider_tokens, simulated_usage
from harness.reference.reasoning import reasoning_text
from harness.reference.serve_responses import ResponseStore
from harness.reference.wire import Outcome, RequestError, reference_reply, scope_of
from harness.trace.schema import SIMULATED_FINGERPRINT

COMPACTION_MODES = ("null-compaction", "compaction-midstream")  # fire only when a native compaction does
MODES = ("429", "500", "503", "stall", "context", "malformed", "empty", "auth", *COMPACTION_MODES)
APIS = {  # path (without /v1) -> the API it speaks
    "/chat/completions": "chat",
    "/messages": "messages",
    "/responses": "responses",
    "/responses/compact": "compact",
}
SCOPES = ("any", "agent", "summary", "judge")
DEFAULT_PORT = 8765
DEFAULT_MAX_SECONDS = 3600.0


@dataclass
class Fault:
    """One injected fault: ``mode`` on the next ``count`` matching requests (None: every one) after the first ``after``."""

    mode: str
    count: int | None = 1
    scope: str = "any"
    after: int = 0
    retry_after: float = 1.0
    sleep: float = 30.0
    seen: int = 0
    fired: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"fault mode {self.mode!r}: known modes are {', '.join(MODES)}")
        if self.scope not in SCOPES:
            raise ConfigError(f"fault scope {self.scope!r}: known scopes are {', '.join(SCOPES)}")
        if self.count is not None and self.count < 1:
            raise ConfigError(f"fault count {self.count}: must be at least 1 (or omitted for every request)")
        if self.after < 0 or self.retry_after < 0 or self.sleep < 0:
            raise ConfigError("fault after, retry_after and sleep must not be negative")

    def take(self, scope: str) -> bool:
        """Whether this fault fires on a request of ``scope`` (and count it)."""
        if self.scope not in ("any", scope) or (self.count is not None and self.fired >= self.count):
            return False
        self.seen += 1
        if self.seen <= self.after:
            return False
        self.fired += 1
        return True

    @classmethod
    def parse(cls, spec: str) -> Fault:
        """``MODE[:COUNT][@SCOPE]``; COUNT ``*`` means every request."""
        rest, _, scope = spec.partition("@")
        mode, _, count = rest.partition(":")
        try:
            n = None if count == "*" else int(count) if count else 1
        except ValueError:
            raise ConfigError(f"--fault {spec!r}: COUNT must be a number or *") from None
        try:
            return cls(mode=mode, count=n, scope=scope or "any")
        except ConfigError as exc:
            raise ConfigError(f"--fault {spec!r}: {exc}") from None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fault:
        known = {"mode", "count", "scope", "after", "retry_after", "sleep"}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown fault field(s) {sorted(unknown)}; known: {sorted(known)}")
        if "mode" not in data:
            raise ConfigError("a fault needs a mode")
        return cls(**{**data, "mode": str(data["mode"])})


@dataclass
class ServerState:
    latency: float = 0.0
    seed: int = 0
    max_model_len: int | None = None
    usage: bool = True  # report usage (deepagents scales its token count by it, as it does live)
    faults: list[Fault] = field(default_factory=list)
    requests: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    injected: Counter = field(default_factory=Counter)
    compactions: Counter = field(default_factory=Counter)  # native compactions made, per API (a null Anthropic block counts)
    in_flight: int = 0
    peak_in_flight: int = 0
    first_at: float | None = None  # monotonic time of the first and the latest chat request since the last reset
    last_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    cache: PromptCache = field(default_factory=PromptCache)  # the simulated prompt cache of /messages and /responses
    responses: ResponseStore = field(default_factory=ResponseStore)  # stored responses, for previous_response_id
    tool_use_rule: bool = False  # /messages also enforces the tool-use continuation rule for thinking (reasoning.py)
    verdicts: list[dict[str, Any]] | None = None  # when a list: every answered request's API, status and error, in order

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": dict(self.requests),
                "statuses": {str(k): v for k, v in self.statuses.items()},
                "faults_injected": dict(self.injected),
                "compactions": dict(self.compactions),
                "faults": [asdict(f) for f in self.faults],
                "in_flight": self.in_flight,
                "peak_in_flight": self.peak_in_flight,
                "cpu_s": round(time.process_time(), 3),  # the server process's CPU time so far (harness bench)
                "window_s": round(self.last_at - self.first_at, 4)
                if self.first_at is not None and self.last_at is not None
                else 0.0,
            }

    def reset(self) -> None:
        with self.lock:
            self.faults.clear()
            for counter in (self.requests, self.statuses, self.injected, self.compactions):
                counter.clear()
            self.peak_in_flight = self.in_flight
            self.first_at = self.last_at = None
        self.cache.clear()
        self.responses.clear()
        if self.verdicts is not None:
            self.verdicts.clear()

    def record(self, api: str, body: dict[str, Any], status: int, error: str | None = None) -> None:
        """Keep the verdict on a request (its API, the body received, the status, the error) when ``verdicts`` is
        a list: what the provider received and whether it accepted it, for the reasoning eval."""
        if self.verdicts is not None:
            with self.lock:
                self.verdicts.append({"api": api, "body": body, "status": status, "error": error})

    def pick_fault(self, scope: str, compaction: bool = False) -> Fault | None:
        """The fault that fires on this request of ``scope``, if any; ``compaction``: the one that fires on a
        native compaction (only the compaction modes, which never fire elsewhere)."""
        with self.lock:
            for fault in self.faults:
                if (fault.mode in COMPACTION_MODES) == compaction and fault.take(scope):
                    self.injected[f"{fault.mode}@{scope}"] += 1
                    return fault
        return None


def request_scope(body: dict[str, Any]) -> str:
    """A judge request names the stand-in judge; an agent request carries tools; deepagents' summary request is a
    single prompt without any."""
    return scope_of(body.get("model"), body.get("tools"))


def answer(body: dict[str, Any], seed: int, usage: bool = True) -> dict[str, Any]:
    """The chat.completion for an OpenAI-format request, from the reference models (a pure function of the request)."""
    messages = convert_to_messages(body.get("messages") or [])
    tools = body.get("tools") or None
    scope = request_scope(body)
    reply, name = reference_reply(messages, tools, scope, int(body.get("seed", seed)))
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if body.get("reasoning_effort") and scope == "agent":  # a reasoning request: the reasoning, as DeepSeek-style APIs
        message["reasoning_content"] = reasoning_text(reply)
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
            for c in reply.tool_calls
        ]
    counted = simulated_usage(messages, tools, reply)
    prompt, completion = counted["input_tokens"], counted["output_tokens"]
    out = {
        "id": "chatcmpl-" + hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": name,
        "system_fingerprint": SIMULATED_FINGERPRINT,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop", "logprobs": None}
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }
    if not usage:
        del out["usage"]
    return out


def _error(message: str, type_: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server_version = "harness-serve/1"
    protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints: the client reuses its connections
    disable_nagle_algorithm = True  # headers and body go out in two writes: with Nagle, each answer waited ~40 ms for an ACK
    state: ServerState  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: stats are at /admin/stats
        pass

    def _send(
        self,
        status: int,
        body: dict[str, Any] | bytes,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout): nothing to answer
            return
        with self.state.lock:
            self.state.statuses[status] += 1

    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, _error("request body is not JSON", "invalid_request_error"))
            return None
        if not isinstance(data, dict):
            self._send(400, _error("request body must be a JSON object", "invalid_request_error"))
            return None
        return data

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") == "/v1/models":
            entry = {"object": "model", "owned_by": "harness", "created": 0}
            if self.state.max_model_len:
                entry["max_model_len"] = self.state.max_model_len
            self._send(
                200, {"object": "list", "data": [{**entry, "id": name} for name in (AGENT_NAME, SUMMARIZER_NAME, JUDGE_NAME)]}
            )
        elif self.path.rstrip("/") == "/admin/stats":
            self._send(200, self.state.stats())
        else:
            self._send(404, _error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.partition("?")[0].rstrip("/")  # the Anthropic SDK's beta client adds ?beta=true
        body = self._body()
        if body is None:
            return
        if path == "/admin/faults":
            try:
                fault = Fault.from_json(body)
            except (ConfigError, TypeError, ValueError) as exc:
                self._send(400, _error(str(exc), "invalid_request_error"))
                return
            with self.state.lock:
                self.state.faults.append(fault)
            self._send(200, {"ok": True, "faults": len(self.state.faults)})
        elif path == "/admin/reset":
            self.state.reset()
            self._send(200, {"ok": True})
        elif path.removeprefix("/v1") in APIS:
            self._serve(APIS[path.removeprefix("/v1")], body)
        else:
            self._send(404, _error(f"no route {self.path}", "not_found"))

    def _serve(self, api: str, body: dict[str, Any]) -> None:
        state = self.state
        scope = "summary" if api == "compact" else request_scope(body)
        with state.lock:
            state.requests[scope] += 1
            state.last_at = time.monotonic()
            state.first_at = state.first_at if state.first_at is not None else state.last_at
            state.in_flight += 1
            state.peak_in_flight = max(state.peak_in_flight, state.in_flight)
        try:
            if state.latency:
                state.stopping.wait(state.latency)
            fault = state.pick_fault(scope)
            if fault is None:
                self._answer(api, body, scope)
            else:
                self._fault(fault, body, api, scope)
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the client as a 500, not hang it
            self._send(500, _api_error(api, 500, f"harness serve: {type(exc).__name__}: {exc}", "server_error"))
        finally:
            with state.lock:
                state.in_flight -= 1

    def _answer(self, api: str, body: dict[str, Any], scope: str) -> None:
        """The API's answer, streamed when asked; a refused request is the API's 400."""
        state = self.state

        def compaction_fault() -> str | None:
            fault = state.pick_fault(scope, compaction=True)
            return fault.mode if fault else None

        if api == "chat":
            self._send(200, answer(body, state.seed, state.usage))
            return
        try:
            if api == "messages":
                outcome = serve_anthropic.answer(body, state.seed, state.cache, compaction_fault, state.tool_use_rule)
            elif api == "responses":
                outcome = serve_responses.answer(body, state.seed, state.cache, state.responses, compaction_fault)
            else:
                outcome = Outcome(serve_responses.compact(body, state.seed, state.responses))
        except RequestError as exc:
            state.record(api, body, exc.status, str(exc))
            self._send(exc.status, _api_error(api, exc.status, str(exc)))
            return
        state.record(api, body, 200)
        made = sum(
            1 for part in outcome.body.get("content") or outcome.body.get("output") or [] if part.get("type") == "compaction"
        )
        if made:
            with state.lock:
                state.compactions[api] += made
        midstream = outcome.fault == "compaction-midstream"
        if body.get("stream") and api != "compact":
            events = (serve_anthropic.sse_events if api == "messages" else serve_responses.sse_events)(outcome.body, midstream)
            self._send(200, events, content_type="text/event-stream")
        elif midstream:
            self._send(500, _api_error(api, 500, "compaction failed (injected by harness serve)", "server_error"))
        else:
            self._send(200, outcome.body)

    def _fault(self, fault: Fault, body: dict[str, Any], api: str = "chat", scope: str = "agent") -> None:
        mode = fault.mode
        if mode == "429":
            self._send(
                429,
                _api_error(api, 429, "Rate limit reached (injected by harness serve)", "rate_limit_exceeded", type_="requests"),
                {"Retry-After": f"{fault.retry_after:g}"},
            )
        elif mode in ("500", "503"):
            self._send(int(mode), _api_error(api, int(mode), f"The server had an error (injected {mode})", type_="server_error"))
        elif mode == "stall":
            self.state.stopping.wait(fault.sleep)
            self._answer(api, body, scope)
        elif mode == "context":
            size = _request_tokens(api, body)
            if api == "messages":
                message = f"prompt is too long: {size} tokens > {max(1, size // 2)} maximum"
            else:
                message = (
                    f"This model's maximum context length is {max(1, size // 2)} tokens. However, your messages resulted in "
                    f"{size} tokens. Please reduce the length of the messages."
                )
            self._send(400, _api_error(api, 400, message, "context_length_exceeded", "messages" if api == "chat" else "input"))
        elif mode == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [{"message": ')
        elif mode == "empty":
            self._send(200, _empty(api, body))
        elif mode == "auth":
            echoed = self.headers.get("x-api-key") or self.headers.get("Authorization", "")  # Anthropic's SDK sends either
            self._send(
                401,
                _api_error(
                    api,
                    401,
                    f"Incorrect API key provided: {echoed}. You can find your API key at https://platform.openai.com.",
                    "invalid_api_key",
                ),
            )


def _api_error(
    api: str, status: int, message: str, code: str | None = None, param: str | None = None, type_: str = "invalid_request_error"
) -> dict[str, Any]:
    """The error body in the API's own shape."""
    if api == "messages":
        return serve_anthropic.error_body(status, message)
    return _error(message, type_, code, param)


def _request_tokens(api: str, body: dict[str, Any]) -> int:
    """The simulated size of a request, for the ``context`` fault's message."""
    try:
        if api == "messages":
            return serve_anthropic.parse_request(body).input_tokens()
        if api in ("responses", "compact"):
            return provider_tokens(serve_responses.to_messages(serve_responses.input_items(body, ResponseStore())))
    except (RequestError, KeyError, TypeError, ValueError):
        return 0
    return provider_tokens(convert_to_messages(body.get("messages") or []), body.get("tools"))


def _empty(api: str, body: dict[str, Any]) -> dict[str, Any]:
    """A 200 with nothing in it, in the API's shape: no choices, no content blocks, no output items."""
    if api == "messages":
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
    if api in ("responses", "compact"):
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
    return {
        "id": "chatcmpl-empty",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": AGENT_NAME,
        "choices": [],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that closed its connection (its timeout, its pool closing) is normal traffic, not an error to print."""
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class ReferenceServer:
    """A running ``harness serve``: ``url`` is its OpenAI base URL (``http://host:port/v1``)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        latency: float = 0.0,
        seed: int = 0,
        faults: list[Fault] | None = None,
        max_model_len: int | None = None,
        usage: bool = True,
        max_requests: int | None = None,
        max_seconds: float | None = DEFAULT_MAX_SECONDS,
    ) -> None:
        if latency < 0:
            raise ConfigError(f"--latency {latency}: must not be negative")
        self.state = ServerState(latency=latency, seed=seed, max_model_len=max_model_len, usage=usage, faults=list(faults or []))
        handler = type("Handler", (_Handler,), {"state": self.state})
        try:
            self.httpd = _Server((host, port), handler)
        except OSError as exc:
            raise ConfigError(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None
        self.max_requests, self.max_seconds = max_requests, max_seconds
        self._thread: threading.Thread | None = None
        self._watch: threading.Thread | None = None
        self.stop_reason = ""

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def add_fault(self, fault: Fault) -> None:
        with self.state.lock:
            self.state.faults.append(fault)

    def _watchdog(self) -> None:
        started = time.monotonic()
        while not self.state.stopping.wait(0.1):
            total = sum(self.state.requests.values())
            if self.max_requests is not None and total >= self.max_requests:
                self.stop_reason = f"served {total} requests (--max-requests {self.max_requests})"
                break
            if self.max_seconds is not None and time.monotonic() - started >= self.max_seconds:
                self.stop_reason = f"ran {self.max_seconds:g} s (--max-seconds)"
                break
        self.state.stopping.set()
        threading.Thread(target=self.httpd.shutdown, daemon=True).start()

    def serve_forever(self) -> None:
        self._watch = threading.Thread(target=self._watchdog, daemon=True)
        self._watch.start()
        try:
            self.httpd.serve_forever(poll_interval=0.1)
        finally:
            self.state.stopping.set()
            self.httpd.server_close()

    def start(self) -> ReferenceServer:
        self._thread = threading.Thread(target=self.serve_forever, daemon=True, name="harness-serve")
        self._thread.start()
        return self

    def stop(self) -> None:
        if not self.stop_reason:
            self.stop_reason = "stopped"
        self.state.stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=10)


@contextmanager
def serving(**kwargs: Any) -> Iterator[ReferenceServer]:
    """A server on a free loopback port for the duration of the block (tests, benchmarks)."""
    server = ReferenceServer(port=kwargs.pop("port", 0), **kwargs).start()
    try:
        yield server
    finally:
        server.stop()
