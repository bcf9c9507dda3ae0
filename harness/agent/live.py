"""What the live path needs beyond the provider clients: overflow translation and error classification.

Timeouts, retries with backoff and Retry-After, and rate limits are the provider clients'
and LangChain's (see `harness.agent.models`); two things none of them do are here:

- `SummaryOverflowTranslation`. deepagents answers a context-length rejection of a
  *summary* request with a shorter retry, but only when the error is a
  ``ContextOverflowError``. langchain-openai translates a 400 into one only when the
  text ``context_length_exceeded`` appears in ``str(error)``, and the OpenAI SDK puts the
  error's *message* there, not its code: OpenAI's own rejection ("This model's maximum
  context length is ...") reaches deepagents as a plain ``BadRequestError`` and kills the
  case. The summarizer is wrapped so that any error deepagents itself recognises as a
  context overflow (``_deepagents_adapter.is_context_overflow``: status 400/413/422 and a
  context-limit phrase, OpenAI's and Anthropic's among them) is re-raised as
  ``ContextOverflowError``. The agent's own calls need nothing: deepagents' model-call
  path already uses that test.
- `classify_error`: a run that ended in a provider error (after every retry) is an ERROR,
  not a failed eval. This decides which exceptions those are and which model raised it.
- `retry_after_wait`: the OpenAI SDK honours a 429's Retry-After only up to its cap
  (``MAX_RETRY_AFTER_DELAY``, 120 s in the installed release); above it, it does not retry at
  all and the case would end at once. Such a wait is waited out when it fits the case's
  remaining budget (`CASE_DEADLINE`, set by `arun_case`), by `RetryAfterWait` (agent
  requests) and by `SummaryOverflowTranslation` (summary requests); otherwise the ERROR's
  cause says "Retry-After N s exceeds the remaining case budget M s; not waited".
"""

from __future__ import annotations

import asyncio
import time
import traceback
from contextvars import ContextVar
from typing import Any

from langchain_core.exceptions import ContextOverflowError
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from harness import _deepagents_adapter as da
from harness.agent.sdk_retries import SUMMARIZER, role
from harness.redact import redact

CASE_DEADLINE: ContextVar[float | None] = ContextVar("harness_case_deadline", default=None)
"""`time.monotonic()` by which the running case must end (its --case-budget), set by `arun_case` for the case's own
task; None outside a budgeted case."""


class RetryAfterNotWaited(Exception):
    """A 429 asked for a wait the provider client would not make and the case has no time for; the 429 is its cause."""


def _client_retry_after(exc: BaseException) -> tuple[float, float] | None:
    """(the Retry-After seconds, the client's cap) of a 429 the provider client gave up on because its Retry-After is
    above that cap; None for anything else. Only the OpenAI SDK has such a cap (Anthropic's waits any Retry-After).
    The header is read with the SDK's own parser (retry-after-ms, seconds or an HTTP date) and compared with the
    SDK's own constant, so this waits exactly when the SDK refused to."""
    try:
        from openai import RateLimitError
        from openai import _base_client as sdk
    except ImportError:  # pragma: no cover - openai is a dependency
        return None
    parse = getattr(sdk.BaseClient, "_parse_retry_after_header", None)
    cap = getattr(sdk, "MAX_RETRY_AFTER_DELAY", None)
    for e in _chain(exc):
        if isinstance(e, RateLimitError) and parse is not None and cap is not None:
            seconds = parse(None, e.response.headers)  # a method that does not read self
            if seconds is not None and seconds > cap:
                return float(seconds), float(cap)
    return None


