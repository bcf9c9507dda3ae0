"""The per-case prompt-cache scope the harness's live client sends (`harness.agent.cache_scope`): the hook on each
provider client of ChatOpenAI and ChatAnthropic adds the running case's scope to a request, and nothing outside a
case (no server: the hook is called on requests built by hand)."""

from __future__ import annotations

import asyncio

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI

from harness.agent.cache_scope import CACHE_SCOPE, CACHE_SCOPE_HEADER, attach, cache_scope


def _models():
    return (
        ChatAnthropic(model="reference-agent", base_url="http://127.0.0.1:9", api_key="sk-test"),
        ChatOpenAI(model="reference-agent", base_url="http://127.0.0.1:9/v1", api_key="sk-test"),
    )


@pytest.mark.parametrize("model", _models(), ids=["anthropic", "openai"])
def test_each_provider_client_carries_the_running_cases_scope_and_none_outside_a_case(model):
    assert attach(model) == 2 and attach(model) == 2  # the sync and the async client; a second attach adds nothing
    sdk = getattr(model, "_client", None) or model.root_client
    http = sdk._client
    assert len(http.event_hooks["request"]) == 1
    request = http.build_request("POST", "/messages")
    for hook in http.event_hooks["request"]:
        hook(request)
    assert CACHE_SCOPE_HEADER not in request.headers  # outside a case: no scope
    with cache_scope("run-1"):
        for hook in http.event_hooks["request"]:
            hook(request)
    assert request.headers[CACHE_SCOPE_HEADER] == "run-1"
    assert CACHE_SCOPE.get() is None  # the block's scope is gone after it


def test_concurrent_cases_each_send_their_own_scope():
    anthropic, _ = _models()
    attach(anthropic)
    http = anthropic._async_client._client
    (hook,) = http.event_hooks["request"]

    async def one_case(scope: str) -> str:
        CACHE_SCOPE.set(scope)  # as arun_case does, in the case's own task
        await asyncio.sleep(0)
        request = http.build_request("POST", "/messages")
        await hook(request)
        return request.headers[CACHE_SCOPE_HEADER]

    async def both() -> list[str]:
        return list(await asyncio.gather(one_case("a"), one_case("b")))

    assert asyncio.run(both()) == ["a", "b"]


def test_a_model_without_provider_clients_is_left_alone():
    assert attach(object()) == 0
