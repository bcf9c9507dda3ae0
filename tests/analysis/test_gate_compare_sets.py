"""``harness compare A B``: reading a result set, choosing the arm of each side, and the side-by-side table.

Expected figures: 2 of 4 cases lost is -50 points with McNemar p = 2 * (1/2)**2 = 0.5; the bootstrap interval of
[0, 0, -1, -1] spans both ends (-100, +0), each drawn with probability 1/16 > 2.5 %; four token counts each higher by
100 have a sign-flip p of 2/16 = 0.125; Wilson 4/4 is 100% [51%, 100%] and 2/4 is 50% [15%, 85%].
"""

from __future__ import annotations

import json

import pytest

from harness.analysis.regress import compare_sets, load_rows
from harness.errors import HarnessError
from harness.runs.results import upgrade_row
from tests._rows import full_row


def _row(case, ok=True, *, arm="a", threshold="20%", tokens=100, **metrics):
    return full_row(
        **{
            "arm": arm,
            "threshold": threshold,
            "eval": "goal",
            "kind": "goal",
            "case_id": case,
            "trial": 0,
            "outcome": "PASS" if ok else "FAIL",
            "outcome_keys": [] if ok else ["goal_preserved"],
            "scores": {"goal_preserved": ok},
            "metrics": {"agent_tokens": tokens, **metrics},
            "cell_id": f"{arm}|{threshold}|{case}",
        }
    )


def _write(path, rows, file="results.jsonl"):
    path.mkdir(parents=True, exist_ok=True)
    (path / file).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- load_rows -------------------------------------------------------------------------------------


def test_a_run_directory_reads_its_results_rows_named_after_the_directory(tmp_path):
    rows = [_row("c1"), _row("c1")]  # a run file keeps every row
    name, got = load_rows(str(_write(tmp_path / "night-1", rows)))
    assert name == "night-1" and got == [upgrade_row(r) for r in rows]


def test_an_experiment_directory_reads_the_current_row_of_each_cell_first(tmp_path):
    """cells.jsonl wins over a results.jsonl beside it; a cell run twice counts once, as its last row."""
    path = _write(tmp_path / "grid", [_row("other")])
    _write(path, [_row("c1", False), _row("c1", True), _row("c2")], file="cells.jsonl")
    name, got = load_rows(path)
    assert name == "grid"
    assert [(r["case_id"], r["outcome"], r.get("earlier_attempts")) for r in got] == [("c1", "PASS", 1), ("c2", "PASS", None)]


def test_a_directory_with_neither_file_is_refused_by_name(tmp_path):
    with pytest.raises(HarnessError) as err:
        load_rows(tmp_path)
    assert str(err.value) == (f"{tmp_path}: neither a run directory (results.jsonl) nor an experiment directory (cells.jsonl)")


def test_an_unmerged_sharded_experiment_is_named_with_the_merge_that_joins_it(tmp_path):
    """`harness experiment run --shard i/n` writes under shards/<i>of<n>/; before the merge the directory has no
    cells.jsonl, and the README's nightly sequence once went straight to the gate: say so and name the merge."""
    (tmp_path / "shards" / "0of4").mkdir(parents=True)
    (tmp_path / "shards" / "2of4").mkdir()
    with pytest.raises(HarnessError) as err:
        load_rows(tmp_path)
    assert str(err.value) == (
        f"{tmp_path}: an experiment run in shards (0of4, 2of4 under shards/) and not merged: no cells.jsonl yet; "
        f"join them first with `harness experiment merge {tmp_path} {tmp_path / 'shards'}/*`"
    )


# -- choosing the arm -----------------------------------------------------------------------------


def test_a_side_holding_several_arms_needs_one_chosen(tmp_path):
    two = _write(tmp_path / "two", [_row("c1", arm="x"), _row("c1", arm="y"), _row("c2", arm="x")])
    one = _write(tmp_path / "one", [_row("c1")])
    with pytest.raises(HarnessError) as err:
        compare_sets(two, one)
    assert str(err.value) == f"{two} holds arms x, y: choose one with --arm-a/--arm-b"
    with pytest.raises(HarnessError) as err:
        compare_sets(one, two)
    assert str(err.value) == f"{two} holds arms x, y: choose one with --arm-a/--arm-b"


