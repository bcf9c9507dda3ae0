"""The nightly gate over a baseline file and a result set: which cells pair, what each gate row reads, the notes,
and when the gate passes.

Expected p-values are exact McNemar: n discordant pairs all one way give p = 2 / 2**n, then Holm across every gate
of the run. Rates read as Wilson 95 % intervals: 8/8 is 100% [68%, 100%], 0/8 is 0% [0%, 32%].
"""

from __future__ import annotations

import json

from harness.analysis.regress import regress, write_baseline
from tests._rows import full_row

COLUMNS = ["eval", "arm", "threshold", "metric", "baseline", "current", "diff", "n_pairs", "p_adj", "verdict"]
ALL_OF_8 = "100% [68%, 100%] n=8"
NONE_OF_8 = "0% [0%, 32%] n=8"


def _row(case, ok=True, *, trial=0, arm="a", eval_name="goal", outcome=None, check=True, threshold="20%"):
    """A goal cell: PASS when its goal was kept, FAIL when not; ``check=False``: the gated check is not scored."""
    scores = {"run_completed": True, **({"goal_preserved": ok} if check else {})}
    outcome = outcome or ("PASS" if ok else "FAIL")
    return {
        "arm": arm,
        "threshold": threshold,
        "eval": eval_name,
        "kind": "goal",
        "strategy": "deepagents-summarization",
        "case_id": case,
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": [] if outcome == "PASS" else (["agent: HTTP 503"] if outcome == "ERROR" else ["goal_preserved"]),
        "scores": scores,
    }


def _cells(n, ok=True, **kw):
    return [_row(f"c{i}", ok, **kw) for i in range(n)]


def _gate(tmp_path, base, now, *, name="tonight", allow_partial=False):
    write_baseline(base, "base", tmp_path / "baseline.json")
    run = tmp_path / name
    run.mkdir(parents=True)
    lines = "".join(
        json.dumps(full_row(**r, cell_id=f"{r['arm']}|{r['eval']}|{r['threshold']}|{r['case_id']}|{r['trial']}")) + "\n"
        for r in now
    )
    (run / "cells.jsonl").write_text(lines, encoding="utf-8")
    return regress(run, tmp_path / "baseline.json", allow_partial=allow_partial)


def _gates(table):
    return {(r["eval"], r["arm"], r["metric"]): r for r in table.to_dict("records")}


def test_a_significant_drop_fails_the_gate_and_each_row_reads_both_sides(tmp_path):
    ok, table, notes = _gate(tmp_path, _cells(8, True), _cells(8, False))
    assert not ok and notes == []
    assert list(table.columns) == COLUMNS
    # Holm over 3 gates: p = 2/256 for each drop, x3 for the smallest; validity did not change (p 1)
    assert table.to_dict("records") == [
        {
            "eval": "goal",
            "arm": "a",
            "threshold": "20%",
            "metric": "case_valid",
            "baseline": ALL_OF_8,
            "current": ALL_OF_8,
            "diff": "+0.0 pts",
            "n_pairs": 8,
            "p_adj": "1",
            "verdict": "ok",
        },
        {
            "eval": "goal",
            "arm": "a",
            "threshold": "20%",
            "metric": "passed",
            "baseline": ALL_OF_8,
            "current": NONE_OF_8,
            "diff": "-100.0 pts",
            "n_pairs": 8,
            "p_adj": "0.0234",
            "verdict": "REGRESSION",
        },
        {
            "eval": "goal",
            "arm": "a",
            "threshold": "20%",
            "metric": "goal_preserved",
            "baseline": ALL_OF_8,
            "current": NONE_OF_8,
            "diff": "-100.0 pts",
            "n_pairs": 8,
            "p_adj": "0.0234",
            "verdict": "REGRESSION",
        },
    ]


def test_the_same_results_pass_the_gate(tmp_path):
    ok, table, notes = _gate(tmp_path, _cells(8, True), _cells(8, True))
    assert ok and notes == []
    assert list(table["verdict"]) == ["ok", "ok", "ok"]
    assert list(table["diff"]) == ["+0.0 pts"] * 3 and list(table["p_adj"]) == ["1", "1", "1"]


def test_a_significant_rise_is_an_improvement_and_passes(tmp_path):
    ok, table, _ = _gate(tmp_path, _cells(8, False), _cells(8, True))
    assert ok
    assert list(table["verdict"]) == ["ok", "improved", "improved"]
    assert list(table["diff"]) == ["+0.0 pts", "+100.0 pts", "+100.0 pts"]


