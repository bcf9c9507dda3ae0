"""Fault modes on the served Messages and Responses paths: their bodies parse with the SDKs' types, and the
compaction modes fire only where a native compaction does."""

from __future__ import annotations

import pytest
from anthropic.types.beta import BetaMessage
from openai.types.responses import Response

from harness.errors import ConfigError
from harness.reference.not_summaries import REASONING, REASONING_ONLY, SHAPES, shape_text
from harness.reference.serve import APIS, MODES, SUMMARY_MODES, Fault, ServerState

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
    status = {"429": 429, "500": 500, "503": 503, "context": 400, "malformed": 200, "empty": 200, "auth": 401}
    assert reply.status == {**status, **dict.fromkeys(SUMMARY_MODES, 200)}[mode]
    if mode in SUMMARY_MODES:  # a model's answer, in the API's shape, carrying the shape's text and nothing else
        text = shape_text(mode.removeprefix("summary-"))
        if name == "compact":  # the summary is the compaction item's (encrypted) content
            assert [i["type"] for i in reply.body["output"]] == ["compaction"]
        elif text:
            assert text in _strings(reply.body)
        else:  # reasoning alone: the reasoning, and no text (what each client reads of it: the test below)
            assert REASONING in _strings(reply.body)
        return
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


def _strings(value) -> set:  # noqa: ANN001
    """Every string in a JSON value (keys and values)."""
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return {value} if isinstance(value, str) else set()


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


@pytest.mark.parametrize("shape", SHAPES)
def test_a_summary_fault_reads_through_each_langchain_client_as_the_shapes_text(shape):
    """What LangChain's ``_create_summary`` keeps of the served answer (``.text``) is the shape's text: empty for a
    reasoning-only answer on every API, as a real provider's reasoning-only reply reads."""
    from langchain_anthropic import ChatAnthropic
    from langchain_openai import ChatOpenAI
    from langchain_openai.chat_models.base import _construct_lc_result_from_responses_api

    body = {"model": "reference-summarizer", "messages": [{"role": "user", "content": "Summarize."}], "input": "Summarize."}
    fault = Fault(f"summary-{shape}", scope="summary")
    chat = ChatOpenAI(model="reference-summarizer", api_key="x")._create_chat_result(API["chat"].injected(fault, body, "").body)
    claude = ChatAnthropic(model="reference-summarizer", api_key="x")._format_output(
        BetaMessage.model_validate(API["messages"].injected(fault, body, "").body)
    )
    responses = _construct_lc_result_from_responses_api(Response.model_validate(API["responses"].injected(fault, body, "").body))
    for result in (chat, claude, responses):
        assert result.generations[0].message.text.strip() == shape_text(shape)
    assert (shape_text(shape) == "") is (shape == REASONING_ONLY)


def test_the_stats_count_what_api_clients_were_answered_not_the_admins_own_calls():
    import json
    import urllib.request

    from harness.reference.serve import serving

    with serving(max_seconds=60) as srv:
        admin = srv.url.removesuffix("/v1") + "/admin"

        def post(path: str, body: bytes = b"{}") -> None:
            urllib.request.urlopen(urllib.request.Request(admin + path, data=body, method="POST"), timeout=5).close()

        def stats() -> dict:
            with urllib.request.urlopen(admin + "/stats", timeout=5) as r:
                return json.load(r)

        post("/faults", b'{"mode": "503", "count": 1}')
        post("/reset")
        assert stats()["statuses"] == {}  # the reset, the fault and the stats themselves are not counted
        urllib.request.urlopen(srv.url + "/models", timeout=5).close()
        assert stats()["statuses"] == {"200": 1}
