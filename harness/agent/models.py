"""Choosing the agent and summarizer models: offline reference by default, live on request.

A model spec names a provider and a model, ``provider:name``. In-process providers (`IN_PROCESS_PROVIDERS`: the
offline ``reference`` models, ``reference:agent``, ``reference:summarizer``, ``reference:judge``) are modules this
table names, imported on first use the way ``init_chat_model`` imports a provider's package, so this layer never
imports them; no spec, and a bare name the default provider knows (``reference``, ``reference-agent``), mean its
model of the role asked for. What a model can do is read from the model, never from its type: whether it is
simulated (`is_simulated`), whether it can follow a task (`task_problem`), whether it can be served as a
provider's API (`ServedAs`).

A live model is ``provider:name`` (``openai:gpt-5.2``, ``anthropic:claude-sonnet-4-6``)
and is built with LangChain's ``init_chat_model``, keys read from the environment. When
the provider's key is missing, `LiveModelUnavailable` carries the reason, and callers
skip. Nothing here touches the network.

An `Endpoint` carries what a user sets per model: a base URL (any OpenAI-compatible
server: vLLM, Ollama, LM Studio, `harness serve`) and ``init_chat_model`` keyword
arguments. Every live model gets a request timeout (120 s) and the provider client's own
retries (6 attempts after the first; the OpenAI and Anthropic SDKs back off exponentially
with jitter and honour Retry-After) unless the user sets ``timeout`` / ``max_retries``.
A base URL without a key works for servers without auth: the client gets a placeholder
key. What is recorded (`Endpoint.describe`) is the host and the settings, never a key.

The declared window is written into the model's profile (``max_input_tokens``), the
way deepagents' own evals do, so fraction triggers resolve against it.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlparse

from langchain_core.language_models import BaseChatModel

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


DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_RETRIES = 6
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
    from dataclasses import replace

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


def is_simulated(model: object) -> bool:
    """Whether ``model`` is simulated (its ``simulated`` capability: the reference models and their seeded faults
    say so), the one place the capability is read; a provider's model is not."""
    return getattr(model, "simulated", False) is True


@runtime_checkable
class FollowsGrammar(Protocol):
    """A model that follows only tasks in a grammar (the in-process reference agent's steps), and says why not."""

    def cannot_follow(self, task: str) -> str | None: ...


@runtime_checkable
class ServedAs(Protocol):
    """A model that can stand behind a provider's own API (the reference agent behind a loopback `harness serve`),
    for the provider-native strategies run offline (`harness.agent.native_models`)."""

    def served_as(self, provider: str, *, window: int, seed: int = 0) -> BaseChatModel: ...


def task_problem(model: object, task: str) -> str | None:
    """Why ``model`` cannot follow ``task`` (`FollowsGrammar`), or None: a provider's model follows any task."""
    return model.cannot_follow(task) if isinstance(model, FollowsGrammar) else None


def _provider_of(spec: str | None, role: str) -> tuple[str, str]:
    """(provider, name) of ``spec``: no spec, and a bare name the default provider knows, are the default provider's;
    any other bare name has no provider (``""``), and the live check says how to write one."""
    if not spec:
        return REFERENCE, ""
    provider, sep, name = spec.partition(":")
    if sep:
        return provider, name
    return (REFERENCE, spec) if _in_process_module(REFERENCE).knows(spec, role) else ("", spec)


def _in_process_module(provider: str) -> Any:
    return importlib.import_module(IN_PROCESS_PROVIDERS[provider])


def in_process(spec: str | None, role: str = "agent") -> bool:
    """Whether ``spec`` names a model built in this process (an in-process provider's), not one called over a network."""
    return _provider_of(spec, role)[0] in IN_PROCESS_PROVIDERS


