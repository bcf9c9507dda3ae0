"""Where a live model is served and the checks a run makes before it starts, without the agent stack.

An `Endpoint` carries what a user sets per model: a base URL (any OpenAI-compatible server: vLLM, Ollama, LM Studio,
`harness serve`) and ``init_chat_model`` keyword arguments. Every live model gets a request timeout (120 s) and the
provider client's own retries (6 attempts after the first; the OpenAI and Anthropic SDKs back off exponentially with
jitter and honour Retry-After) unless the user sets ``timeout`` / ``max_retries``. What is recorded
(`Endpoint.describe`) is the host and the settings, never a key.

The pre-flights (a model spec's form, provider and key; a base URL's form; ``--model-kwargs``; whether anything
answers at a base URL) live here, apart from `harness.agent.models` which builds the models: this module imports the
standard library and the harness's bedrock only, so a command can refuse a mistake or a stopped server before it
imports langchain, langgraph, deepagents, pandas or matplotlib (about 1 s of CPU; docs/performance.md, "Start-up").
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlparse

from harness._numbers import finite_number, finite_problem
from harness.errors import ConfigError, EndpointUnreachable, LiveModelUnavailable

REFERENCE = "reference"  # the offline models' provider, and the default one: no spec, or a bare name it knows
IN_PROCESS_PROVIDERS = {REFERENCE: "harness.reference.provider"}  # provider -> the module building its models

PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google_genai": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "groq": ("GROQ_API_KEY",),
    "mistralai": ("MISTRAL_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
}
"""The key each provider's client reads; every provider here is one LangChain's ``init_chat_model`` builds (a test
holds that), so a spec naming one of them is known without importing LangChain."""


DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 6
DEFAULT_CASE_BUDGET_S = 900.0  # a live case's total time, retries and waits included
NO_KEY_PLACEHOLDER = "no-key-needed"  # sent to a --base-url server when the provider's key is not set
_SECRET_KWARGS = ("api_key", "openai_api_key", "anthropic_api_key", "google_api_key", "default_headers", "http_client")


@dataclass(frozen=True)
class Endpoint:
    """Where a live model is served and how it is called: base URL and ``init_chat_model`` keyword arguments."""

    base_url: str | None = None
    model_kwargs: Mapping[str, Any] = field(default_factory=dict)
    token_budget: Any = None  # a `harness.agent.live.TokenBudget` shared by the run (--max-tpm), or None

    def describe(self) -> dict[str, Any]:
        """What a run records: endpoint host and settings, never a key or a URL's credentials."""
        out: dict[str, Any] = {}
        if self.base_url:
            url = urlparse(self.base_url)
            out["endpoint"] = f"{url.scheme}://{url.hostname}{f':{url.port}' if url.port else ''}{url.path}"
        settings = {k: v for k, v in self.model_kwargs.items() if k not in _SECRET_KWARGS and k != "rate_limiter"}
        out["settings"] = {"timeout": DEFAULT_TIMEOUT_S, "max_retries": DEFAULT_MAX_RETRIES, **settings}
        limiter = self.model_kwargs.get("rate_limiter")
        if limiter is not None:
            out["settings"]["max_rps"] = getattr(limiter, "requests_per_second", None)
        if self.token_budget is not None:
            out["settings"]["max_tpm"] = self.token_budget.tokens_per_minute
        return out


def with_run_limits(
    endpoints: tuple[Endpoint, Endpoint], *, max_rps: float | None = None, max_tpm: float | None = None
) -> tuple[Endpoint, Endpoint]:
    """The (agent, summary) endpoints sharing one request limiter (LangChain's InMemoryRateLimiter) and one
    `harness.agent.live.TokenBudget`: the limits are the run's, not each model's."""
    for value, option in ((max_rps, "--max-rps"), (max_tpm, "--max-tpm")):
        if value is not None and finite_number(value, option) <= 0:
            raise ConfigError(f"{option} must be positive, got {value}")
    extra: dict[str, Any] = {}
    if max_rps:
        from langchain_core.rate_limiters import InMemoryRateLimiter

        extra["rate_limiter"] = InMemoryRateLimiter(requests_per_second=max_rps, check_every_n_seconds=0.02, max_bucket_size=1)
    budget = None
    if max_tpm:
        from harness.agent.live import TokenBudget

        budget = TokenBudget(max_tpm)
    agent, summary = (
        replace(e, model_kwargs={**e.model_kwargs, **extra}, token_budget=budget or e.token_budget) for e in endpoints
    )
    return (agent, agent) if endpoints[0] is endpoints[1] else (agent, summary)


