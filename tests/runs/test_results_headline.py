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
