"""Served reasoning and Claude's thinking-block rules (``harness.reference.reasoning``), checked with the SDKs' types."""

from __future__ import annotations

import json

import pytest
from anthropic.types.beta import BetaMessage, BetaRawMessageStreamEvent
from openai.types.responses import Response
from pydantic import TypeAdapter

from harness.reference import reasoning
from harness.reference.prompt_cache import PromptCache
from harness.reference.serve import chat as serve
from harness.reference.serve import messages as serve_anthropic
from harness.reference.serve import responses as serve_responses
from harness.reference.serve.state import ResponseStore
from harness.reference.serve.wire import RequestError
from tests._wire import TASK, messages_body

THINKING = {"type": "enabled", "budget_tokens": 1024}
EVENTS: TypeAdapter = TypeAdapter(BetaRawMessageStreamEvent)


def reply(body):
    return serve_anthropic.answer(body, 0, PromptCache()).body


def two_turns(**extra):
    """The task, the agent's first reply (thinking, then a tool use) and its tool result, as a client sends them back."""
    first = [{"role": "user", "content": TASK}]
    answer = reply(messages_body(first, thinking=THINKING, **extra))
    call = answer["content"][-1]
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "total: 12"}]}
    return [*first, {"role": "assistant", "content": answer["content"]}, result]


def test_a_thinking_request_gets_a_signed_block_first_and_a_plain_one_none():
    msg = BetaMessage.model_validate(reply(messages_body([{"role": "user", "content": TASK}], thinking=THINKING)))
    assert [b.type for b in msg.content] == ["thinking", "tool_use"]
    assert msg.content[0].signature.startswith(reasoning.SIGNATURE_PREFIX) and "read_file" in msg.content[0].thinking
    assert [b["type"] for b in reply(messages_body([{"role": "user", "content": TASK}]))["content"]] == ["tool_use"]


def test_the_signature_binds_system_tools_and_every_message_before_the_block():
    messages = two_turns()
    body = messages_body(messages, thinking=THINKING)
    block = messages[1]["content"][0]
    assert reasoning.sign(body, messages[:1], block["thinking"]) == block["signature"]
    assert reasoning.check_thinking(messages_body(two_turns(), thinking=THINKING)) == []  # sent back as received
    # what the wire adds is not a change: a cache breakpoint, a string turned into a text block
    wire = two_turns()
    wire[0]["content"] = [{"type": "text", "text": TASK, "cache_control": {"type": "ephemeral"}}]
    assert reasoning.check_thinking(messages_body(wire, thinking=THINKING)) == []
    for changed in (
        {"system": "You are a different agent."},
        {"tools": []},
    ):
        with pytest.raises(reasoning.ThinkingError, match="bound to a different conversation"):
            reasoning.check_thinking({**messages_body(two_turns(), thinking=THINKING), **changed})


def test_a_summary_before_a_kept_block_is_refused_with_anthropics_400_or_dropped_on_request():
    kept = two_turns()[1:]
    summarized = [{"role": "user", "content": "Here is a summary of the conversation to date:\n\nread a.csv"}, *kept]
    with pytest.raises(RequestError, match=r"messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block"):
        serve_anthropic.answer(messages_body(summarized, thinking=THINKING), 0, PromptCache())
    drop = {**THINKING, "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    body = messages_body(summarized, thinking=drop)
    assert reasoning.check_thinking(body) == ["messages.1.content.0"] and body["messages"][1]["content"][0]["type"] == "tool_use"
    # what deepagents sends: the kept turn without its bound block (check_thinking above already dropped it from this
    # very list, so slicing the first block off again dropped the tool use too: an orphan result harness serve refuses)
    kept[0]["content"] = [b for b in kept[0]["content"] if b["type"] != "thinking"]
    assert reply(messages_body([summarized[0], *kept], thinking=THINKING))["content"][0]["type"] == "thinking"


def test_an_edited_block_or_a_foreign_signature_is_refused():
    messages = two_turns()
    messages[1]["content"][0] = {**messages[1]["content"][0], "thinking": "something else"}
    with pytest.raises(reasoning.ThinkingError, match="bound to a different conversation"):
        reasoning.check_thinking(messages_body(messages, thinking=THINKING))
    messages[1]["content"][0]["signature"] = "EqQBCkgIARABGAIiQL"  # a real provider's, not the harness's
    with pytest.raises(reasoning.ThinkingError, match=r"^messages\.1\.content\.0: Invalid `signature` in `thinking` block$"):
        reasoning.check_thinking(messages_body(messages, thinking=THINKING))


def test_the_tool_use_continuation_rule_wants_the_calling_turns_thinking_back():
    messages = two_turns()
    reasoning.check_tool_use_continuation(messages_body(messages, thinking=THINKING))
    messages[1]["content"] = messages[1]["content"][1:]
    with pytest.raises(reasoning.ThinkingError, match=r"messages\.1\.content\.0\.type: Expected `thinking`.*found `tool_use`"):
        reasoning.check_tool_use_continuation(messages_body(messages, thinking=THINKING))
    reasoning.check_tool_use_continuation(messages_body(messages))  # thinking off: no rule
    body = messages_body(messages, thinking=THINKING)
    serve_anthropic.answer(body, 0, PromptCache())  # the endpoint enforces it only when asked
    with pytest.raises(RequestError, match="Expected `thinking`"):
        serve_anthropic.answer(body, 0, PromptCache(), tool_use_rule=True)


def test_a_streamed_thinking_block_arrives_whole_with_its_signature():
    message = reply(messages_body([{"role": "user", "content": TASK}], thinking=THINKING))
    events = [
        EVENTS.validate_python(json.loads(line[len("data: ") :]))
        for line in serve_anthropic.sse_events(message).decode().splitlines()
        if line.startswith("data: ")
    ]
    deltas = [e.delta for e in events if e.type == "content_block_delta" and e.index == 0]
    assert [d.type for d in deltas] == ["thinking_delta", "signature_delta"]
    assert deltas[0].thinking == message["content"][0]["thinking"] and deltas[1].signature == message["content"][0]["signature"]


def test_responses_and_chat_completions_return_reasoning_only_when_asked():
    request = {"model": "reference-agent", "input": TASK, "tools": [], "reasoning": {"effort": "low"}}
    tools = [{"type": "function", "name": "read_file", "parameters": {"type": "object", "properties": {}}}]
    out = Response.model_validate(serve_responses.answer({**request, "tools": tools}, 0, PromptCache(), ResponseStore()).body)
    assert out.output[0].type == "reasoning" and out.output[0].summary[0].text.startswith("The next step")
    assert out.usage.output_tokens_details.reasoning_tokens > 0
    plain = serve_responses.answer({**request, "tools": tools, "reasoning": None}, 0, PromptCache(), ResponseStore()).body
    assert all(item["type"] != "reasoning" for item in plain["output"])
    chat = {
        "model": "reference-agent",
        "messages": [{"role": "user", "content": TASK}],
        "tools": [
            {"type": "function", **{"function": {"name": "read_file", "parameters": {"type": "object", "properties": {}}}}}
        ],
    }
    assert "reasoning_content" not in serve.answer(chat, 0)["choices"][0]["message"]
    assert serve.answer({**chat, "reasoning_effort": "low"}, 0)["choices"][0]["message"]["reasoning_content"].startswith(
        "The next step"
    )
