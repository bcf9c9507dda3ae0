"""The agent model a provider-native strategy runs with: the provider's LangChain model with the strategy's settings.

Which model that is (`native_model`), for a strategy whose `StrategyStack` names a provider:

- a live model of that provider (``--model anthropic:NAME``, with or without ``--base-url``): a copy of it with the
  settings, so a live run keeps the user's key, endpoint and client settings;
- a model that can be served as the provider (its ``served_as`` capability, `harness.agent.models.ServedAs`: the
  in-process reference agent, in an offline run): the provider's LangChain model it returns (the reference agent
  behind a `harness serve` on loopback, `harness.reference.local`; these strategies are about the provider, so
  offline they need its endpoint);
- a live model of another provider: a ConfigError (exit 2) naming the model to use;
- any other chat model (the overhead probe, a test's own double): None, the model stays as it is.
"""

from __future__ import annotations

from typing import Any

from harness.agent.models import ServedAs
from harness.errors import ConfigError

PROVIDER_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI"}
PROVIDER_TYPES = {"anthropic": "anthropic-chat", "openai": "openai-chat"}  # provider -> its chat model's _llm_type


def native_model(
    strategy: str, provider: str, model: Any, settings: dict[str, Any], *, window: int, summarizer: Any = None
) -> Any:
    """``model`` as ``strategy`` runs it: the provider's chat model with ``settings`` (see the module docstring), or
    None when ``model`` is neither a provider model nor one that can be served as the provider (left as it is)."""
    if isinstance(model, ServedAs):
        base = model.served_as(provider, window=window, seed=int(getattr(summarizer, "seed", 0) or 0))
    elif getattr(model, "_llm_type", None) == PROVIDER_TYPES[provider]:
        base = model
    elif type(model).__module__.split(".")[0] not in ("langchain_core", "langchain") and "langchain_" in type(model).__module__:
        raise ConfigError(
            f"strategy {strategy} is {PROVIDER_NAMES[provider]}'s server-side context management: run it with "
            f"--model {provider}:NAME (with --base-url for harness serve) or with the reference agent (offline), "
            f"not a {type(model).__name__}"
        )
    else:
        return None
    return base.model_copy(update={**settings, "profile": {**(base.profile or {}), "max_input_tokens": window}})
