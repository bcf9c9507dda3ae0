"""``POST /v1/messages`` semantics, as pure functions, each reply parsed with the Anthropic SDK's own types."""

from __future__ import annotations

import json

import pytest
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from pydantic import TypeAdapter

from harness.reference import native, reasoning
from harness.reference.prompt_cache import PromptCache
from harness.reference.serve import messages as serve_anthropic
from harness.reference.serve.wire import RequestError
from tests._wire import TASK, big_turns, compact_edit, messages_body, tool_turns

EVENTS: TypeAdapter = TypeAdapter(BetaRawMessageStreamEvent)


def ask(body, fault=None, cache=None):
    outcome = serve_anthropic.answer(body, 0, cache or PromptCache(), (lambda: fault) if fault else None)
    return BetaMessage.model_validate(outcome.body), outcome


def big_conversation():
    return big_turns()


def test_a_plain_request_is_a_message_with_tool_use_and_usage():
    msg, _ = ask(messages_body([{"role": "user", "content": TASK}]))
    assert msg.stop_reason == "tool_use" and msg.content[0].type == "tool_use"
    assert msg.content[0].name == "read_file" and msg.content[0].input["file_path"] == "/ledgers/a.csv"
    assert msg.usage.input_tokens > 0 and msg.usage.output_tokens > 0 and msg.usage.cache_read_input_tokens == 0
    assert msg.context_management is None and msg.usage.iterations is None


def test_compaction_fires_at_the_trigger_and_bills_the_summary_only_in_iterations():
    body = messages_body(big_conversation(), context_management=compact_edit(instructions="Keep:\n## NEXT STEPS\n"))
    msg, _ = ask(body)
    block = msg.content[0]
    assert block.type == "compaction" and block.content.startswith("## NEXT STEPS")  # shaped by the instructions
    assert msg.content[1].type == "tool_use" and msg.content[1].name == "write_file"  # the next step, from the summary
    kinds = [it.type for it in msg.usage.iterations]
    assert kinds == ["compaction", "message"]
    compaction, sampling = msg.usage.iterations
    assert compaction.input_tokens >= 50_000  # the summary pass read the whole context...
    assert msg.usage.input_tokens == sampling.input_tokens < 1_000  # ...but the top-level usage is the sampling only
    assert msg.usage.output_tokens == sampling.output_tokens


def test_no_compaction_under_the_trigger():
    msg, _ = ask(messages_body([{"role": "user", "content": TASK}], context_management=compact_edit()))
    assert [b.type for b in msg.content] == ["tool_use"] and msg.usage.iterations is None
    assert msg.context_management is not None and msg.context_management.applied_edits == []


@pytest.mark.parametrize("trigger", [49_999, 10_000])
def test_a_trigger_under_the_minimum_is_a_400_naming_it(trigger):
    with pytest.raises(RequestError, match="minimum of 50000") as err:
        ask(messages_body([{"role": "user", "content": TASK}], context_management=compact_edit(trigger)))
    assert err.value.status == 400


def test_pause_after_compaction_stops_with_the_compaction_block():
    msg, _ = ask(messages_body(big_conversation(), context_management=compact_edit(pause_after_compaction=True)))
    assert msg.stop_reason == "compaction" and [b.type for b in msg.content] == ["compaction"]
    assert [it.type for it in msg.usage.iterations] == ["compaction"] and msg.usage.input_tokens == 0


def test_a_failed_compaction_is_a_null_block_and_the_model_sees_everything():
    msg, outcome = ask(messages_body(big_conversation(), context_management=compact_edit()), fault="null-compaction")
    assert msg.content[0].type == "compaction" and msg.content[0].content is None and outcome.fault == "null-compaction"
    assert msg.usage.input_tokens >= 50_000  # nothing was compacted


