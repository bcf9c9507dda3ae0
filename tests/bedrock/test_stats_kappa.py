"""Cohen's kappa and its bootstrap interval (`harness.stats`), including the cases where kappa is undefined."""

from __future__ import annotations

import pytest

from harness.stats import bootstrap_interval, bootstrap_kappa, cohen_kappa

JUDGE = [True, True, False, False, True, False, True, True, False, True]
DETERMINISTIC = [True, False, False, False, True, True, True, True, False, True]


def test_kappa_of_a_worked_example():
    # agreement 8/10; both raters 6 true / 4 false: chance 0.6*0.6 + 0.4*0.4 = 0.52; (0.8 - 0.52) / 0.48
    assert cohen_kappa(JUDGE, DETERMINISTIC) == pytest.approx(0.28 / 0.48)


def test_kappa_is_one_on_full_agreement_and_minus_one_on_full_disagreement():
    assert cohen_kappa([True, False, True], [True, False, True]) == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)


def test_kappa_is_undefined_when_both_raters_give_one_and_the_same_label():
    assert cohen_kappa([True, True, True], [True, True, True]) is None
    assert cohen_kappa([], []) is None


def test_kappa_is_zero_when_one_rater_gives_one_label_whatever_the_agreement():
    assert cohen_kappa([True] * 9 + [False], [True] * 10) == pytest.approx(0.0)


def test_kappa_refuses_label_lists_of_different_lengths():
    with pytest.raises(ValueError, match="3 labels against 2"):
        cohen_kappa([True, False, True], [True, False])


def test_bootstrap_interval_is_seeded_and_holds_the_estimate():
    interval = bootstrap_kappa(JUDGE, DETERMINISTIC)
    assert interval == bootstrap_kappa(JUDGE, DETERMINISTIC)
    assert interval is not None
    low, high = interval
    assert -1.0 <= low < cohen_kappa(JUDGE, DETERMINISTIC) < high <= 1.0
    assert bootstrap_kappa(JUDGE, DETERMINISTIC, seed=1) != interval  # the seed is used


def test_bootstrap_interval_is_none_when_kappa_is_undefined():
    assert bootstrap_kappa([True, True], [True, True]) is None
    assert bootstrap_kappa([], []) is None


def test_bootstrap_interval_is_none_when_many_resamples_lose_a_class():
    # kappa is 1, but a resample misses the one false item about a third of the time ((3/4)^4)
    assert cohen_kappa([True, True, True, False], [True, True, True, False]) == pytest.approx(1.0)
    assert bootstrap_kappa([True, True, True, False], [True, True, True, False]) is None


def test_bootstrap_interval_of_any_statistic_as_the_bench_uses_it():
    """The one bootstrap (`harness.bench` takes its CPU-time ratio's interval from it): seeded, around the estimate,
    exact on a constant ratio, None on an empty sample or a statistic undefined too often."""

    def ratio(sample):
        return sum(a for a, _ in sample) / sum(b for _, b in sample)

    assert bootstrap_interval([(2.0, 1.0), (4.0, 2.0), (1.0, 0.5)], ratio) == (2.0, 2.0)
    items = list(range(20))
    interval = bootstrap_interval(items, lambda s: sum(s) / len(s))
    assert interval == bootstrap_interval(items, lambda s: sum(s) / len(s))
    assert interval is not None and interval[0] < 9.5 < interval[1]
    assert bootstrap_interval(items, lambda s: sum(s) / len(s), seed=1) != interval
    assert bootstrap_interval([], ratio) is None
    assert bootstrap_interval(items, lambda s: None if 0 in s else 1.0) is None  # 0 is in most resamples
