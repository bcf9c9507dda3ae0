"""The parent eval's scorers (`harness.scoring.scorers.parent`) over hand-built traces: each check passes on the
healthy shape and fails on the bad one it exists for (an orphan report, a report never seen, an empty one, a subagent
request above its window), and each validity score makes a case that did not test its claim invalid."""

from __future__ import annotations

from typing import Any

from harness.compaction.config import SUBAGENT_WINDOW
from harness.scenarios.schema import ExpectedStep, Scenario
from harness.scoring.scorers import CHECK, MEASURE, VALIDITY, Score, scores_by_key
from harness.scoring.scorers.parent import parent_scores, report_seen
from harness.trace.schema import Trace

CASE = Scenario(
    id="parent-1",
    kind="goal",
    description="a parent that delegates",
    task="Delegate the batch.",
    expected_steps=(ExpectedStep("task", "DOC-001..DOC-002"),),
)
BRIEF = "Delegated batch DOC-001..DOC-002: fetch and review these documents, then report back."
REPORT = "TASK COMPLETE. I finished all 3 steps."


def _ai(*calls: tuple[str, str]) -> dict[str, Any]:
    tool_calls = [{"name": "task", "args": {"description": BRIEF}, "id": i} for i, _ in calls]
    return {"type": "ai", "data": {"content": "", "tool_calls": tool_calls}}


def _tool(call_id: str, text: str = REPORT) -> dict[str, Any]:
    return {"type": "tool", "data": {"content": text, "tool_call_id": call_id}}


MESSAGES = {
    "task": {"type": "human", "data": {"content": "Delegate the batch."}},
    "call": _ai(("t1", BRIEF)),
    "report": _tool("t1"),
    "summary": {"type": "human", "data": {"content": "summary", "additional_kwargs": {"lc_source": "summarization"}}},
}


def request(tokens: int, seen: int, *, summary: bool = False, overflow: bool = False, window: int = SUBAGENT_WINDOW) -> dict:
    return {
        "turn": 0,
        "approx_tokens": tokens,
        "conversation_tokens": seen,
        "window": window,
        "summary_at_head": summary,
        "error": "ContextOverflowError: too long" if overflow else None,
        "context_overflow": overflow,
    }


HEALTHY_SUBAGENT = [
    request(3_000, 3_000),
    request(8_400, 8_400),
    request(5_100, 10_400, summary=True),
    request(7_300, 18_300, summary=True),
]


def trace(
    second: list[str],
    *,
    messages: dict[str, dict[str, Any]] | None = None,
    summary_at: int | None = 1,
    subagent: list[dict] | None = None,
    third: list[str] | None = None,
) -> Trace:
    """The parent's first call delegates (task t1); its second is sent ``second`` (message keys), a summary event at
    ``summary_at``; ``third``: a further call's keys."""
    calls = [
        {
            "index": 0,
            "role": "agent",
            "turn": 0,
            "message_keys": ["task"],
            "response": {"text": "", "tool_calls": _ai(("t1", ""))["data"]["tool_calls"]},
        },
        {"index": 1, "role": "agent", "turn": 0, "message_keys": second, "response": {"text": "TASK COMPLETE", "tool_calls": []}},
    ]
    if third is not None:
        calls.append({"index": 2, "role": "agent", "turn": 0, "message_keys": third, "response": {"text": "", "tool_calls": []}})
    events = [{"type": "summary", "call_index": summary_at, "turn": 0}] if summary_at is not None else []
    return Trace(
        case_id="parent-1",
        kind="goal",
        config={"strategy": "deepagents-summarization", "window": 64_000},
        calls=calls,
        events=events,
        messages=dict(messages or MESSAGES),
        final={
            "answers": ["TASK COMPLETE"],
            "error": None,
            "subagent_requests": HEALTHY_SUBAGENT if subagent is None else subagent,
        },
    )


