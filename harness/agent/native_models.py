"""The agent model a provider-native strategy runs with: the provider's LangChain model with the strategy's settings.

Which model that is (`native_model`), for a strategy whose `StrategyStack` names a provider:

- a live model of that provider (``--model anthropic:NAME``, with or without ``--base-url``): a copy of it with the
  settings, so a live run keeps the user's key, endpoint and client settings;
- the in-process reference agent (an offline run): the provider's LangChain model pointed at a `harness serve` this
  process starts on loopback (`local_server`, one per process and seed), which answers as the provider does with the
  same reference models behind it (these strategies are about the provider, so offline they need its endpoint);
- a live model of another provider: a ConfigError (exit 2) naming the model to use;
- any other chat model (the overhead probe, a test's own double): None, the model stays as it is.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from harness.errors import ConfigError

PROVIDER_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI"}
PROVIDER_TYPES = {"anthropic": "anthropic-chat", "openai": "openai-chat"}  # provider -> its chat model's _llm_type
LOCAL_RETRIES = 2  # the loopback server's clients: few retries (nothing there is transient but a fault)
LOCAL_TIMEOUT_S = 120.0
_servers: dict[tuple[int, int], Any] = {}  # (pid, seed) -> the running ReferenceServer (a forked child starts its own)
_lock = threading.Lock()


def local_server(seed: int = 0) -> Any:
    """This process's `harness serve` for ``seed`` on a free loopback port, started on first use and kept while the
    process runs (its thread is a daemon)."""
    from harness.reference.serve import ReferenceServer

    key = (os.getpid(), seed)
    with _lock:
        server = _servers.get(key)
        if server is None or server.state.stopping.is_set():
            server = ReferenceServer(port=0, seed=seed, max_seconds=None).start()
            _servers[key] = server
        return server


def served_model(provider: str, window: int, seed: int = 0) -> Any:
    """The provider's LangChain chat model for the reference agent behind `local_server`, declared ``window``."""
    from harness.agent.models import NO_KEY_PLACEHOLDER
    from harness.reference import AGENT_NAME

    url = local_server(seed).url
    settings: dict[str, Any] = {"max_retries": LOCAL_RETRIES, "timeout": LOCAL_TIMEOUT_S, "api_key": NO_KEY_PLACEHOLDER}
    if provider == "anthropic":
        from langchain_anthropic import ChatAnthropic

        model: Any = ChatAnthropic(model=AGENT_NAME, base_url=url.removesuffix("/v1"), **settings)  # type: ignore[call-arg]
    else:
        from langchain_openai import ChatOpenAI

        model = ChatOpenAI(model=AGENT_NAME, base_url=url, **settings)
    model.profile = {**(model.profile or {}), "max_input_tokens": window}
    return model


def native_model(
    strategy: str, provider: str, model: Any, settings: dict[str, Any], *, window: int, summarizer: Any = None
) -> Any:
    """``model`` as ``strategy`` runs it: the provider's chat model with ``settings`` (see the module docstring), or
    None when ``model`` is neither a provider model nor the reference agent (left as it is)."""
    from harness.reference import ReferenceAgentModel

    if isinstance(model, ReferenceAgentModel):
        base = served_model(provider, window, seed=int(getattr(summarizer, "seed", 0) or 0))
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
