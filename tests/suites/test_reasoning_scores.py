"""The reasoning eval's scores (``harness.suites.reasoning.score_reasoning``), from made-up server verdicts."""

from __future__ import annotations

from harness.suites.reasoning import VALIDITY, score_reasoning

SUMMARY = "Here is a summary of the conversation to date:\n\nread a.csv"
TASK = "Audit the ledgers."


def claude_turn(call, thinking=True):
    blocks = [{"type": "thinking", "thinking": "why", "signature": "hsig1.x"}] if thinking else []
    return {"role": "assistant", "content": [*blocks, {"type": "tool_use", "id": call, "name": "read_file", "input": {}}]}


def result(call):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]}


def messages(first, *turns, status=200, error=None):
    body = {
        "messages": [{"role": "user", "content": first}, *[m for call, t in turns for m in (claude_turn(call, t), result(call))]]
    }
    return {"api": "messages", "body": body, "status": status, "error": error}


def items(first, *turns, status=200):
    out = [{"role": "user", "content": first, "type": "message"}]
    for call, with_reasoning in turns:
        if with_reasoning:
            out.append({"type": "reasoning", "id": f"rs_{call}", "summary": []})
        out += [
            {"type": "function_call", "call_id": call, "name": "read_file", "arguments": "{}"},
            {"type": "function_call_output", "call_id": call, "output": "ok"},
        ]
    return {"api": "responses", "body": {"input": out}, "status": status, "error": None}


def test_claude_turns_kept_across_a_summary_without_their_thinking_pass():
    verdicts = [
        messages(TASK, ("a", True)),
        messages(TASK, ("a", True), ("b", True)),
        messages(SUMMARY, ("b", False), ("c", True)),
    ]
    scores = score_reasoning(verdicts)
    assert scores[VALIDITY][0] and scores["bound_reasoning_dropped"][0] and scores["requests_accepted"][0]
    assert not scores["other_reasoning_kept"][0]  # what an OpenAI arm would fail: Claude's was dropped


def test_a_kept_claude_turn_still_thinking_or_a_refused_request_fails():
    verdicts = [messages(TASK, ("a", True)), messages(SUMMARY, ("a", True), status=400, error="messages.1.content.0: Invalid")]
    scores = score_reasoning(verdicts)
    assert scores[VALIDITY][0]
    assert not scores["bound_reasoning_dropped"][0] and "'a'" in scores["bound_reasoning_dropped"][1]
    assert not scores["requests_accepted"][0] and "400: messages.1.content.0" in scores["requests_accepted"][1]


def test_no_summary_or_no_reasoning_before_it_is_invalid():
    assert not score_reasoning([messages(TASK, ("a", True)), messages(TASK, ("a", True), ("b", True))])[VALIDITY][0]
    assert not score_reasoning([messages(TASK, ("a", False)), messages(SUMMARY, ("a", False))])[VALIDITY][0]


def test_openai_reasoning_kept_passes_and_lost_fails():
    kept = [items(TASK, ("a", True)), items(SUMMARY, ("a", True), ("b", True))]
    assert score_reasoning(kept)[VALIDITY][0] and score_reasoning(kept)["other_reasoning_kept"][0]
    lost = [items(TASK, ("a", True)), items(SUMMARY, ("a", False))]
    assert not score_reasoning(lost)["other_reasoning_kept"][0]
