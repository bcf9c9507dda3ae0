"""LangSmith with bounded uploads and bounded waits, for every path that talks to it.

Three paths talk to LangSmith: a pytest eval session (`start`), the experiment export (`connect`) and LangChain's
tracing with ``LANGSMITH_TRACING=true`` (`bound_tracing`). They share one client per process: one cheap request with
no read retry (`check`) decides whether to talk to LangSmith at all (when it does not answer, the process and the
workers it starts stay local), and every later request goes through a `BoundedSession`, which fails at once after
the first failure or after ``budget_s`` in total, a budget forked workers share. A pytest session does not trace the
agent's own model calls (247 MB for 20 needle cases) unless ``--langsmith-traces full``; docs/live.md has the why.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import requests

BUDGET_S = 30.0
TIMEOUT_MS = (3_000, 10_000)  # connect, read
TRACE_MODES = ("summary", "full")
_SPENT, _BROKEN, _REQUESTS, _BYTES, _NOT_SENT = range(5)  # slots of a session's shared state
_SLOTS = {"spent": _SPENT, "broken": _BROKEN, "requests": _REQUESTS, "sent": _BYTES, "not_sent": _NOT_SENT}


class NotSentToLangSmith(requests.RequestException):
    """Raised instead of sending once the breaker is open. Not a ConnectionError or a Timeout on purpose: the SDK
    retries those with growing sleeps (``create_feedback``: 10 attempts, 8 minutes of sleep), this it raises at once."""


def _shared_state() -> Any:
    """Seconds spent, broken flag, requests, bytes sent, requests not sent: in shared memory when the platform allows
    (forked workers then share them)."""
    try:
        import multiprocessing

        return multiprocessing.Array("d", 5)
    except (ImportError, OSError):  # no shared memory (some sandboxes): this process only
        return [0.0] * 5


class BoundedSession(requests.Session):
    """A requests session that stops talking to LangSmith after the first failure or after ``budget_s`` in total.

    ``state`` (seconds spent, broken flag, counters) may be shared with the sessions of forked worker processes:
    then the budget, the breaker and the counts are theirs too. ``failures`` (their text) are this process's own."""

    def __init__(self, budget_s: float = BUDGET_S, state: Any = None) -> None:
        super().__init__()
        self.budget_s = budget_s
        self.state = state if state is not None else _shared_state()
        self.failures: list[str] = []

    def _add(self, **slots: float) -> None:
        lock = getattr(self.state, "get_lock", None)
        with lock() if lock else contextlib.nullcontext():
            for slot, value in slots.items():
                self.state[_SLOTS[slot]] += value

    @property
    def open(self) -> bool:
        return bool(self.failures) or bool(self.state[_BROKEN]) or self.state[_SPENT] >= self.budget_s

    def why_open(self) -> str:
        if self.failures:
            return self.failures[0]
        if self.state[_BROKEN]:
            return "a request of another process of this run failed"
        return f"the {self.budget_s:g} s LangSmith budget is spent"

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        if self.open:
            self._add(not_sent=1)
            raise NotSentToLangSmith(f"not sent to LangSmith: {self.why_open()}")
        remaining = max(0.1, self.budget_s - self.state[_SPENT])
        timeout = kwargs.get("timeout")
        if isinstance(timeout, tuple):
            kwargs["timeout"] = tuple(min(t, remaining) if t else remaining for t in timeout)
        else:
            kwargs["timeout"] = min(timeout, remaining) if timeout else remaining
        body = request.body
        size = len(body) if isinstance(body, (bytes, str)) else 0
        started = time.perf_counter()
        failed = False
        try:
            response = super().send(request, **kwargs)
        except requests.RequestException as exc:
            failed = True
            self.failures.append(f"{type(exc).__name__} on {request.method} {(request.path_url or '').split('?')[0]}")
            raise
        finally:
            self._add(spent=time.perf_counter() - started, broken=float(failed), requests=1, sent=0 if failed else size)
        return response

    def stats(self) -> dict[str, Any]:
        """The counts of every process sharing ``state`` (requests sent, bytes sent, seconds spent, requests the open
        breaker did not send) and this process's failures."""
        return {
            "requests": int(self.state[_REQUESTS]),
            "sent_bytes": int(self.state[_BYTES]),
            "time_s": round(float(self.state[_SPENT]), 2),
            "failures": list(self.failures),
            "not_sent": int(self.state[_NOT_SENT]),
        }


