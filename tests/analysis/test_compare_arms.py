"""Comparing arms with the baseline (harness.analysis.compare.compare): one record per (threshold, arm, metric) with
its n, mean and interval over valid runs, what was left out, and the paired difference from the baseline on the same
(case, threshold, trial) -- McNemar for rates, sign flips for measures, Holm-adjusted across the arms."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from harness.analysis.compare import SEED, cells_frame, compare, mcnemar_exact
from harness.stats import wilson

COLUMNS = [
    "threshold",
    "arm",
    "metric",
    "rate",
    "n",
    "excluded",
    "errors",
    "upstream",
    "mean",
    "low",
    "high",
    "baseline",
    "diff",
    "diff_low",
    "diff_high",
    "n_pairs",
    "n_differ",
    "p",
    "p_adj",
    "significant",
]


def run(
    arm: str, case: str, outcome: str = "PASS", *, trial: int = 0, threshold: str = "20%", kind: str = "needle", **metrics: Any
):
    keys = {"FAIL": ["needle_correct"], "INVALID": ["compacted"], "ERROR": ["agent: HTTP 503"]}.get(outcome, [])
    return {
        "arm": arm,
        "case_id": case,
        "kind": kind,
        "trial": trial,
        "threshold": threshold,
        "outcome": outcome,
        "outcome_keys": keys,
        "metrics": metrics,
    }


def records(frame: pd.DataFrame, baseline: str, metrics: list[str] | None = None) -> dict[tuple, dict[str, Any]]:
    table = compare(frame, baseline, metrics)
    return {(r["threshold"], r["arm"], r["metric"]): r for r in table.to_dict("records")}


def _bootstrap_first_draw(d: list[float]) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles of 2000 resampled means, drawn first from a generator seeded with SEED."""
    means = np.random.default_rng(SEED).choice(np.array(d), size=(2000, len(d)), replace=True).mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def _task_success_frame() -> pd.DataFrame:
    return cells_frame(
        [
            run("base", "c1"),
            run("base", "c2"),
            run("base", "c3"),
            run("base", "c4", "FAIL"),
            run("base", "c5", "ERROR"),
            run("other", "c1"),
            run("other", "c2", "FAIL"),
            run("other", "c3", "FAIL"),
            run("other", "c4", "FAIL"),
            run("other", "c5"),
            run("other", "c6", "INVALID"),
        ]
    )


# ---------------------------------------------------------------------------------------------------- records


def test_the_baseline_s_record_has_its_figure_and_no_difference():
    table = compare(_task_success_frame(), "base", ["passed"])
    assert list(table.columns) == COLUMNS
    base = table.to_dict("records")[0]
    r = wilson(3, 4)
    nan_keys = ("diff", "diff_low", "diff_high", "p", "p_adj")
    assert all(math.isnan(base[k]) for k in nan_keys)
    assert {k: v for k, v in base.items() if k not in nan_keys} == {
        "threshold": "20%",
        "arm": "base",
        "metric": "passed",
        "rate": True,
        "n": 4,  # c5 ended in ERROR
        "excluded": 1,
        "errors": 1,
        "upstream": 0,
        "mean": 0.75,
        "low": r.low,
        "high": r.high,
        "baseline": True,
        "n_pairs": 0,
        "n_differ": 0,
        "significant": False,
    }


def test_an_arm_s_record_has_its_figure_and_its_paired_difference_from_the_baseline():
    table = compare(_task_success_frame(), "base", ["passed"])
    other = table.to_dict("records")[1]
    r = wilson(2, 5)
    low, high = _bootstrap_first_draw([0.0, -1.0, -1.0, 0.0])
    assert other == {
        "threshold": "20%",
        "arm": "other",
        "metric": "passed",
        "rate": True,
        "n": 5,  # c1..c5; c6 is INVALID
        "excluded": 1,
        "errors": 0,
        "upstream": 0,
        "mean": 0.4,
        "low": r.low,
        "high": r.high,
        "baseline": False,
        # pairs c1..c4 (the baseline's c5 ended in ERROR, other's c6 was INVALID): differences 0, -1, -1, 0
        "diff": -0.5,
        "diff_low": low,
        "diff_high": high,
        "n_pairs": 4,
        "n_differ": 2,
        "p": 0.5,  # McNemar: 2 pairs where only the baseline passed, none the other way
        "p_adj": 0.5,
        "significant": False,
    }
    assert low < -0.5 < high


# ---------------------------------------------------------------------------------------------------- pairing


