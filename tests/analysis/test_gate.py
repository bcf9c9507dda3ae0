"""The nightly gate's decisions: multiple-comparison correction, verdict direction, and the error-rate stop."""

from __future__ import annotations

import pytest

from harness.analysis.compare import ALPHA, holm
from harness.analysis.regress import MAX_ERROR_RATE, error_gate, gate_verdicts


def test_holm_multiplies_the_smallest_p_by_the_count_and_keeps_the_adjusted_values_monotone():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []


def test_the_gate_decides_on_holm_adjusted_p_not_the_raw_one():
    """Two drops each significant alone (raw p 0.03 and 0.04) are not both significant among two comparisons."""
    p_adj, verdicts = gate_verdicts([-0.2, -0.1], [0.03, 0.04])
    assert p_adj == pytest.approx([0.06, 0.06])
    assert verdicts == ["ok", "ok"]


def test_a_drop_significant_after_correction_is_a_regression_and_a_rise_is_an_improvement():
    p_adj, verdicts = gate_verdicts([-0.3, 0.3, 0.0], [0.001, 0.002, 0.001])
    assert all(p < ALPHA for p in p_adj)
    assert verdicts == ["REGRESSION", "improved", "ok"]  # no change is never a verdict either way


def test_a_comparison_without_a_p_value_counts_as_p_1_and_is_ok():
    p_adj, verdicts = gate_verdicts([-0.5, -0.5], [None, float("nan")])
    assert p_adj == [1.0, 1.0] and verdicts == ["ok", "ok"]


def test_the_verdict_threshold_is_strictly_under_alpha():
    _, verdicts = gate_verdicts([-0.5], [ALPHA])
    assert verdicts == ["ok"]
    _, verdicts = gate_verdicts([-0.5], [ALPHA * 0.999])
    assert verdicts == ["REGRESSION"]


def _rows(errors: int, total: int) -> list[dict]:
    err = {"outcome": "ERROR", "outcome_keys": ["agent: HTTP 503 InternalServerError"]}
    ok = {"outcome": "PASS", "outcome_keys": []}
    return [err] * errors + [ok] * (total - errors)


def test_the_error_gate_allows_exactly_the_max_rate_and_stops_just_above_it():
    assert MAX_ERROR_RATE == 0.05
    assert error_gate(_rows(1, 20)) is None  # 5 % exactly: allowed
    message = error_gate(_rows(2, 20))  # 10 %
    assert message is not None
    assert message.startswith("ERROR RATE 2/20 cells (10.0%)")
    assert "2 x agent: HTTP 503 InternalServerError" in message and "above the 5% allowed" in message
    assert error_gate(_rows(2, 20), max_error_rate=0.1) is None
    assert error_gate(_rows(3, 20), max_error_rate=0.1) is not None


def test_the_error_gate_is_silent_on_no_rows_and_no_errors():
    assert error_gate([]) is None
    assert error_gate(_rows(0, 5)) is None
