"""Choosing the agent and summarizer models: offline reference by default, live on request.

A model spec names a provider and a model, ``provider:name``. In-process providers (`IN_PROCESS_PROVIDERS`: the
offline ``reference`` models, ``reference:agent``, ``reference:summarizer``, ``reference:judge``) are modules this
table names, imported on first use the way ``init_chat_model`` imports a provider's package, so this layer never
imports them; no spec, and a bare name the default provider knows (``reference``, ``reference-agent``), mean its
model of the role asked for. What a model can do is read from the model, never from its type: whether it is
simulated (`is_simulated`), whether it can follow a task (`task_problem`) and answer a session's probes
(`probes_problem`), whether it can be served as a provider's API (`ServedAs`).

A live model is ``provider:name`` (``openai:gpt-5.2``, ``anthropic:claude-sonnet-4-6``)
and is built with LangChain's ``init_chat_model``, keys read from the environment. When
the provider's key is missing, `LiveModelUnavailable` carries the reason, and callers
skip. Nothing here touches the network.

Each live model is called as its `harness.agent.endpoints.Endpoint` says (base URL, keyword arguments, the
default timeout and retries). A base URL without a key works for servers without auth: the client gets a
placeholder key.

The declared window is written into the model's profile (``max_input_tokens``), the
way deepagents' own evals do, so fraction triggers resolve against it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_core.language_models import BaseChatModel

# The endpoint settings and the pre-flights live in `harness.agent.endpoints`, a module without the agent stack (a
# stopped server is reported before langchain is imported); the names its callers import from here are re-exported.
from harness.agent.endpoints import DEFAULT_MAX_RETRIES as DEFAULT_MAX_RETRIES
from harness.agent.endpoints import DEFAULT_TIMEOUT_S
from harness.agent.endpoints import IN_PROCESS_PROVIDERS as IN_PROCESS_PROVIDERS
from harness.agent.endpoints import NO_KEY_PLACEHOLDER as NO_KEY_PLACEHOLDER
from harness.agent.endpoints import PROVIDER_KEYS as PROVIDER_KEYS
from harness.agent.endpoints import REFERENCE as REFERENCE
from harness.agent.endpoints import Endpoint as Endpoint
from harness.agent.endpoints import check_base_url as check_base_url
from harness.agent.endpoints import check_endpoints_answer as check_endpoints_answer
from harness.agent.endpoints import check_live_spec as check_live_spec
from harness.agent.endpoints import parse_model_kwargs as parse_model_kwargs
from harness.agent.endpoints import summary_model_for as summary_model_for
from harness.agent.endpoints import with_run_limits as with_run_limits

# What a model can do is read from the model; whether it is simulated is read where errors are classified too.
from harness.agent.live import is_simulated as is_simulated
from harness.errors import ConfigError, LiveModelUnavailable
from harness.session_format import free_text_probes_reason


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


class Probe(Protocol):
    """A session case's probe as this layer reads it (`harness.scenarios.model.SessionProbe`, which the reference
    models must not reach through this module): its id and its question."""

    @property
    def id(self) -> str: ...

    @property
    def question(self) -> str: ...


def probes_problem(model: object, probes: Sequence[Probe]) -> str | None:
    """Why ``model`` cannot answer a session case's ``probes`` (each one a turn it is asked: the rule for a turn,
    `task_problem`, read on each question), naming those outside its grammar and what to do
    (`harness.session_format.free_text_probes_reason`); None when it can answer every one (a provider's model
    answers any). A probe in prose (a user's probes file, a judge's proposals) needs a live model."""
    outside = [(p.id, p.question) for p in probes if task_problem(model, p.question)]
    return free_text_probes_reason(outside, len(probes)) if outside else None


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
    if endpoint.base_url:  # a served endpoint keys its prompt cache by the running case (`harness.agent.cache_scope`)
        from harness.agent.cache_scope import attach

        attach(model)
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