@dataclass
class LangSmithSession:
    enabled: bool
    traces: str
    session: BoundedSession | None = None
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    client: Any = None

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
        if s.get("failures") or s.get("not_sent"):
            why = s["failures"][0] if s.get("failures") else self.session.why_open() if self.session else "the budget"
            line += f"; stopped after {why} ({s['not_sent']} request(s) not sent): some results were not uploaded"
        return line


class _BreakerEchoes(logging.Filter):
    """Drops the SDK's warnings about requests the breaker did not send: one per batch, each listing trace ids. The
    failure that opened the breaker is still logged, and the status line counts what was not sent."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "not sent to LangSmith:" in record.getMessage():
            return False
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:  # "Error creating feedback" with the traceback of a request the breaker stopped
            if isinstance(exc, NotSentToLangSmith):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


_ECHOES = _BreakerEchoes()


def bounded_client(
    budget_s: float = BUDGET_S, state: Any = None, *, session: BoundedSession | None = None, batch: bool = True
) -> tuple[Any, BoundedSession]:
    """A LangSmith SDK client whose every request goes through a `BoundedSession` (configured from the environment).
    ``batch=False``: no background tracing thread (a preflight client: nothing is fetched behind its back)."""
    from langsmith import Client
    from urllib3.util import Retry

    session = session or BoundedSession(budget_s, state)
    for name in ("langsmith.client", "langsmith._internal._background_thread"):
        if _ECHOES not in logging.getLogger(name).filters:
            logging.getLogger(name).addFilter(_ECHOES)
    # No retry of a read that timed out (a server that never answers would cost 4 x the timeout); one retry of a
    # refused connect or a 429/5xx, with backoff. The SDK's own loop retries on top; the session's budget caps all.
    retry = Retry(
        total=2, connect=1, read=0, backoff_factor=0.5, status_forcelist=(429, 500, 502, 503, 504), allowed_methods=None
    )
    return Client(session=session, timeout_ms=TIMEOUT_MS, retry_config=retry, auto_batch_tracing=batch), session


def preflight(client: Any) -> str | None:
    """None when LangSmith answers one cheap request, else why not (redacted)."""
    from harness.redact import redact

    try:
        next(iter(client.list_datasets(limit=1)), None)
    except Exception as exc:  # noqa: BLE001 - any failure to reach LangSmith means: stay local
        return f"LangSmith did not answer: {type(exc).__name__}: {redact(str(exc))[:160]}"
    return None


_CONNECTED: dict[tuple[str, str], LangSmithSession] = {}


def check(budget_s: float = BUDGET_S) -> LangSmithSession:
    """Ask LangSmith once per process for the current endpoint and key (`preflight`); every later path reuses the
    answer. No client with a tracing thread is made here (`connect` makes it), so a plan may still fork after asking."""
    key = (os.environ.get("LANGSMITH_ENDPOINT") or os.environ.get("LANGCHAIN_ENDPOINT") or "", _api_key_env())
    if key not in _CONNECTED:
        try:
            probe, session = bounded_client(budget_s, batch=False)
        except Exception as exc:  # noqa: BLE001 - a client the SDK refuses to make (bad settings) means: stay local
            from harness.redact import redact

            why = f"LangSmith client not made: {type(exc).__name__}: {redact(str(exc))[:160]}"
            _CONNECTED[key] = LangSmithSession(enabled=False, traces="full", problem=why)
        else:
            problem = preflight(probe)
            _CONNECTED[key] = LangSmithSession(enabled=problem is None, traces="full", session=session, problem=problem)
    return _CONNECTED[key]


def connect(budget_s: float = BUDGET_S) -> LangSmithSession:
    """This process's LangSmith client for the current endpoint and key (`check`), shared by every path."""
    ls = check(budget_s)
    if ls.enabled and ls.client is None and ls.session is not None:
        ls.client = bounded_client(session=ls.session)[0]  # its tracing thread starts only now
    return ls


