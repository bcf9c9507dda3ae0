"""The boundary eval's scorers (issue 34): each over a hand-built trace that passes and a bad one that must fail it,
the failure naming the request and the call id."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict

from harness.scenarios.schema import Scenario
from harness.scoring.scorers import scores_by_key
from harness.scoring.scorers.boundary import boundary_scores, cut_at_parallel_calls, no_orphan_tool_results
from harness.scoring.scorers.shared import structure_ok
from harness.task_format import Step, render_task
from harness.trace.schema import Trace
from tests._messages import summary_message

RULES = "You are the records clerk. House rule: quote document ids exactly."
PARALLEL_TASK = render_task(
    "Review the archive.",
    [Step(1, "fetch_document", "DOC-001"), Step(2, "fetch_document", "DOC-002,DOC-003", mode="parallel"), Step(3, "reply")],
)


def _fetch(call_id: str, doc: str) -> dict[str, Any]:
    return {"name": "fetch_document", "args": {"doc_id": doc}, "id": call_id, "type": "tool_call"}


def _call(index: int, keys: list[str], tool_calls: list | None = None) -> dict[str, Any]:
    return {
        "index": index,
        "role": "agent",
        "turn": 0,
        "message_keys": keys,
        "response": {"text": "", "tool_calls": tool_calls or []},
        "error": None,
    }


def _parallel_trace(*, walked_back: bool) -> Trace:
    """Task, one fetch, then two parallel fetches; a summary at call 3 keeps the conversation from the assistant
    message that made the parallel calls (``walked_back``) or from its second result (an orphan: langchain#38352)."""
    messages = [
        HumanMessage(PARALLEL_TASK),
        AIMessage("", tool_calls=[_fetch("c1", "DOC-001")]),
        ToolMessage("DOC-001 text", tool_call_id="c1"),
        AIMessage("", tool_calls=[_fetch("p1", "DOC-002"), _fetch("p2", "DOC-003")]),
        ToolMessage("DOC-002 text", tool_call_id="p1"),
        ToolMessage("DOC-003 text", tool_call_id="p2"),
        summary_message("Steps 1 and 2 done."),
    ]
    trace = Trace(case_id="boundary-parallel", kind="goal")
    trace.messages = {f"m{i}": d for i, d in enumerate(messages_to_dict(messages))}
    kept = ["m3", "m4", "m5"] if walked_back else ["m5"]
    trace.calls = [
        _call(0, ["m0"], [_fetch("c1", "DOC-001")]),
        _call(1, ["m0", "m1", "m2"], [_fetch("p1", "DOC-002"), _fetch("p2", "DOC-003")]),
        _call(2, ["m0", "m1", "m2", "m3", "m4", "m5"]),
        {**_call(3, ["m6", *kept]), "summary_at_head": True},
    ]
    trace.events = [{"type": "summary", "call_index": 3, "turn": 0, "tokens_before": 900, "tokens_after": 300}]
    return trace


def test_no_orphan_passes_when_the_cut_moved_back_to_the_calls() -> None:
    score = no_orphan_tool_results(_parallel_trace(walked_back=True))
    assert score.value is True and "1 parallel call group" in score.explanation


def test_no_orphan_fails_on_a_result_whose_call_was_summarized_away() -> None:
    score = no_orphan_tool_results(_parallel_trace(walked_back=False))
    assert score.value is False and score.role == "check"
    assert "call 3, message 1 of 2, answering p2" in score.explanation and "langchain#38352" in score.explanation
    assert structure_ok(_parallel_trace(walked_back=False)).value is False  # the one pairing rule, in the shared check too


def test_cut_at_parallel_calls_holds_for_the_group_at_the_cut_and_for_its_orphan() -> None:
    assert cut_at_parallel_calls(_parallel_trace(walked_back=True)).value is True
    orphaned = cut_at_parallel_calls(_parallel_trace(walked_back=False))
    assert orphaned.value is True and "(p2)" in orphaned.explanation


def test_cut_at_parallel_calls_is_invalid_without_parallel_calls_or_when_the_cut_is_elsewhere() -> None:
    trace = _parallel_trace(walked_back=True)
    trace.calls[1]["response"]["tool_calls"] = [_fetch("p1", "DOC-002")]  # one call at a time: no group
    assert cut_at_parallel_calls(trace).value is False
    trace = _parallel_trace(walked_back=True)
    trace.calls[3]["message_keys"] = ["m6", "m1", "m2", "m3", "m4", "m5"]  # the cut fell before the single fetch
    score = cut_at_parallel_calls(trace)
    assert score.value is False and score.role == "validity" and "none of 1 cut(s)" in score.explanation


def _system_trace(*, kept: bool) -> Trace:
    """The case's rules as message 0 of the state; a summary at call 2 keeps them (``kept``) or slices them away."""
    messages = [
        SystemMessage(RULES),
        HumanMessage(PARALLEL_TASK),
        AIMessage("", tool_calls=[_fetch("c1", "DOC-001")]),
        ToolMessage("DOC-001 text", tool_call_id="c1"),
        summary_message("Step 1 done."),
    ]
    trace = Trace(case_id="boundary-system", kind="goal")
    trace.messages = {f"m{i}": d for i, d in enumerate(messages_to_dict(messages))}
    after = ["m0", "m4", "m2", "m3"] if kept else ["m4", "m2", "m3"]
    trace.calls = [_call(0, ["m0", "m1"]), _call(1, ["m0", "m1", "m2", "m3"]), _call(2, after), _call(3, after)]
    trace.events = [{"type": "summary", "call_index": 2, "turn": 0, "tokens_before": 900, "tokens_after": 300}]
    return trace


def _system_scores(trace: Trace) -> dict:
    scenario = Scenario(
        id="boundary-system", kind="goal", description="", task=PARALLEL_TASK, system_prompt=RULES, system_in_state=True
    )
    return scores_by_key(boundary_scores(trace, scenario))


def test_system_prompt_kept_passes_when_every_later_request_holds_it() -> None:
    scores = _system_scores(_system_trace(kept=True))
    assert scores["system_prompt_in_state"].value is True and scores["system_prompt_kept"].value is True
    assert scores["cut_made"].value is True


def test_system_prompt_kept_fails_when_the_cut_sliced_it_away() -> None:
    scores = _system_scores(_system_trace(kept=False))
    score = scores["system_prompt_kept"]
    assert score.value is False and score.role == "check"
    assert "2 of 2 request(s) from the summary at call 2 on (first: call 2)" in score.explanation
    assert "deer-flow#5454" in score.explanation


def test_system_prompt_in_state_is_invalid_when_the_state_opens_without_it() -> None:
    trace = _system_trace(kept=True)
    for call in trace.calls:
        call["message_keys"] = [k for k in call["message_keys"] if k != "m0"]
    scores = _system_scores(trace)
    assert scores["system_prompt_in_state"].value is False and scores["system_prompt_in_state"].role == "validity"


def test_cleared_tool_results_are_no_cut_and_the_system_case_is_invalid_under_them() -> None:
    trace = _system_trace(kept=False)
    trace.events = [{**trace.events[0], "type": "mask"}]  # every message in place: nothing was cut
    scores = _system_scores(trace)
    assert scores["cut_made"].value is False and scores["cut_made"].role == "validity"
    assert scores["system_prompt_kept"].value is True  # nothing to lose without a cut; the case is INVALID by cut_made


def test_only_the_keys_of_what_the_case_has_are_scored() -> None:
    plain = Scenario(id="x", kind="goal", description="", task=render_task("Review.", [Step(1, "reply")]))
    keys = set(scores_by_key(boundary_scores(_parallel_trace(walked_back=True), plain)))
    assert keys == {"compacted", "no_orphan_tool_results"}


def test_the_released_cutoff_leaves_an_orphan_when_the_results_at_the_cut_answer_two_messages_langchain_38352() -> None:
    """What langchain#38352 is, on the installed langchain (deepagents 0.7.32 calls the same helper): the cut lands on a
    run of results answering two assistant messages, the set intersection stops at the nearer one, and the farther
    one's result is kept without its call. One reply's parallel calls never make such a run (the boundary cases)."""
    from langchain.agents.middleware.summarization import SummarizationMiddleware

    from harness.tool_pairs import Orphan, orphans

    messages = [
        HumanMessage(PARALLEL_TASK),
        AIMessage("", tool_calls=[_fetch("a", "DOC-001")]),
        AIMessage("", tool_calls=[_fetch("b", "DOC-002")]),
        ToolMessage("DOC-001 text", tool_call_id="a"),
        ToolMessage("DOC-002 text", tool_call_id="b"),
    ]
    cut = SummarizationMiddleware._find_safe_cutoff_point(messages, 4)
    kept = messages[cut:]
    shape = [([c["id"] for c in getattr(m, "tool_calls", [])], getattr(m, "tool_call_id", None)) for m in kept]
    assert cut == 2 and orphans(shape) == [Orphan(1, "a")]
    one_reply = [messages[0], AIMessage("", tool_calls=[_fetch("a", "DOC-001"), _fetch("b", "DOC-002")]), *messages[3:]]
    assert SummarizationMiddleware._find_safe_cutoff_point(one_reply, 3) == 1  # back to the message that made both
