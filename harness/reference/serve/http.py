"""The HTTP side of ``harness serve``: the request handler, dispatching every API route through its `ServedAPI`
contract (`harness.reference.serve.api`), the admin routes, and `ReferenceServer` with its watchdog."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.agent.cache_scope import CACHE_SCOPE_HEADER, MAX_SCOPE_CHARS
from harness.errors import ConfigError
from harness.reference.names import AGENT_NAME, JUDGE_NAME, SUMMARIZER_NAME
from harness.reference.serve.api import ServedAPI
from harness.reference.serve.chat import ChatCompletions
from harness.reference.serve.faults import Fault
from harness.reference.serve.messages import AnthropicMessages
from harness.reference.serve.responses import OpenAIResponses, ResponsesCompact
from harness.reference.serve.state import ServerState
from harness.reference.serve.wire import Reply, RequestError, openai_error

APIS: dict[str, ServedAPI] = {
    api.path: api for api in (ChatCompletions(), AnthropicMessages(), OpenAIResponses(), ResponsesCompact())
}
DEFAULT_PORT = 8765
DEFAULT_MAX_SECONDS = 3600.0


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
        if self.path.startswith("/admin/"):
            return  # the stats count what clients of the API were answered, never the admin's own calls
        with self.state.lock:
            self.state.statuses[status] += 1

    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, openai_error("request body is not JSON", "invalid_request_error"))
            return None
        if not isinstance(data, dict):
            self._send(400, openai_error("request body must be a JSON object", "invalid_request_error"))
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
            self._send(404, openai_error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.partition("?")[0].rstrip("/")  # the Anthropic SDK's beta client adds ?beta=true
        body = self._body()
        if body is None:
            return
        if path == "/admin/faults":
            try:
                fault = Fault.from_json(body)
            except (ConfigError, TypeError, ValueError) as exc:
                self._send(400, openai_error(str(exc), "invalid_request_error"))
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
            self._send(404, openai_error(f"no route {self.path}", "not_found"))

    def _reply(self, reply: Reply) -> None:
        self._send(reply.status, reply.body, reply.headers, reply.content_type)

    def _serve(self, api: ServedAPI, body: dict[str, Any]) -> None:
        state = self.state
        scope = api.scope(body)
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
            if fault is not None and fault.mode == "stall":
                state.stopping.wait(fault.sleep)  # then answer, past the client's timeout
            if fault is None or fault.mode == "stall":
                self._answer(api, body, scope)
            else:
                credentials = self.headers.get("x-api-key") or self.headers.get("Authorization") or ""  # either SDK's key header
                self._reply(api.injected(fault, body, credentials))
        except Exception as exc:  # noqa: BLE001 - a bug here must reach the client as a 500, not hang it
            self._send(500, api.error(500, f"harness serve: {type(exc).__name__}: {exc}", "server_error"))
        finally:
            with state.lock:
                state.in_flight -= 1

    def _cache_scope(self) -> str | None:
        """The request's prompt-cache scope (the ``X-Harness-Cache-Scope`` header, `harness.agent.cache_scope`), or None
        when it sent none; RequestError for an empty or over-long one."""
        value = self.headers.get(CACHE_SCOPE_HEADER)
        if value is None:
            return None
        if not value.strip() or len(value) > MAX_SCOPE_CHARS:
            raise RequestError(f"{CACHE_SCOPE_HEADER}: a non-empty scope of at most {MAX_SCOPE_CHARS} characters is required")
        return value

    def _answer(self, api: ServedAPI, body: dict[str, Any], scope: str) -> None:
        """The API's answer, streamed when asked; a refused request (or cache scope) is the API's 400."""
        state = self.state
        try:
            outcome = api.answer(body, state, lambda: state.compaction_fault(scope), self._cache_scope())
        except RequestError as exc:
            state.record(api.name, body, exc.status, str(exc))
            self._send(exc.status, api.error(exc.status, str(exc), param=exc.param))
            return
        state.record(api.name, body, 200)
        made = sum(
            1 for part in outcome.body.get("content") or outcome.body.get("output") or [] if part.get("type") == "compaction"
        )
        if made:
            with state.lock:
                state.compactions[api.name] += made
        self._reply(api.reply(outcome, bool(body.get("stream"))))


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
