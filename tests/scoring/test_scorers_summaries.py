"""Summaries the agent was given: what makes one unusable, how summarizer calls group into attempts, and summaries_ok
(a request that recovered on a retry is OK, one whose last attempt failed is not)."""

from __future__ import annotations

import pytest

from harness.scoring.scorers import CHECK, MIN_SUMMARY_CHARS, Score, summaries_ok, summarizer_attempts, summary_defects
from harness.trace.schema import Trace
from tests._traces import Conversation

GOOD = "The archive review is under way: DOC-1 and DOC-2 were read, DOC-3 is next."


# -- summary_defects --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_a_blank_summary_is_empty(text):
    assert summary_defects(text) == ["empty summary"]


@pytest.mark.parametrize(
    "text",
    [
        "Sorry, that is more than I can summarize here.",
        "I can't summarize this conversation for you today.",
        "I cannot summarize this conversation for you today at all.",
        "i cannot do it.",
        "The model was unable to produce a summary of this run.",
        "As an AI language model I will not summarize that, friend.",
        "SORRY",
    ],
)
def test_a_short_refusal_has_no_summary_in_it(text):
    assert summary_defects(text) == [f"no summary in it (a refusal: {text[:80]!r})"]


def test_a_refusal_is_quoted_stripped_and_cut_at_80_characters():
    text = "  Sorry, " + "x" * 100 + "  "
    assert summary_defects(text) == [f"no summary in it (a refusal: {('Sorry, ' + 'x' * 73)!r})"]


def test_a_long_summary_mentioning_an_apology_is_still_a_summary():
    text = "The user said sorry for the delay. " + "x" * (400 - 35)
    assert len(text) == 400
    assert summary_defects(text) == []
    assert summary_defects(text[:399]) == [f"no summary in it (a refusal: {text[:80]!r})"]


@pytest.mark.parametrize(
    "text",
    [
        "The sorrynotsorry tag was read from DOC-1 and stored.",  # the word, not a part of one
        "The agent was unable tomorrow-proof the plan, DOC-1 read.",
        "The canister inventory was read from DOC-1 and stored.",
    ],
)
def test_words_containing_a_refusal_word_are_not_a_refusal(text):
    assert summary_defects(text) == []


def test_a_summary_under_the_minimum_length_is_too_short():
    assert MIN_SUMMARY_CHARS == 40
    assert summary_defects("x" * 39) == ["too short to carry the work (39 characters)"]
    assert summary_defects("  " + "x" * 39 + "\n") == ["too short to carry the work (39 characters)"]
    assert summary_defects("x" * 40) == []


# -- summarizer_attempts ----------------------------------------------------------------------------------------------
def _calls(*roles: str) -> Trace:
    return Trace(case_id="c", kind="needle", calls=[{"index": i, "role": r} for i, r in enumerate(roles)])


def test_consecutive_summarizer_calls_are_one_attempt_and_an_agent_call_separates_attempts():
    trace = _calls("summarizer", "summarizer", "agent", "summarizer", "agent", "agent", "summarizer", "summarizer", "summarizer")
    groups = summarizer_attempts(trace)
    assert [[c["index"] for c in g] for g in groups] == [[0, 1], [3], [6, 7, 8]]


def test_no_summarizer_call_is_no_attempt():
    assert summarizer_attempts(_calls("agent", "agent")) == []
    assert summarizer_attempts(_calls()) == []


# -- summaries_ok -----------------------------------------------------------------------------------------------------
def _conversation() -> Conversation:
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "DOC-1 text")])
    return conv


def test_no_summary_is_ok():
    conv = _conversation()
    conv.answer("done")
    assert summaries_ok(conv.trace()) == Score("summaries_ok", True, CHECK, "0 summaries, none empty, refused or failed")


def test_one_good_summary_is_ok():
    conv = _conversation()
    conv.summarize(GOOD)
    conv.answer("done")
    assert summaries_ok(conv.trace()) == Score("summaries_ok", True, CHECK, "1 summary, none empty, refused or failed")


