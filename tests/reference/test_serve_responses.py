"""``POST /v1/responses`` and ``/v1/responses/compact`` semantics, each reply parsed with the OpenAI SDK's types."""

from __future__ import annotations

import json

import pytest
from openai.types.responses import Response, ResponseStreamEvent
from openai.types.responses.compacted_response import CompactedResponse
from openai.types.responses.response_compaction_item import ResponseCompactionItem
from openai.types.responses.response_input_message_item import ResponseInputMessageItem
from pydantic import TypeAdapter

from harness.reference import native
from harness.reference.prompt_cache import PromptCache
from harness.reference.serve import responses as serve_responses
from harness.reference.serve.state import ResponseStore
from harness.reference.serve.wire import RequestError
from tests._wire import RESPONSES_TOOLS, TASK, big_items

EVENTS: TypeAdapter = TypeAdapter(ResponseStreamEvent)


def body(input_, **extra):
    return {"model": "reference-agent", "input": input_, "tools": RESPONSES_TOOLS, **extra}


def ask(request, store=None, cache=None, fault=None):
    outcome = serve_responses.answer(
        request, 0, cache or PromptCache(), store or ResponseStore(), (lambda: fault) if fault else None
    )
    return Response.model_validate(outcome.body), outcome


def test_a_plain_request_is_a_response_with_a_function_call_and_usage():
    resp, _ = ask(body(TASK))
    (call,) = resp.output
    assert (
        call.type == "function_call" and call.name == "read_file" and json.loads(call.arguments)["file_path"] == "/ledgers/a.csv"
    )
    assert resp.usage.input_tokens > 0 and resp.usage.input_tokens_details.cached_tokens == 0
    assert resp.usage.total_tokens == resp.usage.input_tokens + resp.usage.output_tokens


def test_compaction_at_the_threshold_puts_a_decodable_item_first_and_answers_from_the_summary():
    resp, _ = ask(body(big_items(), context_management=[{"type": "compaction", "compact_threshold": 1000}]))
    item, call = resp.output
    assert isinstance(item, ResponseCompactionItem) and item.id.startswith("cmp_")
    summary = native.decode_compaction(item.encrypted_content)
    assert "## SESSION INTENT" in summary and "1. Read /ledgers/a.csv with read_file." in summary
    assert call.type == "function_call" and call.name == "write_file"  # the reference agent resumed from the summary
    assert resp.usage.output_tokens < 1_000  # a summary, not a copy
    plain, _ = ask(body(big_items()))
    assert resp.usage.input_tokens > plain.usage.input_tokens  # the summary pass is billed in the response's usage


def test_no_compaction_under_the_threshold_or_when_it_fails():
    resp, _ = ask(body(TASK, context_management=[{"type": "compaction", "compact_threshold": 10**6}]))
    assert [o.type for o in resp.output] == ["function_call"]
    failed, outcome = ask(
        body(TASK, context_management=[{"type": "compaction", "compact_threshold": 10}]), fault="null-compaction"
    )
    assert [o.type for o in failed.output] == ["function_call"] and outcome.fault == "null-compaction"


def test_a_compaction_item_in_the_input_replaces_what_precedes_it():
    item = serve_responses.compaction_item("## SESSION INTENT\nOriginal request:\n> " + TASK.replace("\n", "\n> "), "ctx")
    messages = serve_responses.to_messages(
        [{"role": "user", "content": "an old turn"}, item, {"role": "user", "content": "go on"}]
    )
    assert [m.type for m in messages] == ["human", "human"]
    assert messages[0].text.startswith(native.NATIVE_SUMMARY_OPENING) and "an old turn" not in messages[0].text


def test_an_envelope_the_harness_cannot_read_is_a_400():
    with pytest.raises(RequestError, match=r"input\[0\]\.encrypted_content: not a harness compaction envelope"):
        ask(body([{"type": "compaction", "encrypted_content": "gAAAA-opaque"}]))


def test_previous_response_id_continues_and_a_compaction_id_is_rejected():
    store = ResponseStore()
    first, _ = ask(body(TASK), store=store)
    call = first.output[0]
    second, _ = ask(
        body([{"type": "function_call_output", "call_id": call.call_id, "output": "a,b\n1,2"}], previous_response_id=first.id),
        store=store,
    )
    assert second.output[0].type == "function_call" and second.output[0].name == "write_file"  # step 2: it saw step 1's result
    with pytest.raises(RequestError, match="is a compaction, not a response"):
        ask(body("go on", previous_response_id="cmp_0123"), store=store)
    with pytest.raises(RequestError, match="not found"):
        ask(body("go on", previous_response_id="resp_unknown"), store=store)