def test_blocks_before_the_latest_compaction_block_are_dropped_and_a_null_one_is_a_no_op():
    summary = "## SESSION INTENT\nOriginal request:\n> " + TASK.replace("\n", "\n> ")
    later = [
        {"role": "user", "content": "an old turn " * 50},
        {"role": "assistant", "content": [{"type": "compaction", "content": None}, {"type": "text", "text": "one"}]},
        {"role": "user", "content": "more"},
        {"role": "assistant", "content": [{"type": "text", "text": "before"}, {"type": "compaction", "content": summary}]},
        {"role": "user", "content": "continue"},
    ]
    conv = serve_anthropic.parse_request(messages_body(later))
    assert [m.type for m in conv.messages] == ["human", "human"]
    assert conv.messages[0].text.startswith(native.NATIVE_SUMMARY_OPENING) and "old turn" not in conv.messages[0].text
    only_null = serve_anthropic.parse_request(messages_body(later[:3]))
    assert "old turn" in only_null.messages[0].text  # a null block drops nothing


def test_a_compaction_block_sent_back_with_its_stream_index_is_a_400():
    sent_back = [
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": [{"type": "compaction", "content": "s", "index": 0}]},  # as LangChain streams it
        {"role": "user", "content": "go on"},
    ]
    with pytest.raises(RequestError, match=r"messages\.1\.content\.0\.compaction\.index: Extra inputs are not permitted"):
        ask(messages_body(sent_back))
    clean = [
        sent_back[0],
        {"role": "assistant", "content": [{"type": "compaction", "content": "s", "signature": None}]},
        sent_back[2],
    ]
    ask(messages_body(clean))  # the same block without the stream's index is accepted


def test_clearing_tool_uses_keeps_the_latest_and_reports_the_edit():
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": 3},
        "keep": {"type": "tool_uses", "value": 2},
    }
    msg, _ = ask(messages_body(tool_turns(5), context_management={"edits": [edit]}))
    applied = msg.context_management.applied_edits
    assert len(applied) == 1 and applied[0].type == "clear_tool_uses_20250919" and applied[0].cleared_tool_uses == 3
    assert applied[0].cleared_input_tokens > 0
    conv = serve_anthropic.parse_request(messages_body(tool_turns(5)))
    assert serve_anthropic.clear_tool_uses(conv, edit) is not None
    results = [m.text for m in conv.messages if m.type == "tool"]
    assert results[:3] == [serve_anthropic.CLEARED_PLACEHOLDER] * 3 and results[3:] == ["result " * 40] * 2


def test_clearing_tool_uses_respects_its_trigger_exclusions_and_minimum():
    base = {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 1}}
    conv = lambda: serve_anthropic.parse_request(messages_body(tool_turns(3)))  # noqa: E731
    assert serve_anthropic.clear_tool_uses(conv(), base) is None  # default trigger: 100,000 input tokens
    counted = {**base, "trigger": {"type": "tool_uses", "value": 2}}
    assert serve_anthropic.clear_tool_uses(conv(), {**counted, "exclude_tools": ["write_file"]}) is None
    assert (
        serve_anthropic.clear_tool_uses(conv(), {**counted, "clear_at_least": {"type": "input_tokens", "value": 10**6}}) is None
    )
    inputs = conv()
    assert serve_anthropic.clear_tool_uses(inputs, {**counted, "clear_tool_inputs": True})["cleared_tool_uses"] == 2
    assert [c["args"] for m in inputs.messages if m.type == "ai" for c in m.tool_calls] == [{}, {}, {"file_path": "/f2"}]


def test_clearing_thinking_keeps_the_latest_turns():
    turns = [{"role": "user", "content": TASK}]
    for k in range(3):  # each block signed to the turns before it, as the endpoint signs its own (it refuses others)
        signature = reasoning.sign(messages_body(turns), list(turns), "hmm " * 30)
        turns.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm " * 30, "signature": signature},
                    {"type": "text", "text": f"t{k}"},
                ],
            }
        )
        turns.append({"role": "user", "content": f"next {k}"})
    edit = {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}
    msg, _ = ask(messages_body(turns, context_management={"edits": [edit]}))
    (applied,) = msg.context_management.applied_edits
    assert applied.type == "clear_thinking_20251015" and applied.cleared_thinking_turns == 2 and applied.cleared_input_tokens > 0
    assert serve_anthropic.clear_thinking(serve_anthropic.parse_request(messages_body(turns)), {**edit, "keep": "all"}) is None


