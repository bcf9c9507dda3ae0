"""Several needles scored as one (a check holds only for every needle, counts are summed, the first failing needle is
named), the chain's validity (enough summaries before the question), and which tool calls succeeded on what."""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers import (
    CHECK,
    MEASURE,
    VALIDITY,
    Score,
    chain_length_reached,
    needle_scores,
)
from harness.scoring.scorers.shared import _succeeded, _target
from harness.trace.schema import Trace
from tests._traces import HISTORY, Conversation

CODES = ("TANGO-7", "KILO-42")


def scenario(*turns: int, min_summaries: int = 1) -> Scenario:
    needles = tuple(Needle(f"code {i}", CODES[i], f"DOC-{i}", 0.5, t) for i, t in enumerate(turns))
    return Scenario(id="multi", kind="needle", description="", task="t", needles=needles, min_summaries=min_summaries)


def two_needles(
    strategy: str = "deepagents-summarization",
    pages: tuple[list[str], list[str]] = ([], []),
    replies: tuple[str, str] = CODES,
    summary: str = "The archive review is under way: both documents were read.",
) -> Conversation:
    """Both needles fetched in turn 0 and summarized away; turn 1 asks for the first, turn 2 for the second, each
    answered after reading ``pages`` of the history file (no page read twice)."""
    conv = Conversation(strategy=strategy)
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": f"DOC-{i}"}, f"code {i} is {code}") for i, code in enumerate(CODES)])
    conv.summarize(summary)
    conv.answer("read both")
    for turn, (turn_pages, reply) in enumerate(zip(pages, replies), start=1):
        conv.user(f"What was code {turn - 1}?")
        for n, page in enumerate(turn_pages):
            conv.agent(tools=[("read_file", {"file_path": HISTORY, "offset": 100 * turn + n}, page)])
        conv.answer(reply)
    return conv


def by_key(result: list[Score]) -> dict[str, Score]:
    return {s.key: s for s in result}


def test_every_key_is_scored_once_in_order_over_all_needles():
    result = needle_scores(two_needles(pages=(["TANGO-7"], ["KILO-42"])).trace(), scenario(1, 2))
    assert [(s.key, s.value, s.role) for s in result] == [
        ("compacted", 1, VALIDITY),
        ("needle_summarized_away", True, VALIDITY),
        ("needle_correct", True, CHECK),
        ("needle_via_history", True, CHECK),
        ("history_pages_read", 2, MEASURE),
        ("needle_via_recall", False, MEASURE),
        ("needle_via_history_or_recall", True, MEASURE),
        ("needle_in_summary", False, MEASURE),
    ]


def test_a_check_holding_for_every_needle_says_so_with_the_first_needle_explanation():
    s = by_key(needle_scores(two_needles(pages=(["TANGO-7"], ["x", "KILO-42"])).trace(), scenario(1, 2)))
    assert s["needle_correct"] == Score(
        "needle_correct",
        True,
        CHECK,
        "all 2 needles: expected 'TANGO-7'; read 'TANGO-7' (the one value named and not set aside: 'TANGO-7') from 'TANGO-7'",
    )
    assert s["needle_via_history"] == Score(
        "needle_via_history",
        True,
        CHECK,
        f"all 2 needles: read_file on {HISTORY} (offset 100) returned the needle after 1 page(s)",
    )


def test_a_check_failing_for_one_needle_fails_and_names_that_needle():
    s = by_key(needle_scores(two_needles(replies=("TANGO-7", "no idea")).trace(), scenario(1, 2)))
    assert s["needle_correct"] == Score(
        "needle_correct", False, CHECK, "needle 2 of 2: expected 'KILO-42'; read None (no value named) from 'no idea'"
    )
    s = by_key(needle_scores(two_needles(replies=("no", "no")).trace(), scenario(1, 2)))
    assert s["needle_correct"].explanation == "needle 1 of 2: expected 'TANGO-7'; read None (no value named) from 'no'"


def test_page_counts_are_summed_and_a_needle_with_none_read_is_named():
    s = by_key(needle_scores(two_needles(pages=(["a", "b"], [])).trace(), scenario(1, 2)))
    assert s["history_pages_read"] == Score(
        "history_pages_read", 2, MEASURE, "needle 2 of 2: read_file calls on the history file in turn 2"
    )
    s = by_key(needle_scores(two_needles(pages=(["a"], ["b", "c"])).trace(), scenario(1, 2)))
    assert s["history_pages_read"] == Score(
        "history_pages_read", 3, MEASURE, "all 2 needles: read_file calls on the history file in turn 1"
    )


