"""The nightly workflow's own steps, read from .github/workflows/nightly.yml and run in order on a small grid.

Each `.venv/bin/harness ...` line of the grid and merge-and-gate jobs runs as written (shards, merge, report,
LangSmith, gate), with the artifacts passed between jobs the way upload/download-artifact does. The spec and the
baseline are a small stand-in for datasets/experiments/nightly.yaml and datasets/baselines/nightly.json, written
where the steps look for them.
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from harness.cli.main import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "nightly.yml").read_text())
SMALL_SPEC = """name: nightly
variants: [deepagents-default, minimal]
baseline: deepagents-default
thresholds: [20%]
scenarios:
  cases: [needle-h24k-d000, goal-ledgers-12]
trials: 1
"""


def _harness_steps(job: str) -> list[str]:
    """The job's `run:` lines that call the harness."""
    runs = [step["run"] for step in WORKFLOW["jobs"][job]["steps"] if "run" in step]
    return [line for line in runs if line.startswith(".venv/bin/harness ")]


def _run(line: str, **matrix) -> int:
    for key, value in matrix.items():
        line = line.replace(f"${{{{ matrix.{key} }}}}", str(value))
    argv = []
    for word in shlex.split(line)[1:]:
        argv += sorted(glob.glob(word)) if "*" in word else [word]  # the shell's glob
    return main(argv)