def test_an_unknown_edit_is_a_400():
    with pytest.raises(RequestError, match="clear_everything"):
        ask(messages_body([{"role": "user", "content": TASK}], context_management={"edits": [{"type": "clear_everything"}]}))


def test_a_repeated_prefix_with_cache_control_is_a_cache_read():
    cache = PromptCache()
    turns = tool_turns(4, size=400)
    body = messages_body(turns, system="You are an agent. " * 100, cache_control={"type": "ephemeral"})
    first, _ = ask(body, cache=cache)
    assert first.usage.cache_creation_input_tokens > 1024 and first.usage.cache_read_input_tokens == 0
    second, _ = ask(
        messages_body(
            [*turns, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "and?"}],
            system=body["system"],
            cache_control=body["cache_control"],
        ),
        cache=cache,
    )
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens > 0  # the new turns
    uncached, _ = ask(messages_body(turns, system=body["system"]), cache=PromptCache())
    assert uncached.usage.cache_creation_input_tokens == 0 and uncached.usage.cache_read_input_tokens == 0


def test_the_summary_pass_reads_the_cached_conversation_and_the_next_request_reads_the_summary():
    cache = PromptCache()
    system, marks = "You are an agent. " * 400, {"type": "ephemeral"}
    turns = big_turns()
    before, _ = ask(messages_body(turns[:2], system=system, cache_control=marks), cache=cache)  # the task, cached
    compacted, outcome = ask(
        messages_body(turns, system=system, cache_control=marks, context_management=compact_edit()), cache=cache
    )
    summary_pass, sampling = compacted.usage.iterations
    assert summary_pass.cache_read_input_tokens == before.usage.cache_creation_input_tokens > 0
    assert sampling.cache_creation_input_tokens > 0  # tools, system and the summary: a new prefix
    block = outcome.body["content"][0]
    after = [*turns, {"role": "assistant", "content": [block, *outcome.body["content"][1:]]}]
    after.append(
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": outcome.body["content"][1]["id"], "content": "ok"}]}
    )
    nxt, _ = ask(messages_body(after, system=system, cache_control=marks, context_management=compact_edit()), cache=cache)
    assert nxt.usage.cache_read_input_tokens == sampling.cache_creation_input_tokens  # the summary prefix, read
    assert nxt.usage.iterations is None  # under the trigger again


def test_the_stream_parses_as_the_sdks_events_and_rebuilds_the_message():
    outcome = serve_anthropic.answer(messages_body(big_conversation(), context_management=compact_edit()), 0, PromptCache())
    events = [
        EVENTS.validate_python(json.loads(chunk.split("data: ", 1)[1]))
        for chunk in sse_chunks(serve_anthropic.sse_events(outcome.body))
    ]
    assert [e.type for e in events][:3] == ["message_start", "content_block_start", "content_block_delta"]
    assert events[2].delta.type == "compaction_delta" and events[2].delta.content == outcome.body["content"][0]["content"]
    final = next(e for e in events if e.type == "message_delta")
    assert final.delta.stop_reason == "tool_use" and [it.type for it in final.usage.iterations] == ["compaction", "message"]
    assert events[-1].type == "message_stop"


def test_a_compaction_failing_mid_stream_ends_in_an_error_event():
    outcome = serve_anthropic.answer(
        messages_body(big_conversation(), context_management=compact_edit()), 0, PromptCache(), lambda: "compaction-midstream"
    )
    chunks = sse_chunks(serve_anthropic.sse_events(outcome.body, fail_midstream=outcome.fault == "compaction-midstream"))
    assert chunks[-1].startswith("event: error") and "compaction failed mid-stream" in chunks[-1]
    assert not any(c.startswith("event: message_stop") for c in chunks)


def sse_chunks(data: bytes) -> list[str]:
    return [c for c in data.decode().split("\n\n") if c]