def test_a_yes_no_measurement_holds_if_it_holds_for_any_needle():
    s = by_key(
        needle_scores(two_needles(summary="The review: code 0 is TANGO-7, and DOC-1 was read too.").trace(), scenario(1, 2))
    )
    assert s["needle_in_summary"] == Score("needle_in_summary", True, MEASURE, "needle 2 of 2: no summary quoted the needle")
    s = by_key(needle_scores(two_needles().trace(), scenario(1, 2)))
    assert s["needle_in_summary"] == Score("needle_in_summary", False, MEASURE, "needle 1 of 2: no summary quoted the needle")


def test_a_recovery_that_is_not_the_strategy_check_is_a_measurement_held_by_any_needle():
    conv = two_needles(strategy="langchain-summarization", pages=(["TANGO-7"], []))
    s = by_key(needle_scores(conv.trace(), scenario(1, 2)))
    assert s["needle_via_history"].role == MEASURE
    assert s["needle_via_history"].value is True
    assert s["needle_via_history"].explanation == "needle 2 of 2: never called read_file on the history file the summary named"
    conv = two_needles(strategy="deepagents-summarization", pages=(["TANGO-7"], []))
    s = by_key(needle_scores(conv.trace(), scenario(1, 2)))
    assert (s["needle_via_history"].role, s["needle_via_history"].value) == (CHECK, False)


def test_compaction_is_counted_before_the_earliest_needle_turn():
    conv = two_needles()
    conv.summarize("A second summary, made while the second question was being answered.")
    conv.agent()
    trace = conv.trace()
    assert [e["turn"] for e in trace.compactions()] == [0, 2]
    assert by_key(needle_scores(trace, scenario(2, 1)))["compacted"].value == 1
    assert by_key(needle_scores(trace, scenario(4, 3)))["compacted"].value == 2


# -- chain_length_reached ---------------------------------------------------------------------------------------------
def chain(summary_turns: list[int]) -> Trace:
    events = [{"type": "summary", "turn": t} for t in summary_turns] + [{"type": "mask", "turn": 0}]
    return Trace(case_id="c", kind="needle", events=events)


def test_enough_summaries_before_the_question_reach_the_chain_length():
    assert chain_length_reached(chain([0, 1, 1, 3]), scenario(3, min_summaries=3)) == Score(
        "chain_length_reached", True, VALIDITY, "3 summaries before the question (at least 3 needed)"
    )


def test_too_few_summaries_before_the_question_make_the_case_invalid():
    assert chain_length_reached(chain([0, 2, 3]), scenario(2, min_summaries=2)) == Score(
        "chain_length_reached",
        False,
        VALIDITY,
        "1 summaries before the question (at least 2 needed): the case is invalid at this threshold",
    )


def test_the_question_is_the_earliest_needle_turn():
    assert chain_length_reached(chain([0, 1, 2]), scenario(3, 1, min_summaries=1)).value is True
    assert chain_length_reached(chain([0, 1, 2]), scenario(3, 1, min_summaries=2)).explanation == (
        "1 summaries before the question (at least 2 needed): the case is invalid at this threshold"
    )


# -- _succeeded, _target ----------------------------------------------------------------------------------------------
def results_trace(**results: str) -> Trace:
    messages = {
        f"k{i}": {"type": "tool", "data": {"content": text, "tool_call_id": tc_id}}
        for i, (tc_id, text) in enumerate(results.items())
    }
    return Trace(case_id="c", kind="goal", messages=messages)


def test_a_tool_call_with_a_result_not_starting_with_error_succeeded():
    trace = results_trace(a="file written", b="  Error: no such file", c="ERROR 404", d="the error was logged", e="")
    assert _succeeded(trace, {"id": "a"}) is True
    assert _succeeded(trace, {"id": "b"}) is False
    assert _succeeded(trace, {"id": "c"}) is False
    assert _succeeded(trace, {"id": "d"}) is True
    assert _succeeded(trace, {"id": "e"}) is True


def test_a_tool_call_without_a_result_or_an_id_did_not_succeed():
    trace = results_trace(a="ok")
    assert _succeeded(trace, {"id": "zz"}) is False
    assert _succeeded(trace, {"id": None}) is False
    assert _succeeded(trace, {}) is False


def test_the_target_of_a_tool_call_is_its_document_or_path():
    call: dict[str, Any] = {"name": "fetch_document", "args": {"doc_id": "DOC-3"}}
    assert _target(call) == "DOC-3"
    assert _target({"name": "read_file", "args": {"file_path": "/a.md"}}) == "/a.md"
    assert _target({"name": "ls", "args": None}) == ""