def retry_after_wait(exc: BaseException) -> float | None:
    """Seconds to wait before sending the request again when ``exc`` is a 429 whose Retry-After is above the provider
    client's cap and fits the case's remaining budget; None when ``exc`` is not such a 429 (raise it as it is).
    Raises `RetryAfterNotWaited` (from ``exc``) when the wait does not fit, naming both durations."""
    found = _client_retry_after(exc)
    if found is None:
        return None
    seconds, cap = found
    deadline = CASE_DEADLINE.get()
    if deadline is None:
        raise RetryAfterNotWaited(
            f"Retry-After {seconds:.0f} s is above the provider client's {cap:.0f} s cap and no case budget bounds a wait; "
            "not waited"
        ) from exc
    left = deadline - time.monotonic()
    if seconds >= left:
        raise RetryAfterNotWaited(
            f"Retry-After {seconds:.0f} s exceeds the remaining case budget {max(left, 0):.0f} s; not waited"
        ) from exc
    return seconds


def retry_after_middleware() -> Any:
    """An agent middleware that waits out a long Retry-After (`retry_after_wait`) and sends the request again."""
    from langchain.agents.middleware import AgentMiddleware

    class RetryAfterWait(AgentMiddleware):
        def wrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
            while True:
                try:
                    return handler(request)
                except Exception as exc:
                    wait = retry_after_wait(exc)
                    if wait is None:
                        raise
                time.sleep(wait)

        async def awrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
            while True:
                try:
                    return await handler(request)
                except Exception as exc:
                    wait = retry_after_wait(exc)
                    if wait is None:
                        raise
                await asyncio.sleep(wait)

    return RetryAfterWait()


class TokenBudget:
    """Input tokens per minute, shared by every model call of a run (``--max-tpm``): a token bucket holding at
    most a minute's worth, refilled continuously. LangChain's rate limiter counts requests only; providers also
    limit tokens, and a run of long-context cases hits that limit first. A request waits until the bucket holds
    its (approximate) size, capped at the bucket, so one huge request cannot wait forever."""

    def __init__(self, tokens_per_minute: float) -> None:
        import threading
        import time

        self.tokens_per_minute = float(tokens_per_minute)
        self._rate = self.tokens_per_minute / 60.0
        self._level = self.tokens_per_minute
        self._stamp = time.monotonic()
        self._lock = threading.Lock()
        self.waited_s = 0.0
        self.taken = 0.0  # tokens granted so far

    def _take(self, tokens: int) -> float:
        """Take ``tokens`` if the bucket holds them and return 0, else return how long to wait first."""
        import time

        need = min(float(tokens), self.tokens_per_minute)
        with self._lock:
            now = time.monotonic()
            self._level = min(self.tokens_per_minute, self._level + (now - self._stamp) * self._rate)
            self._stamp = now
            if self._level >= need:
                self._level -= need
                self.taken += need
                return 0.0
            return (need - self._level) / self._rate

    def acquire(self, tokens: int) -> None:
        import time

        while (wait := self._take(tokens)) > 0:
            self.waited_s += wait
            time.sleep(wait)

    async def aacquire(self, tokens: int) -> None:
        import asyncio

        while (wait := self._take(tokens)) > 0:
            self.waited_s += wait
            await asyncio.sleep(wait)

    def middleware(self) -> Any:
        """An agent middleware that waits for each model request's approximate input tokens."""
        from langchain.agents.middleware import AgentMiddleware
        from langchain_core.messages.utils import count_tokens_approximately

        budget = self

        def size(request: Any) -> int:
            system = [request.system_message] if getattr(request, "system_message", None) is not None else []
            return count_tokens_approximately([*system, *request.messages])

        class TokensPerMinute(AgentMiddleware):
            def wrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
                budget.acquire(size(request))
                return handler(request)

            async def awrap_model_call(self, request, handler):  # noqa: ANN001, ANN202
                await budget.aacquire(size(request))
                return await handler(request)

        return TokensPerMinute()


