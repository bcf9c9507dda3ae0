"""Inputs that used to escape (issue 31): each is refused with exit 2 naming the thing, no traceback, nothing written.

Every test drives the real command (`harness.cli.main.main`) the way a user types it; none runs an agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import EXIT_BAD_INPUT, main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LIVE = ["--model", "openai:reference-agent", "--base-url", "http://127.0.0.1:9/v1"]


def _exit(argv: list[str]) -> int:
    """main's exit code, argparse's own refusals (SystemExit 2) included."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "__pycache__" not in p.parts)  # bytecode aside


def _refused(argv: list[str], named: str, capsys, root: Path) -> str:
    before = _files(root)
    assert _exit(argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err, err
    assert _files(root) == before
    return err


# -- one finite-number check for every numeric option and spec key ------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        ([*LIVE, "--max-rps", "nan"], "--max-rps: must be a finite number, got 'nan'"),
        ([*LIVE, "--max-rps", "inf"], "--max-rps: must be a finite number, got 'inf'"),
        ([*LIVE, "--max-tpm=-inf"], "--max-tpm: must be a finite number"),
        ([*LIVE, "--case-budget", "1e309"], "--case-budget: must be a finite number"),
        ([*LIVE, "--model-kwargs", "timeout=NaN"], "--model-kwargs timeout=nan: must be a finite non-negative number"),
        (["--trigger", "tokens:1e309"], "--trigger 'tokens:1e309': must be a finite number, got '1e309'"),
        (["--trigger", "nan%"], "--trigger 'nan%': must be a finite number"),
        (["--keep", "messages:inf"], "--keep 'messages:inf': must be a finite number"),
        (["--model", "openai:x", "--base-url", "http://[::1"], "--base-url 'http://[::1': not a URL (Invalid IPv6 URL)"),
        (["--model", "openai:x", "--base-url", "http://h:99999/v1"], "--base-url 'http://h:99999/v1': not a URL"),
    ],
)
def test_run_refuses_non_finite_numbers_and_broken_urls(tmp_path, capsys, argv, named):
    _refused(["run", *argv, "--cases", "needle-h24k-d000", "--out", str(tmp_path / "runs")], named, capsys, tmp_path)


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--latency", "nan"],
        ["serve", "--max-seconds", "inf"],
        ["regress", "x", "--baseline", "y", "--max-error-rate", "nan"],
        ["check", "--baseline", "y", "--max-error-rate", "inf"],
        ["judge", "calibrate", "x", "--min-kappa", "nan"],
        ["experiment", "run", "x.yaml", "--max-rps", "inf"],
    ],
)
def test_every_float_option_takes_the_same_finite_check(tmp_path, capsys, argv):
    _refused(argv, "must be a finite number", capsys, tmp_path)


def test_serve_refuses_a_port_out_of_range(tmp_path, capsys):
    _refused(
        ["serve", "--port", "70000"], "argument --port: a port is 0 to 65535 (0 picks a free one), got 70000", capsys, tmp_path
    )


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("max_rps: .inf", "s.yaml: max_rps: must be a finite number, got inf"),
        ("max_tpm: .nan", "s.yaml: max_tpm: must be a positive number, got nan"),
        ("case_budget: 1.0e+309", "s.yaml: case_budget: must be a finite number, got inf"),
        ("thresholds: [tokens:1e309]", "s.yaml: thresholds[0]: must be a finite number"),
        ("keep: tokens:1e400", "s.yaml: keep: must be a finite number"),
        ("model_kwargs: {timeout: .inf}", "model_kwargs timeout=inf: must be a finite non-negative number"),
    ],
)
def test_a_spec_refuses_non_finite_numbers_naming_file_and_key(tmp_path, capsys, line, named):
    spec = tmp_path / "s.yaml"
    body = "variants: [deepagents-default]\nthresholds: [20%]\nscenarios: {cases: [needle-h24k-d000]}\n"
    key = line.split(":")[0]
    body = "\n".join(x for x in body.splitlines() if not x.startswith(key + ":")) + f"\n{line}\n"
    if "model_kwargs" in line or "max_" in line or "case_budget" in line:
        body += "model: openai:reference-agent\nbase_url: http://127.0.0.1:9/v1\n"
    spec.write_text(body)
    _refused(["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith"], named, capsys, tmp_path)


