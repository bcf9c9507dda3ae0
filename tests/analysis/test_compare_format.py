"""How a comparison's figures print (harness.analysis.compare.format_cell, format_diff): every figure with its n,
what was left out of it, a rate in percent and its difference in points, a measure with three significant digits
or thousands separators, the adjusted p and the star of significance."""

from __future__ import annotations

import math
from typing import Any

from harness.analysis.compare import format_cell, format_diff

NAN = math.nan


def cell(mean: float, low: float, high: float, n: int, rate: bool, **extra: Any) -> dict[str, Any]:
    return {"mean": mean, "low": low, "high": high, "n": n, "rate": rate, **extra}


def diff(d: float, low: float, high: float, p_adj: float, n_pairs: int, rate: bool, **extra: Any) -> dict[str, Any]:
    rec = {
        "baseline": False,
        "diff": d,
        "diff_low": low,
        "diff_high": high,
        "p_adj": p_adj,
        "n_pairs": n_pairs,
        "n_differ": n_pairs,
        "rate": rate,
        "significant": False,
    }
    rec.update(extra)
    return rec


# ---------------------------------------------------------------------------------------------------- cells


def test_a_rate_prints_in_percent_with_its_interval_and_n():
    assert format_cell(cell(0.82, 0.64, 0.92, 30, True)) == "82% [64%, 92%] n=30"
    assert format_cell(cell(1.0, 0.72, 1.0, 10, True)) == "100% [72%, 100%] n=10"


def test_a_measure_prints_three_significant_digits_under_100_and_whole_thousands_separated_from_100():
    assert format_cell(cell(1234.4, 1100.0, 1350.6, 30, False)) == "1,234 [1,100, 1,351] n=30"
    assert format_cell(cell(12.345, 9.876, 15.0, 8, False)) == "12.3 [9.88, 15] n=8"
    assert format_cell(cell(0.004567, 0.001, 0.01, 5, False)) == "0.00457 [0.001, 0.01] n=5"
    assert format_cell(cell(99.5, 99.4, 100.0, 4, False)) == "99.5 [99.4, 100] n=4"
    assert format_cell(cell(1500000.0, 1000.0, 2e6, 4, False)) == "1,500,000 [1,000, 2,000,000] n=4"
    assert format_cell(cell(-250.0, -300.0, -99.5, 4, False)) == "-250 [-300, -99.5] n=4"


def test_a_measure_of_one_run_prints_without_an_interval():
    assert format_cell(cell(1234.0, NAN, NAN, 1, False)) == "1,234 n=1"
    assert format_cell(cell(0.5, NAN, NAN, 1, False)) == "0.5 n=1"


def test_a_figure_without_values_is_not_available_and_says_its_n():
    assert format_cell(cell(NAN, NAN, NAN, 0, True)) == "n/a (n=0)"
    assert format_cell(cell(NAN, NAN, NAN, 0, False)) == "n/a (n=0)"
    assert format_cell(cell(0.5, 0.1, 0.9, 0, True)) == "n/a (n=0)"
    assert format_cell(cell(NAN, NAN, NAN, 3, False)) == "n/a (n=3)"
    assert format_cell(cell(NAN, NAN, NAN, 3, True)) == "n/a (n=3)"


def test_runs_left_out_are_named_invalid_or_error_after_the_figure():
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True, excluded=5, errors=1)) == "50% [20%, 80%] n=10 (4 invalid, 1 ERROR excluded)"
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True, excluded=3, errors=0)) == "50% [20%, 80%] n=10 (3 invalid excluded)"
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True, excluded=2, errors=2)) == "50% [20%, 80%] n=10 (2 ERROR excluded)"
    assert format_cell(cell(1234.0, NAN, NAN, 1, False, excluded=1, errors=0)) == "1,234 n=1 (1 invalid excluded)"
    assert format_cell(cell(NAN, NAN, NAN, 0, True, excluded=4, errors=3)) == "n/a (n=0) (1 invalid, 3 ERROR excluded)"


def test_nothing_left_out_adds_nothing():
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True, excluded=0, errors=0)) == "50% [20%, 80%] n=10"
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True, excluded=None, errors=None)) == "50% [20%, 80%] n=10"
    assert format_cell(cell(0.5, 0.2, 0.8, 10, True)) == "50% [20%, 80%] n=10"
    assert format_cell(cell(12.0, 10.0, 14.0, 3, False, excluded=2)) == "12 [10, 14] n=3 (2 invalid excluded)"


# ---------------------------------------------------------------------------------------------------- differences


def test_the_baseline_and_an_arm_without_pairs_say_so():
    assert format_diff({"baseline": True, "n_pairs": 0}) == "baseline"
    assert format_diff(diff(NAN, NAN, NAN, NAN, 0, True)) == "no pairs"


def test_an_arm_whose_pairs_all_equal_the_baseline_s_says_no_pair_differs():
    assert format_diff(diff(0.0, 0.0, 0.0, 1.0, 30, True, n_differ=0)) == "no pair differs (n=30)"
    assert format_diff(diff(0.0, 0.0, 0.0, 1.0, 1, False, n_differ=0)) == "no pair differs (n=1)"


def test_a_rate_difference_prints_in_signed_points_with_the_adjusted_p_and_its_pairs():
    rec = diff(-2 / 3, -0.8333, -0.5, 9.54e-06, 30, True, significant=True)
    assert format_diff(rec) == "-66.7 pts [-83.3, -50] p=9.54e-06 * (n=30)"
    rec = diff(0.1, -0.05, 0.25, 0.41, 20, True, n_differ=4)
    assert format_diff(rec) == "+10 pts [-5, +25] p=0.41 (n=20)"


def test_a_measure_difference_prints_signed_in_its_own_unit():
    rec = diff(150.2, 120.0, 180.7, 0.03125, 40, False, significant=True)
    assert format_diff(rec) == "+150 [+120, +181] p=0.0312 * (n=40)"
    rec = diff(-1234.5, -2000.0, 5.5, 0.2, 7, False)
    assert format_diff(rec) == "-1,234 [-2,000, +5.5] p=0.2 (n=7)"
    rec = diff(0.5, 0.25, 0.75, 1.0, 2, False)
    assert format_diff(rec) == "+0.5 [+0.25, +0.75] p=1 (n=2)"


def test_a_record_without_n_differ_prints_its_difference():
    rec = diff(0.25, 0.0, 0.5, 0.5, 4, True)
    del rec["n_differ"]
    assert format_diff(rec) == "+25 pts [+0, +50] p=0.5 (n=4)"


def test_a_single_differing_pair_prints_its_difference():
    assert format_diff(diff(1.0, 1.0, 1.0, 1.0, 1, True, n_differ=1)) == "+100 pts [+100, +100] p=1 (n=1)"
    assert format_diff(diff(-0.1, -0.3, 0.0, 1.0, 10, True, n_differ=1)) == "-10 pts [-30, +0] p=1 (n=10)"