@pytest.fixture(scope="module")
def _nightly_grid(tmp_path_factory):
    """A checkout-like directory with the small spec, a baseline made from one unsharded run of it, and each grid
    job's artifact where the merge job's download-artifact puts it. Built once; each test gets its own copy."""
    root = tmp_path_factory.mktemp("nightly")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        spec = root / "datasets" / "experiments" / "nightly.yaml"
        spec.parent.mkdir(parents=True)
        spec.write_text(SMALL_SPEC)
        assert main(["experiment", "run", str(spec), "--out", "base", "--no-langsmith"]) == EXIT_OK
        assert main(["regress", "base/nightly", "--baseline", "datasets/baselines/nightly.json", "--update"]) == EXIT_OK
        shards = WORKFLOW["jobs"]["grid"]["strategy"]["matrix"]["shard"]
        (grid_step,) = _harness_steps("grid")
        upload = next(s for s in WORKFLOW["jobs"]["grid"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
        for shard in shards:  # each grid job, then its upload-artifact as the merge job's download-artifact lays it out
            assert _run(grid_step, shard=shard) == EXIT_OK
            name = upload["with"]["name"].replace("${{ matrix.shard }}", str(shard))
            shutil.copytree(upload["with"]["path"].replace("${{ matrix.shard }}", str(shard)), root / "shards" / name)
    return root


@pytest.fixture
def nightly(_nightly_grid, tmp_path, monkeypatch):
    """This test's copy of the grid jobs' results, as the merge-and-gate job starts from them (the current directory)."""
    checkout = tmp_path / "checkout"
    shutil.copytree(_nightly_grid, checkout)
    monkeypatch.chdir(checkout)
    return checkout


def test_the_nightly_steps_run_as_written_and_the_gate_passes_a_whole_grid(nightly, capsys):
    capsys.readouterr()
    for line in _harness_steps("merge-and-gate"):
        assert _run(line) == EXIT_OK, line
    out = capsys.readouterr().out
    assert "no significant regression" in out and "INCOMPLETE" not in out
    assert (nightly / "reports" / "experiments" / "nightly" / "report.html").exists()


def test_a_lost_shard_artifact_fails_the_night(nightly, capsys):
    shutil.rmtree(sorted((nightly / "shards").iterdir())[-1])  # one grid job's artifact never arrived
    steps = _harness_steps("merge-and-gate")
    capsys.readouterr()
    codes = [_run(line) for line in steps]
    out = capsys.readouterr().out
    assert codes[:-1] == [EXIT_OK] * (len(steps) - 1) and codes[-1] == EXIT_FAILED, codes
    assert "shard(s) 3of4 missing" in out and "INCOMPLETE: 1 of 4 baseline cells have no result in nightly" in out


def _make_recipe(target: str) -> list[str]:
    """The Makefile's recipe lines of ``target`` (the tab-indented lines under its rule)."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_the_nightly_workflow_runs_the_whole_validity_matrix_that_ci_runs_a_subset_of():
    """CI (`make test`) runs each eval under the faults it names; the whole matrix (every fault, 10 seeds) is the
    nightly's: a job runs `make test-validity-full`, whose recipe asks pytest for the validity tier with --validity-full."""
    runs = [step["run"] for job in WORKFLOW["jobs"].values() for step in job["steps"] if "run" in step]
    assert any(line.split()[:2] == ["make", "test-validity-full"] for line in runs), runs
    (recipe,) = _make_recipe("test-validity-full")
    assert "evals -m validity --validity-full" in recipe
    (ci,) = _make_recipe("test-validity")
    assert "--validity-full" not in ci


WILD_SPEC = """name: nightly-wild
variants: [deepagents-default]
strategies: [deepagents-summarization, none]
baseline: deepagents-summarization
thresholds: [20%]
evals: [cache, notsummary]
trials: 1
"""


def test_the_wild_jobs_steps_run_as_written_on_the_evals_and_the_gate_holds_their_baseline(tmp_path, monkeypatch, capsys):
    """The `wild` job (issue 34's evals, gated on their own baseline): each harness line as written, on a small stand-in
    spec with two of its evals; the shipped spec names every one of issue 34's evals and its baseline is committed."""
    shipped = yaml.safe_load((ROOT / "datasets" / "experiments" / "nightly-wild.yaml").read_text())
    assert {"notsummary", "loops", "boundary", "estimate", "cache", "redo", "survives", "parent"} <= set(shipped["evals"])
    assert (ROOT / "datasets" / "baselines" / "nightly-wild.json").is_file()
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "datasets" / "experiments" / "nightly-wild.yaml"
    spec.parent.mkdir(parents=True)
    spec.write_text(WILD_SPEC)
    assert main(["experiment", "run", str(spec), "--out", "base", "--no-langsmith"]) == EXIT_OK
    assert main(["regress", "base/nightly-wild", "--baseline", "datasets/baselines/nightly-wild.json", "--update"]) == EXIT_OK
    capsys.readouterr()
    for line in _harness_steps("wild"):
        assert _run(line) == EXIT_OK, line
    out = capsys.readouterr().out
    assert "no significant regression" in out
    report = (tmp_path / "reports" / "experiments" / "nightly-wild" / "report.md").read_text()
    assert "| cache " in report and "| notsummary " in report


def test_the_readme_nightly_sequence_is_the_workflows_and_runs_as_written(nightly, capsys):
    """README's nightly block once ran shard 1/4 and went straight to the gate, which refused the directory (the shard
    wrote under shards/ and nothing merged it). Its loop is the grid job over the workflow's 0-based matrix; its other
    lines are the merge-and-gate job's with the shard directories where a local run writes them; the gate names the
    merge when it is skipped, and passes after it."""
    from tests._docs import blocks, page, section

    (block,) = blocks(section(page("README"), "2. The nightly CI"), "bash")
    loop, *lines = block.splitlines()
    values, body = re.fullmatch(r"for i in ([\d ]+); do (.+); done", loop).groups()
    (grid_step,) = _harness_steps("grid")
    assert [int(v) for v in values.split()] == WORKFLOW["jobs"]["grid"]["strategy"]["matrix"]["shard"]
    assert body == grid_step.replace("${{ matrix.shard }}", "$i")
    local = [
        line.replace("shards/nightly-shard-*", "reports/experiments/nightly/shards/*")
        for line in _harness_steps("merge-and-gate")
    ]
    assert lines == [line for line in local if " langsmith " not in line]
    merge, report, gate = lines
    capsys.readouterr()
    assert _run(gate) == EXIT_BAD_INPUT
    assert "not merged: no cells.jsonl yet; join them first with `harness experiment merge" in capsys.readouterr().err
    assert _run(merge) == EXIT_OK and _run(gate) == EXIT_OK  # the report line is the workflow's, run by the test above
    out = capsys.readouterr().out
    assert "no significant regression" in out and "INCOMPLETE" not in out
