"""Choosing the agent and summarizer models: offline reference by default, live on request.

A live model is ``provider:name`` (``openai:gpt-5.2``, ``anthropic:claude-sonnet-4-6``)
and is built with LangChain's ``init_chat_model``, keys read from the environment. When
the provider's key is missing, `LiveModelUnavailable` carries the reason, and callers
skip. Nothing here touches the network.

The declared window is written into the model's profile (``max_input_tokens``), the
way deepagents' own evals do, so fraction triggers resolve against it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from harness.errors import ConfigError, LiveModelUnavailable
from harness.reference import AGENT_NAME, SUMMARIZER_NAME, ReferenceAgentModel, ReferenceSummarizerModel

REFERENCE = "reference"

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


@dataclass(frozen=True)
class ModelChoice:
    agent: BaseChatModel
    summarizer: BaseChatModel | None  # None: deepagents summarizes with the agent model
    agent_name: str
    summarizer_name: str
    simulated: bool


def is_reference(spec: str | None) -> bool:
    return spec in (None, "", REFERENCE, AGENT_NAME, SUMMARIZER_NAME)


def known_providers() -> tuple[str, ...]:
    """The providers LangChain's ``init_chat_model`` can build."""
    from langchain.chat_models.base import _BUILTIN_PROVIDERS

    return tuple(sorted(_BUILTIN_PROVIDERS))


def check_live_spec(spec: str, option: str = "model") -> None:
    """Raise ConfigError for a malformed spec or unknown provider (naming ``option``, e.g. --summary-model), and
    LiveModelUnavailable when the provider's key is not set; builds nothing."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"{option} {spec!r}: write provider:name, e.g. openai:gpt-5.2, or 'reference'")
    if provider not in known_providers():
        raise ConfigError(f"{option} {spec!r}: unknown provider {provider!r}; known: {', '.join(known_providers())}, or 'reference'")
    keys = PROVIDER_KEYS.get(provider)
    if keys and not any(os.environ.get(k) for k in keys):
        raise LiveModelUnavailable(f"{spec}: {' or '.join(keys)} is not set, so the live run is skipped")


def _live(spec: str, window: int, option: str) -> BaseChatModel:
    check_live_spec(spec, option)
    from langchain.chat_models import init_chat_model

    try:
        model = init_chat_model(spec)
    except ImportError as exc:
        raise LiveModelUnavailable(f"{spec}: provider package missing ({exc})") from None
    except ValueError as exc:
        raise ConfigError(f"{option} {spec!r}: {str(exc).splitlines()[0]}") from None
    model.profile = {**(model.profile or {}), "max_input_tokens": window}
    return model


def summary_model_for(config_summary_model: str | None, explicit: str | None, *, variant: str = "") -> str | None:
    """The summarizer to use: an explicit choice, else the variant's; both set and different is an error."""
    if explicit is not None and config_summary_model is not None and explicit != config_summary_model:
        raise ConfigError(f"variant {variant!r} sets summary_model {config_summary_model!r}; --summary-model {explicit!r} conflicts with it")
    return explicit if explicit is not None else config_summary_model


def choose_models(agent_spec: str | None, summary_spec: str | None, *, window: int, seed: int = 0,
                  options: tuple[str, str] = ("--model", "--summary-model")) -> ModelChoice:
    """Build the agent and summarizer models for one run.

    With a reference agent and no summary model, the reference summarizer is used.
    With a live agent and no summary model, deepagents' default applies: the agent
    model writes its own summaries. ``options`` name where each spec came from, for errors.
    """
    if is_reference(agent_spec):
        agent: BaseChatModel = ReferenceAgentModel(profile={"max_input_tokens": window})
        agent_name = AGENT_NAME
    else:
        agent, agent_name = _live(agent_spec, window, options[0]), agent_spec
    if is_reference(summary_spec) and (summary_spec is not None or is_reference(agent_spec)):
        summarizer: BaseChatModel | None = ReferenceSummarizerModel(seed=seed)
        summary_name = SUMMARIZER_NAME
    elif summary_spec is None:
        summarizer, summary_name = None, agent_name
    else:
        summarizer, summary_name = _live(summary_spec, window, options[1]), summary_spec
    simulated = agent_name == AGENT_NAME or summary_name == SUMMARIZER_NAME
    return ModelChoice(agent, summarizer, agent_name, summary_name, simulated)