def upload_requested() -> bool:
    """Results go to LangSmith (a pytest session's experiment, an experiment's export) when LANGSMITH_API_KEY is set."""
    return bool(os.environ.get("LANGSMITH_API_KEY"))


def _api_key_env() -> str:
    import hashlib

    value = os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY") or ""
    return hashlib.sha256(value.encode()).hexdigest()[:16]  # a memo key, never the key itself


def tracing_requested() -> bool:
    """LangChain traces to LangSmith when LANGSMITH_TRACING (or its older names) is true."""
    return any(
        os.environ.get(name, "").strip().lower() == "true"
        for name in ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING")
    )


def switch_off() -> None:
    """Test tracking and tracing off: the langsmith plugin then runs marked tests as plain tests."""
    os.environ["LANGSMITH_TEST_TRACKING"] = "false"
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ["LANGSMITH_TRACING_V2"] = "false"
    os.environ["LANGCHAIN_TRACING_V2"] = "false"
    os.environ["LANGCHAIN_TRACING"] = "false"
    with contextlib.suppress(ImportError):
        from langsmith import utils as ls_utils

        ls_utils.get_env_var.cache_clear()  # type: ignore[attr-defined]  # an lru_cache, typed by its overloads


def _connect_or_off(budget_s: float = BUDGET_S) -> LangSmithSession:
    """This process's LangSmith (`connect`) made LangChain's client, or, when LangSmith does not answer, test tracking
    and tracing switched off (here and in the workers this process starts) before any run. ``problem`` says why."""
    import langsmith

    ls = connect(budget_s)
    if ls.problem:
        switch_off()
        langsmith.configure(enabled=False)
    else:
        langsmith.configure(client=ls.client)
    return ls


_TRACING: LangSmithSession | None = None


def bound_tracing(progress: Any = None) -> LangSmithSession | None:
    """With ``LANGSMITH_TRACING=true``: LangChain's runs in this process and in the workers it forks go through the
    bounded client of `connect` (one preflight, one budget, one breaker), or, when LangSmith does not answer, tracing
    is switched off before any run. Never raises; waits at most the preflight. None when tracing is not asked for.
    At exit, after the SDK's last flush, one line says what was sent and what was not."""
    global _TRACING
    if not tracing_requested():
        return None
    say = progress or (lambda text: print(text, file=sys.stderr))
    ls = _connect_or_off()
    if ls.problem:
        say(f"warning: LangSmith: {ls.problem}. Tracing is off for this run; nothing is uploaded.")
        return ls
    if _TRACING is None:
        os.register_at_fork(after_in_child=_trace_in_child)
        atexit.register(lambda: say(f"{ls.status_line()} (tracing)"))
    _TRACING = ls
    return ls


def _trace_in_child() -> None:
    """In a forked worker: its own client (the parent's background thread did not come along) on the parent's budget."""
    global _TRACING
    parent = _TRACING
    if parent is None or parent.session is None or parent.problem:
        return
    import langsmith

    client, session = bounded_client(parent.session.budget_s, parent.session.state)
    _TRACING = LangSmithSession(enabled=True, traces="full", session=session, client=client)
    for key, value in _CONNECTED.items():  # the parent's client (its pooled sockets) is not this process's to use
        if value is parent:
            _CONNECTED[key] = _TRACING
    langsmith.configure(client=client)


def start(traces: str = "summary", budget_s: float = BUDGET_S) -> LangSmithSession:
    """Configure LangSmith for a pytest eval session from the environment. Never raises; never waits more than
    ``budget_s``."""
    if traces not in TRACE_MODES:
        from harness.errors import ConfigError

        raise ConfigError(f"--langsmith-traces {traces!r}: choose {' or '.join(TRACE_MODES)}")
    if not upload_requested() or os.environ.get("LANGSMITH_TEST_TRACKING") == "false":
        switch_off()
        return LangSmithSession(enabled=False, traces=traces)
    ls = _connect_or_off(budget_s)
    if ls.problem:
        return LangSmithSession(enabled=False, traces=traces, session=ls.session, problem=ls.problem)
    os.environ["LANGSMITH_TRACING"] = "true"  # the plugin's log_inputs/log_feedback raise without it
    return LangSmithSession(enabled=True, traces=traces, session=ls.session, client=ls.client)