def in_process_model(
    spec: str | None, role: str, *, window: int, seed: int = 0, option: str = "--model", **options: Any
) -> BaseChatModel:
    """The in-process model ``spec`` names for ``role`` (``agent``, ``summarizer``, ``judge``), declared ``window``;
    ``options`` are the model's own fields. ConfigError (naming ``option``) when the provider has no such model."""
    provider, name = _provider_of(spec, role)
    return _in_process_module(provider).chat_model(name, role, window=window, seed=seed, option=option, **options)


@dataclass(frozen=True)
class ModelChoice:
    """The agent and summarizer models of a run, their recorded names, whether any is simulated, and what each live
    model is called with."""

    agent: BaseChatModel
    summarizer: BaseChatModel | None  # None: deepagents summarizes with the agent model
    agent_name: str
    summarizer_name: str
    simulated: bool
    endpoints: Mapping[str, Any] = field(default_factory=dict)  # what each live model is called with, as recorded
    token_budget: Any = None  # the agent's `TokenBudget` (--max-tpm): the runner adds its middleware


def known_providers() -> tuple[str, ...]:
    """The providers LangChain's ``init_chat_model`` can build."""
    from langchain.chat_models.base import _BUILTIN_PROVIDERS

    return tuple(sorted(_BUILTIN_PROVIDERS))


def check_live_spec(spec: str, option: str = "model", *, base_url: str | None = None) -> None:
    """Raise ConfigError for a malformed spec or unknown provider (naming ``option``, e.g. --summary-model), and
    LiveModelUnavailable when the provider's key is not set and no base URL is given; builds nothing."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"{option} {spec!r}: write provider:name, e.g. openai:gpt-5.2, or 'reference'")
    if provider not in known_providers():
        raise ConfigError(
            f"{option} {spec!r}: unknown provider {provider!r}; known: {', '.join(known_providers())}, or 'reference'"
        )
    keys = PROVIDER_KEYS.get(provider)
    if base_url is None and keys and not any(os.environ.get(k) for k in keys):
        raise LiveModelUnavailable(f"{spec}: {' or '.join(keys)} is not set, so the live run is skipped")


def _live(spec: str, window: int, option: str, endpoint: Endpoint) -> BaseChatModel:
    check_base_url(endpoint.base_url, option.replace("model", "base-url") if option.startswith("--") else option)
    check_live_spec(spec, option, base_url=endpoint.base_url)
    from langchain.chat_models import init_chat_model

    provider = spec.partition(":")[0]
    kwargs: dict[str, Any] = {"timeout": DEFAULT_TIMEOUT_S, "max_retries": DEFAULT_MAX_RETRIES, **endpoint.model_kwargs}
    if endpoint.base_url:
        kwargs["base_url"] = endpoint.base_url
        if not any(os.environ.get(k) for k in PROVIDER_KEYS.get(provider, ())):
            kwargs["api_key"] = NO_KEY_PLACEHOLDER
    try:
        model = init_chat_model(spec, **kwargs)
    except ImportError as exc:
        raise LiveModelUnavailable(f"{spec}: provider package missing ({exc})") from None
    except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError: a bad model kwarg
        raise ConfigError(f"{option} {spec!r}: {str(exc).splitlines()[0]}") from None
    model.profile = {**(model.profile or {}), "max_input_tokens": window}
    return model


def _endpoint_without_live_model(spec: str | None, endpoint: Endpoint, option: str) -> str:
    """Why endpoint settings given with the in-process reference agent are refused, in the words of where they
    came from: command-line options (``option`` is ``--model``) or a spec's keys (``option`` is ``PATH: model``)."""
    cli = option.startswith("--")
    where, model_key = ("", option) if cli else (option.rpartition(": ")[0] + ": ", option.rpartition(": ")[2])
    given = [
        name
        for name, is_set in (
            ("--base-url" if cli else "base_url", endpoint.base_url),
            ("--model-kwargs" if cli else "model_kwargs", {k for k in endpoint.model_kwargs if k != "rate_limiter"}),
            ("--max-rps" if cli else "max_rps", "rate_limiter" in endpoint.model_kwargs),
            ("--max-tpm" if cli else "max_tpm", endpoint.token_budget),
        )
        if is_set
    ]
    model = f"{model_key} {spec!r}" if spec else f"no {model_key}"
    example = (
        "--model openai:reference-agent --base-url http://127.0.0.1:8765/v1"
        if cli
        else "model: openai:reference-agent with base_url: http://127.0.0.1:8765/v1"
    )
    return (
        f"{where}{' and '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to a live model (provider:name), but with "
        f"{model} the agent is the in-process reference model, which takes none. To run the reference models over "
        f"HTTP: harness serve, then {example}"
    )


