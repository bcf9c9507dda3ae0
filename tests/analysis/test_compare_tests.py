"""The building blocks of a comparison (harness.analysis.compare): the exact McNemar test on paired yes/no runs, the
sign-flip permutation test on paired differences (exact up to 16 pairs, 20,000 seeded random flips beyond), Holm's
adjustment, the mean and interval of one arm's figures, what counts as a rate, and which runs count at all."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from harness.analysis.compare import holm, is_rate, mcnemar_exact, mean_interval, sign_flip_p, valid_only


def _pairs(b: int, c: int, same_true: int = 0, same_false: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """b pairs where only the baseline held, c where only the other arm held, and concordant pairs."""
    base = [True] * b + [False] * c + [True] * same_true + [False] * same_false
    other = [False] * b + [True] * c + [True] * same_true + [False] * same_false
    return np.array(base), np.array(other)


def _binomial_two_sided(b: int, c: int) -> float:
    n, k = b + c, min(b, c)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


# ---------------------------------------------------------------------------------------------------- McNemar


def test_mcnemar_is_the_two_sided_binomial_test_on_the_discordant_pairs_only():
    for b, c in [(10, 2), (2, 10), (5, 0), (0, 5), (7, 3), (1, 0)]:
        assert mcnemar_exact(*_pairs(b, c)) == pytest.approx(_binomial_two_sided(b, c), abs=1e-15)
    # pairs that agree (both held, both failed) change nothing
    assert mcnemar_exact(*_pairs(10, 2, same_true=30, same_false=9)) == pytest.approx(79 / 2048, abs=1e-15)
    assert mcnemar_exact(*_pairs(5, 0)) == pytest.approx(2 / 32, abs=1e-15)


def test_mcnemar_without_discordant_pairs_is_p_one():
    assert mcnemar_exact(*_pairs(0, 0, same_true=5, same_false=3)) == 1.0
    assert mcnemar_exact(np.array([], dtype=bool), np.array([], dtype=bool)) == 1.0


def test_mcnemar_p_is_capped_at_one_when_the_discordant_pairs_split_evenly():
    # b = c: the doubled tail is over 1 (1 + 2 of 4 patterns, doubled = 1.5)
    assert mcnemar_exact(*_pairs(1, 1)) == 1.0
    assert mcnemar_exact(*_pairs(3, 3, same_true=4)) == 1.0
    assert mcnemar_exact(*_pairs(1, 0)) == 1.0


# ---------------------------------------------------------------------------------------------------- sign flip


def _exact_sign_flip(diffs: list[float]) -> float:
    """Every assignment of signs to the non-zero differences; p = share whose |mean| reaches the observed one."""
    nonzero = [d for d in diffs if d != 0]
    observed = abs(sum(nonzero) / len(nonzero))
    hits = [
        abs(sum(s * d for s, d in zip(signs, nonzero)) / len(nonzero)) >= observed - 1e-12
        for signs in itertools.product((-1, 1), repeat=len(nonzero))
    ]
    return sum(hits) / len(hits)


@pytest.mark.parametrize(
    "diffs",
    [
        [1.0, 2.0, 3.0],
        [3.0, -1.0, 2.0, 0.5],
        [1.0, 1.0, 1.0, -1.0],
        [5.0, -2.0, 4.0, 1.0, 3.0, -0.5],
        [2.0, 2.0, 2.0, 2.0, -2.0, 2.0, 2.0, -2.0],
        [0.25, -4.0, 1.5, 2.0, 3.5, -1.0, 0.75, 6.0, 1.0],
    ],
)
def test_up_to_16_pairs_the_sign_flip_p_is_exact_over_every_sign_pattern(diffs):
    assert sign_flip_p(np.array(diffs), np.random.default_rng(0)) == pytest.approx(_exact_sign_flip(diffs), abs=1e-15)


def test_zero_differences_are_dropped_before_flipping():
    rng = np.random.default_rng(0)
    assert sign_flip_p(np.array([0.0, 1.0, 0.0, 2.0, 3.0]), rng) == pytest.approx(2 / 8, abs=1e-15)
    # 16 non-zero differences and one zero: still the exact test over 2**16 patterns (16 is the exact limit)
    assert sign_flip_p(np.array([1.0] * 16 + [0.0]), rng) == 2 / 2**16


def test_no_differing_pair_is_p_one():
    rng = np.random.default_rng(0)
    assert sign_flip_p(np.zeros(5), rng) == 1.0
    assert sign_flip_p(np.array([]), rng) == 1.0


def test_one_differing_pair_is_p_one():
    assert sign_flip_p(np.array([3.0]), np.random.default_rng(0)) == 1.0
    assert sign_flip_p(np.array([0.0, -2.5]), np.random.default_rng(0)) == 1.0


def test_the_observed_pattern_counts_so_the_exact_p_is_at_least_two_over_the_patterns():
    rng = np.random.default_rng(0)
    assert sign_flip_p(np.array([1.0, 1.0]), rng) == 2 / 4
    assert sign_flip_p(np.array([0.1, 0.2, 0.3]), rng) == 2 / 8


def test_beyond_16_pairs_the_p_is_from_20000_random_flips_counting_the_observed_once():
    # 30 or 40 equal differences: only the two all-same-sign patterns reach the observed mean, which 20,000 random
    # flips of 2**30 or more patterns essentially never draw; so p = (0 + 1) / (20,000 + 1), never 0
    assert sign_flip_p(np.array([2.0] * 30), np.random.default_rng(0)) == 1 / 20_001
    assert sign_flip_p(np.array([-1.5] * 40), np.random.default_rng(1)) == 1 / 20_001


def test_17_pairs_are_past_the_exact_limit():
    p = sign_flip_p(np.array([1.0] * 17), np.random.default_rng(0))
    assert p != 2 / 2**17  # not the enumeration
    hits = p * 20_001 - 1  # (hits + 1) / (20,000 + 1)
    assert hits == pytest.approx(round(hits), abs=1e-9) and 0 <= round(hits) <= 5


def test_beyond_16_pairs_the_random_flips_estimate_the_exact_p():
    # 20 differences of +-2 with 14 positive: |mean| = 16/20; a random sign pattern reaches it when its number K of
    # pluses (Binomial(20, 1/2)) has |2K - 20| >= 8 -- exactly, 2 * P(K <= 6)
    diffs = np.array([2.0] * 14 + [-2.0] * 6)
    exact = 2 * sum(math.comb(20, k) for k in range(7)) / 2**20
    p = sign_flip_p(diffs, np.random.default_rng(3))
    assert p == pytest.approx(exact, abs=0.01)
    assert p != exact  # a random estimate, not the enumeration
    # the same generator state gives the same p
    assert sign_flip_p(diffs, np.random.default_rng(3)) == p


# ---------------------------------------------------------------------------------------------------- Holm


def test_holm_multiplies_the_i_th_smallest_p_by_the_number_left_and_keeps_the_order():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.04, 0.001, 0.02, 0.03]) == pytest.approx([0.06, 0.004, 0.06, 0.06])
    assert holm([0.005, 0.01, 0.02]) == pytest.approx([0.015, 0.02, 0.02])


def test_holm_never_goes_above_one_and_one_p_is_left_as_it_is():
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([0.2, 0.9, 0.01]) == pytest.approx([0.4, 0.9, 0.03])
    assert holm([0.3]) == [0.3]
    assert holm([]) == []


# ---------------------------------------------------------------------------------------------------- intervals


def test_a_rate_s_interval_is_the_wilson_interval_of_its_successes():
    mean, low, high = mean_interval([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], True, np.random.default_rng(0))
    assert mean == 0.8
    assert low == pytest.approx(0.4901624715366418, abs=1e-12)
    assert high == pytest.approx(0.9433178485456248, abs=1e-12)
    assert mean_interval([1.0], True, np.random.default_rng(0)) == pytest.approx((1.0, 0.20654931437723745, 1.0))


def test_no_value_has_no_mean_and_no_interval():
    for rate in (True, False):
        assert all(math.isnan(x) for x in mean_interval([], rate, np.random.default_rng(0)))


def test_one_value_of_a_measure_has_its_mean_and_no_interval():
    mean, low, high = mean_interval([1234.0], False, np.random.default_rng(0))
    assert mean == 1234.0 and math.isnan(low) and math.isnan(high)


def test_a_measure_s_interval_is_the_2_5_and_97_5_percentiles_of_2000_bootstrap_means():
    values = [3.0, 10.0, 4.0, 12.0, 7.0, 1.0, 9.0, 15.0]
    mean, low, high = mean_interval(values, False, np.random.default_rng(42))
    resampled = np.random.default_rng(42).choice(values, size=(2000, len(values)), replace=True).mean(axis=1)
    assert mean == 7.625
    assert low == np.percentile(resampled, 2.5)
    assert high == np.percentile(resampled, 97.5)
    assert min(values) < low < mean < high < max(values)


def test_two_values_of_a_measure_get_a_bootstrap_interval():
    mean, low, high = mean_interval([10.0, 20.0], False, np.random.default_rng(0))
    # the resampled means are 10, 15 or 20 (1/4, 1/2, 1/4): the 2.5th percentile is 10 and the 97.5th 20
    assert (mean, low, high) == (15.0, 10.0, 20.0)


def test_constant_values_have_a_zero_width_interval():
    assert mean_interval([5.0, 5.0, 5.0], False, np.random.default_rng(0)) == (5.0, 5.0, 5.0)


# ---------------------------------------------------------------------------------------------------- what counts


def test_a_metric_is_a_rate_when_every_value_is_a_boolean():
    assert is_rate(pd.Series([True, False, True])) is True
    assert is_rate(pd.Series([np.bool_(True), np.bool_(False)])) is True
    assert is_rate(pd.Series([True, None, False], dtype=object)) is True  # missing values do not count


def test_a_metric_with_numbers_or_no_values_is_not_a_rate():
    assert is_rate(pd.Series([1.0, 0.0, 1.0])) is False
    assert is_rate(pd.Series([1, 0])) is False
    assert is_rate(pd.Series([True, 1], dtype=object)) is False
    assert is_rate(pd.Series([], dtype=object)) is False
    assert is_rate(pd.Series([None, None], dtype=object)) is False


def test_only_valid_runs_count_and_a_frame_without_validity_is_kept_whole():
    frame = pd.DataFrame({"case_id": ["a", "b", "c", "d"], "valid": [True, False, True, False]})
    assert valid_only(frame)["case_id"].tolist() == ["a", "c"]
    legacy = pd.DataFrame({"case_id": ["a", "b"], "passed": [True, False]})
    assert valid_only(legacy)["case_id"].tolist() == ["a", "b"]
    objects = pd.DataFrame({"case_id": ["a", "b"], "valid": pd.Series([False, True], dtype=object)})
    assert valid_only(objects)["case_id"].tolist() == ["b"]
