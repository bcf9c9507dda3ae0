"""Well-formed agent requests: every tool result follows its call, every call has a result, a summary only at the
head, and one system prompt for the whole run."""

from __future__ import annotations

from typing import Any

from harness import _deepagents_adapter as da
from harness.scoring.scorers import CHECK, Score, structural_issues, structure_ok
from harness.trace.schema import Trace


def human(text: str = "do the task") -> dict[str, Any]:
    return {"type": "human", "data": {"content": text}}


def summary(text: str = "the summary") -> dict[str, Any]:
    return {"type": "human", "data": {"content": text, "additional_kwargs": {"lc_source": da.SUMMARY_SOURCE}}}


def ai(*ids: str | None) -> dict[str, Any]:
    return {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "fetch_document", "args": {}, "id": i} for i in ids]}}


def tool(tc_id: str) -> dict[str, Any]:
    return {"type": "tool", "data": {"content": "result", "tool_call_id": tc_id}}


def trace_of(*requests: list[dict[str, Any]], shas: list[str | None] | None = None) -> Trace:
    """One agent call per request (a list of messages), each with system prompt hash ``shas[i]`` (default "S")."""
    messages: dict[str, dict[str, Any]] = {}
    calls = []
    for index, msgs in enumerate(requests):
        keys = []
        for pos, data in enumerate(msgs):
            key = f"m{index}_{pos}"
            messages[key] = data
            keys.append(key)
        sha = "S" if shas is None else shas[index]
        calls.append({"index": index, "role": "agent", "turn": 0, "message_keys": keys, "system_sha": sha})
    return Trace(case_id="c", kind="needle", calls=calls, messages=messages)


def test_paired_tool_calls_and_a_summary_at_the_head_have_no_issue():
    trace = trace_of([summary(), human(), ai("a", "b"), tool("a"), tool("b"), ai()])
    assert structural_issues(trace) == []


def test_a_tool_result_before_its_call_or_without_one_is_an_orphan():
    trace = trace_of([human(), tool("a"), ai("a"), tool("a"), tool("zz")])
    assert structural_issues(trace) == [
        "call 0: tool result a has no tool call before it",
        "call 0: tool result zz has no tool call before it",
    ]


def test_tool_calls_without_a_result_are_named_in_id_order():
    trace = trace_of([human(), ai("c", "a", "b"), tool("b")])
    assert structural_issues(trace) == ["call 0: tool call a has no result", "call 0: tool call c has no result"]


def test_a_tool_call_without_an_id_is_not_waiting_for_a_result():
    trace = trace_of([human(), ai(None, ""), ai("a"), tool("a")])
    assert structural_issues(trace) == []


def test_an_ai_message_with_no_tool_calls_field_is_read_as_calling_nothing():
    trace = trace_of([human(), {"type": "ai", "data": {"content": "hi", "tool_calls": None}}, {"type": "ai", "data": {}}])
    assert structural_issues(trace) == []


def test_a_summary_past_the_head_is_an_issue_with_its_position():
    trace = trace_of([human(), summary(), ai()], [summary(), human(), summary()])
    assert structural_issues(trace) == [
        "call 0: a summary at position 1, not at the head",
        "call 1: a summary at position 2, not at the head",
    ]


def test_a_plain_user_message_after_the_head_is_not_a_summary():
    trace = trace_of([human(), human("more"), {"type": "ai", "data": {"additional_kwargs": {"lc_source": "summarization"}}}])
    assert structural_issues(trace) == []


def test_each_request_pairs_its_own_tool_calls():
    # the call in request 0 is answered in request 1 only: request 0 is missing its result, request 1 has an orphan
    trace = trace_of([human(), ai("a")], [human(), tool("a")])
    assert structural_issues(trace) == ["call 0: tool call a has no result", "call 1: tool result a has no tool call before it"]


def test_a_system_prompt_differing_from_the_first_is_an_issue_in_each_call_that_differs():
    trace = trace_of([human()], [human()], [human()], [human()], shas=["S", "S", "T", "S"])
    assert structural_issues(trace) == ["call 2: the system prompt changed during the run"]


def test_the_first_known_system_prompt_is_the_reference():
    trace = trace_of([human()], [human()], [human()], shas=[None, "S", "S"])
    assert structural_issues(trace) == []  # the first known prompt is the reference
    trace = trace_of([human()], [human()], shas=["S", None])
    assert structural_issues(trace) == ["call 1: the system prompt changed during the run"]


def test_a_call_without_a_system_hash_is_read_as_none():
    trace = trace_of([human()], [human()])
    del trace.calls[0]["system_sha"]
    trace.calls[1]["system_sha"] = None
    assert structural_issues(trace) == []


def test_summarizer_calls_are_not_checked():
    trace = trace_of([human(), tool("x")], [human()])
    trace.calls[0]["role"] = "summarizer"
    assert structural_issues(trace) == []


def test_structure_ok_holds_on_well_formed_requests_and_counts_them():
    trace = trace_of([human(), ai("a"), tool("a")], [human()])
    assert structure_ok(trace) == Score(
        "structure_ok",
        True,
        CHECK,
        "all 2 requests well formed (tool calls paired, summary at the head, system prompt intact)",
    )


def test_structure_ok_fails_naming_the_count_and_the_first_three_problems():
    trace = trace_of([human(), tool("a"), tool("b"), tool("c"), tool("d")], [human()], [human()])
    assert structure_ok(trace) == Score(
        "structure_ok",
        False,
        CHECK,
        "4 problem(s) in 3 requests; first: call 0: tool result a has no tool call before it; "
        "call 0: tool result b has no tool call before it; call 0: tool result c has no tool call before it",
    )


def test_a_message_record_without_a_body_is_read_as_an_empty_message():
    trace = trace_of([human(), {"type": "ai"}, {"type": "tool"}])
    assert structural_issues(trace) == ["call 0: tool result None has no tool call before it"]