def parse_model_kwargs(items: list[str] | None, option: str) -> dict[str, Any]:
    """``KEY=VALUE`` pairs (repeatable option) into keyword arguments; VALUE is read as JSON when it parses
    (numbers, true/false, null, lists), else kept as text."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigError(f"{option} {item!r}: write KEY=VALUE, e.g. temperature=0 or max_tokens=2048")
        if key in _SECRET_KWARGS:
            raise ConfigError(
                f"{option} {key}: keys and headers are read from the environment (e.g. OPENAI_API_KEY), "
                "never from the command line, so they cannot end up in a report"
            )
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    for key in ("timeout", "max_retries"):
        if key in out and (
            not isinstance(out[key], (int, float)) or finite_problem(out[key]) is not None or out[key] < 0
        ):  # JSON reads NaN and Infinity
            raise ConfigError(f"{option} {key}={out[key]!r}: must be a finite non-negative number")
    return out


def case_budget(value: float | None) -> float:
    """The case budget a run uses: ``value`` (``--case-budget``, a spec's ``case_budget``), or the default when unset.
    Raises ConfigError for one that is not a positive finite number (here, light, so a door refuses it before the
    agent stack is imported)."""
    if value is None:
        return DEFAULT_CASE_BUDGET_S
    if not finite_number(value, "--case-budget") > 0:
        raise ConfigError(f"--case-budget must be positive, got {value:g}")
    return float(value)


PREFLIGHT_TIMEOUT_S = 5.0


def check_endpoints_answer(*endpoints: Endpoint | None, timeout: float = PREFLIGHT_TIMEOUT_S) -> None:
    """Before a live run: one bounded request (``GET {base_url}/models``, no key sent) to each distinct base URL.
    Any HTTP answer, even 401 or 404, means a server listens; a refused connection, an unknown host or no answer
    within ``timeout`` raises `EndpointUnreachable`, so a run against a stopped server stops at once instead of
    spending every case's retries (about 21 s each) to report ERROR on all of them."""
    import urllib.error
    import urllib.request

    for url in dict.fromkeys(e.base_url for e in endpoints if e is not None and e.base_url):
        shown = Endpoint(url).describe()["endpoint"]  # no credentials a URL may carry
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/models", timeout=timeout):
                pass
        except urllib.error.HTTPError:
            continue  # an HTTP status: something answers
        except (OSError, ValueError) as exc:  # URLError (refused, unknown host), TimeoutError, a bad URL
            from harness.redact import redact

            reason = getattr(exc, "reason", None) or exc  # URLError wraps the socket's error
            raise EndpointUnreachable(
                f"nothing answers at {shown} ({type(reason).__name__}: {redact(str(reason))[:200]}; waited at most "
                f"{timeout:g} s); "
                "start the server or correct the base URL. No case was run"
            ) from None


def check_base_url(url: str | None, option: str) -> None:
    if url is None:
        return
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 - read for its check: a port that is no number or above 65535 raises here
    except ValueError as exc:  # http://[::1 (an unclosed IPv6 bracket), http://host:99999
        raise ConfigError(f"{option} {url!r}: not a URL ({exc}); give an http(s) URL, e.g. http://127.0.0.1:8000/v1") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{option} {url!r}: give an http(s) URL, e.g. http://127.0.0.1:8000/v1")


def known_providers() -> tuple[str, ...]:
    """The providers LangChain's ``init_chat_model`` can build (imports LangChain: about 1 s of CPU)."""
    from langchain.chat_models.base import _BUILTIN_PROVIDERS

    return tuple(sorted(_BUILTIN_PROVIDERS))


def check_live_spec(spec: str, option: str = "model", *, base_url: str | None = None) -> None:
    """Raise ConfigError for a malformed spec or unknown provider (naming ``option``, e.g. --summary-model), and
    LiveModelUnavailable when the provider's key is not set and no base URL is given; builds nothing. LangChain is
    asked for its providers only when the spec names one outside `PROVIDER_KEYS`."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"{option} {spec!r}: write provider:name, e.g. openai:gpt-5.2, or 'reference'")
    if provider not in PROVIDER_KEYS and provider not in known_providers():
        raise ConfigError(
            f"{option} {spec!r}: unknown provider {provider!r}; known: {', '.join(known_providers())}, or 'reference'"
        )
    keys = PROVIDER_KEYS.get(provider)
    if base_url is None and keys and not any(os.environ.get(k) for k in keys):
        raise LiveModelUnavailable(f"{spec}: {' or '.join(keys)} is not set, so the live run is skipped")


def _live_form(spec: str | None) -> bool:
    """``spec`` is written ``provider:name`` with a provider called over a network (not an in-process one:
    `IN_PROCESS_PROVIDERS`, ``reference:agent``)."""
    return spec is not None and ":" in spec and spec.partition(":")[0] not in IN_PROCESS_PROVIDERS


def arm_summary_model(own: str | None, run_wide: str | None) -> str | None:
    """The one rule for an arm's summarizer: its config's own (a variant file's ``summary_model``) wins over the run's
    (a spec's ``summary_model``, `RunSettings.summary_model`, a door's ``--summary-model`` once `summary_model_for`
    has refused a conflict)."""
    return own or run_wide


def summary_model_for(config_summary_model: str | None, explicit: str | None, *, variant: str = "") -> str | None:
    """The summarizer of a single-config door: `arm_summary_model`, where an explicit choice that differs from the
    variant's own is an error rather than overridden."""
    if explicit is not None and config_summary_model is not None and explicit != config_summary_model:
        raise ConfigError(
            f"variant {variant!r} sets summary_model {config_summary_model!r}; --summary-model {explicit!r} conflicts with it"
        )
    return arm_summary_model(config_summary_model, explicit)


def live_endpoints(
    agent_spec: str | None,
    summary_spec: str | None,
    agent_endpoint: Endpoint,
    summary_endpoint: Endpoint,
    options: tuple[str, str] = ("--model", "--summary-model"),
) -> list[Endpoint]:
    """Each live spec's form, provider and key checked (`check_live_spec`), and the endpoints of the live models, the
    ones whose servers a run asks (`check_endpoints_answer`). A live spec is ``provider:name``; any other (the
    reference models, or a malformed spec) is left to ``choose_models``, which builds it or says what is wrong. With no
    summary spec a live agent summarizes its own history, through the summary endpoint as the run records it."""
    agent_live = _live_form(agent_spec)
    summary_live = _live_form(summary_spec) if summary_spec is not None else agent_live
    if agent_live:
        assert agent_spec is not None
        check_live_spec(agent_spec, options[0], base_url=agent_endpoint.base_url)
    if summary_live and summary_spec is not None:
        check_live_spec(summary_spec, options[1], base_url=summary_endpoint.base_url)
    return [e for e, live in ((agent_endpoint, agent_live), (summary_endpoint, summary_live)) if live]


def preflight(
    agent_spec: str | None,
    summary_spec: str | None,
    agent_endpoint: Endpoint,
    summary_endpoint: Endpoint,
    options: tuple[str, str] = ("--model", "--summary-model"),
) -> None:
    """The checks `harness.agent.models.choose_models` and the run make of live models, made before either is imported:
    each live spec's form, provider and key, then whether anything answers at each live model's base URL
    (`live_endpoints`, `check_endpoints_answer`)."""
    check_endpoints_answer(*live_endpoints(agent_spec, summary_spec, agent_endpoint, summary_endpoint, options))
