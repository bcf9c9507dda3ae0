"""Experiment specs, the grid runner (append-only, resumable, sharded), compare and the regression gate."""

import json
import shutil

import pytest

from harness.cli.main import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main
from harness.compaction.variants import VARIANTS_DIR
from harness.errors import ConfigError, HarnessError
from harness.runs.grid import plan_cells, run_experiment, spec_scenarios
from harness.runs.merge import merge_experiments
from harness.runs.results import read_cells
from harness.runs.spec import load_spec
from tests._rows import full_row

pytestmark = pytest.mark.slow

SMALL = """
name: {name}
variants: {variants}
baseline: {baseline}
thresholds: [20%]
scenarios:
  cases: {cases}
trials: {trials}
seed: 0
"""


def spec_file(
    tmp_path,
    name="grid",
    variants="[deepagents-default, minimal]",
    baseline="deepagents-default",
    cases="[needle-h24k-d000, goal-ledgers-12]",
    trials=1,
    extra="",
):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SMALL.format(name=name, variants=variants, baseline=baseline, cases=cases, trials=trials) + extra)
    return path


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ("colour: red\n", r"colour: unknown key"),
        ("window: 10\n", r"window: must be at least 1000"),
        ("trials: 0\n", r"trials: must be a positive integer"),
        ("trigger: 20%\n", r"trigger: give either trigger"),
        ("concurrency: two\n", r"concurrency: must be a positive integer"),
    ],
)
def test_spec_errors_name_the_file_and_key(tmp_path, extra, match):
    body = SMALL.format(name="x", variants="[minimal]", baseline="minimal", cases="[goal-ledgers-12]", trials=1)
    body = body.replace("trials: 1\n", "") if extra.startswith("trials") else body
    path = tmp_path / "bad.yaml"
    path.write_text(body + extra)
    with pytest.raises(ConfigError, match=match) as err:
        load_spec(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("variants: [minimal, minimal]\nthresholds: [20%]", "variants: names a variant twice"),
        (
            "variants: [minimal]\nstrategies: [observation-masking, observation-masking]\ntrigger: 20%",
            "strategies: names a strategy twice",
        ),
        (
            "variants: [minimal]\nthresholds: [20%]\ntrigger: 20%",
            "trigger: give either trigger (one threshold) or thresholds (a grid), not both",
        ),
        ("variants: [minimal]", "thresholds: missing: give thresholds (a list) or trigger"),
        ("variants: [minimal]\nthresholds: null", "thresholds: missing: give thresholds (a list) or trigger"),
        ("variants: [minimal]\nthresholds: []", "thresholds: must not be empty"),
        ("variants: [minimal]\nthresholds: [20%]\nwindow: 999", "window: must be at least 1000 tokens, got 999"),
        ("variants: [minimal]\nthresholds: [20%]\nwindow: 0", "window: must be a positive integer, got 0"),
        ("variants: [minimal]\nthresholds: [20%]\nmax_rps: .inf", "max_rps: must be a finite number, got inf"),
        ("variants: [minimal]\nthresholds: [20%]\nmax_rps: 0", "max_rps: must be a positive number, got 0"),
    ],
)
def test_the_spec_models_rules_are_told_naming_the_file_and_key(tmp_path, body, said):
    """The rules `SpecFile` holds itself (each list names an item once, one threshold axis, the window's floor, a
    finite live limit) are told in their own words, not the field's general one."""
    path = tmp_path / "s.yaml"
    path.write_text(body + "\n")
    with pytest.raises(ConfigError) as err:
        load_spec(path)
    assert str(err.value) == f"{path}: {said}"


def test_spec_rejects_unknown_variants_bad_thresholds_and_baselines(tmp_path):
    with pytest.raises(ConfigError, match=r"variants\[1\]: unknown variant 'fancy'"):
        load_spec(spec_file(tmp_path, variants="[minimal, fancy]", baseline="minimal"))
    with pytest.raises(ConfigError, match="baseline: 'structured' is not one of the compared arms"):
        load_spec(spec_file(tmp_path, variants="[minimal]", baseline="structured"))
    path = spec_file(tmp_path, variants="[minimal]", baseline="minimal")
    path.write_text(
        path.read_text().replace("thresholds: [20%]", "thresholds: [20%, [tokens:9000, {type: messages, value: 60}], 120%]")
    )
    with pytest.raises(ConfigError, match=r"thresholds\[2\]: fraction must be in"):
        load_spec(path)


