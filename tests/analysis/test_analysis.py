import math

import numpy as np
import pandas as pd
import pytest

from harness.analysis.compare import compare, format_cell, format_diff, holm, mcnemar_exact, pass_at_k, sign_flip_p


def test_mcnemar_exact_matches_the_binomial_tail():
    base = np.array([True] * 10 + [False] * 2)
    other = np.array([False] * 10 + [True] * 2)  # b=10, c=2 discordant
    expected = 2 * sum(math.comb(12, i) for i in range(3)) / 2**12
    assert math.isclose(mcnemar_exact(base, other), expected)
    assert mcnemar_exact(base, base) == 1.0


def test_sign_flip_exact_minimum_p():
    rng = np.random.default_rng(0)
    assert math.isclose(sign_flip_p(np.array([1.0] * 6), rng), 2 / 64)
    assert sign_flip_p(np.array([1.0, -1.0, 1.0, -1.0]), rng) == 1.0


def test_holm_adjustment():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_pass_at_k_and_pass_hat_k_estimators():
    rows = [
        {"threshold": "20%", "arm": "v", "case_id": "a", "trial": t, "passed": ok}
        for t, ok in enumerate([True, False, False, True])
    ]
    rows += [{"threshold": "20%", "arm": "v", "case_id": "b", "trial": t, "passed": True} for t in range(4)]
    table = pass_at_k(pd.DataFrame(rows)).set_index("k")
    # case a: n=4, c=2 -> pass@2 = 1 - C(2,2)/C(4,2) = 5/6; pass^2 = C(2,2)/C(4,2) = 1/6. case b: 1 and 1.
    assert table.loc[2, "pass@k"] == pytest.approx((5 / 6 + 1) / 2)
    assert table.loc[2, "pass^k"] == pytest.approx((1 / 6 + 1) / 2)
    assert table.loc[1, "pass@k"] == pytest.approx(0.75)


def _frame(p_base, p_other, n=40, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for arm, p in (("base", p_base), ("other", p_other)):
        for case in range(n):
            ok = bool(rng.random() < p)
            rows.append(
                {
                    "threshold": "20%",
                    "arm": arm,
                    "case_id": f"c{case}",
                    "trial": 0,
                    "passed": ok,
                    "agent_tokens": 1000 + (0 if arm == "base" else 150) + rng.normal(0, 20),
                }
            )
    return pd.DataFrame(rows)


def test_a_clearly_degraded_arm_is_significant_and_an_equal_one_is_not():
    bad = compare(_frame(0.95, 0.3), "base", ["passed", "agent_tokens"]).set_index(["arm", "metric"])
    assert bad.loc[("other", "passed"), "significant"] and bad.loc[("other", "passed"), "diff"] < 0
    assert bad.loc[("other", "agent_tokens"), "significant"] and bad.loc[("other", "agent_tokens"), "diff"] > 100
    same = compare(_frame(0.9, 0.9, seed=2), "base", ["passed"]).set_index(["arm", "metric"])
    assert not same.loc[("other", "passed"), "significant"]


def test_every_formatted_number_carries_its_n():
    table = compare(_frame(0.9, 0.5), "base", ["passed", "agent_tokens"])
    for rec in table.to_dict("records"):
        assert f"n={rec['n']}" in format_cell(rec)
        if not rec["baseline"]:
            assert f"(n={rec['n_pairs']})" in format_diff(rec)