def test_a_report_kept_with_its_call_on_the_compacting_call_passes_and_every_score_says_why():
    scores = scores_by_key(parent_scores(trace(["summary", "call", "report"]), CASE))
    assert scores["parent_compacted_at_task"] == Score(
        "parent_compacted_at_task",
        True,
        VALIDITY,
        "the parent summarized at call 1, the first after task DOC-001..DOC-002's report arrived",
    )
    assert scores["task_result_kept"] == Score(
        "task_result_kept", True, CHECK, "1/1 task report(s) reached the parent's next request paired with their call"
    )
    assert scores["tasks_redone"] == Score(
        "tasks_redone", 0, MEASURE, "0 task call(s) delegated a batch already delegated before"
    )
    assert scores["subagent_outgrew_window"] == Score(
        "subagent_outgrew_window",
        True,
        VALIDITY,
        "the subagent was sent 18,300 approximate tokens in all, against its window of 16,000 and its parent's of 64,000; "
        "2 of its 4 requests headed by a summary",
    )
    assert scores["subagent_window_respected"] == Score(
        "subagent_window_respected",
        True,
        CHECK,
        "all 4 subagent requests within its 16,000-token window (the largest 8,400 approximate tokens)",
    )
    assert scores["subagent_peak_share"] == Score(
        "subagent_peak_share", 0.525, MEASURE, "the subagent's largest request as a share of its 16,000-token window"
    )


def test_a_report_sent_without_its_call_is_an_orphan_and_fails():
    assert report_seen(trace(["summary", "report"]), "t1") == ([], [1])
    scores = scores_by_key(parent_scores(trace(["summary", "report"]), CASE))
    assert scores["task_result_kept"] == Score(
        "task_result_kept",
        False,
        CHECK,
        "0/1 task report(s) reached the parent's next request paired with their call; task DOC-001..DOC-002's report was sent "
        "without its call at call 1 (an orphan result)",
    )


def test_a_call_after_its_report_does_not_pair_it():
    assert report_seen(trace(["summary", "report", "call"]), "t1") == ([], [1])


def test_a_report_the_parents_model_never_saw_fails():
    scores = scores_by_key(parent_scores(trace(["summary"], third=["summary"]), CASE))
    assert scores["task_result_kept"].value is False
    assert scores["task_result_kept"].explanation.endswith(
        "task DOC-001..DOC-002's report was not in the parent's next request (call 1): summarized away or dropped unseen, "
        "never sent"
    )
    assert scores["parent_compacted_at_task"].value is True  # the case was valid: the finding is the lost report


def test_a_report_missing_from_the_request_it_arrived_for_fails_even_when_a_later_one_holds_it():
    scores = scores_by_key(parent_scores(trace(["summary"], third=["summary", "call", "report"]), CASE))
    assert scores["task_result_kept"].value is False
    assert scores["task_result_kept"].explanation.endswith(
        "task DOC-001..DOC-002's report was not in the parent's next request (call 1): summarized away or dropped unseen, "
        "first sent at call 2"
    )


def test_a_report_that_arrives_after_the_parents_last_call_fails():
    last = trace(["summary", "call", "report"])
    last.calls = last.calls[:1]
    scores = scores_by_key(parent_scores(last, CASE))
    assert scores["task_result_kept"].value is False
    assert scores["task_result_kept"].explanation.endswith("task DOC-001..DOC-002's report arrived after the parent's last call")


def test_an_empty_report_fails_even_when_paired():
    messages = {**MESSAGES, "report": _tool("t1", "  ")}
    scores = scores_by_key(parent_scores(trace(["summary", "call", "report"], messages=messages), CASE))
    assert scores["task_result_kept"].value is False
    assert scores["task_result_kept"].explanation.endswith("task DOC-001..DOC-002's report reached the parent's model empty")


def test_no_task_call_fails_the_check_and_invalidates_the_case():
    plain = trace(["summary"])
    plain.calls[0]["response"] = {"text": "", "tool_calls": []}
    scores = scores_by_key(parent_scores(plain, CASE))
    assert scores["task_result_kept"] == Score(
        "task_result_kept",
        False,
        CHECK,
        "0/0 task report(s) reached the parent's next request paired with their call: no task call",
    )
    assert scores["parent_compacted_at_task"].value is False


