"""Fault modes on the served Messages and Responses paths: their bodies parse with the SDKs' types, and the
compaction modes fire only where a native compaction does."""

from __future__ import annotations

import pytest
from anthropic.types.beta import BetaMessage
from openai.types.responses import Response

from harness.errors import ConfigError
from harness.reference.serve import APIS, MODES, Fault, ServerState

API = {api.name: api for api in APIS.values()}


def test_compaction_modes_fire_only_on_a_compaction_and_others_never_there():
    state = ServerState(faults=[Fault("null-compaction", count=1), Fault("500", count=1)])
    assert state.pick_fault("agent", compaction=True).mode == "null-compaction"
    assert state.pick_fault("agent", compaction=True) is None  # used up; the 500 is not a compaction fault
    assert state.pick_fault("agent").mode == "500"
    state = ServerState(faults=[Fault("compaction-midstream", count=None)])
    assert state.pick_fault("agent") is None and state.injected == {}
    with pytest.raises(ConfigError, match="null-compaction"):
        Fault.parse("compaction-null")


def test_an_empty_answer_is_valid_for_each_sdk_and_has_nothing_in_it():
    msg = BetaMessage.model_validate(API["messages"].empty({"model": "reference-agent"}))
    assert msg.content == []
    resp = Response.model_validate(API["responses"].empty({"model": "reference-agent"}))
    assert resp.output == []
    assert API["chat"].empty({})["choices"] == []


def test_errors_take_each_apis_shape():
    anthropic_error = API["messages"].error(429, "slow down")
    assert anthropic_error == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert API["messages"].error(503, "x")["error"]["type"] == "overloaded_error"
    assert API["responses"].error(400, "bad", "context_length_exceeded", "input")["error"] == {
        "message": "bad",
        "type": "invalid_request_error",
        "param": "input",
        "code": "context_length_exceeded",
    }


def test_the_context_fault_sizes_each_apis_request():
    # each API counts as its provider would: OpenAI's exactly (o200k_base), Anthropic's with the simulated tokenizer
    from langchain_core.messages import HumanMessage

    from harness.reference.provider_tokens import provider_tokens
    from harness.trace.exact_tokens import request_tokens

    messages = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "word " * 400}]}
    responses = {"model": "m", "input": "word " * 400}
    assert API["messages"].request_tokens(messages) == provider_tokens([HumanMessage("word " * 400)]) > 200
    assert API["responses"].request_tokens(responses) == request_tokens([HumanMessage("word " * 400)], encoding="o200k_base")
    assert API["chat"].request_tokens({"model": "m", "messages": messages["messages"]}) == request_tokens(
        [HumanMessage("word " * 400)], encoding="o200k_base"
    )
    assert API["messages"].request_tokens({"messages": "not a list"}) == 0


@pytest.mark.parametrize("name", sorted(API))
@pytest.mark.parametrize("mode", [m for m in MODES if m not in ("stall", "null-compaction", "compaction-midstream")])
def test_every_fault_takes_the_one_path_on_every_api_in_its_own_shapes(name, mode):
    api = API[name]
    body = {"model": "reference-agent", "messages": [{"role": "user", "content": "word " * 40}], "input": "word " * 40}
    reply = api.injected(Fault(mode, retry_after=2.5), body, "Bearer sk-leaked")
    status = {"429": 429, "500": 500, "503": 503, "context": 400, "malformed": 200, "empty": 200, "auth": 401}[mode]
    assert reply.status == status
    if mode == "malformed":
        assert isinstance(reply.body, bytes) and not reply.body.endswith(b"}")
        return
    if mode == "empty":
        assert not (reply.body.get("choices") or reply.body.get("content") or reply.body.get("output"))
        return
    error = reply.body["error"]
    assert (reply.body.get("type") == "error") is (name == "messages")  # Anthropic's envelope, OpenAI's elsewhere
    assert (reply.headers == {"Retry-After": "2.5"}) is (mode == "429")
    if mode == "context":
        assert "tokens" in error["message"] and str(api.request_tokens(body)) in error["message"]
    if mode == "auth":
        assert "sk-leaked" in error["message"]


def test_the_handler_dispatches_through_the_contract_alone():
    """Routes map to `ServedAPI` objects; the handler names no API (an ``api == ...`` branch would come back here)."""
    import inspect

    from harness.reference.serve import http

    source = inspect.getsource(http)
    assert not [w for w in ("api ==", "api.name ==", '"messages"', '"responses"', '"chat"') if w in source]
    assert {path: api.name for path, api in APIS.items()} == {
        "/chat/completions": "chat",
        "/messages": "messages",
        "/responses": "responses",
        "/responses/compact": "compact",
    }
