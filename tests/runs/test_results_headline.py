"""The headline line's ERROR causes: a cause of several keys, several causes most frequent first."""

from __future__ import annotations

from harness.runs.results import error_causes, outcome_line


def _row(outcome: str, keys: list[str] | None = None) -> dict:
    return {"outcome": outcome, "outcome_keys": keys or []}


def test_an_error_with_several_causes_is_counted_under_them_joined():
    rows = [_row("ERROR", ["agent: HTTP 503", "summarizer: APITimeoutError"])] * 2 + [_row("ERROR", ["agent: HTTP 503"])]
    assert error_causes(rows) == {"agent: HTTP 503, summarizer: APITimeoutError": 2, "agent: HTTP 503": 1}


def test_the_headline_lists_every_error_cause_most_frequent_first():
    rows = [_row("PASS"), _row("ERROR", ["agent: HTTP 429"])] + [_row("ERROR", ["summarizer: HTTP 503"])] * 2
    assert outcome_line(rows) == (
        "4 case runs: 1 PASS, 3 ERROR; 1/1 valid runs passed every check "
        "(3 ERROR, counted in no rate: 2 x summarizer: HTTP 503; 1 x agent: HTTP 429)"
    )


def test_one_progress_line_for_a_run_and_a_grid_a_cell_naming_its_arm_threshold_and_eval():
    from harness.runs.run import progress_line

    row = {"case_id": "needle-a", "trial": 1, "events": {"summary": 2}, "calls": {"agent": 7}, "wall_time_s": 1.5}
    run_row = {**row, **_row("FAIL", ["needle_recalled"])}
    assert progress_line(1, 4, 3.0, run_row) == (
        "[1/4] needle-a               t1 FAIL needle_recalled         summary x2, 7 calls, 1.50s  (eta 9s)"
    )
    long = {**run_row, "case_id": "probe-entity-confusion-s7-i1"}  # the run's longest id sets the column
    assert progress_line(2, 4, 3.0, long, width=28).startswith("[2/4] probe-entity-confusion-s7-i1 t1 FAIL")
    assert progress_line(2, 4, 3.0, run_row, width=28).startswith("[2/4] needle-a                     t1 FAIL")
    cell = {**row, **_row("PASS"), "cell_id": "fifo|20%|needle:needle-a|t1", "arm": "fifo", "threshold": "20%"}
    assert progress_line(10, 10, 3.0, {**cell, "events": {}}) == (
        "[10/10] fifo 20% needle:needle-a t1 ok                           no compaction, 7 calls, 1.50s  (eta 0s)"
    )


def _live(retries: int | None, backoff: float | None = 0.0, failed: int = 0) -> dict:
    metrics = {"provider_retries": retries, "provider_retry_backoff_s": backoff, "failed_model_calls": failed}
    return {**_row("PASS"), "metrics": metrics}


def test_the_retries_line_counts_the_sdks_retries_the_cases_they_hit_and_the_failed_calls():
    """Said only where a row has a count (a live case); an offline run (every count null) has no line; a row without
    a count beside counted ones (a trace written before they were counted) is named, never read as 0."""
    from harness.runs.results import retries_line

    assert retries_line([_live(None, None), _live(None, None, failed=2)]) is None  # offline: nothing was counted
    assert retries_line([_live(0), _live(0)]) == "provider SDK retries: none in 2 cases"
    rows = [_live(2, 0.4), _live(0), _live(3, 1.25, failed=1), _live(None, None)]
    assert retries_line(rows) == (
        "provider SDK retries: 5 in 2 of 3 cases, 1.6 s of backoff; 1 failed model call in 1 case, re-sent or ended the "
        "case (1 case without a count)"
    )
