"""Scoring a case: which scorers run for its kind and scorer set, the control arm's measures, and its outcome."""

from __future__ import annotations

import pytest

from harness.scenarios.schema import ExpectedStep, Needle, Scenario
from harness.scoring import scorers
from harness.scoring.scorers import (
    CHECK,
    ERROR,
    FAIL,
    INVALID,
    MEASURE,
    PASS,
    VALIDITY,
    Score,
    outcome,
    run_completed,
    score_case,
    scorer,
    scores_by_key,
    structure_ok,
    summaries_ok,
)
from harness.scoring.scorers import registry as registry_module
from tests._traces import HISTORY, Conversation

SUMMARY = "The archive review is under way; DOC-1 was read and noted."


def needle_trace(strategy: str = "deepagents-summarization"):
    conv = Conversation(strategy=strategy)
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "the vault code is TANGO-7")])
    conv.summarize(SUMMARY)
    conv.answer("Reviewed.")
    conv.user("What was the vault code?")
    conv.agent(tools=[("read_file", {"file_path": HISTORY}, "... TANGO-7 ...")])
    conv.answer("The code is TANGO-7.")
    return conv.trace()


def scenario(kind: str = "needle", **fields) -> Scenario:
    return Scenario(
        id="case-1",
        kind=kind,
        description="d",
        task="Review the archive.",
        followups=("What was the vault code?",),
        needles=(Needle("vault", "TANGO-7", "DOC-1", 0.5, 1),),
        **fields,
    )


def shared(trace) -> list[Score]:
    return [run_completed(trace), structure_ok(trace), summaries_ok(trace)]


# -- dispatch -------------------------------------------------------------------------------------------------------
@pytest.fixture
def registry(monkeypatch):
    """An empty registry in place of the real one, for scorers registered by the test."""
    fresh: dict = {}
    monkeypatch.setattr(registry_module, "_REGISTRY", fresh)
    return fresh


def one(key: str):
    def fn(trace, scenario):
        return Score(key, True, CHECK, f"{key} for {scenario.kind}")

    return fn


def many(*keys: str):
    def fn(trace, scenario):
        return [Score(k, 1, MEASURE, k) for k in keys]

    return fn


def test_a_scorer_is_registered_for_each_kind_it_names_in_the_default_set_and_returned_unchanged(registry):
    fn = one("a")
    assert scorer("needle", "chain")(fn) is fn
    assert registry == {"default": {"needle": [fn], "chain": [fn]}}


def test_a_scorer_naming_no_kind_is_registered_for_any_kind_in_its_set(registry):
    fn, gn = one("a"), one("b")
    scorer(scorer_set="eviction")(fn)
    scorer()(gn)
    assert registry == {"eviction": {"*": [fn]}, "default": {"*": [gn]}}


def test_scorers_of_one_kind_run_in_registration_order_after_the_shared_checks(registry):
    scorer("needle")(one("first"))
    scorer("needle")(many("second", "third"))
    scorer("goal")(one("other kind"))
    trace = needle_trace()
    scores = score_case(trace, scenario())
    assert scores == [
        *shared(trace),
        Score("first", True, CHECK, "first for needle"),
        Score("second", 1, MEASURE, "second"),
        Score("third", 1, MEASURE, "third"),
    ]


def test_a_kind_with_no_scorer_of_its_own_gets_the_sets_scorers_for_any_kind(registry):
    scorer(scorer_set="eviction")(one("any"))
    scorer("goal", scorer_set="eviction")(one("goal only"))
    trace = needle_trace()
    assert [s.key for s in score_case(trace, scenario(), "eviction")] == [
        "run_completed",
        "structure_ok",
        "summaries_ok",
        "any",
    ]
    assert [s.key for s in score_case(trace, scenario("goal"), "eviction")][3:] == ["goal only"]


def test_a_kind_no_scorer_of_the_set_covers_gets_the_shared_checks_only(registry):
    scorer("goal")(one("goal"))
    trace = needle_trace()
    assert score_case(trace, scenario()) == shared(trace)


def test_an_unknown_scorer_set_is_refused_naming_the_known_ones(registry):
    scorer("needle")(one("a"))
    scorer(scorer_set="subagent")(one("b"))
    with pytest.raises(ValueError) as err:
        score_case(needle_trace(), scenario(), "nope")
    assert str(err.value) == "unknown scorer set 'nope'; known: default, subagent"


def test_the_shipped_scorer_sets():
    assert scorers.SCORER_SETS == (
        "default",
        "eviction",
        "overflow",
        "subagent",
        "retention",
        "history",
        "longid",
        "pasted",
        "todos",
        "parity",
        "blobs",
        "parent",
        "redo",
        "survives",
        "notsummary",
        "loops",
        "cache",
        "boundary",
        "estimate",
    )


def test_a_needle_case_is_scored_by_the_needle_scorer_in_the_default_set():
    trace = needle_trace()
    keys = [s.key for s in score_case(trace, scenario())]
    assert keys == [
        "run_completed",
        "structure_ok",
        "summaries_ok",
        "compacted",
        "needle_summarized_away",
        "needle_correct",
        "needle_via_history",
        "history_pages_read",
        "needle_via_recall",
        "needle_via_history_or_recall",
        "needle_in_summary",
    ]