def _token_frame() -> pd.DataFrame:
    return cells_frame(
        [
            run("base", "c1", trial=0, agent_tokens=100.0),
            run("base", "c1", trial=1, agent_tokens=200.0),
            run("base", "c2", trial=0, agent_tokens=300.0),
            run("base", "c4", "INVALID", agent_tokens=50.0),
            run("other", "c1", trial=0, agent_tokens=110.0),
            run("other", "c1", trial=1, agent_tokens=230.0),
            run("other", "c3", trial=0, agent_tokens=999.0),
            run("other", "c4", agent_tokens=70.0),
        ]
    )


def test_runs_pair_on_the_same_case_and_trial_and_only_when_both_are_valid():
    rec = records(_token_frame(), "base", ["agent_tokens"])[("20%", "other", "agent_tokens")]
    # pairs (c1, 0): +10 and (c1, 1): +30; c3 has no baseline run and the baseline's c4 is INVALID
    assert (rec["n"], rec["n_pairs"], rec["n_differ"], rec["diff"]) == (4, 2, 2, 20.0)
    assert rec["mean"] == pytest.approx((110 + 230 + 999 + 70) / 4)
    assert rec["rate"] is False
    assert rec["p"] == 0.5  # sign flips of (10, 30): 2 of the 4 patterns reach |mean| 20
    base = records(_token_frame(), "base", ["agent_tokens"])[("20%", "base", "agent_tokens")]
    assert (base["n"], base["excluded"], base["mean"]) == (3, 1, 200.0)


def test_runs_at_another_threshold_are_compared_with_the_baseline_at_that_threshold():
    frame = cells_frame(
        [
            run("base", "c1", threshold="50%", agent_tokens=100.0),
            run("other", "c1", threshold="50%", agent_tokens=150.0),
            run("base", "c1", threshold="20%", agent_tokens=1000.0),
            run("other", "c1", threshold="20%", agent_tokens=1010.0),
            run("other", "c2", threshold="20%", agent_tokens=5.0),
        ]
    )
    recs = records(frame, "base", ["agent_tokens"])
    assert (recs[("50%", "other", "agent_tokens")]["diff"], recs[("50%", "other", "agent_tokens")]["n_pairs"]) == (50.0, 1)
    assert (recs[("20%", "other", "agent_tokens")]["diff"], recs[("20%", "other", "agent_tokens")]["n_pairs"]) == (10.0, 1)


def test_one_pair_has_its_difference_as_its_interval_and_two_pairs_a_bootstrap_interval():
    one = records(_token_frame().query("case_id != 'c1' or trial == 0"), "base", ["agent_tokens"])
    rec = one[("20%", "other", "agent_tokens")]
    assert (rec["n_pairs"], rec["diff"], rec["diff_low"], rec["diff_high"]) == (1, 10.0, 10.0, 10.0)
    assert rec["p"] == 1.0
    frame = cells_frame(
        [
            run("base", "c1", agent_tokens=100.0),
            run("base", "c2", agent_tokens=100.0),
            run("other", "c1", agent_tokens=100.0),
            run("other", "c2", agent_tokens=200.0),
        ]
    )
    rec = records(frame, "base", ["agent_tokens"])[("20%", "other", "agent_tokens")]
    # differences 0 and 100: a resampled mean is 0, 50 or 100 (1/4, 1/2, 1/4), so the interval is [0, 100]
    assert (rec["n_pairs"], rec["n_differ"], rec["diff"], rec["diff_low"], rec["diff_high"]) == (2, 1, 50.0, 0.0, 100.0)


def test_an_arm_with_no_baseline_at_its_threshold_has_no_pairs():
    frame = cells_frame([run("other", "c1", threshold="50%", agent_tokens=1.0), run("base", "c1", agent_tokens=2.0)])
    rec = records(frame, "base", ["agent_tokens"])[("50%", "other", "agent_tokens")]
    assert (rec["n"], rec["n_pairs"], rec["n_differ"], rec["significant"]) == (1, 0, 0, False)
    assert math.isnan(rec["diff"]) and math.isnan(rec["p"]) and math.isnan(rec["p_adj"])


def test_a_rate_is_tested_with_exact_mcnemar_even_past_16_discordant_pairs():
    rows = [run("base", f"c{i}", "PASS" if i < 18 else "FAIL") for i in range(20)]
    rows += [run("other", f"c{i}", "FAIL" if i < 18 else "PASS") for i in range(20)]
    rec = records(cells_frame(rows), "base", ["passed"])[("20%", "other", "passed")]
    # 18 pairs only the baseline passed, 2 only the other arm: 2 * P(Binomial(20, 1/2) <= 2)
    assert rec["n_differ"] == 20
    assert rec["p"] == pytest.approx(2 * (1 + 20 + 190) / 2**20, abs=1e-15)
    assert rec["p"] == mcnemar_exact(np.array([True] * 18 + [False] * 2), np.array([False] * 18 + [True] * 2))