def test_or_combined_and_deerflow_thresholds(tmp_path):
    path = spec_file(tmp_path, variants="[minimal]", baseline="minimal")
    path.write_text(
        path.read_text().replace("thresholds: [20%]", "thresholds: [15%, [tokens:9000, {type: messages, value: 60}]]")
    )
    spec = load_spec(path)
    assert [t.label for t in spec.thresholds] == ["15%", "tokens:9000+messages:60"]
    assert len(plan_cells(spec, spec_scenarios(spec))) == 2 * 2


@pytest.mark.parametrize(("key", "value"), [("case_budget", 0), ("max_rps", -1), ("max_tpm", "fast"), ("max_rps", True)])
def test_a_bad_live_limit_in_a_spec_names_the_file_and_key(tmp_path, key, value):
    path = tmp_path / "s.yaml"
    path.write_text(f"variants: [deepagents-default]\nthresholds: [20%]\n{key}: {json.dumps(value)}\n")
    with pytest.raises(ConfigError, match=f"s.yaml: {key}: must be a positive number"):
        load_spec(path)


def test_live_limits_in_a_spec_never_change_its_fingerprint(tmp_path):
    plain, limited = tmp_path / "a.yaml", tmp_path / "b.yaml"
    plain.write_text("variants: [deepagents-default]\nthresholds: [20%]\n")
    limited.write_text("variants: [deepagents-default]\nthresholds: [20%]\ncase_budget: 60\nmax_rps: 2\nmax_tpm: 90000\n")
    spec = load_spec(limited)
    assert (spec.case_budget, spec.max_rps, spec.max_tpm) == (60.0, 2.0, 90000.0)
    assert spec.fingerprint() == load_spec(plain).fingerprint()  # a resumed grid may be given other limits


def test_cells_are_written_as_they_finish_and_a_rerun_skips_them(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    first = run_experiment(spec, out_dir=tmp_path / "out", max_cells=3, progress=lambda _: None)
    assert first.ran == 3 and len(read_cells(first.path / "cells.jsonl")) == 3
    assert len(list((first.path / "traces").iterdir())) == 3
    second = run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None)
    assert second.skipped == 3 and second.ran == 1
    rows = read_cells(second.path / "cells.jsonl")
    assert len({r["cell_id"] for r in rows}) == 4 and {r["arm"] for r in rows} == {"deepagents-default", "minimal"}


def test_cells_written_before_arm_existed_are_read_as_arms(tmp_path, capsys):
    spec = load_spec(spec_file(tmp_path))
    run = run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None)
    cells = run.path / "cells.jsonl"
    old = [json.loads(line) for line in cells.read_text().splitlines()]
    schema_1 = [
        {("variant" if k == "arm" else k): v for k, v in r.items() if k not in ("schema_version", "eval_version")} for r in old
    ]
    cells.write_text("".join(json.dumps(r) + "\n" for r in schema_1))
    assert "arm" not in cells.read_text()
    assert {r["arm"] for r in read_cells(cells)} == {"deepagents-default", "minimal"}
    assert run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None).skipped == 4
    assert main(["report", str(run.path)]) == EXIT_OK
    assert "minimal" in (run.path / "report.md").read_text()


def test_a_torn_last_line_from_a_kill_is_named_then_dropped_and_rerun(tmp_path, capsys):
    spec = load_spec(spec_file(tmp_path))
    run = run_experiment(spec, out_dir=tmp_path / "out", max_cells=2, progress=lambda _: None)
    cells = run.path / "cells.jsonl"
    torn = cells.read_text() + '{"cell_id": "minimal|20%|goal-ledgers-12|t0", "trunc'
    cells.write_text(torn)
    said = f"{cells}: line 3 was cut mid-write"
    assert main(["report", str(run.path)]) == EXIT_OK  # the report says so, and leaves the file to the resume
    assert said in capsys.readouterr().err and said in (run.path / "report.md").read_text() and cells.read_text() == torn
    lines: list[str] = []
    again = run_experiment(spec, out_dir=tmp_path / "out", progress=lines.append)
    assert again.skipped == 2 and again.ran == 2
    assert any(said in line and "its cell runs again" in line for line in lines), lines
    assert len(read_cells(cells)) == 4


def test_changed_settings_are_not_silently_reused(tmp_path):
    path = spec_file(tmp_path)
    run_experiment(load_spec(path), out_dir=tmp_path / "out", max_cells=1, progress=lambda _: None)
    path.write_text(path.read_text() + "window: 80000\n")
    with pytest.raises(HarnessError, match="was run with different settings"):
        run_experiment(load_spec(path), out_dir=tmp_path / "out", progress=lambda _: None)


