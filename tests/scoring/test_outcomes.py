"""Outcome rules: which of PASS, FAIL, INVALID and ERROR a case gets, what decided it, and the headline counts."""

from __future__ import annotations

from harness.runs.results import error_causes, is_error, is_valid, outcome_line, row_outcome
from harness.scoring.scorers import CHECK, MEASURE, VALIDITY, Score, outcome

OK_VALID = Score("compacted", True, VALIDITY, "")
BAD_VALID = Score("compacted", False, VALIDITY, "nothing was compacted")
OK_CHECK = Score("needle_correct", True, CHECK, "")
BAD_CHECK = Score("needle_correct", False, CHECK, "wrong")
DONE = Score("run_completed", True, CHECK, "")
CRASHED = Score("run_completed", False, CHECK, "raised")
MEASURE_ZERO = Score("history_pages_read", 0, MEASURE, "")


def test_all_gating_scores_holding_is_pass_and_a_zero_measurement_does_not_fail_it():
    assert outcome([DONE, OK_VALID, OK_CHECK, MEASURE_ZERO]) == ("PASS", [])


def test_a_failed_check_is_fail_naming_the_check():
    assert outcome([DONE, OK_VALID, BAD_CHECK]) == ("FAIL", ["needle_correct"])


def test_a_failed_validity_score_is_invalid_even_when_a_check_failed_too():
    assert outcome([DONE, BAD_VALID, BAD_CHECK]) == ("INVALID", ["compacted"])


def test_a_crashed_run_is_fail_not_invalid_and_names_only_the_failed_checks():
    assert outcome([CRASHED, BAD_VALID, BAD_CHECK]) == ("FAIL", ["run_completed", "needle_correct"])


def test_a_provider_error_is_error_with_its_cause_whatever_the_scores():
    error = {"provider_error": {"model": "agent", "status": 503, "type": "InternalServerError"}}
    assert outcome([DONE, OK_VALID, OK_CHECK], error) == ("ERROR", ["agent: HTTP 503 InternalServerError"])
    timeout = {"provider_error": {"model": "summarizer", "status": None, "type": "APITimeoutError", "note": "after 3 tries"}}
    assert outcome([DONE], timeout) == ("ERROR", ["summarizer: APITimeoutError (after 3 tries)"])
    # an error that is not the provider's (the harness or the agent raised) is decided by the scores
    assert outcome([CRASHED], {"type": "ValueError", "message": "boom"}) == ("FAIL", ["run_completed"])


def _row(outcome_: str, keys: list[str] | None = None) -> dict:
    return {"outcome": outcome_, "outcome_keys": keys or []}


def test_a_row_keeps_the_outcome_it_was_written_with():
    assert row_outcome(_row("INVALID", ["compacted"])) == ("INVALID", ["compacted"])
    assert row_outcome({"outcome": "PASS"}) == ("PASS", [])


def test_an_old_row_without_an_outcome_is_classified_from_its_passed_checks():
    legacy = {"passed": {"compressed": True, "needle_correct": False}}
    assert row_outcome(legacy) == ("FAIL", ["needle_correct"])
    assert row_outcome({"passed": {"compressed": False, "needle_correct": False}}) == ("INVALID", ["compressed"])
    assert row_outcome({"passed": {"compressed": True}}) == ("PASS", [])
    crashed = {"passed": {"run_completed": False, "compressed": False, "needle_correct": False}}
    assert row_outcome(crashed) == ("FAIL", ["run_completed", "needle_correct"])
    # a row that lists its validity keys is read with them, not with the legacy list
    assert row_outcome({"validity": ["needle_correct"], "passed": {"needle_correct": False}}) == ("INVALID", ["needle_correct"])


def test_only_pass_and_fail_count_as_valid_and_only_error_as_error():
    assert [is_valid(_row(o)) for o in ("PASS", "FAIL", "INVALID", "ERROR")] == [True, True, False, False]
    assert [is_error(_row(o)) for o in ("PASS", "FAIL", "INVALID", "ERROR")] == [False, False, False, True]


def test_error_causes_count_error_rows_by_cause():
    rows = [_row("ERROR", ["agent: HTTP 503"]), _row("ERROR", ["agent: HTTP 503"]), _row("ERROR"), _row("FAIL", ["x"])]
    assert error_causes(rows) == {"agent: HTTP 503": 2, "unknown": 1}


def test_the_headline_counts_every_outcome_and_rates_over_valid_runs_only():
    rows = [_row("PASS")] * 3 + [_row("FAIL", ["a"]), _row("INVALID", ["compacted"]), _row("ERROR", ["agent: HTTP 429"])]
    assert outcome_line(rows) == (
        "6 case runs: 3 PASS, 1 FAIL, 1 INVALID, 1 ERROR; 3/4 valid runs passed every check "
        "(1 ERROR, counted in no rate: 1 x agent: HTTP 429)"
    )
    assert outcome_line([_row("PASS")]) == "1 case runs: 1 PASS; 1/1 valid runs passed every check"
    assert outcome_line([]) == "0 case runs: none; 0/0 valid runs passed every check"