def test_an_arm_a_side_does_not_hold_is_named_with_the_arms_it_has(tmp_path):
    two = _write(tmp_path / "two", [_row("c1", arm="x"), _row("c1", arm="y")])
    with pytest.raises(HarnessError) as err:
        compare_sets(two, two, arm_a="x", arm_b="z")
    assert str(err.value) == f"{two} has no arm 'z'; it has x, y"
    with pytest.raises(HarnessError) as err:
        compare_sets(two, two, arm_a="w", arm_b="x")
    assert str(err.value) == f"{two} has no arm 'w'; it has x, y"


def test_the_chosen_arms_are_compared_paired_on_case(tmp_path):
    rows = [_row(f"c{i}", arm="x") for i in range(4)] + [_row(f"c{i}", i < 2, arm="y", tokens=200) for i in range(4)]
    both = _write(tmp_path / "grid", rows)
    table = compare_sets(both, both, arm_a="x", arm_b="y")
    passed = table[table["metric"] == "passed"].iloc[0].to_dict()
    assert passed == {
        "threshold": "20%",
        "metric": "passed",
        "A: grid (x, deepagents-summarization)": "100% [51%, 100%] n=4",  # each side says what it ran
        "B: grid (y, deepagents-summarization)": "50% [15%, 85%] n=4",
        "B - A": "-50 pts [-100, +0] p=0.5 (n=4)",
    }
    tokens = table[table["metric"] == "agent_tokens"].iloc[0].to_dict()
    assert tokens["B - A"] == "+100 [+100, +100] p=0.125 (n=4)"
    # the other way round
    table = compare_sets(both, both, arm_a="y", arm_b="x")
    assert table[table["metric"] == "passed"].iloc[0]["B - A"] == "+50 pts [+0, +100] p=0.5 (n=4)"


# -- the table -------------------------------------------------------------------------------------


def test_the_table_has_a_row_per_metric_measured_on_either_side(tmp_path):
    """A metric neither side measured is left out; one measured on A alone stays, B reading n/a."""
    a = _write(tmp_path / "A", [_row(f"c{i}", summary_length=10 * i, premature_completion=None) for i in range(4)])
    b = _write(tmp_path / "B", [_row(f"c{i}", premature_completion=None) for i in range(4)])
    table = compare_sets(a, b)
    a_, b_ = "A: A (a, deepagents-summarization)", "B: B (a, deepagents-summarization)"
    assert list(table.columns) == ["threshold", "metric", a_, b_, "B - A"]
    assert list(table["metric"]) == ["passed", "agent_tokens", "summary_length"]
    length = table[table["metric"] == "summary_length"].iloc[0]
    assert length[b_] == "n/a (n=0)" and length["B - A"] == "no pairs"
    assert table[table["metric"] == "passed"].iloc[0]["B - A"] == "no pair differs (n=4)"


def test_single_thresholds_that_differ_are_compared_as_one_pair(tmp_path):
    a = _write(tmp_path / "A", [_row(f"c{i}", threshold="20%") for i in range(4)])
    b = _write(tmp_path / "B", [_row(f"c{i}", i < 2, threshold="30%") for i in range(4)])
    table = compare_sets(a, b)
    assert set(table["threshold"]) == {"20% vs 30%"}
    assert table[table["metric"] == "passed"].iloc[0]["B - A"] == "-50 pts [-100, +0] p=0.5 (n=4)"


def test_thresholds_that_differ_on_a_grid_are_refused(tmp_path):
    grid = _write(tmp_path / "grid", [_row("c1", threshold="20%"), _row("c1", threshold="30%")])
    single = _write(tmp_path / "single", [_row("c1", threshold="40%")])
    message = "A and B use different thresholds; compare single-threshold results or matching grids"
    for a, b in ((grid, single), (single, grid)):
        with pytest.raises(HarnessError) as err:
            compare_sets(a, b)
        assert str(err.value) == message


def test_matching_grids_compare_threshold_by_threshold(tmp_path):
    rows = [_row(f"c{i}", threshold=t) for t in ("20%", "30%") for i in range(2)]
    table = compare_sets(_write(tmp_path / "A", rows), _write(tmp_path / "B", rows))
    assert list(dict.fromkeys(table["threshold"])) == ["20%", "30%"]
    assert set(table["B - A"]) == {"no pair differs (n=2)"}


def test_two_single_cell_sides_at_different_thresholds_pair_as_one(tmp_path):
    a = _write(tmp_path / "A", [_row("c1", threshold="20%")])
    b = _write(tmp_path / "B", [_row("c1", False, threshold="30%")])
    table = compare_sets(a, b)
    assert set(table["threshold"]) == {"20% vs 30%"}
    assert table[table["metric"] == "passed"].iloc[0]["B - A"] == "-100 pts [-100, -100] p=1 (n=1)"