def test_shards_merge_into_the_same_results_as_one_run(tmp_path):
    spec = load_spec(spec_file(tmp_path, trials=1))
    whole = run_experiment(spec, out_dir=tmp_path / "whole", progress=lambda _: None)
    parts = [run_experiment(spec, out_dir=tmp_path / "sharded", shard=(i, 2), progress=lambda _: None).path for i in range(2)]
    merged = merge_experiments(tmp_path / "merged", parts)
    one = {r["cell_id"]: r["scores"] for r in read_cells(whole.path / "cells.jsonl")}
    two = {r["cell_id"]: r["scores"] for r in read_cells(merged / "cells.jsonl")}
    assert one == two and len(one) == 4
    assert json.loads((merged / "meta.json").read_text())["planned_cells"] == 4


def test_two_workers_give_the_same_results(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    serial = run_experiment(spec, out_dir=tmp_path / "a", workers=1, progress=lambda _: None)
    parallel = run_experiment(spec, out_dir=tmp_path / "b", workers=2, progress=lambda _: None)
    scores = lambda run: {r["cell_id"]: r["scores"] for r in read_cells(run.path / "cells.jsonl")}  # noqa: E731
    assert scores(serial) == scores(parallel)


def test_experiment_cli_report_and_compare(tmp_path, capsys):
    path = spec_file(tmp_path)
    assert main(["experiment", "run", str(path), "--out", str(tmp_path / "out")]) == EXIT_OK
    exp = tmp_path / "out" / "grid"
    assert main(["report", str(exp)]) == EXIT_OK
    report = (exp / "report.md").read_text()
    assert "Arms against the baseline" in report and "deepagents-default (baseline)" in report and "p=" in report
    html = (exp / "report.html").read_text()
    assert html.startswith("<!doctype html>") and "data:image/png;base64," in html and "<img" in html
    assert (exp / "arm_bars.png").exists() and (exp / "needle_heatmap.png").exists()
    capsys.readouterr()
    assert main(["compare", str(exp), str(exp), "--arm-a", "deepagents-default", "--arm-b", "minimal"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "| 20%" in out and "goal_preserved" in out and "-100 pts" in out
    assert main(["experiment", "run", str(tmp_path / "missing.yaml")]) == EXIT_BAD_INPUT


# -- the regression gate, both ways --------------------------------------------------------
GATE_CASES = "[goal-ledgers-12, goal-ledgers-14, goal-ledgers-16, goal-ledgers-18]"


def test_regress_flags_a_degraded_variant_and_passes_a_rerun(tmp_path, capsys):
    good = spec_file(tmp_path, name="gate", variants="[deepagents-default]", cases=GATE_CASES, trials=2)
    assert main(["experiment", "run", str(good), "--out", str(tmp_path / "base")]) == EXIT_OK
    baseline = tmp_path / "baseline.json"
    assert main(["regress", str(tmp_path / "base" / "gate"), "--baseline", str(baseline), "--update"]) == EXIT_OK
    # A rerun of the baseline configuration is not flagged.
    assert main(["experiment", "run", str(good), "--out", str(tmp_path / "rerun")]) == EXIT_OK
    capsys.readouterr()
    assert main(["regress", str(tmp_path / "rerun" / "gate"), "--baseline", str(baseline)]) == EXIT_OK
    assert "no significant regression" in capsys.readouterr().out
    # The same variant name with a worse prompt (no structure, so the task is lost) is flagged.
    worse = tmp_path / "variants" / "deepagents-default.md"
    worse.parent.mkdir()
    shutil.copyfile(VARIANTS_DIR / "minimal.md", worse)
    degraded = spec_file(tmp_path, name="gate", variants=f"[{worse}]", baseline=str(worse), cases=GATE_CASES, trials=2)
    assert main(["experiment", "run", str(degraded), "--out", str(tmp_path / "bad")]) == EXIT_OK
    assert main(["regress", str(tmp_path / "bad" / "gate"), "--baseline", str(baseline)]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "REGRESSION" in out and "goal_preserved" in out


def test_regress_needs_a_baseline_file(tmp_path, capsys):
    assert main(["regress", str(tmp_path), "--baseline", str(tmp_path / "none.json")]) == EXIT_BAD_INPUT


def _gate_row(eval_name, kind, case, trial, scores, *, arm="a", strategy="deepagents-summarization"):
    failed = [k for k, v in scores.items() if not v]
    return {
        "arm": arm,
        "threshold": "20%",
        "eval": eval_name,
        "kind": kind,
        "strategy": strategy,
        "case_id": case,
        "trial": trial,
        "outcome": "FAIL" if failed else "PASS",
        "outcome_keys": failed,
        "scores": scores,
        "simulated": True,
        "metrics": {},
    }


def _write_cells(path, rows):
    path.mkdir(parents=True)
    (path / "cells.jsonl").write_text(
        "".join(json.dumps(full_row(**r, cell_id=f"{r['case_id']}|t{r['trial']}")) + "\n" for r in rows)
    )
    return path


def test_the_gate_tests_what_the_registry_names_for_each_eval(tmp_path, monkeypatch):
    from dataclasses import replace

    from harness.analysis import regress as gate
    from harness.suites.registry import SUITES

    # An eval the old fixed gate list never knew: its entry alone makes its check gated.
    mine = replace(SUITES["faults"], name="mine", gated=("my_check",))
    monkeypatch.setattr(gate, "SUITES", {**SUITES, "mine": mine})
    cases = [(f"c{i}", t) for i in range(6) for t in range(2)]
    base = [_gate_row("mine", "goal", c, t, {"run_completed": True, "my_check": True}) for c, t in cases]
    worse = [_gate_row("mine", "goal", c, t, {"run_completed": True, "my_check": False}) for c, t in cases]
    gate.write_baseline(base, "base", tmp_path / "baseline.json")
    stored = json.loads((tmp_path / "baseline.json").read_text())
    assert stored["schema"] == 2 and stored["cells"][0]["eval"] == "mine" and stored["cells"][0]["checks"] == {"my_check": True}
    ok, table, _ = gate.regress(_write_cells(tmp_path / "worse", worse), tmp_path / "baseline.json")
    flagged = table[table["verdict"] == "REGRESSION"]
    assert not ok and set(flagged["metric"]) == {"passed", "my_check"} and set(flagged["eval"]) == {"mine"}
    ok, table, _ = gate.regress(_write_cells(tmp_path / "same", base), tmp_path / "baseline.json")
    assert ok and set(table["metric"]) == {"case_valid", "passed", "my_check"}
    # a gated check the current rows no longer score is named, not silently skipped
    unscored = [_gate_row("mine", "goal", c, t, {"run_completed": True}) for c, t in cases]
    ok, table, notes = gate.regress(_write_cells(tmp_path / "unscored", unscored), tmp_path / "baseline.json")
    assert set(table["metric"]) == {"case_valid", "passed"} and any("my_check has no paired valid cells" in n for n in notes)


def _gate_baseline(tmp_path, cases):
    from harness.analysis import regress as gate

    base = [_gate_row("goal", "goal", c, t, {"run_completed": True, "goal_preserved": True}) for c, t in cases]
    gate.write_baseline(base, "base", tmp_path / "baseline.json")
    return base


def test_a_partial_grid_fails_the_gate_unless_allowed(tmp_path, capsys):
    """A lost shard or a shrunken spec used to keep the night green ("N baseline cells have no counterpart")."""
    cases = [(f"c{i}", t) for i in range(8) for t in range(2)]
    base = _gate_baseline(tmp_path, cases)
    partial = _write_cells(tmp_path / "partial", base[: len(base) // 2])
    baseline = str(tmp_path / "baseline.json")
    assert main(["regress", str(partial), "--baseline", baseline]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "INCOMPLETE: 8 of 16 baseline cells have no result in partial (goal eval, a at 20%: 8)" in out
    assert "no significant regression" not in out
    assert main(["regress", str(partial), "--baseline", baseline, "--allow-partial"]) == EXIT_OK
    assert "8 of 16 baseline cells have no result in partial (--allow-partial: not gated)" in capsys.readouterr().out
    assert main(["regress", str(_write_cells(tmp_path / "whole", base)), "--baseline", baseline]) == EXIT_OK


def test_cases_that_stopped_testing_what_they_claim_are_a_regression(tmp_path, capsys):
    """Compaction no longer happens: every case INVALID. Nothing pairs on the checks, so only validity can say it."""
    cases = [(f"c{i}", t) for i in range(6) for t in range(2)]
    _gate_baseline(tmp_path, cases)
    invalid = [
        {**_gate_row("goal", "goal", c, t, {"run_completed": True, "compacted": False}), "outcome": "INVALID"} for c, t in cases
    ]
    for row in invalid:
        row["outcome_keys"], row["validity"] = ["compacted"], ["compacted"]
    assert main(["regress", str(_write_cells(tmp_path / "invalid", invalid)), "--baseline", str(tmp_path / "baseline.json")]) == (
        EXIT_FAILED
    )
    out = capsys.readouterr().out
    assert "REGRESSION on 1 gate(s): case_valid (goal eval, a at 20%)" in out


def test_an_all_error_grid_exits_4_not_2(tmp_path, capsys):
    cases = [(f"c{i}", 0) for i in range(4)]
    _gate_baseline(tmp_path, cases)
    errored = [
        {
            **_gate_row("goal", "goal", c, t, {}),
            "outcome": "ERROR",
            "outcome_keys": ["agent: HTTP 503"],
            "error": {"message": "x"},
        }
        for c, t in cases
    ]
    assert main(["regress", str(_write_cells(tmp_path / "down", errored)), "--baseline", str(tmp_path / "baseline.json")]) == 4
    out = capsys.readouterr().out
    assert "ERROR RATE 4/4 cells" in out and "REGRESSION" not in out.replace("Not a regression", "")


def test_the_gate_maps_the_recovery_check_to_the_strategy_and_reads_schema_1(tmp_path):
    from harness.analysis import regress as gate

    needle = {"run_completed": True, "needle_correct": True, "needle_via_history": False, "needle_via_recall": True}
    row = _gate_row("needle", "needle", "n0", 0, needle, strategy="observation-masking")
    assert gate.gate_cells([row])[0]["checks"] == {"needle_correct": True, "needle_via_recall": True}
    window = _gate_row("needle", "needle", "n0", 0, needle, strategy="sliding-window")
    assert gate.gate_cells([window])[0]["checks"] == {"needle_correct": True}
    old = {"variant": "v", "threshold": "20%", "case_id": "n0", "kind": "needle", "trial": 0, "outcome": "PASS", "valid": True}
    (tmp_path / "v1.json").write_text(
        json.dumps({"schema": 1, "cells": [{**old, "needle_recovered": True, "needle_via_history": True}]})
    )
    cell = gate.load_baseline(tmp_path / "v1.json")[0]
    assert (
        cell["arm"] == "v" and cell["eval"] == "needle" and cell["checks"] == {"needle_correct": True, "needle_via_history": True}
    )
    (tmp_path / "v9.json").write_text(json.dumps({"schema": 9, "cells": []}))
    with pytest.raises(HarnessError, match="v9.json: baseline schema 9"):
        gate.load_baseline(tmp_path / "v9.json")


def test_the_report_does_not_depend_on_the_order_workers_finished_the_cells(tmp_path):
    """Cells land in cells.jsonl as they finish; the report's bootstrap intervals and paired tests pair rows in order,
    so the report reads them in cell-id order: the same cells, shuffled, give the same report."""
    import random

    spec = load_spec(spec_file(tmp_path, trials=2))
    run = run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None)
    assert main(["report", str(run.path)]) == EXIT_OK
    first = (run.path / "report.md").read_text()
    cells = run.path / "cells.jsonl"
    lines = cells.read_text().splitlines(keepends=True)
    random.Random(1).shuffle(lines)
    cells.write_text("".join(reversed(lines)))
    assert main(["report", str(run.path)]) == EXIT_OK
    assert (run.path / "report.md").read_text() == first


def test_an_eval_cell_gives_the_row_pytest_gives_for_the_same_case(tmp_path):
    """A spec's eval cell runs through harness.suites.execute as `pytest evals/` does (EvalSession.run_eval): the same
    row but for the ids a grid adds (its arm, cell, run id, trace file) and the wall time."""
    from harness.runs.executor import EvalSession

    path = tmp_path / "s.yaml"
    path.write_text("variants: [forced-20]\nthresholds: [20%]\nevals: [parity]\nscenarios: {cases: [media-parity-auto]}\n")
    run = run_experiment(load_spec(path), out_dir=tmp_path / "out", progress=lambda line: None)
    (cell,) = read_cells(run.path / "cells.jsonl")
    row = EvalSession.from_options(runs_dir=tmp_path / "runs").run_eval("parity", "media-parity-auto").row
    assert row is not None and (cell["eval"], cell["scorers"], cell["arm"]) == ("parity", "parity", "forced-20")
    grid_only = {"arm", "attempt", "cell_id", "config_sha", "experiment", "run_id", "threshold", "trace", "wall_time_s"}
    assert {k: v for k, v in cell.items() if k not in grid_only} == {k: v for k, v in row.items() if k not in grid_only}
    assert "media_offloaded" in cell["scores"]  # the eval's scorer set, not the default one
