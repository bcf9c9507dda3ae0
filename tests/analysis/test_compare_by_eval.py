"""Arms compared per eval (`harness.analysis.compare`): a case run as two evals is two paired units, a case run as no
eval pairs only with itself run as no eval (in `harness compare` too), and a KNOWN_UPSTREAM run left out of a figure is
named as such, not as invalid."""

from __future__ import annotations

import pandas as pd

from harness.analysis import regress
from harness.analysis.compare import cells_frame, compare, format_cell, pairing_unit


def _frame(outcomes: dict[tuple[str, str], str]) -> pd.DataFrame:
    """One row per (arm, eval) on the same case, threshold and trial."""
    rows = []
    for (arm, name), outcome in outcomes.items():
        valid = outcome in ("PASS", "FAIL")
        rows.append(
            {
                "arm": arm,
                "eval": name,
                "kind": "goal",
                "case_id": "goal-ledgers-12",
                "threshold": "25%",
                "trial": 0,
                "outcome": outcome,
                "valid": valid,
                "passed": (outcome == "PASS") if valid else None,
            }
        )
    return pd.DataFrame(rows)


def test_one_case_run_as_two_evals_pairs_within_each_eval():
    frame = _frame({("a", "goal"): "PASS", ("a", "history"): "FAIL", ("b", "goal"): "PASS", ("b", "history"): "FAIL"})
    assert pairing_unit(frame) == ["case_id", "threshold", "trial", "eval"]
    (rec,) = compare(frame, "a", ["passed"]).query("arm == 'b'").to_dict("records")
    # across evals the goal row would pair with the history row too: 4 pairs, 2 of them differing
    assert (rec["n_pairs"], rec["n_differ"]) == (2, 0)
    assert pairing_unit(frame.drop(columns="eval")) == ["case_id", "threshold", "trial"]


def test_a_known_upstream_run_left_out_is_named_so_not_invalid():
    frame = _frame({("a", "parity"): "PASS", ("b", "parity"): "KNOWN_UPSTREAM"})
    (rec,) = compare(frame, "a", ["passed"]).query("arm == 'b'").to_dict("records")
    assert (rec["excluded"], rec["upstream"]) == (1, 1)
    assert format_cell(rec) == "n/a (n=0) (1 known upstream excluded)"
    cell = {"mean": 0.5, "low": 0.2, "high": 0.8, "n": 10, "rate": True, "excluded": 4, "errors": 1, "upstream": 2}
    assert format_cell(cell) == "50% [20%, 80%] n=10 (1 invalid, 1 ERROR, 2 known upstream excluded)"


def _ran(arm: str, eval_name: str | None, outcome: str) -> dict:
    """A results row of goal-ledgers-12 run as ``eval_name`` (None: as no eval, as `harness run` without --kind)."""
    return {
        "arm": arm,
        "eval": eval_name,
        "kind": "goal",
        "case_id": "goal-ledgers-12",
        "threshold": "25%",
        "trial": 0,
        "outcome": outcome,
        "outcome_keys": [],
        "metrics": {},
    }


# arm a and b both PASS the case as the goal eval and both FAIL it run as no eval: no pair differs
AD_HOC_BESIDE_EVAL = [_ran(arm, name, outcome) for arm in ("a", "b") for name, outcome in (("goal", "PASS"), (None, "FAIL"))]


def test_a_case_run_as_no_eval_is_named_by_its_kind_and_pairs_only_with_itself_run_as_no_eval():
    frame = cells_frame(AD_HOC_BESIDE_EVAL)
    assert sorted(set(frame["eval"])) == ["goal", "goal cases, no eval"]  # `harness.rows.eval_label`: never the goal eval
    (rec,) = compare(frame, "a", ["passed"]).query("arm == 'b'").to_dict("records")
    # were the ad-hoc runs named the goal eval, each FAIL would pair with the other arm's PASS: 4 pairs, 2 differing
    assert (rec["n_pairs"], rec["n_differ"]) == (2, 0)


def test_harness_compare_pairs_an_ad_hoc_cell_with_the_ad_hoc_cell_only(monkeypatch):
    monkeypatch.setattr(regress, "load_rows", lambda path: (str(path), [r for r in AD_HOC_BESIDE_EVAL if r["arm"] == path]))
    table = regress.compare_sets("a", "b")
    (passed,) = table[table["metric"] == "passed"].to_dict("records")
    assert passed["B - A"] == "no pair differs (n=2)"
