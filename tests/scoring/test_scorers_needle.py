"""The needle scores of one needle: was it out of view when asked, was the reply right, and was it recovered from the
history file the summary named or by calling a cleared tool again; which recovery is the strategy's check."""

from __future__ import annotations

from typing import Any

import pytest

from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers import CHECK, MEASURE, VALIDITY, Score, needle_scores
from tests._traces import HISTORY, Conversation

ANSWER = "TANGO-7"
NEEDLE = Needle(key="vault code", answer=ANSWER, doc="DOC-1", depth=0.5, turn=1)
SCENARIO = Scenario(id="needle-1", kind="needle", description="", task="Review the archive.", needles=(NEEDLE,))
SUMMARY = "The archive review is under way: DOC-1 was read, DOC-2 is next."
QUESTION = "What was the vault code?"
NO_HISTORY_READ = "never called read_file on the history file the summary named"


def conversation(
    *,
    strategy: str = "deepagents-summarization",
    summary: str | None = SUMMARY,
    path: str | None = HISTORY,
    tools: list[Any] = (),  # type: ignore[assignment]
    reply: str | None = "The code is TANGO-7.",
) -> Conversation:
    """Turn 0 fetches DOC-1 (holding the needle), then ``summary`` (naming ``path``) replaces the history before the
    turn's answer; turn 1
    asks for the needle, the agent makes ``tools`` calls (one call each) and replies ``reply``."""
    conv = Conversation(strategy=strategy)
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, f"DOC-1: the vault code is {ANSWER}.")])
    if summary is not None:
        conv.summarize(summary, path)
    conv.answer("DOC-1 is read.")
    conv.user(QUESTION)
    for use in tools:
        conv.agent(tools=[use])
    if reply is not None:
        conv.answer(reply)
    return conv


def scores(conv: Conversation, scenario: Scenario = SCENARIO) -> dict[str, Score]:
    result = needle_scores(conv.trace(), scenario)
    assert len({s.key for s in result}) == len(result)
    return {s.key: s for s in result}


def read(result: str | None, path: str = HISTORY, **args: Any) -> tuple[str, dict[str, Any], str | None]:
    return ("read_file", {"file_path": path, **args}, result)


# -- the whole list ---------------------------------------------------------------------------------------------------
def test_a_needle_recovered_from_the_history_file_passes_every_score_in_order():
    result = needle_scores(conversation(tools=[read(f"... {ANSWER} ...")]).trace(), SCENARIO)
    assert [(s.key, s.value, s.role) for s in result] == [
        ("compacted", 1, VALIDITY),
        ("needle_summarized_away", True, VALIDITY),
        ("needle_correct", True, CHECK),
        ("needle_via_history", True, CHECK),
        ("history_pages_read", 1, MEASURE),
        ("needle_via_recall", False, MEASURE),
        ("needle_via_history_or_recall", True, MEASURE),
        ("needle_in_summary", False, MEASURE),
    ]


def test_compacted_counts_only_compaction_before_the_question():
    assert scores(conversation(summary=None))["compacted"].value == 0
    conv = Conversation()
    conv.user("Review the archive.")
    conv.answer("ok")
    conv.summarize(SUMMARY)  # first sent in the question's turn
    conv.user(QUESTION)
    conv.answer(ANSWER)
    s = scores(conv)
    assert s["compacted"].value == 0
    assert s["compacted"].explanation.startswith("no compaction happened before turn 1")


# -- needle_summarized_away -------------------------------------------------------------------------------------------
def test_a_needle_out_of_the_first_request_of_its_turn_was_summarized_away():
    s = scores(conversation())
    assert s["needle_summarized_away"] == Score(
        "needle_summarized_away", True, VALIDITY, "the needle was out of view when the question came"
    )


def test_a_needle_still_in_view_makes_the_case_invalid_whatever_its_case():
    s = scores(conversation(summary=None))  # nothing summarized: DOC-1's result is in the request
    assert s["needle_summarized_away"] == Score(
        "needle_summarized_away",
        False,
        VALIDITY,
        "the needle was still in the agent's view when the question came (invalid: tests recall, not recovery)",
    )
    s = scores(conversation(summary="The vault code is tango-7; the review of DOC-2 is next."))
    assert s["needle_summarized_away"].value is False


def test_a_needle_seen_only_after_the_first_request_of_its_turn_was_still_summarized_away():
    s = scores(conversation(tools=[read(f"... {ANSWER} ...")]))  # the second request holds the page with it
    assert s["needle_summarized_away"].value is True