class SummaryOverflowTranslation(BaseChatModel):
    """The summarizer model, with provider context-length rejections raised as ``ContextOverflowError``
    (and the run's `TokenBudget`, when there is one, waited on before each summary request)."""

    inner: BaseChatModel
    token_budget: Any = None

    @classmethod
    def around(cls, model: BaseChatModel, token_budget: TokenBudget | None = None) -> SummaryOverflowTranslation:
        return cls(
            inner=model, profile=model.profile, rate_limiter=getattr(model, "rate_limiter", None), token_budget=token_budget
        )

    def _size(self, messages: list[BaseMessage]) -> int:
        from langchain_core.messages.utils import count_tokens_approximately

        return count_tokens_approximately(messages)

    @property
    def _llm_type(self) -> str:
        return self.inner._llm_type

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return dict(self.inner._identifying_params)

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    @staticmethod
    def _translate(exc: Exception) -> Exception:
        if not isinstance(exc, ContextOverflowError) and da.is_context_overflow(exc):
            return ContextOverflowError(f"summary request rejected as too long ({type(exc).__name__}): {redact(str(exc))[:500]}")
        return exc

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        while True:
            if self.token_budget is not None:
                self.token_budget.acquire(self._size(messages))
            try:
                with role(SUMMARIZER):  # the SDK's retries of this request are the summarizer's
                    return self.inner._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
            except Exception as exc:
                wait = retry_after_wait(exc)  # a long Retry-After that fits the case budget: wait, send again
                if wait is None:
                    translated = self._translate(exc)
                    if translated is exc:
                        raise
                    raise translated from exc
            time.sleep(wait)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        while True:
            if self.token_budget is not None:
                await self.token_budget.aacquire(self._size(messages))
            try:
                with role(SUMMARIZER):
                    return await self.inner._agenerate(messages, stop=stop, run_manager=run_manager, **kwargs)
            except Exception as exc:
                wait = retry_after_wait(exc)
                if wait is None:
                    translated = self._translate(exc)
                    if translated is exc:
                        raise
                    raise translated from exc
            await asyncio.sleep(wait)


_PROVIDER_MODULES = (
    "openai",
    "anthropic",
    "httpx",
    "httpcore",
    "langchain_openai",
    "langchain_anthropic",
    "google",
    "langchain_google_genai",
    "groq",
    "mistralai",
)
_SDK_MODULES = ("openai", "anthropic", "google", "groq", "mistralai")
_SUMMARY_FRAMES = ("_create_summary", "_acreate_summary")


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in out and len(out) < 20:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _module_of(exc: BaseException) -> str:
    return type(exc).__module__.split(".")[0]


_MODEL_CALL_FILE = "langchain_core/language_models/chat_models.py"


def is_simulated(model: object) -> bool:
    """Whether ``model`` is simulated (its ``simulated`` capability: the reference models and their seeded faults
    say so), the one place the capability is read; a provider's model is not. (`harness.agent.models` re-exports it.)"""
    return getattr(model, "simulated", False) is True


def _frames(exc: BaseException) -> list[Any]:
    """The frames ``exc`` was raised through, outermost first."""
    out, tb = [], exc.__traceback__
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _raised_in_live_model_call(exc: BaseException) -> bool:
    """An exception raised while a chat model call was on the stack and no simulated model was under it: a
    response the provider client could not read (a body that is not JSON; no choices, which langchain-core
    meets as an IndexError). Middleware, tools and scorers run outside model calls; a model under the call that is
    simulated (`is_simulated`, read from the ``self`` of each frame from the first model call inward: the reference
    models and the seeded faulty summarizer say so) is harness code, never mistaken for a provider."""
    frames = _frames(exc)
    files = [f.f_code.co_filename.replace("\\", "/") for f in frames]
    calls = [i for i, name in enumerate(files) if name.endswith(_MODEL_CALL_FILE)]
    return bool(calls) and not any(is_simulated(f.f_locals.get("self")) for f in frames[calls[0] :])


