"""The reference agent behind a provider's own API, in this process: a `harness serve` on loopback and the provider's
LangChain model pointed at it.

A provider-native strategy (Anthropic's or OpenAI's server-side context management) is about the provider's API, so
offline it runs the reference agent behind that API: `served_model` builds ``ChatAnthropic`` or ``ChatOpenAI`` for
the reference agent's name at `local_server`'s URL (one server per process and seed, started on first use, its
thread a daemon; a forked child starts its own). The reference agent offers this as its ``served_as`` capability,
so the agent layer asks the model and starts no server itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from harness.agent.models import NO_KEY_PLACEHOLDER
from harness.reference.names import AGENT_NAME

LOCAL_RETRIES = 2  # the loopback server's clients: few retries (nothing there is transient but a fault)
LOCAL_TIMEOUT_S = 120.0
_servers: dict[tuple[int, int], Any] = {}  # (pid, seed) -> the running ReferenceServer (a forked child starts its own)
_lock = threading.Lock()


def local_server(seed: int = 0) -> Any:
    """This process's `harness serve` for ``seed`` on a free loopback port, started on first use and kept while the
    process runs (its thread is a daemon)."""
    from harness.reference.serve.http import ReferenceServer

    key = (os.getpid(), seed)
    with _lock:
        server = _servers.get(key)
        if server is None or server.state.stopping.is_set():
            server = ReferenceServer(port=0, seed=seed, max_seconds=None).start()
            _servers[key] = server
        return server


def served_model(provider: str, window: int, *, seed: int = 0, url: str | None = None, **settings: Any) -> Any:
    """``provider``'s LangChain chat model (``anthropic``: ChatAnthropic, else ChatOpenAI) for the reference agent
    served at ``url`` (an OpenAI base URL, ``.../v1``; None: `local_server`'s for ``seed``), declared ``window``;
    ``settings`` are the model's own (reasoning, a timeout), over few retries and no key."""
    url = url or local_server(seed).url
    common: dict[str, Any] = {"max_retries": LOCAL_RETRIES, "timeout": LOCAL_TIMEOUT_S, "api_key": NO_KEY_PLACEHOLDER}
    if provider == "anthropic":
        from langchain_anthropic import ChatAnthropic

        model: Any = ChatAnthropic(model=AGENT_NAME, base_url=url.removesuffix("/v1"), **{**common, **settings})  # type: ignore[call-arg]
    else:
        from langchain_openai import ChatOpenAI

        model = ChatOpenAI(model=AGENT_NAME, base_url=url, **{**common, **settings})
    model.profile = {**(model.profile or {}), "max_input_tokens": window}
    return model