def test_no_agent_call_in_the_needle_turn_is_not_summarized_away():
    s = scores(conversation(reply=None))
    assert s["needle_summarized_away"] == Score("needle_summarized_away", False, VALIDITY, "no agent call in turn 1")


# -- needle_correct ---------------------------------------------------------------------------------------------------
def test_a_reply_carrying_the_answer_is_correct_and_quoted():
    s = scores(conversation(reply="the code is tango-7"))
    assert s["needle_correct"] == Score(
        "needle_correct",
        True,
        CHECK,
        "expected 'TANGO-7'; read 'TANGO-7' (the one value named and not set aside: 'TANGO-7') from 'the code is tango-7'",
    )


def test_a_reply_without_the_answer_is_wrong_and_quoted_up_to_160_characters():
    reply = "I do not know. " + "z" * 200
    s = scores(conversation(reply=reply))
    assert s["needle_correct"] == Score(
        "needle_correct", False, CHECK, f"expected 'TANGO-7'; read None (a refusal: no value named) from {reply[:160]!r}"
    )


def test_no_reply_is_wrong():
    s = scores(conversation(reply=None))
    assert s["needle_correct"] == Score("needle_correct", False, CHECK, "expected 'TANGO-7'; read None (no value named) from ''")


# -- needle_via_history -----------------------------------------------------------------------------------------------
def test_a_page_of_the_history_file_with_the_needle_and_a_correct_reply_is_via_history():
    conv = conversation(tools=[read("nothing here", offset=0), read(f"... {ANSWER.lower()} ...", offset=200, limit=100)])
    s = scores(conv)
    assert s["needle_via_history"] == Score(
        "needle_via_history",
        True,
        CHECK,
        f"read_file on {HISTORY} (offset 200) returned the needle after 2 page(s)",
    )
    assert s["history_pages_read"] == Score("history_pages_read", 2, MEASURE, "read_file calls on the history file in turn 1")


def test_a_read_without_an_offset_is_at_offset_zero():
    s = scores(conversation(tools=[read(f"... {ANSWER} ...")]))
    assert s["needle_via_history"].explanation == f"read_file on {HISTORY} (offset 0) returned the needle after 1 page(s)"


def test_the_needle_read_but_not_in_the_reply_is_not_via_history():
    s = scores(conversation(tools=[read(f"... {ANSWER} ...")], reply="I could not find it."))
    assert s["needle_via_history"] == Score(
        "needle_via_history", False, CHECK, f"read_file on {HISTORY} returned the needle, but the reply did not carry it"
    )


def test_pages_of_the_history_file_without_the_needle_are_not_via_history():
    s = scores(conversation(tools=[read("page one"), read("page two"), read("page three")]))
    assert s["needle_via_history"] == Score(
        "needle_via_history", False, CHECK, "read 3 page(s) of the history file but none contained the needle"
    )
    assert s["history_pages_read"].value == 3


def test_a_correct_reply_without_reading_the_history_file_is_not_via_history():
    s = scores(conversation())
    assert s["needle_via_history"] == Score("needle_via_history", False, CHECK, NO_HISTORY_READ)
    assert s["history_pages_read"].value == 0


def test_only_read_file_calls_on_the_named_history_file_count():
    other = "/conversation_history/other.md"
    tools = [
        read(f"... {ANSWER} ...", path=other),
        ("fetch_document", {"file_path": HISTORY}, f"... {ANSWER} ..."),
        ("ls", {"path": "/"}, "files"),
    ]
    s = scores(conversation(tools=tools))
    assert s["needle_via_history"] == Score("needle_via_history", False, CHECK, NO_HISTORY_READ)
    assert s["history_pages_read"].value == 0


def test_a_read_of_the_history_file_that_got_no_result_did_not_return_the_needle():
    s = scores(conversation(tools=[read(None)]))
    assert s["needle_via_history"].explanation == "read 1 page(s) of the history file but none contained the needle"


def test_without_a_summary_naming_a_history_file_nothing_is_via_history():
    s = scores(conversation(path=None, tools=[read(f"... {ANSWER} ...")]))
    assert s["needle_via_history"] == Score("needle_via_history", False, CHECK, "no summary in view named a history file")
    assert s["history_pages_read"].value == 0
    s = scores(conversation(summary=None, tools=[read(f"... {ANSWER} ...")]))
    assert s["needle_via_history"].explanation == "no summary in view named a history file"


def test_a_history_file_named_only_in_an_earlier_turn_is_not_in_view():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, f"DOC-1: the vault code is {ANSWER}.")])
    conv.summarize(SUMMARY)
    conv.agent()  # turn 0 sees the summary naming the history file
    conv.answer("done")
    conv.head = None  # turn 1's requests start from the plain history again
    conv.cutoff = len(conv.history)
    conv.user(QUESTION)
    conv.agent(tools=[read(f"... {ANSWER} ...")])
    conv.answer("The code is TANGO-7.")
    s = scores(conv)
    assert s["needle_via_history"].explanation == "no summary in view named a history file"


