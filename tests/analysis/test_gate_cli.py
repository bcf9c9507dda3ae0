"""``harness regress``: its exit code and what it prints, over hand-made grids (no agent runs).

0 the gate holds; 1 a significant drop or an incomplete grid; 2 bad input; 4 too many cells ended in ERROR (an
outage is not a verdict, even beside a drop). 8 lost cases of 8 give p = 2/256, x3 gates under Holm: 0.0234.
"""

from __future__ import annotations

import json

from harness.cli.main import EXIT_BAD_INPUT, EXIT_ERROR, EXIT_FAILED, EXIT_OK, main
from tests._rows import full_row


def _row(case, ok=True, *, arm="a", outcome=None):
    outcome = outcome or ("PASS" if ok else "FAIL")
    return full_row(
        **{
            "arm": arm,
            "threshold": "20%",
            "eval": "goal",
            "kind": "goal",
            "strategy": "deepagents-summarization",
            "case_id": case,
            "trial": 0,
            "outcome": outcome,
            "outcome_keys": {"PASS": [], "FAIL": ["goal_preserved"], "ERROR": ["agent: HTTP 503"]}[outcome],
            "scores": {"run_completed": True, "goal_preserved": ok},
            "cell_id": f"{arm}|{case}",
        }
    )


def _cells(n, ok=True, **kw):
    return [_row(f"c{i}", ok, **kw) for i in range(n)]


def _grid(path, rows):
    path.mkdir(parents=True)
    (path / "cells.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _baseline(tmp_path, rows, capsys):
    baseline = tmp_path / "baseline.json"
    assert main(["regress", _grid(tmp_path / "base", rows), "--baseline", str(baseline), "--update"]) == EXIT_OK
    assert capsys.readouterr().out == f"baseline {baseline} rewritten from {len(rows)} cell(s) of base\n"
    return str(baseline)


def test_the_same_results_exit_0_with_the_table(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(8), capsys)
    assert main(["regress", _grid(tmp_path / "now", _cells(8)), "--baseline", baseline]) == EXIT_OK
    out = capsys.readouterr().out
    assert "| goal   | a     | 20%         | passed" in out
    assert out.endswith("no significant regression\n") and "REGRESSION" not in out


def test_a_significant_drop_exits_1_naming_each_gate(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(8), capsys)
    assert main(["regress", _grid(tmp_path / "now", _cells(8, False)), "--baseline", baseline]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert out.endswith("REGRESSION on 2 gate(s): passed (goal eval, a at 20%), goal_preserved (goal eval, a at 20%)\n")
    assert "0.0234" in out and "no significant regression" not in out


def test_a_drop_in_an_ad_hoc_grid_is_named_as_no_eval_never_as_the_eval_of_its_kind(tmp_path, capsys):
    def ad_hoc(rows):
        return [{**r, "eval": None, "eval_version": None} for r in rows]

    baseline = _baseline(tmp_path, ad_hoc(_cells(8)), capsys)
    assert main(["regress", _grid(tmp_path / "now", ad_hoc(_cells(8, False))), "--baseline", baseline]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert out.endswith(
        "REGRESSION on 2 gate(s): passed (goal cases, no eval, a at 20%), goal_preserved (goal cases, no eval, a at 20%)\n"
    )
    assert "| goal cases, no eval |" in out and "goal eval" not in out


def test_an_incomplete_grid_exits_1_and_says_why(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(8) + _cells(2, arm="b"), capsys)
    assert main(["regress", _grid(tmp_path / "now", _cells(8)), "--baseline", baseline]) == EXIT_FAILED
    lines = capsys.readouterr().out.splitlines()
    assert lines[-3:] == [
        "note: goal eval, b at 20%: in the baseline, not in now (not gated)",
        "note: INCOMPLETE: 2 of 10 baseline cells have no result in now (goal eval, b at 20%: 2). A lost shard or a "
        "shrunken spec is not a pass: rerun the missing cells, or gate on what is there with --allow-partial.",
        "the gate fails: the grid is incomplete (see the note above)",
    ]


def test_nothing_to_pair_with_the_baseline_is_said_not_passed_off_as_a_check(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(2), capsys)
    now = _grid(tmp_path / "now", _cells(2, arm="other"))
    assert main(["regress", now, "--baseline", baseline, "--allow-partial"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.endswith("nothing to gate: no cell pairs with the baseline\n")
    assert "note: 2 of 2 baseline cells have no result in now (--allow-partial: not gated)" in out


def test_too_many_error_cells_exit_4_even_beside_a_drop(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(10), capsys)
    now = _cells(8, False) + [_row(f"c{i}", outcome="ERROR") for i in (8, 9)]  # 20 % ERROR
    assert main(["regress", _grid(tmp_path / "now", now), "--baseline", baseline]) == EXIT_ERROR
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("ERROR RATE 2/10 cells (20.0%) ended in a provider error, above the 5% allowed")
    assert "REGRESSION on" not in out


def test_the_error_rate_is_gated_at_the_share_given_inclusive(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(20), capsys)
    one = _grid(tmp_path / "one", _cells(19) + [_row("c19", outcome="ERROR")])  # 5 %: allowed
    assert main(["regress", one, "--baseline", baseline]) == EXIT_OK
    two = _grid(tmp_path / "two", _cells(18) + [_row(f"c{i}", outcome="ERROR") for i in (18, 19)])  # 10 %
    assert main(["regress", two, "--baseline", baseline]) == EXIT_ERROR
    assert main(["regress", two, "--baseline", baseline, "--max-error-rate", "0.1"]) == EXIT_OK
    assert main(["regress", one, "--baseline", baseline, "--max-error-rate", "0"]) == EXIT_ERROR
    assert "above the 0% allowed" in capsys.readouterr().out


def test_bad_input_exits_2_with_the_reason(tmp_path, capsys):
    now = _grid(tmp_path / "now", _cells(2))
    assert main(["regress", now, "--baseline", str(tmp_path / "none.json")]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == f"error: {tmp_path / 'none.json'}: no baseline file; create it with --update\n"
    baseline = _baseline(tmp_path, _cells(2), capsys)
    assert main(["regress", now, "--baseline", baseline, "--max-error-rate", "1.5"]) == EXIT_BAD_INPUT
    assert "--max-error-rate must be between 0 and 1, got 1.5" in capsys.readouterr().err
    assert main(["regress", str(tmp_path), "--baseline", baseline]) == EXIT_BAD_INPUT
    assert "neither a run directory (results.jsonl) nor an experiment directory (cells.jsonl)" in capsys.readouterr().err


def test_a_baseline_of_another_eval_version_exits_2_and_says_how_to_rewrite_it(tmp_path, capsys):
    baseline = _baseline(tmp_path, _cells(8), capsys)
    changed = [{**r, "eval_version": 2} for r in _cells(8)]
    assert main(["regress", _grid(tmp_path / "now", changed), "--baseline", baseline]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "the baseline was scored under version 1, the current results under version 2" in err
    assert f"--baseline {baseline} --update" in err
