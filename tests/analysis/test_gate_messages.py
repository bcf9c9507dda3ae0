"""What the gate tells a person: the error-rate stop and an incomplete grid, with the exact numbers in them."""

from __future__ import annotations

from harness.analysis.regress import error_gate, incomplete_message, missing_cells, version_mismatches


def _rows(*outcomes: tuple[str, list[str]]) -> list[dict]:
    return [{"outcome": outcome, "outcome_keys": keys} for outcome, keys in outcomes]


def _err(*keys: str) -> tuple[str, list[str]]:
    return ("ERROR", list(keys))


OK = ("PASS", [])
INVALID = ("INVALID", ["compacted"])


def test_the_error_gate_message_lists_each_cause_most_frequent_first():
    rows = _rows(_err("agent: HTTP 429"), _err("agent: HTTP 503"), _err("agent: HTTP 503"), _err(), *[OK] * 4)
    assert error_gate(rows) == (
        "ERROR RATE 4/8 cells (50.0%) ended in a provider error, above the 5% allowed (--max-error-rate): too few valid "
        "cells to gate on (2 x agent: HTTP 503; 1 x agent: HTTP 429; 1 x unknown). Not a regression: rerun the "
        "experiment to retry them."
    )


def test_the_error_gate_counts_only_error_cells_not_invalid_ones():
    assert error_gate(_rows(*[INVALID] * 10)) is None
    message = error_gate(_rows(_err("a", "b"), *[INVALID] * 7))
    assert message is not None and message.startswith("ERROR RATE 1/8 cells (12.5%) ended")
    assert "(1 x a, b)" in message


def test_the_error_gate_boundary_is_inclusive_at_any_rate():
    rows = _rows(_err("x"), OK, OK)
    assert error_gate(rows, max_error_rate=1 / 3) is None
    assert error_gate(rows, max_error_rate=0.33) is not None
    assert error_gate(_rows(_err("x")), max_error_rate=1.0) is None


def test_a_zero_error_rate_allows_no_error_and_says_so():
    assert error_gate(_rows(OK, OK), max_error_rate=0.0) is None
    message = error_gate(_rows(_err("x"), *[OK] * 999), max_error_rate=0.0)
    assert message is not None
    assert message.startswith("ERROR RATE 1/1000 cells (0.1%) ended in a provider error, above the 0% allowed")


def _unit(eval_name="goal", arm="a", threshold="20%", case="c1", trial=0):
    return {"eval": eval_name, "arm": arm, "threshold": threshold, "case_id": case, "trial": trial, "outcome": "PASS"}


def test_a_baseline_cell_is_missing_unless_all_five_ids_match():
    base = [
        _unit(),
        _unit(eval_name="chain"),
        _unit(arm="b"),
        _unit(threshold="30%"),
        _unit(case="c2"),
        _unit(trial=1),
    ]
    assert missing_cells(base, [_unit(), _unit(case="c9")]) == [
        ("chain", "a", "20%", "c1", 0),
        ("goal", "b", "20%", "c1", 0),
        ("goal", "a", "30%", "c1", 0),
        ("goal", "a", "20%", "c2", 0),
        ("goal", "a", "20%", "c1", 1),
    ]
    assert missing_cells(base, base) == []
    assert missing_cells([], [_unit()]) == []


def test_the_incomplete_message_counts_the_missing_cells_of_each_group_in_sorted_order():
    missing = [
        ("goal", "b", "20%", "c1", 0),
        ("goal", "a", "20%", "c1", 0),
        ("goal", "a", "20%", "c2", 0),
        ("chain", "a", "20%", "c1", 1),
    ]
    assert incomplete_message(missing, 10, "tonight") == (
        "INCOMPLETE: 4 of 10 baseline cells have no result in tonight (chain eval, a at 20%: 1; goal eval, a at 20%: 2; "
        "goal eval, b at 20%: 1). A lost shard or a shrunken spec is not a pass: rerun the missing cells, or gate on "
        "what is there with --allow-partial."
    )


def test_the_incomplete_message_lists_eight_groups_and_counts_the_rest():
    nine = [("goal", f"arm{i}", "20%", "c1", 0) for i in range(9)]
    listed = "; ".join(f"goal eval, arm{i} at 20%: 1" for i in range(8))
    assert incomplete_message(nine, 9, "n") == (
        f"INCOMPLETE: 9 of 9 baseline cells have no result in n ({listed}; and 1 more groups). A lost shard or a "
        "shrunken spec is not a pass: rerun the missing cells, or gate on what is there with --allow-partial."
    )
    assert "more groups" not in incomplete_message(nine[:8], 8, "n")
    assert f"({listed}). A lost shard" in incomplete_message(nine[:8], 8, "n")


def test_an_improvement_also_needs_an_adjusted_p_strictly_under_alpha():
    from harness.analysis.compare import ALPHA
    from harness.analysis.regress import gate_verdicts

    assert gate_verdicts([0.5], [ALPHA])[1] == ["ok"]
    assert gate_verdicts([0.5], [ALPHA * 0.999])[1] == ["improved"]


def _versioned(eval_name, *versions, kind="goal"):
    """One cell per version; ``...`` for a cell written before versions (no eval_version key)."""
    return [{"eval": eval_name, "kind": kind, **({} if v is ... else {"eval_version": v})} for v in versions]


def test_a_cell_without_a_version_was_scored_under_version_1():
    assert version_mismatches(_versioned("goal", ...), _versioned("goal", 1)) == []
    assert version_mismatches(_versioned("goal", ...), _versioned("goal", 2)) == [
        "eval 'goal': the baseline was scored under version 1, the current results under version 2"
    ]


def test_each_side_lists_every_version_it_holds_and_only_evals_on_both_sides_are_compared():
    base = _versioned("goal", 2, 1, None) + _versioned("needle", 1, kind="needle")
    now = _versioned("goal", 2) + _versioned("chain", 5, kind="needle")
    assert version_mismatches(base, now) == [
        "eval 'goal': the baseline was scored under version 1, 2, none (run as no eval), the current results under version 2"
    ]


def test_ad_hoc_cells_are_compared_with_the_eval_of_their_kind_and_said_to_have_run_as_no_eval():
    ad_hoc = _versioned(None, None)
    assert version_mismatches(ad_hoc, ad_hoc) == []
    assert version_mismatches(_versioned("goal", 3), ad_hoc) == [
        "eval 'goal': the baseline was scored under version 3, the current results under version none (run as no eval)"
    ]
