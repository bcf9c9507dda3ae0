"""The shared scores: a score's pass/fail reading, run_completed, compacted, and what counts as a clarification request."""

from __future__ import annotations

import pytest

from harness.scoring.scorers import (
    CHECK,
    MEASURE,
    VALIDITY,
    Score,
    compacted,
    is_clarification_request,
    run_completed,
)
from harness.task_format import COMPLETION_MARKER
from harness.trace.schema import Trace


# -- Score ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("role", [VALIDITY, CHECK])
def test_a_gating_score_passes_when_its_value_is_truthy(role):
    assert Score("k", True, role, "").passed is True
    assert Score("k", 3, role, "").passed is True
    assert Score("k", False, role, "").passed is False
    assert Score("k", 0, role, "").passed is False
    assert Score("k", None, role, "").passed is False


def test_a_measurement_neither_passes_nor_fails():
    assert Score("k", True, MEASURE, "").passed is None
    assert Score("k", 0, MEASURE, "").passed is None


def test_a_score_as_a_dict_has_its_four_fields():
    assert Score("compacted", 2, VALIDITY, "two events").to_dict() == {
        "key": "compacted",
        "value": 2,
        "role": VALIDITY,
        "explanation": "two events",
    }


# -- run_completed ----------------------------------------------------------------------------------------------------
def _trace(**kw) -> Trace:
    return Trace(case_id="c", kind="needle", **kw)


def test_a_session_turn_the_control_left_unfinished_too_is_not_the_arms_failure():
    """The continuation of a recorded session: the served reference agent (and a real model may) asks what to do with
    or without compaction; only a turn the full-context control finished counts against the arm."""
    asked = "I have lost track of the task. Could you restate what you would like me to do next?"
    turns = [{"index": 0, "text": "Continue the task."}, {"index": 1, "text": "Question: What is the code?"}]
    control = {"turns": ["Continue the task.", "Question: What is the code?"], "answers": [asked, "7731"]}
    excused = _trace(turns=turns, final={"error": None, "answers": [asked, "7731"], "control": control})
    assert run_completed(excused) == Score(
        "run_completed", True, CHECK, "all 2 turn(s) finished; 1 the full-context control left unfinished too are not counted"
    )
    finished = {**control, "answers": ["Done: the next step is the dry run.", "7731"]}
    lost = _trace(turns=turns, final={"error": None, "answers": [asked, "7731"], "control": finished})
    assert not run_completed(lost).value and "first turn 0" in run_completed(lost).explanation
    no_control = _trace(turns=turns, final={"error": None, "answers": [asked, "7731"]})
    assert not run_completed(no_control).value


def test_a_run_without_an_error_completed_all_its_turns():
    trace = _trace(turns=[{"index": 0}, {"index": 1}, {"index": 2}], final={"error": None})
    assert run_completed(trace) == Score("run_completed", True, CHECK, "all 3 turn(s) finished")


def test_a_run_that_raised_did_not_complete_and_names_the_error_and_turn():
    error = {"type": "ValueError", "message": "boom", "turn": 2}
    assert run_completed(_trace(final={"error": error})) == Score(
        "run_completed", False, CHECK, "the run raised ValueError in turn 2: boom"
    )


def test_a_provider_error_is_named_as_one_and_its_message_is_cut_at_300_characters():
    error = {"type": "RateLimitError", "message": "x" * 299 + "yz", "turn": 1, "provider_error": {"status": 429}}
    score = run_completed(_trace(final={"error": error}))
    assert score == Score("run_completed", False, CHECK, "a provider error RateLimitError in turn 1: " + "x" * 299 + "y")


def test_an_error_without_a_turn_says_turn_none():
    error = {"type": "KeyError", "message": "m"}
    assert run_completed(_trace(final={"error": error})).explanation == "the run raised KeyError in turn None: m"


# -- compacted --------------------------------------------------------------------------------------------------------
def _event(kind: str, turn: int, before: int, after: int) -> dict:
    return {"type": kind, "turn": turn, "tokens_before": before, "tokens_after": after, "call_index": 0}


def test_no_compaction_event_makes_the_case_invalid():
    trace = _trace(events=[_event("evict", 0, 10, 5)])  # an eviction does not shrink what the model is sent
    assert compacted(trace) == Score(
        "compacted",
        0,
        VALIDITY,
        "no compaction happened: the case is invalid, not passed (raise the trigger pressure or the haystack)",
    )


def test_compacted_counts_every_compaction_event_and_lists_their_token_drops():
    trace = _trace(events=[_event("summary", 0, 900, 200), _event("evict", 0, 1, 1), _event("mask", 1, 500, 300)])
    assert compacted(trace) == Score("compacted", 2, VALIDITY, "2 compaction event(s) (summary 900->200, mask 500->300)")


def test_compacted_lists_at_most_six_drops():
    trace = _trace(events=[_event("trim", t, 100 + t, t) for t in range(8)])
    score = compacted(trace)
    assert score.value == 8
    assert score.explanation == (
        "8 compaction event(s) (trim 100->0, trim 101->1, trim 102->2, trim 103->3, trim 104->4, trim 105->5)"
    )


def test_compacted_before_a_turn_counts_only_earlier_events():
    trace = _trace(events=[_event("summary", 0, 900, 200), _event("summary", 1, 800, 100), _event("summary", 2, 700, 90)])
    assert compacted(trace, before_turn=2) == Score(
        "compacted", 2, VALIDITY, "2 compaction event(s) before turn 2 (summary 900->200, summary 800->100)"
    )


def test_compaction_only_at_or_after_the_turn_is_none_before_it():
    trace = _trace(events=[_event("summary", 1, 900, 200)])
    score = compacted(trace, before_turn=1)
    assert score.value == 0
    assert score.explanation.startswith("no compaction happened before turn 1: the case is invalid")


def test_compacted_before_turn_zero_is_never():
    trace = _trace(events=[_event("summary", 0, 900, 200)])
    assert compacted(trace, before_turn=0).value == 0


# -- is_clarification_request -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Could you clarify the task.",
        "Please restate what you need.",
        "Remind me what the goal was.",
        "I lost track of the steps.",
        "Could you tell me the file name.",
        "could you share the path.",
        "Could you provide the id.",
        "Could you specify the batch.",
        "Could you confirm the order.",
        "What would you like me to do next.",
        "Which task do I do now.",
        "Which files should I read.",
        "Which step would come first.",
        "Please provide the document.",
        "PLEASE SPECIFY THE TARGET.",
        "Please confirm the plan.",
        "Shall I go on?",
        "Shall I go on?  \n",
    ],
)
def test_a_reply_asking_the_user_what_to_do_is_a_clarification_request(text):
    assert is_clarification_request(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "I read DOC-1 and wrote the report.",
        "The unclarified notes are done.",  # a word containing "clarify" is not the word
        "Could you not mind.",
        "Which task was hardest is noted.",
        "Is it done? Yes, it is done.",  # a question mark inside, not at the end
        "",
    ],
)
def test_a_reply_doing_the_work_is_not_a_clarification_request(text):
    assert is_clarification_request(text) is False


def test_a_completed_task_is_not_a_clarification_request_even_if_it_asks_something():
    assert is_clarification_request(f"{COMPLETION_MARKER}. Could you clarify what to do next?") is False
