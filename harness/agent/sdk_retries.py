"""The provider SDKs' own retries of a live case, counted from the log record each SDK writes before it retries.

The OpenAI and Anthropic SDKs (both Stainless-generated) retry a status, connection or timeout error inside the
client (``max_retries``, `harness.agent.endpoints.DEFAULT_MAX_RETRIES`), so LangChain's callbacks, and the recorder,
never see a retried request: a case that rode out two 429s reads like one that met none. Before each retry both SDKs
log one INFO record on their ``_base_client`` logger (``"Retrying request in %f seconds (retry %i of %s)"``, openai;
``"Retrying request to %s in %f seconds"``, anthropic); the status is only in DEBUG records, which are not turned on
(the OpenAI SDK formats every request's options for them). So:

- `install` (the runner calls it for every live case: idempotent, in every process that runs cases) adds one
  `RetryCounter` filter to each of those loggers and lowers the logger's level to INFO when it is above it;
- `RetryCounter` counts each "Retrying request" record for the case running in the current context (`CASE_RETRIES`,
  set by the runner for the case's own task or call: the asyncio tasks and threads of one case inherit it, cases in
  flight on one loop each have their own), with the seconds the SDK is about to wait and the role whose request it is
  (`RETRY_ROLE`: ``agent`` inside `agent_role_middleware`, ``summarizer`` inside the live summarizer wrapper, else
  ``other``: a subagent's or a tool's own model call), and lets a record through only when the user's own logging
  configuration would have shown it, so what a user sees of these loggers is unchanged.

Nothing is patched: no SDK method, no LangChain class. Other providers' clients (google-genai, mistralai...) write no
such record, so a case with a live model of theirs has no count (`counted_model`): None, never a 0 nobody measured.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

SDK_LOGGERS = ("openai._base_client", "anthropic._base_client")
"""The loggers the counted SDKs write their retry record on."""
RETRY_RECORD = "Retrying request"  # how both SDKs' INFO record before a retry begins
AGENT, SUMMARIZER, OTHER = "agent", "summarizer", "other"
COUNTED_PACKAGES = ("langchain_openai", "langchain_anthropic")
"""LangChain's packages whose chat models call the counted SDKs (a subclass of one of their models, in another package,
is counted too)."""


def counted_model(model: object) -> bool:
    """Whether ``model``'s requests go through a counted SDK: a chat model of `COUNTED_PACKAGES` (or a subclass of
    one), looked at through the harness's summarizer wrapper (its ``inner`` model)."""
    inner = getattr(model, "inner", model)
    return any(cls.__module__.split(".")[0] in COUNTED_PACKAGES for cls in type(inner).__mro__)


class CaseRetries:
    """One case run's SDK retries by role: how many and the seconds waited before them (each SDK's backoff, a
    Retry-After it honoured included). Thread-safe: a case's threads add to one object."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_role: dict[str, list[float]] = {}

    def add(self, role: str, seconds: float) -> None:
        with self._lock:
            entry = self._by_role.setdefault(role, [0, 0.0])
            entry[0] += 1
            entry[1] += seconds

    def record(self) -> dict[str, Any]:
        """What the trace keeps (``Trace.provider_retries``): ``count``, ``backoff_s`` and ``by_role`` (role ->
        ``count``, ``backoff_s``; only roles that retried)."""
        with self._lock:
            by_role = {role: {"count": int(n), "backoff_s": round(s, 3)} for role, (n, s) in sorted(self._by_role.items())}
        return {
            "count": sum(r["count"] for r in by_role.values()),
            "backoff_s": round(sum(s for _, s in self._by_role.values()), 3),
            "by_role": by_role,
        }


CASE_RETRIES: ContextVar[CaseRetries | None] = ContextVar("harness_case_retries", default=None)
"""The retries of the case running in this context (set by the runner for a live case's task or call), or None."""
RETRY_ROLE: ContextVar[str | None] = ContextVar("harness_retry_role", default=None)
"""Whose request is in flight in this context: ``agent`` or ``summarizer`` (set around the model call), else None."""


def _backoff_seconds(args: Any) -> float:
    """The seconds in a retry record's arguments: the first number (openai's first argument, anthropic's second, after
    the URL); 0.0 when there is none."""
    values = args if isinstance(args, tuple) else ()
    return next((float(a) for a in values if isinstance(a, (int, float)) and not isinstance(a, bool)), 0.0)


class RetryCounter(logging.Filter):
    """Counts each SDK retry record for the case in the current context; passes a record only at or above the level
    the user's configuration gives the logger (`shown_from`), which may be above the INFO `install` lowered it to."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.own_level = logger.level  # the level the logger had of its own before `lower` (NOTSET: its parent's)
        self.set_to: int | None = None  # the level `lower` last set

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(RETRY_RECORD):
            case = CASE_RETRIES.get()
            if case is not None:
                case.add(RETRY_ROLE.get() or OTHER, _backoff_seconds(record.args))
        return record.levelno >= self.shown_from()

    def shown_from(self) -> int:
        """The lowest level the user's own configuration shows from this logger: its own level as it was, or, when it
        had none, what it inherits now (a ``basicConfig`` made later counts)."""
        if self.own_level != logging.NOTSET:
            return self.own_level
        parent = self.logger.parent
        return parent.getEffectiveLevel() if parent is not None else logging.WARNING

    def lower(self) -> None:
        """The logger at INFO when the user's configuration leaves it above; its own level again when it no longer does.
        A level the user set since the last call is taken as theirs."""
        if self.logger.level != self.set_to:
            self.own_level = self.logger.level
        target = logging.INFO if self.shown_from() > logging.INFO else self.own_level
        if self.logger.level != target:
            self.logger.setLevel(target)
        self.set_to = target


_INSTALL = threading.Lock()


def install() -> None:
    """One `RetryCounter` on each of `SDK_LOGGERS` (added once per process; the SDK need not be imported yet: the logger
    it will write on is the same object), and each logger's level lowered as `RetryCounter.lower` says."""
    with _INSTALL:
        for name in SDK_LOGGERS:
            logger = logging.getLogger(name)
            counter = next((f for f in logger.filters if isinstance(f, RetryCounter)), None)
            if counter is None:
                counter = RetryCounter(logger)
                logger.addFilter(counter)
            counter.lower()


def count_here(case: CaseRetries) -> None:
    """``case`` counts the retries made from here on in this context (and the contexts copied from it): for a case's
    own task, whose context ends with it."""
    install()
    CASE_RETRIES.set(case)


@contextmanager
def counting(case: CaseRetries) -> Iterator[CaseRetries]:
    """``case`` counts the retries made inside the block (a case run on the calling thread)."""
    install()
    token = CASE_RETRIES.set(case)
    try:
        yield case
    finally:
        CASE_RETRIES.reset(token)


@contextmanager
def role(name: str) -> Iterator[None]:
    """Retries inside the block are ``name``'s (`RETRY_ROLE`)."""
    token = RETRY_ROLE.set(name)
    try:
        yield
    finally:
        RETRY_ROLE.reset(token)


def agent_role_middleware() -> Any:
    """An agent middleware under which the live agent's model calls run as role ``agent`` (placed inside the
    summarization middleware, so a summary request made there is not the agent's)."""
    from langchain.agents.middleware import AgentMiddleware

    class AgentRetryRole(AgentMiddleware):
        def wrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
            with role(AGENT):
                return handler(request)

        async def awrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
            with role(AGENT):
                return await handler(request)

    return AgentRetryRole()