# ---------------------------------------------------------------------------------------------------- left out


def test_a_run_left_out_is_excluded_only_from_the_figures_of_its_kind():
    frame = cells_frame(
        [
            run("base", "n1", needle_recovered=True, agent_tokens=10.0),
            run("base", "n2", "ERROR"),
            run("base", "g1", "INVALID", kind="goal", agent_tokens=30.0),
            run("base", "g2", kind="goal", agent_tokens=40.0),
            run("other", "n1", "INVALID", needle_recovered=False, agent_tokens=11.0),
            run("other", "n2", needle_recovered=True, agent_tokens=12.0),
        ]
    )
    recs = records(frame, "base", ["passed", "needle_recovered", "agent_tokens"])
    got = {
        (arm, m): (recs[("20%", arm, m)]["n"], recs[("20%", arm, m)]["excluded"], recs[("20%", arm, m)]["errors"])
        for arm in ("base", "other")
        for m in ("passed", "needle_recovered", "agent_tokens")
    }
    assert got == {
        ("base", "passed"): (2, 2, 1),  # n2 ERROR and g1 INVALID: task success covers every kind
        ("base", "needle_recovered"): (1, 1, 1),  # a goal run is not a needle run left out
        ("base", "agent_tokens"): (2, 2, 1),
        ("other", "passed"): (1, 1, 0),
        ("other", "needle_recovered"): (1, 1, 0),
        ("other", "agent_tokens"): (1, 1, 0),
    }


def test_without_validity_every_run_counts_and_none_is_excluded():
    frame = pd.DataFrame(
        {
            "threshold": ["20%"] * 4,
            "arm": ["base", "base", "other", "other"],
            "case_id": ["c1", "c2", "c1", "c2"],
            "trial": [0, 0, 0, 0],
            "kind": ["needle"] * 4,
            "passed": [True, True, True, False],
        }
    )
    recs = records(frame, "base", ["passed"])
    assert [(r["n"], r["excluded"], r["errors"]) for r in recs.values()] == [(2, 0, 0), (2, 0, 0)]
    assert recs[("20%", "other", "passed")]["diff"] == -0.5


# ---------------------------------------------------------------------------------------------------- metrics, order


def test_by_default_every_known_metric_the_runs_have_is_compared_task_success_first():
    frame = cells_frame([run(arm, "c1", agent_tokens=5.0, needle_recovered=True, my_score=1.0) for arm in ("base", "other")])
    table = compare(frame, "base")
    assert table["metric"].tolist() == [
        "passed",
        "passed",
        "needle_recovered",
        "needle_recovered",
        "agent_tokens",
        "agent_tokens",
    ]
    asked = compare(frame, "base", ["agent_tokens", "no_such_metric", "passed"])
    assert asked["metric"].tolist() == ["agent_tokens", "agent_tokens", "passed", "passed"]


def test_thresholds_come_sorted_and_arms_in_the_order_they_appear():
    frame = cells_frame(
        [
            run("zeta", "c1", threshold="50%"),
            run("base", "c1", threshold="50%"),
            run("alpha", "c1", threshold="50%"),
            run("alpha", "c1", threshold="20%"),
            run("base", "c1", threshold="20%"),
        ]
    )
    table = compare(frame, "base", ["passed"])
    assert list(zip(table["threshold"], table["arm"])) == [
        ("20%", "alpha"),
        ("20%", "base"),
        ("50%", "zeta"),
        ("50%", "base"),
        ("50%", "alpha"),
    ]


def test_task_success_is_a_rate_even_stored_as_numbers_and_a_numeric_measure_is_not():
    frame = pd.DataFrame(
        {
            "threshold": ["20%"] * 4,
            "arm": ["base", "base", "other", "other"],
            "case_id": ["c1", "c2", "c1", "c2"],
            "trial": [0] * 4,
            "passed": [1.0, 1.0, 1.0, 0.0],
            "needle_recovered": [1.0, 1.0, 1.0, 0.0],
        }
    )
    recs = records(frame, "base", ["passed", "needle_recovered"])
    passed, needle = recs[("20%", "base", "passed")], recs[("20%", "base", "needle_recovered")]
    assert passed["rate"] is True and (passed["low"], passed["high"]) == (wilson(2, 2).low, wilson(2, 2).high)
    assert needle["rate"] is False and (needle["low"], needle["high"]) == (1.0, 1.0)