# -- needle_via_recall ------------------------------------------------------------------------------------------------
def fetch(result: str | None, doc_id: str = "DOC-1") -> tuple[str, dict[str, Any], str | None]:
    return ("fetch_document", {"doc_id": doc_id}, result)


def test_the_same_call_made_again_returning_the_needle_and_a_correct_reply_is_via_recall():
    s = scores(conversation(strategy="observation-masking", summary=None, tools=[fetch("other"), fetch(f"code {ANSWER}")]))
    assert s["needle_via_recall"] == Score(
        "needle_via_recall", True, CHECK, "fetch_document called again (2 repeated call(s)) returned the needle"
    )
    assert s["needle_via_history_or_recall"] == Score(
        "needle_via_history_or_recall", True, MEASURE, "recovered by calling a cleared tool again"
    )


@pytest.mark.parametrize(
    ("before", "again"),
    [
        ({"query": "vault", "limit": 5}, {"limit": 5, "query": "vault"}),
        ({"limit": 5, "query": "vault"}, {"query": "vault", "limit": 5}),
    ],
)
def test_a_call_is_repeated_when_its_name_and_arguments_match_whatever_their_order(before, again):
    conv = Conversation(strategy="observation-masking")
    conv.user("Review the archive.")
    conv.agent(tools=[("search", before, "hits")])
    conv.answer("ok")
    conv.user(QUESTION)
    conv.agent(tools=[("search", again, f"hit: {ANSWER}"), ("search", {"query": "vault"}, ANSWER)])
    conv.answer("TANGO-7")
    assert scores(conv)["needle_via_recall"].explanation == ("search called again (1 repeated call(s)) returned the needle")


def test_a_call_that_got_no_result_returned_nothing_even_for_a_one_letter_answer():
    needle = Needle(key="drawer", answer="X", doc="DOC-1", depth=0.5, turn=1)
    scenario = Scenario(id="n", kind="needle", description="", task="t", needles=(needle,))
    conv = conversation(tools=[read(None), fetch(None)], reply="The drawer is X.")
    s = scores(conv, scenario)
    assert s["needle_via_history"].explanation == "read 1 page(s) of the history file but none contained the needle"
    assert s["needle_via_recall"].explanation == "1 earlier call(s) made again, none returned the needle"


def test_the_needle_recalled_but_not_in_the_reply_is_not_via_recall():
    s = scores(conversation(summary=None, tools=[fetch(f"code {ANSWER}")], reply="No idea."))
    assert s["needle_via_recall"] == Score(
        "needle_via_recall", False, MEASURE, "fetch_document called again returned the needle, but the reply did not carry it"
    )


def test_repeated_calls_without_the_needle_are_not_via_recall():
    s = scores(conversation(summary=None, tools=[fetch("cleared"), fetch(None)]))
    assert s["needle_via_recall"] == Score(
        "needle_via_recall", False, MEASURE, "2 earlier call(s) made again, none returned the needle"
    )


def test_new_calls_only_are_not_via_recall():
    s = scores(conversation(summary=None, tools=[fetch(f"code {ANSWER}", doc_id="DOC-2")]))
    assert s["needle_via_recall"] == Score("needle_via_recall", False, MEASURE, "no earlier tool call was made again")


def test_a_call_repeated_within_the_question_turn_only_is_not_a_recall():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.answer("ok")
    conv.user(QUESTION)
    conv.agent(tools=[fetch(f"code {ANSWER}", doc_id="DOC-9")])
    conv.agent(tools=[fetch(f"code {ANSWER}", doc_id="DOC-9")])
    conv.answer(ANSWER)
    assert scores(conv)["needle_via_recall"].explanation == "no earlier tool call was made again"


def test_calls_of_any_earlier_turn_can_be_repeated():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[fetch("doc one")])
    conv.answer("ok")
    conv.user("Go on.")
    conv.agent(tools=[fetch("doc two", doc_id="DOC-2")])
    conv.answer("ok")
    conv.user(QUESTION)
    conv.agent(tools=[fetch(ANSWER), fetch("x", doc_id="DOC-2")])
    conv.answer(ANSWER)
    scenario = Scenario(id="n", kind="needle", description="", task="t", needles=(Needle("k", ANSWER, "DOC-1", 0.5, 2),))
    assert scores(conv, scenario)["needle_via_recall"].explanation == (
        "fetch_document called again (2 repeated call(s)) returned the needle"
    )