def test_a_malformed_shard_is_bad_input_even_where_no_server_answers(tmp_path, capsys):
    """--shard is read before the early checks: a typo is exit 2, not the dead endpoint's exit 4."""
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "variants: [deepagents-default]\nthresholds: [20%]\nmodel: openai:reference-agent\nbase_url: http://127.0.0.1:9/v1\n"
    )
    argv = ["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith", "--shard", "3/2"]
    _refused(argv, "--shard must be i/n with 0 <= i < n, got '3/2'", capsys, tmp_path)


@pytest.mark.parametrize("command", [["report"], ["experiment", "langsmith"], ["compare", "{d}"], ["regress"]])
def test_a_sharded_experiment_not_yet_merged_is_named_with_the_merge_by_every_reader(tmp_path, capsys, command):
    """`harness experiment run --shard i/n` writes only under shards/<i>of<n>/; before `harness experiment merge`
    every command that reads the experiment said it was no experiment (no cells.jsonl, no meta.json)."""
    d = tmp_path / "nightly"
    for shard in ("0of2", "1of2"):
        (d / "shards" / shard).mkdir(parents=True)
        (d / "shards" / shard / "cells.jsonl").write_text("")
    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"cells": {}}')
    argv = [word.replace("{d}", str(d)) for word in command] + [str(d)]
    argv += ["--baseline", str(baseline)] if command == ["regress"] else []
    err = _refused(argv, f"{d}: an experiment run in shards (0of2, 1of2 under shards/) and not merged", capsys, tmp_path)
    assert f"join them first with `harness experiment merge {d} {d / 'shards'}/*`" in err


# -- a strategy module that raises at import; a baseline that is a directory ---------------------------------------