def test_a_yes_no_metric_is_compared_as_a_rate():
    frame = pd.DataFrame(
        {
            "threshold": ["20%"] * 6,
            "arm": ["base"] * 3 + ["other"] * 3,
            "case_id": ["c1", "c2", "c3"] * 2,
            "trial": [0] * 6,
            "needle_recovered": [True, True, True, True, False, False],
        }
    )
    recs = records(frame, "base", ["needle_recovered"])
    other = recs[("20%", "other", "needle_recovered")]
    r = wilson(1, 3)
    assert other["rate"] is True
    assert (other["mean"], other["low"], other["high"]) == (1 / 3, r.low, r.high)
    assert (other["diff"], other["n_pairs"], other["n_differ"], other["p"]) == (-2 / 3, 3, 2, 0.5)


# ---------------------------------------------------------------------------------------------------- significance


def _three_arms(fails_x: int, fails_y: int) -> pd.DataFrame:
    rows = [run("base", f"c{i}") for i in range(10)]
    rows += [run("x", f"c{i}", "FAIL" if i < fails_x else "PASS") for i in range(10)]
    rows += [run("y", f"c{i}", "FAIL" if i < fails_y else "PASS") for i in range(10)]
    return cells_frame(rows)


def test_p_values_are_holm_adjusted_across_the_arms_and_significant_means_adjusted_p_under_005():
    recs = records(_three_arms(5, 6), "base", ["passed"])
    x, y = recs[("20%", "x", "passed")], recs[("20%", "y", "passed")]
    assert (x["p"], y["p"]) == (2 / 2**5, 2 / 2**6)
    # Holm: y's 1/32 times 2 arms = 1/16, x's 1/16 times 1 = 1/16 -- y's raw p is under 0.05, its adjusted is not
    assert (x["p_adj"], y["p_adj"]) == (1 / 16, 1 / 16)
    assert (x["significant"], y["significant"]) == (False, False)
    recs = records(_three_arms(10, 6), "base", ["passed"])
    x, y = recs[("20%", "x", "passed")], recs[("20%", "y", "passed")]
    assert (x["p_adj"], y["p_adj"]) == (2 * 2 / 2**10, 2 / 2**6)
    assert (x["significant"], y["significant"]) == (True, True)
    assert recs[("20%", "base", "passed")]["significant"] is False


# ---------------------------------------------------------------------------------------------------- seeded


def test_the_same_runs_give_the_same_figures():
    first = compare(_token_frame(), "base", ["agent_tokens"])
    second = compare(_token_frame(), "base", ["agent_tokens"])
    pd.testing.assert_frame_equal(first, second)


def test_the_first_bootstrap_is_drawn_from_a_generator_seeded_with_the_module_seed():
    values = [100.0, 200.0, 150.0, 400.0, 120.0]
    frame = cells_frame([run("base", f"c{i}", agent_tokens=v) for i, v in enumerate(values)])
    rec = compare(frame, "base", ["agent_tokens"]).to_dict("records")[0]
    low, high = _bootstrap_first_draw(values)
    assert (rec["mean"], rec["low"], rec["high"]) == (194.0, low, high)


def test_the_difference_s_interval_is_the_2_5_and_97_5_percentiles_of_2000_paired_bootstrap_means():
    # 1000 pairs: 400 only the baseline passed (-1), 500 both (0), 100 only the other arm (+1). A rate's own interval
    # is Wilson's (no draws), so the paired bootstrap is the seeded generator's first draw
    base = [True] * 900 + [False] * 100
    other = [False] * 400 + [True] * 600
    frame = pd.DataFrame(
        {
            "threshold": ["20%"] * 2000,
            "arm": ["base"] * 1000 + ["other"] * 1000,
            "case_id": [f"c{i}" for i in range(1000)] * 2,
            "trial": [0] * 2000,
            "passed": base + other,
        }
    )
    rec = compare(frame, "base", ["passed"]).to_dict("records")[1]
    low, high = _bootstrap_first_draw([-1.0] * 400 + [0.0] * 500 + [1.0] * 100)
    assert (rec["diff"], rec["n_pairs"], rec["n_differ"]) == (-0.3, 1000, 500)
    assert (rec["diff_low"], rec["diff_high"]) == (low, high)
    # about the normal interval: sd of a mean of 1000 differences of variance 0.5 - 0.09
    half = 1.96 * math.sqrt(0.41 / 1000)
    assert low == pytest.approx(-0.3 - half, abs=0.005) and high == pytest.approx(-0.3 + half, abs=0.005)