def test_a_small_drop_reads_in_points_and_is_not_significant(tmp_path):
    """One case of 8 lost: -12.5 points, p = 1 (a single discordant pair)."""
    now = [_row("c0", False), *_cells(8, True)[1:]]
    ok, table, _ = _gate(tmp_path, _cells(8, True), now)
    assert ok
    gates = _gates(table)
    assert gates[("goal", "a", "passed")]["diff"] == "-12.5 pts"
    assert gates[("goal", "a", "passed")]["current"].startswith("88% [")
    assert gates[("goal", "a", "passed")]["verdict"] == "ok" and gates[("goal", "a", "passed")]["p_adj"] == "1"


def test_holm_counts_every_gate_of_the_run_not_only_those_of_one_group(tmp_path):
    """7 lost cases: p = 2/128 = 0.0156. Alone with its validity gate (2 gates) that is 0.03125, a regression; beside a
    second arm's 2 unchanged gates (4 in all) it is 0.0625, not one."""
    base, drop = _cells(7, True, check=False), _cells(7, False, check=False)
    ok, table, _ = _gate(tmp_path / "one", base, drop)
    assert not ok and _gates(table)[("goal", "a", "passed")]["p_adj"] == "0.0312"
    other = _cells(7, True, arm="b", check=False)
    ok, table, _ = _gate(tmp_path, base + other, drop + other)
    assert ok
    assert _gates(table)[("goal", "a", "passed")]["p_adj"] == "0.0625"
    assert list(table["verdict"]) == ["ok"] * 4


def test_gates_are_grouped_by_eval_arm_and_threshold_in_sorted_order(tmp_path):
    cells = [
        *_cells(2, arm="b", check=False),
        *_cells(2, arm="a", eval_name="chain", check=False),
        *_cells(2, arm="a", threshold="10%", check=False),
        *_cells(2, arm="a", check=False),
    ]
    _, table, _ = _gate(tmp_path, cells, cells)
    groups = list(dict.fromkeys(zip(table["eval"], table["arm"], table["threshold"])))
    assert groups == [("chain", "a", "20%"), ("goal", "a", "10%"), ("goal", "a", "20%"), ("goal", "b", "20%")]
    assert set(table["n_pairs"]) == {2}  # a group pairs only with its own cells


def test_invalid_cells_count_in_validity_only(tmp_path):
    """Every current cell INVALID: validity drops (8 pairs, p 2/256, the only gate), the checks have nothing to pair."""
    now = _cells(8, True, outcome="INVALID")
    ok, table, notes = _gate(tmp_path, _cells(8, True), now)
    assert not ok
    assert table[["metric", "current", "diff", "p_adj", "verdict"]].to_dict("records") == [
        {"metric": "case_valid", "current": NONE_OF_8, "diff": "-100.0 pts", "p_adj": "0.00781", "verdict": "REGRESSION"}
    ]
    assert notes == [
        "goal eval, a at 20%: passed has no paired valid cells (not gated)",
        "goal eval, a at 20%: goal_preserved has no paired valid cells (not gated)",
    ]


def test_error_cells_count_in_no_gate_and_never_read_as_a_regression(tmp_path):
    """An all-ERROR night leaves nothing to pair (the error-rate gate speaks for it): no gate row, no failure."""
    ok, table, notes = _gate(tmp_path, _cells(8, True), _cells(8, True, outcome="ERROR"))
    assert ok and table.empty and list(table.columns) == COLUMNS
    assert notes == [
        f"goal eval, a at 20%: {metric} has no paired valid cells (not gated)" for metric in ("passed", "goal_preserved")
    ]


def test_error_cells_are_left_out_of_the_validity_pairs(tmp_path):
    now = [*_cells(8, True)[:5], *(_row(f"c{i}", outcome="ERROR") for i in range(5, 8))]
    ok, table, notes = _gate(tmp_path, _cells(8, True), now)
    assert ok and notes == []
    assert list(table["n_pairs"]) == [5, 5, 5]
    assert _gates(table)[("goal", "a", "case_valid")]["current"].endswith("n=5")


def test_a_baseline_group_with_no_current_cells_is_named_and_fails_as_incomplete(tmp_path):
    base = _cells(4) + _cells(3, arm="b")
    ok, table, notes = _gate(tmp_path, base, _cells(4))
    assert not ok
    assert set(table["arm"]) == {"a"}
    assert notes == [
        "goal eval, b at 20%: in the baseline, not in tonight (not gated)",
        "INCOMPLETE: 3 of 7 baseline cells have no result in tonight (goal eval, b at 20%: 3). A lost shard or a "
        "shrunken spec is not a pass: rerun the missing cells, or gate on what is there with --allow-partial.",
    ]