def test_a_request_that_failed_then_succeeded_is_ok_and_says_it_recovered():
    conv = _conversation()
    conv.summarize(GOOD, attempts=[TimeoutError("slow"), ValueError("bad")])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, "DOC-2 text")])
    conv.summarize(GOOD + " DOC-2 done.")
    conv.agent()
    conv.summarize(GOOD + " DOC-3 done.", attempts=[KeyError("k")])
    conv.answer("done")
    assert summaries_ok(conv.trace()) == Score(
        "summaries_ok",
        True,
        CHECK,
        "3 summaries, none empty, refused or failed; "
        "2 request(s) recovered after 3 attempts (TimeoutError), recovered after 2 attempts (KeyError)",
    )


def test_at_most_three_recoveries_are_named():
    conv = _conversation()
    for n in range(4):
        conv.summarize(f"{GOOD} round {n}", attempts=[ValueError(str(n))] * (n + 1))
        conv.agent()
    assert summaries_ok(conv.trace()).explanation == (
        "4 summaries, none empty, refused or failed; 4 request(s) recovered after 2 attempts (ValueError), "
        "recovered after 3 attempts (ValueError), recovered after 4 attempts (ValueError)"
    )


def test_a_request_whose_last_attempt_failed_fails_naming_the_count_and_the_last_error():
    conv = _conversation()
    conv.summarizer_call(error=TimeoutError("first"))
    conv.summarizer_call(error=RuntimeError("second " + "e" * 200))
    conv.answer("done")
    assert summaries_ok(conv.trace()) == Score(
        "summaries_ok",
        False,
        CHECK,
        "degraded summarization: 2 summarizer call(s) failed, last with RuntimeError: " + ("second " + "e" * 200)[:120],
    )


def test_a_failed_attempt_counts_only_the_failed_calls_of_its_group():
    conv = _conversation()
    conv.summarizer_call(error=TimeoutError("first"))
    conv.summarizer_call(reply="partial")
    conv.summarizer_call(error=ValueError("last"))
    conv.answer("done")
    assert summaries_ok(conv.trace()).explanation == (
        "degraded summarization: 2 summarizer call(s) failed, last with ValueError: last"
    )


def test_an_unusable_summary_given_to_the_agent_fails_naming_its_call():
    conv = _conversation()
    conv.summarize("Sorry, I cannot.")
    call = conv.agent()
    conv.summarize("   ")
    last = conv.answer("done")
    assert summaries_ok(conv.trace()) == Score(
        "summaries_ok",
        False,
        CHECK,
        f"degraded summarization: call {call['index']}: no summary in it (a refusal: 'Sorry, I cannot.'); "
        f"call {last['index']}: empty summary",
    )


def test_at_most_three_problems_are_named():
    conv = _conversation()
    conv.summarizer_call(error=ValueError("a"))
    conv.agent()
    conv.summarizer_call(error=ValueError("b"))
    conv.agent()
    conv.summarizer_call(error=ValueError("c"))
    conv.agent()
    conv.summarizer_call(error=ValueError("d"))
    conv.answer("done")
    assert summaries_ok(conv.trace()).explanation == (
        "degraded summarization: 1 summarizer call(s) failed, last with ValueError: a; "
        "1 summarizer call(s) failed, last with ValueError: b; 1 summarizer call(s) failed, last with ValueError: c"
    )


def test_the_summary_is_read_inside_deepagents_message_not_the_message_around_it():
    # the message around a short summary is long; only the summarizer's own text is judged
    conv = _conversation()
    conv.summarize("Only this.")
    call = conv.agent()
    assert summaries_ok(conv.trace()).explanation == (
        f"degraded summarization: call {call['index']}: too short to carry the work (10 characters)"
    )


def test_a_native_compaction_that_returned_no_summary_fails_naming_the_call():
    conv = _conversation()
    call = conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, "DOC-2 text")])
    conv.answer("done")
    assert summaries_ok(conv.trace()).value is True
    call["native_compaction_failed"] = "anthropic"  # what the recorder marks for a null compaction block
    assert summaries_ok(conv.trace()) == Score(
        "summaries_ok",
        False,
        CHECK,
        f"degraded summarization: call {call['index']}: the anthropic compaction returned no summary",
    )
