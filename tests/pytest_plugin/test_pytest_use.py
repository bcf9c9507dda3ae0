"""`pytest evals/` the way people run it: in a fresh process, from the repository root, as docs/evals.md shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_pytest(*args: str, tmp_path: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-q", "-rs", "-p", "no:cacheprovider", "--runs-dir", str(tmp_path), *args],
        cwd=ROOT,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_live_model_without_its_key_skips_every_eval_and_the_validity_matrix_too(tmp_path):
    """No key: nothing runs. The validity matrix, which proves the evals with the offline models and ignores --model,
    used to run for minutes after every eval had been skipped."""
    done = run_pytest("--model", "openai:gpt-5.2", tmp_path=tmp_path)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-2000:]
    assert "skipped" in summary and "passed" not in summary and "failed" not in summary, summary
    assert "the validity matrix proves the evals with the offline reference models" in done.stdout
    assert "OPENAI_API_KEY" in done.stdout  # the evals say which key is missing


def test_a_green_faults_run_says_that_fail_is_what_the_faults_eval_expects(tmp_path):
    done = run_pytest("-m", "faults", "-k", "goal-ledgers-12 and empty", tmp_path=tmp_path)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:]
    (report,) = tmp_path.glob("*/report.md")
    text = report.read_text()
    assert "FAIL is what it expects" in text and "Detected: 1 of 1 valid runs" in text
    assert "FAIL (fault detected, as expected)" in text
    assert "Failed, invalid or errored cases" not in text  # an expected detection is not listed as a problem
    assert "1 runs of faults FAILED as that eval expects" in text


def test_a_base_url_where_nothing_answers_stops_the_session_before_any_case_with_exit_4(tmp_path):
    """Each case used to spend about 21 s in retries to report ERROR; the default run took 13 minutes for 38 ERRORs."""
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = run_pytest(
        "-m",
        "needle",
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        tmp_path=tmp_path,
    )
    printed = done.stdout + done.stderr
    assert done.returncode == 4, printed[-2000:]
    said = [line for line in printed.splitlines() if f"nothing answers at http://127.0.0.1:{port}/v1" in line]
    assert len(said) == 1 and said[0].startswith("ERROR: nothing answers") and "No case was run" in said[0], printed  # once
    assert "passed" not in done.stdout and "failed" not in done.stdout and "Exit" not in printed
    assert not list(tmp_path.iterdir())  # no run directory was written


def test_cases_run_ahead_in_a_forked_worker_give_the_rows_a_one_process_session_writes(tmp_path):
    """Offline, `pytest evals/` forks a worker that runs cases ahead of their tests (`harness.runs.pool.RunAhead`); the
    session still records each case itself, in test order: the rows are those of a session without it."""
    import json

    from harness.api import evaluate

    picked = ["truncation-report-06", "truncation-report-08", "truncation-edits-06", "truncation-edits-08"]
    done = run_pytest("-m", "truncation", "-k", " or ".join(picked), "--run-ahead", "1", tmp_path=tmp_path / "ahead")
    assert done.returncode == 0 and "4 passed" in done.stdout, done.stdout[-2000:]
    ran = re.search(r"harness: (\d) of 4 cases ran ahead in 1 forked worker", done.stdout)
    assert ran and int(ran.group(1)) >= 1, done.stdout[-2000:]
    (results,) = (tmp_path / "ahead").glob("*/results.jsonl")
    ahead_rows = [json.loads(line) for line in results.read_text().splitlines()]
    alone = evaluate("truncation", cases=picked, runs_dir=tmp_path / "alone", workers=0)
    varying = {"run_id", "wall_time_s", "trace"}  # the run's id and clock, and the trace file named after the run
    assert [{k: v for k, v in r.items() if k not in varying} for r in ahead_rows] == [
        {k: v for k, v in r.items() if k not in varying} for r in alone.rows
    ]


HEAVY = ("langchain", "langchain_core", "langgraph", "deepagents", "pandas", "matplotlib", "datasets", "openai")


def test_with_the_plugin_off_a_repositorys_own_tests_import_nothing_heavy_from_it(tmp_path):
    """The plugin is installed as ``pytest11``, so pytest loads it in every run of anyone's repository: off (no
    ``--compaction-strategy``), it must not import the agent stack there (it once added langchain and langgraph,
    about half a second, to every pytest run)."""
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\n\ndef test_plain():\n"
        f"    heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))\n"
        "    print('HEAVY', heavy)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "test_plain.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "compaction_harness" not in proc.stdout  # the plugin was loaded (not disabled) and said nothing
    assert "HEAVY []" in proc.stdout, proc.stdout
