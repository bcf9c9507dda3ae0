"""pass@k (at least one of k trials passes) and pass^k (all k pass) per (threshold, arm), with the unbiased
estimators over the n trials of each case, averaged over cases (harness.analysis.compare.pass_at_k)."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.analysis.compare import pass_at_k


def trials(arm: str, case: str, results: list[bool | None], threshold: str = "20%", valid: list[bool] | None = None):
    return [
        {
            "threshold": threshold,
            "arm": arm,
            "case_id": case,
            "trial": t,
            "passed": ok,
            **({"valid": valid[t]} if valid is not None else {}),
        }
        for t, ok in enumerate(results)
    ]


def test_pass_at_k_and_pass_hat_k_for_every_k_up_to_the_fewest_trials_of_a_case():
    # case a: 2 of 4 trials pass; case b: 3 of 3 -> k = 1..3
    frame = pd.DataFrame(trials("v", "a", [True, False, False, True]) + trials("v", "b", [True, True, True]))
    table = pass_at_k(frame)
    assert table["k"].tolist() == [1, 2, 3]
    # a: pass@1 = 1 - C(2,1)/C(4,1) = 1/2, pass@2 = 1 - C(2,2)/C(4,2) = 5/6, pass@3 = 1 - 0/C(4,3) = 1; b: always 1
    assert table["pass@k"].tolist() == pytest.approx([(0.5 + 1) / 2, (5 / 6 + 1) / 2, 1.0])
    # a: pass^1 = C(2,1)/C(4,1) = 1/2, pass^2 = C(2,2)/C(4,2) = 1/6, pass^3 = 0; b: always 1
    assert table["pass^k"].tolist() == pytest.approx([(0.5 + 1) / 2, (1 / 6 + 1) / 2, 0.5])


def test_a_record_names_its_threshold_arm_cases_trials_and_the_runs_left_out():
    rows = trials("v", "a", [True, True, False], valid=[True, True, False]) + trials("v", "b", [False, True, True])
    table = pass_at_k(pd.DataFrame(rows))
    assert table.to_dict("records")[0] == {
        "threshold": "20%",
        "arm": "v",
        "k": 1,
        "pass@k": pytest.approx((1.0 + 2 / 3) / 2),
        "pass^k": pytest.approx((1.0 + 2 / 3) / 2),
        "cases": 2,
        "trials": 2,  # case a has 2 valid trials
        "runs excluded (INVALID or ERROR)": 1,
    }
    assert list(table.columns) == [
        "threshold",
        "arm",
        "k",
        "pass@k",
        "pass^k",
        "cases",
        "trials",
        "runs excluded (INVALID or ERROR)",
    ]
    assert table["k"].tolist() == [1, 2]
    assert table["runs excluded (INVALID or ERROR)"].tolist() == [1, 1]


def test_groups_come_sorted_by_threshold_then_arm():
    rows = (
        trials("zeta", "a", [True], threshold="50%")
        + trials("alpha", "a", [False], threshold="50%")
        + trials("zeta", "a", [True], threshold="20%")
    )
    table = pass_at_k(pd.DataFrame(rows))
    assert list(zip(table["threshold"], table["arm"], table["pass@k"])) == [
        ("20%", "zeta", 1.0),
        ("50%", "alpha", 0.0),
        ("50%", "zeta", 1.0),
    ]


def test_a_run_without_the_metric_is_not_a_trial_but_a_missing_other_column_does_not_matter():
    frame = pd.DataFrame(trials("v", "a", [True, None, False]))
    frame["agent_tokens"] = [None, 5.0, 6.0]
    table = pass_at_k(frame)
    assert table.to_dict("records")[-1]["trials"] == 2
    assert table["pass@k"].tolist() == pytest.approx([0.5, 1.0])
    assert table["runs excluded (INVALID or ERROR)"].tolist() == [0, 0]


def test_an_arm_without_any_value_is_skipped_and_the_next_arm_still_counts():
    rows = trials("alpha", "a", [None, None]) + trials("beta", "a", [True, False])
    table = pass_at_k(pd.DataFrame(rows))
    assert table["arm"].tolist() == ["beta", "beta"]
    assert table["pass@k"].tolist() == pytest.approx([0.5, 1.0])


def test_an_arm_with_only_invalid_runs_has_no_record():
    rows = trials("alpha", "a", [True, False], valid=[False, False]) + trials("beta", "a", [True], valid=[True])
    assert pass_at_k(pd.DataFrame(rows))["arm"].tolist() == ["beta"]


def test_another_metric_can_be_counted():
    frame = pd.DataFrame(trials("v", "a", [True, True]))
    frame["needle_recovered"] = [True, False]
    table = pass_at_k(frame, "needle_recovered")
    assert table["pass@k"].tolist() == pytest.approx([0.5, 1.0])
    assert table["pass^k"].tolist() == pytest.approx([0.5, 0.0])