def test_a_summary_that_does_not_come_on_the_call_after_the_report_makes_the_case_invalid():
    for at in (None, 0, 2):
        scores = scores_by_key(
            parent_scores(trace(["task", "call", "report"], summary_at=at, third=["summary", "call", "report"]), CASE)
        )
        assert scores["parent_compacted_at_task"] == Score(
            "parent_compacted_at_task",
            False,
            VALIDITY,
            "1 task call(s), none followed by a summary on the parent's next call: the case is invalid",
        ), at


def test_a_subagent_request_above_its_window_fails_naming_the_window_its_model_declared_and_the_refusals():
    over = [
        request(3_000, 3_000, window=64_000),
        request(16_300, 16_300, window=64_000, overflow=True),
        request(6_000, 18_300, summary=True, window=64_000),
    ]
    scores = scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=over), CASE))
    assert scores["subagent_window_respected"] == Score(
        "subagent_window_respected",
        False,
        CHECK,
        "1 of 3 subagent requests above its 16,000-token window, the largest 16,300 approximate tokens (its model "
        "declared 64,000); 1 refused as too long",
    )
    assert scores["subagent_outgrew_window"].value is True  # still a valid case: the finding is the oversize request


def test_one_token_over_the_window_fails_and_the_window_itself_passes():
    at = [request(SUBAGENT_WINDOW, 18_000, summary=True)]
    over = [request(SUBAGENT_WINDOW + 1, 18_000, summary=True)]
    assert (
        scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=at), CASE))["subagent_window_respected"].value
        is True
    )
    assert (
        scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=over), CASE))["subagent_window_respected"].value
        is False
    )


def test_a_subagent_whose_work_fits_its_window_or_outgrew_its_parents_too_makes_the_case_invalid():
    for subagent in (
        [request(3_000, 3_000), request(9_000, 12_000, summary=True)],  # fits its window
        [request(3_000, 3_000), request(9_000, SUBAGENT_WINDOW, summary=True)],  # exactly its window: it fits
        [request(3_000, 3_000), request(15_000, 70_000, summary=True)],  # outgrew the parent's window too
        [request(3_000, 3_000), request(15_000, 64_000, summary=True)],  # exactly the parent's
    ):
        scores = scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=subagent), CASE))
        assert scores["subagent_outgrew_window"].value is False, subagent
        assert scores["subagent_outgrew_window"].explanation.endswith(
            ": the case is invalid (its work must outgrow its window, not its parent's)"
        )


def test_a_subagent_that_outgrew_its_window_without_compacting_is_a_valid_case_that_fails():
    never = [request(3_000, 3_000, window=64_000), request(18_000, 18_000, window=64_000)]
    scores = scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=never), CASE))
    assert scores["subagent_outgrew_window"] == Score(
        "subagent_outgrew_window",
        True,
        VALIDITY,
        "the subagent was sent 18,000 approximate tokens in all, against its window of 16,000 and its parent's of 64,000; "
        "0 of its 2 requests headed by a summary",
    )
    assert scores["subagent_window_respected"].value is False


def test_no_subagent_request_recorded_fails_the_check_and_invalidates_the_case():
    scores = scores_by_key(parent_scores(trace(["summary", "call", "report"], subagent=[]), CASE))
    assert scores["subagent_window_respected"] == Score("subagent_window_respected", False, CHECK, "no subagent request recorded")
    assert scores["subagent_outgrew_window"].value is False


def test_a_batch_delegated_again_is_counted():
    again = trace(["summary", "call", "report"])
    again.calls[1]["response"] = {"text": "", "tool_calls": [{"name": "task", "args": {"description": BRIEF}, "id": "t2"}]}
    scores = scores_by_key(parent_scores(again, CASE))
    assert scores["tasks_redone"] == Score(
        "tasks_redone", 1, MEASURE, "1 task call(s) delegated a batch already delegated before"
    )