def is_provider_error(exc: BaseException) -> bool:
    """The call failed because of the provider (status, connection, timeout, unreadable response), not because of
    compaction: any exception in the chain from a provider client. A context overflow that deepagents could not
    recover from is a finding, never an ERROR."""
    if isinstance(exc, ContextOverflowError) or da.is_context_overflow(exc):
        return False
    return any(_module_of(e) in _PROVIDER_MODULES or _raised_in_live_model_call(e) for e in _chain(exc))


def is_unread_response(exc: BaseException) -> bool:
    """A provider error the client's own retries do not cover: the server answered 200 with a body the client
    could not read (malformed JSON, no choices). Status, connection and timeout errors are the SDK's to retry."""
    return is_provider_error(exc) and not any(_module_of(e) in ("openai", "anthropic", "httpx", "httpcore") for e in _chain(exc))


def classify_error(exc: BaseException) -> dict[str, Any]:
    """The error as a trace records it: type, message (redacted), and, for a provider error, its cause:
    HTTP status, provider error code, which model (agent or summarizer)."""
    out: dict[str, Any] = {"type": type(exc).__name__, "message": redact(str(exc))[:2000]}
    if not is_provider_error(exc):
        return out
    chain = _chain(exc)
    status = next((getattr(e, "status_code", None) for e in chain if getattr(e, "status_code", None)), None)
    body = next((getattr(e, "body", None) for e in chain if getattr(e, "body", None)), None)
    code = body.get("code") if isinstance(body, dict) else None
    frames = [f.name for e in chain for f in traceback.extract_tb(e.__traceback__)]
    model = "summarizer" if any(name in _SUMMARY_FRAMES for name in frames) else "agent"
    # Name the SDK's exception (openai.RateLimitError, anthropic.APITimeoutError), not LangChain's wrapper of it.
    root = next((e for e in reversed(chain) if _module_of(e) in _SDK_MODULES), None) or next(
        (e for e in chain if _module_of(e) in _PROVIDER_MODULES or _raised_in_live_model_call(e)), exc
    )
    out["provider_error"] = {
        "type": type(root).__name__,
        "status": status,
        "code": code if isinstance(code, (str, int)) else None,
        "model": model,
        "message": redact(str(root))[:500],
    }
    not_waited = next((e for e in chain if isinstance(e, RetryAfterNotWaited)), None)
    if not_waited is not None:
        out["provider_error"]["note"] = str(not_waited)
    return out


AGENT_RETRIES = 2  # re-sends of an agent request whose answer could not be read (the SDK's retries cover the rest)


def agent_retry_middleware() -> Any:
    """LangChain's ModelRetryMiddleware for a live agent, retrying only unread responses (backoff 1 s x2, jitter)."""
    from langchain.agents.middleware import ModelRetryMiddleware

    return ModelRetryMiddleware(
        max_retries=AGENT_RETRIES,
        retry_on=is_unread_response,
        on_failure="error",
        initial_delay=1.0,
        backoff_factor=2.0,
        max_delay=30.0,
        jitter=True,
    )


def provider_cause(error: dict[str, Any] | None) -> str | None:
    """The classified cause of a provider error, what two errors must share to be "the same provider error": which
    model, the HTTP status and the SDK's exception (``agent: HTTP 503 InternalServerError``), never the message or the
    note, which vary from request to request. None when ``error`` is not a provider error (the case is not ERROR)."""
    if not error or not error.get("provider_error"):
        return None
    p = error["provider_error"]
    status = f"HTTP {p['status']} " if p.get("status") else ""
    return f"{p['model']}: {status}{p['type']}"


def error_cause(error: dict[str, Any] | None) -> str:
    """One line for reports: ``agent: HTTP 503 InternalServerError`` or ``summarizer: APITimeoutError``, with a note
    when there is one (``agent: HTTP 429 RateLimitError (Retry-After 300 s exceeds the remaining case budget 80 s; not
    waited)``)."""
    cause = provider_cause(error)
    if cause is None:
        return ""
    assert error is not None
    note = error["provider_error"].get("note")
    return f"{cause} ({note})" if note else cause