def test_compact_returns_the_user_messages_then_one_compaction_item():
    store = ResponseStore()
    items = [
        {"role": "user", "content": TASK},
        {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": "{}"},
    ]
    out = serve_responses.compact(
        {"model": "gpt-5.4", "input": [*items, {"type": "function_call_output", "call_id": "c1", "output": "x"}]}, 0, store
    )
    parsed = CompactedResponse.model_validate({**out, "output": [o for o in out["output"] if o["type"] == "compaction"]})
    assert parsed.object == "response.compaction" and parsed.id.startswith("cmp_")
    (user,) = [ResponseInputMessageItem.model_validate(o) for o in out["output"] if o["type"] == "message"]
    assert user.role == "user" and user.content[0].text == TASK
    assert "1. Read /ledgers/a.csv" in native.decode_compaction(out["output"][-1]["encrypted_content"])
    with pytest.raises(RequestError, match="is a compaction"):
        ask(body("go on", previous_response_id=out["id"]), store=store)


def test_a_repeated_prefix_is_reported_as_cached_tokens():
    cache = PromptCache()
    long = TASK + "\n" + "lorem ipsum " * 2000
    first, _ = ask(body(long), cache=cache)
    assert first.usage.input_tokens_details.cached_tokens == 0 and first.usage.input_tokens_details.cache_write_tokens > 1024
    call = first.output[0]
    second, _ = ask(
        body(
            [
                {"role": "user", "content": long},
                call.model_dump(exclude_none=True),
                {"type": "function_call_output", "call_id": call.call_id, "output": "x"},
            ]
        ),
        cache=cache,
    )
    details = second.usage.input_tokens_details
    assert (
        details.cached_tokens >= 1024 and details.cached_tokens % 128 == 0 and details.cached_tokens < second.usage.input_tokens
    )


def test_after_a_compaction_the_next_request_reads_the_summary_prefix():
    cache, store = PromptCache(), ResponseStore()
    system = "You are an agent. " * 500
    settings = {"instructions": system, "context_management": [{"type": "compaction", "compact_threshold": 20_000}]}
    first, _ = ask(body(big_items(), **settings), store=store, cache=cache)
    assert first.output[0].type == "compaction"
    call = first.output[1]
    nxt, _ = ask(
        body(
            [{"type": "function_call_output", "call_id": call.call_id, "output": "ok"}], previous_response_id=first.id, **settings
        ),
        store=store,
        cache=cache,
    )
    assert [o.type for o in nxt.output] == ["message"] and "TASK COMPLETE" in nxt.output[0].content[0].text
    assert nxt.usage.input_tokens_details.cached_tokens >= 1024  # instructions, tools and the summary, stored last time


def test_unknown_settings_and_items_are_400s():
    with pytest.raises(RequestError, match="only 'compaction'"):
        ask(body(TASK, context_management=[{"type": "truncate"}]))
    with pytest.raises(RequestError, match="compact_threshold"):
        ask(body(TASK, context_management=[{"type": "compaction"}]))
    with pytest.raises(RequestError, match="'web_search_call' is not an item type"):
        ask(body([{"type": "web_search_call", "id": "ws_1"}]))


def test_the_stream_parses_as_the_sdks_events():
    outcome = serve_responses.answer(
        body(big_items(), context_management=[{"type": "compaction", "compact_threshold": 10}]), 0, PromptCache(), ResponseStore()
    )
    events = [
        EVENTS.validate_python(json.loads(c.split("data: ", 1)[1])) for c in chunks(serve_responses.sse_events(outcome.body))
    ]
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert events[-1].response.output[0].type == "compaction"
    assert any(e.type == "response.function_call_arguments.done" for e in events)


def test_a_compaction_failing_mid_stream_ends_in_an_error_event():
    outcome = serve_responses.answer(
        body(TASK, context_management=[{"type": "compaction", "compact_threshold": 10}]),
        0,
        PromptCache(),
        ResponseStore(),
        lambda: "compaction-midstream",
    )
    events = chunks(serve_responses.sse_events(outcome.body, fail_midstream=outcome.fault == "compaction-midstream"))
    assert events[-1].startswith("event: error") and "compaction failed mid-stream" in events[-1]
    assert not any(e.startswith("event: response.completed") for e in events)


def chunks(data: bytes) -> list[str]:
    return [c for c in data.decode().split("\n\n") if c]
