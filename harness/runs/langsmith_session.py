"""LangSmith for a pytest eval session with a key: bounded uploads, bounded waits, never a failed eval.

The langsmith pytest plugin (``@pytest.mark.langsmith``) turns the session into a LangSmith
experiment; it needs ``LANGSMITH_TRACING=true`` beside the key (its docs say so; without it
every ``log_inputs`` raises). What this module adds, because neither the SDK nor the
plugin does it:

- **A time budget and a breaker.** The SDK client gets a connect/read timeout and a
  `BoundedSession`: once a request to LangSmith fails (refused, timed out) or the
  session's total time talking to LangSmith passes ``budget_s`` (30 s), every later
  request fails at once instead of waiting again. The plugin logs such failures; the
  evals' own results stay local and complete.
- **A preflight.** One cheap request before the first test: if LangSmith does not answer,
  test tracking and tracing are switched off for the session (the evals run as without a
  key) and the run says what was not uploaded.
- **Bounded uploads.** By default the agent's own LangChain runs (every model call with
  its full history: 247 MB for 20 needle cases) are not traced; the test run carries the
  inputs, the scores as feedback and a compact trace summary. ``--langsmith-traces full``
  traces everything.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import Any

import requests

BUDGET_S = 30.0
TIMEOUT_MS = (3_000, 10_000)  # connect, read
TRACE_MODES = ("summary", "full")


class BoundedSession(requests.Session):
    """A requests session that stops talking to LangSmith after the first failure or after ``budget_s`` in total."""

    def __init__(self, budget_s: float = BUDGET_S) -> None:
        super().__init__()
        self.budget_s = budget_s
        self.spent_s = 0.0
        self.requests = 0
        self.sent_bytes = 0
        self.failures: list[str] = []
        self.refused = 0  # requests not sent because the breaker was open

    @property
    def open(self) -> bool:
        return bool(self.failures) or self.spent_s >= self.budget_s

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        if self.open:
            self.refused += 1
            why = self.failures[0] if self.failures else f"the {self.budget_s:g} s LangSmith budget is spent"
            raise requests.ConnectionError(f"not sent to LangSmith: {why}")
        remaining = max(0.1, self.budget_s - self.spent_s)
        timeout = kwargs.get("timeout")
        if isinstance(timeout, tuple):
            kwargs["timeout"] = tuple(min(t, remaining) if t else remaining for t in timeout)
        else:
            kwargs["timeout"] = min(timeout, remaining) if timeout else remaining
        body = request.body
        size = len(body) if isinstance(body, (bytes, str)) else 0
        started = time.perf_counter()
        try:
            response = super().send(request, **kwargs)
        except requests.RequestException as exc:
            self.failures.append(f"{type(exc).__name__} on {request.method} {request.path_url.split('?')[0]}")
            raise
        finally:
            self.spent_s += time.perf_counter() - started
            self.requests += 1
        self.sent_bytes += size
        return response

    def stats(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "sent_bytes": self.sent_bytes,
            "time_s": round(self.spent_s, 2),
            "failures": list(self.failures),
            "not_sent": self.refused,
        }


@dataclass
class LangSmithSession:
    enabled: bool
    traces: str
    session: BoundedSession | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)

    def quiet(self) -> contextlib.AbstractContextManager:
        """Around an agent run: its LangChain runs are not traced unless full traces were asked for."""
        if not self.enabled or self.traces == "full":
            return contextlib.nullcontext()
        from langsmith import tracing_context

        return tracing_context(enabled=False)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"enabled": self.enabled, "traces": self.traces, "problem": self.problem}
        if self.session is not None:
            out.update(self.session.stats())
        return out

    def status_line(self) -> str:
        if self.problem:
            return f"LangSmith: not uploaded ({self.problem}); results are local"
        if not self.enabled:
            return "LangSmith: off (no LANGSMITH_API_KEY)"
        s = self.session.stats() if self.session else {}
        line = f"LangSmith: {s.get('requests', 0)} request(s), {s.get('sent_bytes', 0) / 1024:.0f} KiB sent in {s.get('time_s', 0)} s"
        if s.get("failures"):
            line += f"; stopped after {s['failures'][0]} ({s['not_sent']} request(s) not sent): some results were not uploaded"
        return line


def bounded_client(budget_s: float = BUDGET_S) -> tuple[Any, BoundedSession]:
    """A LangSmith SDK client whose every request goes through a `BoundedSession` (configured from the environment)."""
    from langsmith import Client
    from urllib3.util import Retry

    session = BoundedSession(budget_s)
    # No retry of a read that timed out (a server that never answers would cost 4 x the timeout); one retry of a
    # refused connect or a 429/5xx, with backoff. The SDK's own loop retries on top; the session's budget caps all.
    retry = Retry(
        total=2, connect=1, read=0, backoff_factor=0.5, status_forcelist=(429, 500, 502, 503, 504), allowed_methods=None
    )
    return Client(session=session, timeout_ms=TIMEOUT_MS, retry_config=retry), session


def preflight(client: Any) -> str | None:
    """None when LangSmith answers one cheap request, else why not (redacted)."""
    from harness.redact import redact

    try:
        next(iter(client.list_datasets(limit=1)), None)
    except Exception as exc:  # noqa: BLE001 - any failure to reach LangSmith means: stay local
        return f"LangSmith did not answer: {type(exc).__name__}: {redact(str(exc))[:160]}"
    return None


def switch_off() -> None:
    """Test tracking and tracing off: the langsmith plugin then runs marked tests as plain tests."""
    os.environ["LANGSMITH_TEST_TRACKING"] = "false"
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ["LANGCHAIN_TRACING_V2"] = "false"


def start(traces: str = "summary", budget_s: float = BUDGET_S) -> LangSmithSession:
    """Configure LangSmith for this process from the environment. Never raises; never waits more than ``budget_s``."""
    if traces not in TRACE_MODES:
        from harness.errors import ConfigError

        raise ConfigError(f"--langsmith-traces {traces!r}: choose {' or '.join(TRACE_MODES)}")
    if not os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGSMITH_TEST_TRACKING") == "false":
        switch_off()
        return LangSmithSession(enabled=False, traces=traces)
    import langsmith
    from langsmith import Client
    from urllib3.util import Retry

    session = BoundedSession(budget_s)
    # No retry of a read that timed out (a server that never answers would cost 4 x the timeout); one retry of a
    # refused connect or a 429/5xx, with backoff. The SDK's own loop retries on top; the session's budget caps all.
    retry = Retry(
        total=2, connect=1, read=0, backoff_factor=0.5, status_forcelist=(429, 500, 502, 503, 504), allowed_methods=None
    )
    client = Client(session=session, timeout_ms=TIMEOUT_MS, retry_config=retry)
    try:
        next(iter(client.list_datasets(limit=1)), None)
    except Exception as exc:  # noqa: BLE001 - any failure to reach LangSmith means: stay local
        from harness.redact import redact

        switch_off()
        return LangSmithSession(
            enabled=False,
            traces=traces,
            session=session,
            problem=f"LangSmith did not answer: {type(exc).__name__}: {redact(str(exc))[:160]}",
        )
    os.environ["LANGSMITH_TRACING"] = "true"  # the plugin's log_inputs/log_feedback raise without it
    langsmith.configure(client=client)
    return LangSmithSession(enabled=True, traces=traces, session=session)
