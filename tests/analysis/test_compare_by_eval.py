"""Arms compared per eval (`harness.analysis.compare`): a case run as two evals is two paired units, and a
KNOWN_UPSTREAM run left out of a figure is named as such, not as invalid."""

from __future__ import annotations

import pandas as pd

from harness.analysis.compare import compare, format_cell, pairing_unit


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