# -- needle_via_history_or_recall -------------------------------------------------------------------------------------
def test_history_recovery_is_named_first_when_both_recoveries_happened():
    s = scores(conversation(strategy="hybrid", tools=[read(ANSWER), fetch(ANSWER)]))
    assert s["needle_via_history"].value is True and s["needle_via_recall"].value is True
    assert s["needle_via_history_or_recall"] == Score(
        "needle_via_history_or_recall", True, CHECK, "recovered from the history file"
    )


def test_history_recovery_alone_is_a_recovery():
    s = scores(conversation(strategy="hybrid", tools=[read(ANSWER)]))
    assert s["needle_via_history_or_recall"] == Score(
        "needle_via_history_or_recall", True, CHECK, "recovered from the history file"
    )


def test_no_recovery_either_way():
    s = scores(conversation(strategy="hybrid", tools=[read("nothing"), fetch("cleared")]))
    assert s["needle_via_history_or_recall"] == Score(
        "needle_via_history_or_recall", False, CHECK, "not recovered from the history file nor by calling a tool again"
    )


# -- which recovery is the check --------------------------------------------------------------------------------------
def _roles(conv: Conversation) -> tuple[str, str, str]:
    s = scores(conv)
    return s["needle_via_history"].role, s["needle_via_recall"].role, s["needle_via_history_or_recall"].role


def test_the_strategy_recovery_check_is_a_check_and_the_other_recoveries_are_measurements():
    assert _roles(conversation(strategy="deepagents-summarization")) == (CHECK, MEASURE, MEASURE)
    assert _roles(conversation(strategy="observation-masking")) == (MEASURE, CHECK, MEASURE)
    assert _roles(conversation(strategy="hybrid")) == (MEASURE, MEASURE, CHECK)
    assert _roles(conversation(strategy="sliding-window")) == (MEASURE, MEASURE, MEASURE)


def test_an_unknown_strategy_has_no_recovery_check():
    assert _roles(conversation(strategy="not-a-strategy")) == (MEASURE, MEASURE, MEASURE)


def test_a_trace_without_a_strategy_is_deepagents_summarization():
    conv = conversation()
    del conv.config["strategy"]
    trace = conv.trace()
    assert trace.config == {}
    s = {x.key: x for x in needle_scores(trace, SCENARIO)}
    assert (s["needle_via_history"].role, s["needle_via_recall"].role) == (CHECK, MEASURE)


# -- needle_in_summary ------------------------------------------------------------------------------------------------
def test_a_summary_quoting_the_needle_in_any_case_is_measured():
    s = scores(conversation(summary="The vault code is tango-7; DOC-2 is next in the review."))
    assert s["needle_in_summary"] == Score("needle_in_summary", True, MEASURE, "a summary quoted the needle")


def test_a_summary_not_quoting_the_needle_is_measured():
    assert scores(conversation())["needle_in_summary"] == Score(
        "needle_in_summary", False, MEASURE, "no summary quoted the needle"
    )


def test_any_summary_of_the_run_quoting_the_needle_counts():
    conv = conversation(summary="The vault code is TANGO-7 and DOC-2 is the next document.")
    conv.summarize("A later summary of the review, without the code in it at all.")
    conv.agent()
    assert scores(conv)["needle_in_summary"].value is True


def test_a_reply_naming_the_answer_only_to_negate_it_is_not_correct():
    """needle_correct reads the answer (`harness.answers`), never a substring: the value set aside is no answer."""
    s = scores(conversation(reply="It is not TANGO-7; I don't know the current code."))
    assert s["needle_correct"].value is False
    assert scores(conversation(reply="The code was changed from KILO-1 to TANGO-7."))["needle_correct"].value is True


def test_a_history_file_whose_every_read_is_refused_is_named_unreadable_through_the_agents_backend():
    """A backend that routes /conversation_history/ where read_file cannot read it back (a user's assembly, `--agent`):
    the check fails, and says why rather than "none contained the needle"."""
    refused = f"Error: {HISTORY} is in a write-only archive (no read access)"
    s = scores(conversation(tools=[read(refused), read(refused, offset=100)], reply="I do not know."))
    assert s["needle_via_history"] == Score(
        "needle_via_history",
        False,
        CHECK,
        f"the history file {HISTORY} is not readable through the agent's backend: read_file returned {refused!r} "
        "(2 read(s), every one refused)",
    )
    s = scores(conversation(tools=[read(refused), read("page two")], reply="I do not know."))  # one page came back
    assert s["needle_via_history"].explanation == "read 2 page(s) of the history file but none contained the needle"