def test_allow_partial_gates_what_is_there_and_says_what_was_not(tmp_path):
    base = _cells(8) + _cells(3, arm="b")
    ok, _, notes = _gate(tmp_path, base, _cells(8), allow_partial=True)
    assert ok
    assert notes == [
        "goal eval, b at 20%: in the baseline, not in tonight (not gated)",
        "3 of 11 baseline cells have no result in tonight (--allow-partial: not gated)",
    ]
    # allowed or not, a regression in what is there still fails
    ok, _, _ = _gate(tmp_path / "x", base, _cells(8, False), allow_partial=True)
    assert not ok


def test_new_current_cells_without_a_baseline_are_not_missing(tmp_path):
    ok, table, notes = _gate(tmp_path, _cells(4), _cells(4) + _cells(4, arm="new"))
    assert ok and notes == [] and set(table["arm"]) == {"a"}


def test_a_baseline_cell_without_checks_gates_pass_and_validity_only(tmp_path):
    base = _cells(8, True)
    write_baseline(base, "base", tmp_path / "baseline.json")
    stored = json.loads((tmp_path / "baseline.json").read_text(encoding="utf-8"))
    for cell in stored["cells"]:
        cell["checks"] = None
    (tmp_path / "baseline.json").write_text(json.dumps(stored), encoding="utf-8")
    run = tmp_path / "now"
    run.mkdir()
    (run / "cells.jsonl").write_text("".join(json.dumps(full_row(**r, cell_id=r["case_id"])) + "\n" for r in _cells(8, False)))
    ok, table, notes = regress(run, tmp_path / "baseline.json")
    assert not ok
    # the current cells still score goal_preserved: it is a gate, but the baseline side has no value to pair with
    assert list(table["metric"]) == ["case_valid", "passed"]
    assert notes == ["goal eval, a at 20%: goal_preserved has no paired valid cells (not gated)"]


def _needle(case, correct=True, *, history=True):
    row = _row(case, correct, eval_name="needle")
    row.update(
        kind="needle",
        scores={"run_completed": True, "needle_correct": correct, "needle_via_history": history},
        outcome_keys=[] if correct else ["needle_correct"],
    )
    return row


def test_every_gated_check_of_the_eval_is_a_gate_even_one_not_among_the_report_metrics(tmp_path):
    """needle_correct is a check, not a report metric: it is gated all the same, after the pass rate."""
    base = [_needle(f"c{i}") for i in range(8)]
    now = [_needle(f"c{i}", False) for i in range(8)]
    ok, table, _ = _gate(tmp_path, base, now)
    assert not ok
    assert list(table["metric"]) == ["case_valid", "passed", "needle_correct", "needle_via_history"]
    assert list(table["verdict"]) == ["ok", "REGRESSION", "REGRESSION", "ok"]


def test_each_gate_row_reads_the_baseline_figure_of_its_own_metric(tmp_path):
    """Half the baseline cells failed: its pass rate is 4/8 (Wilson 50% [22%, 78%]) while all 8 were valid."""
    base = [_row(f"c{i}", i < 4) for i in range(8)]
    _, table, _ = _gate(tmp_path, base, base)
    assert [(r["metric"], r["baseline"]) for r in table.to_dict("records")] == [
        ("case_valid", ALL_OF_8),
        ("passed", "50% [22%, 78%] n=8"),
        ("goal_preserved", "50% [22%, 78%] n=8"),
    ]


def test_a_missing_group_does_not_stop_the_groups_after_it(tmp_path):
    base = _cells(8, arm="a") + _cells(8, arm="b")
    ok, table, notes = _gate(tmp_path, base, _cells(8, False, arm="b"), allow_partial=True)
    assert not ok and set(table["arm"]) == {"b"}
    assert notes[0] == "goal eval, a at 20%: in the baseline, not in tonight (not gated)"


def test_by_default_a_partial_grid_fails(tmp_path):
    write_baseline(_cells(4), "base", tmp_path / "baseline.json")
    run = tmp_path / "now"
    run.mkdir()
    (run / "cells.jsonl").write_text("".join(json.dumps(full_row(**r, cell_id=r["case_id"])) + "\n" for r in _cells(3)))
    ok, _, notes = regress(run, tmp_path / "baseline.json")
    assert not ok and notes[-1].startswith("INCOMPLETE: 1 of 4 baseline cells have no result in now (goal eval, a at 20%: 1)")


