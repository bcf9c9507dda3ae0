"""The prompt-cache scope of a live case: the header every request of one case run carries to a served endpoint.

A provider's prompt cache serves any request with a cached prefix, so on one `harness serve` two runs of the same case
(or two cases whose requests begin alike) read each other's entries, and their cache and dollar figures depend on the
order and concurrency they ran in. The runner therefore names each case run (`CACHE_SCOPE`, its thread id: unique per
run) for the duration of the case, and a live model built for a ``--base-url`` endpoint sends it in the
``X-Harness-Cache-Scope`` header of every request, the agent's and the summarizer's alike (`attach`: an httpx request
hook on the model's provider clients, which reads the scope of the case running in its context). `harness serve` keys
its simulated cache by it (`harness.reference.prompt_cache.PromptCache.scoped`); a request without the header (any
other client, or a call made outside a case) is served from the shared, unscoped entries as before. A real provider
ignores a header it does not know.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

CACHE_SCOPE_HEADER = "X-Harness-Cache-Scope"
MAX_SCOPE_CHARS = 200  # a longer header value is refused by the server (a 400 naming the header)
CACHE_SCOPE: ContextVar[str | None] = ContextVar("harness_cache_scope", default=None)
"""The scope of the case running in this context (set by the runner for the case's own task or call), or None."""
SDK_CLIENTS = ("root_client", "root_async_client", "_client", "_async_client")
"""Where LangChain's chat models keep their provider SDK clients: ChatOpenAI's ``root_client`` and ``root_async_client``,
ChatAnthropic's ``_client`` and ``_async_client`` (cached properties, built on first read). Each SDK client keeps its
httpx client in ``_client``."""


@contextmanager
def cache_scope(scope: str) -> Iterator[None]:
    """Requests made inside the block (in this context and the contexts copied from it) carry ``scope``."""
    token = CACHE_SCOPE.set(scope)
    try:
        yield
    finally:
        CACHE_SCOPE.reset(token)


def add_scope_header(request: Any) -> None:
    """httpx request hook: the running case's scope in the request's headers (nothing outside a case)."""
    scope = CACHE_SCOPE.get()
    if scope is not None:
        request.headers[CACHE_SCOPE_HEADER] = scope


async def aadd_scope_header(request: Any) -> None:
    """`add_scope_header` for an async httpx client."""
    add_scope_header(request)


def attach(model: Any) -> int:
    """Add the scope hook to the httpx clients of ``model``'s provider SDK clients (once each: a client LangChain shares
    between models gets it once); the number of httpx clients that carry it. 0 for a model with none of them (a
    provider other than OpenAI's and Anthropic's: its requests carry no scope, and a served cache is shared as before)."""
    hooked = 0
    for name in SDK_CLIENTS:
        try:
            sdk = getattr(model, name, None)
        except Exception:  # noqa: BLE001 - a client that cannot be built here is built (and fails) at the first call
            sdk = None
        http = getattr(sdk, "_client", None)
        # httpx's client or its successor's (anthropic 2.x runs on httpx2): read by what it offers, not by its class
        if http is None or not isinstance(getattr(http, "event_hooks", None), dict) or not hasattr(http, "send"):
            continue
        hook: Any = aadd_scope_header if inspect.iscoroutinefunction(http.send) else add_scope_header
        hooks = http.event_hooks
        if hook not in hooks["request"]:
            http.event_hooks = {**hooks, "request": [*hooks["request"], hook]}
        hooked += 1
    return hooked