@pytest.fixture
def raising_module(tmp_path, monkeypatch):
    """A module ``raises_at_import`` on sys.path whose import raises RuntimeError."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "raises_at_import.py").write_text('raise RuntimeError("boom at import")\n')
    monkeypatch.syspath_prepend(str(mods))
    return mods


def test_run_names_a_strategy_module_that_raises_at_import(tmp_path, capsys, raising_module):
    _refused(
        ["run", "--strategy", "raises_at_import:make", "--cases", "needle-h24k-d000", "--out", str(tmp_path / "runs")],
        "--strategy 'raises_at_import:make': cannot import 'raises_at_import' (RuntimeError: boom at import)",
        capsys,
        tmp_path,
    )


def test_check_names_a_strategy_module_that_raises_at_import(tmp_path, capsys, raising_module):
    baseline = tmp_path / "b.json"
    _refused(
        ["check", "--strategy", "raises_at_import:make", "--baseline", str(baseline), "--update", "--out", str(tmp_path / "c")],
        "strategy 'raises_at_import:make': cannot import 'raises_at_import' (RuntimeError: boom at import)",
        capsys,
        tmp_path,
    )


def test_pytest_compaction_strategy_raising_at_import_is_a_usage_error_exit_4(tmp_path, raising_module):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(raising_module), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--compaction-strategy", "raises_at_import:make"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 4, out  # docs/strategies.md: a usage error (exit 4), not INTERNALERROR (3)
    assert "cannot import 'raises_at_import' (RuntimeError: boom at import)" in out and "INTERNALERROR" not in out


def test_check_refuses_a_baseline_directory_before_running_any_eval(tmp_path, capsys):
    (tmp_path / "baselines").mkdir()
    _refused(
        ["check", "--baseline", str(tmp_path / "baselines"), "--evals", "needle", "--out", str(tmp_path / "c")],
        "baselines: is a directory; --baseline is a baseline JSON file",
        capsys,
        tmp_path,
    )
    _refused(
        ["check", "--baseline", str(tmp_path / "baselines"), "--update", "--evals", "needle", "--out", str(tmp_path / "c")],
        "is a directory; --update writes a baseline JSON file",
        capsys,
        tmp_path,
    )


# -- a damaged trace, a results file cut mid-row ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_case_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["run", "--cases", "needle-h24k-d000", "needle-h24k-d050", "--out", str(out), "--run-id", "two"]) == 0
    return out / "two"


@pytest.fixture
def run_copy(two_case_run, tmp_path):
    import shutil

    return Path(shutil.copytree(two_case_run, tmp_path / "run"))


def test_score_names_a_corrupted_gzip_trace_and_writes_nothing(run_copy, capsys):
    import json

    first = json.loads((run_copy / "results.jsonl").read_text().splitlines()[0])
    trace = run_copy / first["trace"]
    trace.write_bytes(trace.read_bytes()[:40] + b"\x00garbage")
    err = _refused(["score", str(run_copy)], f"case {first['case_id']!r}: {trace}: not a readable trace", capsys, run_copy)
    assert not (run_copy / "rescored.jsonl").exists() and not (run_copy / "rescored.tmp").exists(), err


def test_score_and_report_name_a_results_file_cut_mid_row(run_copy, capsys):
    results = run_copy / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # a kill while the last row was written
    said = f"{results}: line 2 was cut mid-write (not valid JSON"
    assert main(["score", str(run_copy)]) == 0
    captured = capsys.readouterr()
    assert "re-scored 1 trace(s)" in captured.out and said in captured.err
    assert main(["score", "--strict", str(run_copy)]) == 1  # a dropped row fails a strict re-score
    capsys.readouterr()
    assert main(["report", str(run_copy)]) == 0
    assert said in capsys.readouterr().err and said in (run_copy / "report.md").read_text()
    assert results.read_text().endswith(lines[1][: len(lines[1]) // 2])  # reading never repairs a user's file


# -- YAML: a duplicate key is refused, never the last one silently kept ---------------------------------------------


def test_a_spec_with_a_duplicate_key_names_the_key_and_both_lines(tmp_path, capsys):
    spec = tmp_path / "dup.yaml"
    spec.write_text("variants: [deepagents-default]\nthresholds: [20%]\ntrials: 3\nscenarios:\n  limit: 1\ntrials: 1\n")
    _refused(
        ["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith"],
        f"{spec}: duplicate key 'trials' on lines 3 and 6",
        capsys,
        tmp_path,
    )


def test_a_variant_front_matter_with_a_duplicate_key_names_it(tmp_path, capsys):
    variant = tmp_path / "dup.md"
    variant.write_text("---\ntrigger: 20%\nkeep: 5%\ntrigger: 40%\n---\nSummarize:\n{messages}\n")
    _refused(
        ["run", "--variant", str(variant), "--cases", "needle-h24k-d000", "--out", str(tmp_path / "runs")],
        f"{variant}: duplicate key 'trigger' on lines 2 and 4",
        capsys,
        tmp_path,
    )


def test_a_yaml_syntax_error_names_the_file_in_its_marks_not_a_unicode_string(tmp_path, capsys):
    """PyYAML's own error text places the mistake ("in <file>, line 2, column 8"): it names the spec, as the first
    line does, never "<unicode string>"."""
    spec = tmp_path / "broken.yaml"
    spec.write_text("name: x\nevals: [needle\n")
    _refused(["experiment", "run", str(spec), "--out", str(tmp_path / "exp")], f'in "{spec}", line 2, column 8', capsys, tmp_path)


def test_every_shipped_yaml_goes_through_the_one_loader():
    """Specs, variant front matter and the datasets' YAML: no module parses YAML but `harness._yaml`."""
    import re

    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "harness").rglob("*.py")
        if p.name != "_yaml.py" and re.search(r"yaml\.(safe_)?load\(", p.read_text())
    ]
    assert offenders == []


# -- a symlink loop or a FIFO where a file is expected ------------------------------------------------------------


