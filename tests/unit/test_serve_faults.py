"""Fault modes on the served Messages and Responses paths: their bodies parse with the SDKs' types, and the
compaction modes fire only where a native compaction does."""

from __future__ import annotations

import pytest
from anthropic.types.beta import BetaMessage
from openai.types.responses import Response

from harness.errors import ConfigError
from harness.reference import serve
from harness.reference.serve import Fault, ServerState


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
    msg = BetaMessage.model_validate(serve._empty("messages", {"model": "reference-agent"}))
    assert msg.content == []
    resp = Response.model_validate(serve._empty("responses", {"model": "reference-agent"}))
    assert resp.output == []
    assert serve._empty("chat", {})["choices"] == []


def test_errors_take_each_apis_shape():
    anthropic_error = serve._api_error("messages", 429, "slow down")
    assert anthropic_error == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert serve._api_error("messages", 503, "x")["error"]["type"] == "overloaded_error"
    assert serve._api_error("responses", 400, "bad", "context_length_exceeded", "input")["error"] == {
        "message": "bad",
        "type": "invalid_request_error",
        "param": "input",
        "code": "context_length_exceeded",
    }


def test_the_context_fault_sizes_each_apis_request():
    messages = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "word " * 400}]}
    responses = {"model": "m", "input": "word " * 400}
    assert serve._request_tokens("messages", messages) == serve._request_tokens("responses", responses) > 200
    assert serve._request_tokens("messages", {"messages": "not a list"}) == 0
