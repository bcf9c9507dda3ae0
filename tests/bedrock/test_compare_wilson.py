"""The Wilson score interval every rate is reported with (harness.stats): its bounds, its clipping to
[0, 1], the empty rate, and how a rate prints."""

from __future__ import annotations

import math

import pytest

from harness.stats import Rate, wilson

# scipy.stats.binomtest(k, n).proportion_ci(method="wilson") (confidence 0.95), written down so the test needs no scipy
SCIPY_WILSON = {
    (8, 10): (0.4901624715366418, 0.9433178485456248),
    (1, 3): (0.06149194472039626, 0.7923403991979523),
    (0, 10): (0.0, 0.27753279986288926),
    (10, 10): (0.7224672001371109, 1.0),
    (0, 1): (0.0, 0.7934506856227626),
    (1, 1): (0.20654931437723745, 1.0),
}


@pytest.mark.parametrize(("successes", "n"), list(SCIPY_WILSON))
def test_the_interval_is_the_95_percent_wilson_score_interval(successes, n):
    rate = wilson(successes, n)
    low, high = SCIPY_WILSON[(successes, n)]
    assert (rate.successes, rate.n) == (successes, n)
    assert rate.low == pytest.approx(low, abs=1e-12)
    assert rate.high == pytest.approx(high, abs=1e-12)


def test_the_value_is_the_share_of_successes():
    assert wilson(8, 10).value == 0.8
    assert wilson(1, 4).value == 0.25
    assert wilson(0, 5).value == 0.0


def test_the_bounds_never_leave_zero_to_one_where_rounding_would_take_them_past_it():
    # unclipped, the float arithmetic puts the lower bound of 0/21 just under 0 and the upper bound of 16/16 just over 1
    assert wilson(0, 21).low == 0.0
    assert wilson(16, 16).high == 1.0
    for n in (1, 3, 10, 16, 21, 37, 40, 1000):
        assert 0.0 <= wilson(0, n).low <= 1e-15 and 0.0 < wilson(0, n).high < 1.0
        assert 1.0 - 1e-15 <= wilson(n, n).high <= 1.0 and 0.0 < wilson(n, n).low < 1.0


def test_a_wider_z_gives_a_wider_interval():
    narrow, default, wide = wilson(5, 10, z=1.0), wilson(5, 10), wilson(5, 10, z=3.0)
    assert narrow.low > default.low > wide.low
    assert narrow.high < default.high < wide.high
    # z = 1: centre 0.5, half = sqrt(0.025 + 0.0025) / 1.1
    assert narrow.low == pytest.approx(0.5 - math.sqrt(0.0275) / 1.1, abs=1e-12)
    assert narrow.high == pytest.approx(0.5 + math.sqrt(0.0275) / 1.1, abs=1e-12)


def test_an_empty_rate_has_no_value_and_no_interval():
    rate = wilson(0, 0)
    assert (rate.successes, rate.n) == (0, 0)
    assert math.isnan(rate.low) and math.isnan(rate.high) and math.isnan(rate.value)
    assert math.isnan(Rate(3, 0, 0.0, 1.0).value)


def test_a_rate_prints_as_percent_with_its_interval_and_n():
    assert str(wilson(8, 10)) == "80% [49%, 94%] (n=10)"
    assert str(wilson(1, 3)) == "33% [6%, 79%] (n=3)"
    assert str(wilson(10, 10)) == "100% [72%, 100%] (n=10)"
    assert str(wilson(0, 0)) == "n=0"
    assert str(Rate(0, 0, 0.1, 0.9)) == "n=0"