@pytest.fixture
def odd_files(tmp_path):
    """Per suffix, a symlink loop and a FIFO with that suffix, named for what they are."""
    import os

    made = {}
    for suffix in (".jsonl", ".yaml", ".md"):
        loop = tmp_path / f"loop{suffix}"
        loop.symlink_to(loop.name)
        fifo = tmp_path / f"fifo{suffix}"
        os.mkfifo(fifo)
        made[suffix] = {"symlink loop": loop, "FIFO": fifo}
    return made


@pytest.mark.parametrize("what", ["symlink loop", "FIFO"])
def test_a_symlink_loop_or_fifo_is_named_for_what_it_is_not_no_such_file(tmp_path, capsys, odd_files, what):
    out = str(tmp_path / "out")
    for argv, path in [
        (["run", "--datasets", str(odd_files[".jsonl"][what]), "--out", out], odd_files[".jsonl"][what]),
        (["experiment", "run", str(odd_files[".yaml"][what]), "--out", out, "--no-langsmith"], odd_files[".yaml"][what]),
        (["run", "--variant", str(odd_files[".md"][what]), "--cases", "needle-h24k-d000", "--out", out], odd_files[".md"][what]),
    ]:
        err = _refused(argv, f"{path}: is a {what}", capsys, tmp_path)
        assert "no such" not in err


# -- a plan too large to be meant ------------------------------------------------------------------------------------


def test_run_refuses_a_billion_trials_with_the_size_and_an_estimate(tmp_path, capsys):
    err = _refused(
        ["run", "--trials", "1000000000", "--cases", "needle-h24k-d000", "--out", str(tmp_path / "runs")],
        "the plan is 1,000,000,000 case run(s), about 5,787.0 days",
        capsys,
        tmp_path,
    )
    assert "above the ceiling of 10,000 case runs" in err and "--allow-large" in err


def test_a_grid_of_a_million_cells_is_refused_unless_allowed(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "big.yaml"
    spec.write_text(
        "variants: [deepagents-default]\nthresholds: [20%]\nscenarios: {cases: [needle-h24k-d000]}\ntrials: 1000000\n"
    )
    argv = ["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith"]
    _refused(argv, "trials 1000000 x 1 cell(s) a trial: the plan is 1,000,000 case run(s), about 5.8 days", capsys, tmp_path)
    import harness.runs.grid as grid

    # stop at the plan's pre-flight (the door's early checks asked the servers already), after the size check
    monkeypatch.setattr(grid, "preflight", lambda *_, **__: (_ for _ in ()).throw(SystemExit(9)))
    assert _exit([*argv, "--allow-large"]) == 9  # allowed: past the ceiling, on to the run (stopped before any cell)
    assert "large plan (--allow-large): 1,000,000 case run(s)" in capsys.readouterr().out


def test_the_ceiling_is_documented_and_every_shipped_spec_is_below_it():
    from harness.runs.grid import plan_cells, spec_scenarios
    from harness.runs.run import MAX_PLANNED_RUNS
    from harness.runs.spec import load_spec

    ceiling = f"{MAX_PLANNED_RUNS:,}"
    for page in ("cli.md", "experiments.md"):
        text = (ROOT / "docs" / page).read_text()
        assert "--allow-large" in text and ceiling in text, page
    for path in sorted((ROOT / "datasets" / "experiments").glob("*.yaml")):
        spec = load_spec(path)
        assert len(plan_cells(spec, spec_scenarios(spec))) <= MAX_PLANNED_RUNS, path.name


# -- a variant prompt that crowds out the window -----------------------------------------------------------------


def test_a_variant_prompt_larger_than_the_window_is_warned_with_the_sizes(tmp_path, capsys):
    variant = tmp_path / "huge.md"
    padding = "Keep every detail of the conversation. " * 7000  # 273,000 characters: about 68,250 tokens
    variant.write_text(f"---\ndescription: a prompt larger than the window\n---\n{padding}\n{{messages}}\n")
    out = tmp_path / "runs"
    main(["run", "--variant", str(variant), "--cases", "needle-h24k-d000", "--out", str(out), "--run-id", "huge"])
    said = "the summary prompt is about 68,252 tokens (273,011 characters), 107% of the declared 64,000-token window"
    assert said in capsys.readouterr().out
    assert said in (out / "huge" / "report.md").read_text()