def test_a_baseline_from_another_version_of_an_eval_is_refused_not_compared(tmp_path):
    import pytest

    from harness.errors import HarnessError

    base = _cells(8, True)  # written before versions: scored under version 1
    same = [{**r, "eval_version": 1} for r in _cells(8, True)]
    assert _gate(tmp_path, base, same)[0]  # version 1 both sides: compared, and it passes
    changed = [{**r, "eval_version": 2} for r in _cells(8, True)]
    with pytest.raises(HarnessError) as err:
        _gate(tmp_path / "v2", base, changed)
    message = str(err.value)
    baseline = tmp_path / "v2" / "baseline.json"
    assert message == (
        f"{baseline}: not comparable with tonight: eval 'goal': the baseline was scored under version 1, the current "
        "results under version 2. An eval's version changes when its cases, checks or scoring change meaning "
        "(suites/registry.py). Rewrite the baseline from results of the current version: harness regress RESULTS "
        f"--baseline {baseline} --update"
    )
    # a version change in one eval refuses the whole gate even though the other eval's cells match
    needle = _cells(4, True, eval_name="needle")
    with pytest.raises(HarnessError, match="eval 'goal'"):
        _gate(tmp_path / "mixed", base + needle, changed + needle)
    needle_v2 = [{**r, "eval_version": 2} for r in needle]  # two evals changed: both named, one after the other
    with pytest.raises(HarnessError) as err:
        _gate(tmp_path / "both", base + needle, changed + needle_v2)
    assert "under version 2; eval 'needle': the baseline was scored under version 1" in str(err.value)


def test_an_ad_hoc_grid_is_gated_by_its_kind_and_refused_against_a_baseline_of_the_eval_itself(tmp_path):
    """A grid without evals: writes eval null (no version); the gate groups its cells by kind, compares them with a
    baseline of the same ad-hoc grid, and refuses a baseline scored as the eval, saying so rather than "version 1"."""
    import pytest

    from harness.errors import HarnessError

    ad_hoc = [{**r, "eval": None, "eval_version": None} for r in _cells(8, True)]
    ok, table, _ = _gate(tmp_path, ad_hoc, ad_hoc)
    assert ok and set(table["eval"]) == {"goal cases, no eval"}  # the run report's heading, never the goal eval
    assert set(table["metric"]) == {"case_valid", "passed", "goal_preserved"}  # the goal eval's gated check all the same
    as_eval = [{**r, "eval_version": 2} for r in _cells(8, True)]
    with pytest.raises(HarnessError) as err:
        _gate(tmp_path / "mixed", as_eval, ad_hoc)
    assert "baseline was scored under version 2, the current results under version none (run as no eval)" in str(err.value)


def test_every_line_the_gate_writes_about_ad_hoc_cells_names_them_as_no_eval(tmp_path):
    """The table, each note (a group missing tonight, a metric with no pairs, an incomplete grid) and the baseline file
    name a group of ad-hoc cells "<kind> cases, no eval" (`harness.rows.eval_label`): never the eval of that kind."""
    from harness.analysis.regress import load_baseline

    def ad_hoc(rows):
        return [{**r, "eval": None, "eval_version": None} for r in rows]

    base = ad_hoc(_cells(8, True) + _cells(3, True, arm="b"))
    now = ad_hoc(_cells(8, False) + [_row("c0", True, arm="c")])
    ok, table, notes = _gate(tmp_path, base, now)
    assert not ok and set(table["eval"]) == {"goal cases, no eval"}
    assert set(table[table["verdict"] == "REGRESSION"]["metric"]) == {"passed", "goal_preserved"}
    assert notes[0] == "goal cases, no eval, b at 20%: in the baseline, not in tonight (not gated)"
    assert notes[-1].startswith("INCOMPLETE: 3 of 11 baseline cells have no result in tonight (goal cases, no eval, b at 20%: 3)")
    stored = load_baseline(tmp_path / "baseline.json")
    assert {(c["eval"], c["kind"]) for c in stored} == {(None, "goal")}
    said = " ".join([*notes, *map(str, table["eval"])])
    assert "goal eval" not in said and "eval 'goal'" not in said, said
    unpaired = ad_hoc([_row(f"c{i}", outcome="INVALID") for i in range(8)])
    _, _, notes = _gate(tmp_path / "unpaired", ad_hoc(_cells(8, True)), unpaired)
    assert notes and all(n.startswith("goal cases, no eval, a at 20%: ") for n in notes), notes