def test_a_chain_case_adds_its_length_check_before_the_needle_scores():
    keys = [s.key for s in score_case(needle_trace(), scenario("chain"))]
    assert keys[3:6] == ["chain_length_reached", "compacted", "needle_summarized_away"]


def test_a_mechanism_set_scores_any_kind_with_its_own_scorer():
    trace = needle_trace()
    goal = scenario("goal", expected_steps=(ExpectedStep("fetch_document", "DOC-1"),))
    # after the shared checks and, for a case with steps, the four shared goal-drift checks
    assert [s.key for s in score_case(trace, goal, "subagent")][7:9] == ["subagent_compressed", "subagent_results_returned"]
    assert [s.key for s in score_case(trace, goal, "overflow")][7:9] == ["overflowed", "overflow_recovered"]
    assert [s.key for s in score_case(trace, scenario(), "eviction")][3] == "evicted"


# -- the control arm ------------------------------------------------------------------------------------------------
def test_under_the_none_strategy_the_compaction_scores_are_measures_and_the_others_unchanged():
    trace = needle_trace(strategy="none")
    scores = score_case(trace, scenario("chain"))
    plain = score_case(needle_trace(), scenario("chain"))
    by_key, plain_by_key = scores_by_key(scores), scores_by_key(plain)
    for key in ("compacted", "needle_summarized_away", "chain_length_reached"):
        before = plain_by_key[key]
        assert by_key[key] == Score(
            key, before.value, MEASURE, f"(control arm: nothing is compacted by design) {before.explanation}"
        )
        assert before.role == VALIDITY
    assert by_key["needle_correct"] == plain_by_key["needle_correct"]
    assert by_key["needle_correct"].role == CHECK


def test_the_control_arms_goal_continuation_is_a_measure():
    conv = Conversation(strategy="none")
    conv.user("Read DOC-1.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "text")])
    conv.answer("TASK COMPLETE")
    goal = Scenario(
        id="case-1", kind="goal", description="d", task="Read DOC-1.", expected_steps=(ExpectedStep("fetch_document", "DOC-1"),)
    )
    scores = scores_by_key(score_case(conv.trace(kind="goal"), goal))
    assert scores["goal_continued_after_summary"] == Score(
        "goal_continued_after_summary",
        False,
        MEASURE,
        "(control arm: nothing is compacted by design) no compaction in the task turn, nothing to continue across",
    )
    assert outcome(list(scores.values())) == (PASS, [])  # the arm passes by doing the task


def test_another_strategy_keeps_the_compaction_scores_as_validity():
    scores = scores_by_key(score_case(needle_trace(), scenario()))
    assert scores["compacted"].role == VALIDITY and not scores["compacted"].explanation.startswith("(control arm")


# -- by key, outcome ------------------------------------------------------------------------------------------------
def test_scores_by_key_indexes_each_score_by_its_key():
    a, b = Score("a", 1, MEASURE, ""), Score("b", True, CHECK, "")
    assert scores_by_key([a, b]) == {"a": a, "b": b}
    assert scores_by_key([]) == {}


DONE = Score("run_completed", True, CHECK, "")
CRASHED = Score("run_completed", False, CHECK, "raised")
VALID = Score("compacted", 1, VALIDITY, "")
NOT_COMPACTED = Score("compacted", 0, VALIDITY, "")
AWAY = Score("needle_summarized_away", False, VALIDITY, "")
WRONG = Score("needle_correct", False, CHECK, "")
NOT_READ = Score("needle_via_history", False, CHECK, "")
ZERO = Score("history_pages_read", 0, MEASURE, "")


def test_every_failed_check_is_named_in_order_and_a_measurement_never_fails_a_case():
    assert outcome([DONE, VALID, WRONG, ZERO, NOT_READ]) == (FAIL, ["needle_correct", "needle_via_history"])
    assert outcome([DONE, VALID, ZERO]) == (PASS, [])


def test_every_failed_validity_score_is_named_in_order():
    assert outcome([DONE, NOT_COMPACTED, WRONG, AWAY]) == (INVALID, ["compacted", "needle_summarized_away"])


def test_a_crashed_run_names_its_failed_checks_only_not_its_validity():
    assert outcome([VALID, NOT_COMPACTED, CRASHED, WRONG]) == (FAIL, ["run_completed", "needle_correct"])


def test_an_error_that_is_not_the_providers_or_no_error_leaves_the_outcome_to_the_scores():
    assert outcome([DONE, VALID], {"type": "ValueError", "message": "boom", "provider_error": None}) == (PASS, [])
    assert outcome([DONE, VALID], {}) == (PASS, [])
    assert outcome([DONE, WRONG], None) == (FAIL, ["needle_correct"])


def test_a_provider_error_is_error_even_when_every_score_failed():
    error = {"provider_error": {"model": "agent", "status": 429, "type": "RateLimitError"}}
    assert outcome([CRASHED, NOT_COMPACTED], error) == (ERROR, ["agent: HTTP 429 RateLimitError"])