# -- each question's validity is its own -----------------------------------------------------------------------------
SECOND = Scenario(id="second", kind="needle", description="", task="t", needles=(Needle("code 1", CODES[1], "DOC-1", 0.5, 2),))


def test_a_needle_the_agent_brought_back_while_recovering_an_earlier_one_is_still_a_valid_recovery():
    # The page read for the first question holds both codes and stays in view: the second is answered from it.
    conv = two_needles(pages=(["TANGO-7 and KILO-42"], []))
    second = needle_scores(conv.trace(), SECOND)  # the second needle alone, asked in turn 2
    s = by_key(second)
    assert s["needle_summarized_away"] == Score(
        "needle_summarized_away",
        True,
        VALIDITY,
        "the needle was out of view when the question came (a page of the history file the agent read for an earlier "
        "question, still in view, holds it)",
    )
    assert s["needle_correct"].value is True
    assert s["needle_via_history"] == Score(
        "needle_via_history",
        True,
        CHECK,
        "a page of the history file read for an earlier question, still in view, held the needle",
    )
    assert s["history_pages_read"].value == 0  # no page read in its own turn: recorded
    both = by_key(needle_scores(conv.trace(), scenario(1, 2)))
    assert both["needle_summarized_away"].value is True and both["needle_via_history"].value is True


def test_a_needle_brought_back_but_answered_wrong_is_not_via_history():
    conv = two_needles(pages=(["TANGO-7 and KILO-42"], []), replies=("TANGO-7", "I don't know"))
    s = by_key(needle_scores(conv.trace(), SECOND))
    assert s["needle_summarized_away"].value is True
    assert (s["needle_correct"].value, s["needle_via_history"].value) == (False, False)


def test_a_needle_still_in_view_as_stated_is_invalid_whatever_was_read_since():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-0"}, "code 0 is TANGO-7")])
    conv.summarize("The archive review is under way: the first document was read.", keep=2)  # the fetch is kept
    conv.answer("read it")
    conv.user("What was code 1?")
    conv.agent(tools=[("read_file", {"file_path": HISTORY, "offset": 0}, "TANGO-7")])
    conv.answer("TANGO-7")
    conv.user("What was code 0?")
    conv.answer("TANGO-7")
    asked_last = Scenario(
        id="one", kind="needle", description="", task="t", needles=(Needle("code 0", "TANGO-7", "DOC-0", 0.5, 2),)
    )
    s = by_key(needle_scores(conv.trace(), asked_last))
    assert s["needle_summarized_away"] == Score(
        "needle_summarized_away",
        False,
        VALIDITY,
        "the needle was still in the agent's view when the question came (invalid: tests recall, not recovery)",
    )


def test_a_needle_on_another_file_the_agent_read_earlier_is_in_view_as_stated():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": f"DOC-{i}"}, f"code {i} is {code}") for i, code in enumerate(CODES)])
    conv.summarize("The archive review is under way: both documents were read.")
    conv.answer("read both")
    conv.user("What was code 0?")
    conv.agent(tools=[("read_file", {"file_path": "/notes/codes.md"}, "TANGO-7 and KILO-42")])  # not the history file
    conv.answer("TANGO-7")
    conv.user("What was code 1?")
    conv.answer("KILO-42")
    s = by_key(needle_scores(conv.trace(), SECOND))
    assert s["needle_summarized_away"].value is False


def test_one_needle_still_in_view_makes_the_whole_multi_needle_case_invalid():
    # The first needle is summarized away; the second comes back into view as stated (another file the agent read)
    # before it is asked. Validity, like a check, must hold for every needle: one invalid question invalidates the case.
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": f"DOC-{i}"}, f"code {i} is {code}") for i, code in enumerate(CODES)])
    conv.summarize("The archive review is under way: both documents were read.")
    conv.answer("read both")
    conv.user("What was code 0?")
    conv.agent(tools=[("read_file", {"file_path": HISTORY, "offset": 0}, "TANGO-7")])
    conv.agent(tools=[("read_file", {"file_path": "/notes/codes.md"}, "KILO-42")])  # not the history file
    conv.answer("TANGO-7")
    conv.user("What was code 1?")
    conv.answer("KILO-42")
    alone = [by_key(needle_scores(conv.trace(), one))["needle_summarized_away"].value for one in (scenario(1), SECOND)]
    assert alone == [True, False]
    s = by_key(needle_scores(conv.trace(), scenario(1, 2)))
    assert s["needle_summarized_away"] == Score(
        "needle_summarized_away",
        False,
        VALIDITY,
        "needle 2 of 2: the needle was still in the agent's view when the question came (invalid: tests recall, not recovery)",
    )