def summary_model_for(config_summary_model: str | None, explicit: str | None, *, variant: str = "") -> str | None:
    """The summarizer to use: an explicit choice, else the variant's; both set and different is an error."""
    if explicit is not None and config_summary_model is not None and explicit != config_summary_model:
        raise ConfigError(
            f"variant {variant!r} sets summary_model {config_summary_model!r}; --summary-model {explicit!r} conflicts with it"
        )
    return explicit if explicit is not None else config_summary_model


def choose_models(
    agent_spec: str | None,
    summary_spec: str | None,
    *,
    window: int,
    seed: int = 0,
    options: tuple[str, str] = ("--model", "--summary-model"),
    agent_endpoint: Endpoint | None = None,
    summary_endpoint: Endpoint | None = None,
) -> ModelChoice:
    """Build the agent and summarizer models for one run.

    With a reference agent and no summary model, the reference summarizer is used.
    With a live agent and no summary model, deepagents' default applies: the agent
    model writes its own summaries (called through `SummaryOverflowTranslation`, like a
    separate live summarizer). The summary endpoint defaults to the agent's.
    ``options`` name where each spec came from, for errors.
    """
    from harness.agent.live import SummaryOverflowTranslation

    agent_endpoint = agent_endpoint or Endpoint()
    summary_endpoint = summary_endpoint or agent_endpoint
    agent_in_process = in_process(agent_spec)
    if agent_in_process and (agent_endpoint.base_url or agent_endpoint.model_kwargs or agent_endpoint.token_budget):
        raise ConfigError(_endpoint_without_live_model(agent_spec, agent_endpoint, options[0]))
    endpoints: dict[str, Any] = {}
    if agent_in_process:
        agent = in_process_model(agent_spec, "agent", window=window, seed=seed, option=options[0])
        agent_name = recorded_name(agent)
    else:
        assert agent_spec is not None  # no spec is in process
        agent, agent_name = _live(agent_spec, window, options[0], agent_endpoint), agent_spec
        endpoints["agent"] = agent_endpoint.describe()
    if in_process(summary_spec, "summarizer") and (summary_spec is not None or agent_in_process):
        summarizer: BaseChatModel | None = in_process_model(
            summary_spec, "summarizer", window=window, seed=seed, option=options[1]
        )
        summary_name = recorded_name(summarizer)
    elif summary_spec is None:
        summarizer, summary_name = SummaryOverflowTranslation.around(agent, summary_endpoint.token_budget), agent_name
        endpoints["summarizer"] = endpoints["agent"]
    else:
        live = _live(summary_spec, window, options[1], summary_endpoint)
        summarizer, summary_name = SummaryOverflowTranslation.around(live, summary_endpoint.token_budget), summary_spec
        endpoints["summarizer"] = summary_endpoint.describe()
    simulated = is_simulated(agent) or is_simulated(summarizer)
    budget = agent_endpoint.token_budget if endpoints.get("agent") else None
    return ModelChoice(agent, summarizer, agent_name, summary_name, simulated, endpoints, budget)


def recorded_name(model: object) -> str:
    """The name an in-process model is recorded under: its own ``model_name``."""
    return str(getattr(model, "model_name", type(model).__name__))
