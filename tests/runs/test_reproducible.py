"""Offline, the same command and seed give the same results: across processes, and across a kill and resume.

Both tests run the real command line in child processes, as a user or a nightly job does.
What may differ is named once: ``results.VOLATILE_ROW_FIELDS`` in a row and
``trace.comparable`` for a trace (run id, wall and call times, deepagents' offload times).
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.runs.results import VOLATILE_ROW_FIELDS, read_rows
from harness.trace.schema import comparable, load_trace

pytestmark = pytest.mark.slow

CASES = ["needle-h24k-d050", "needle-h48k-d040", "chain-s2-d025", "goal-ledgers-12"]
ENV = {**os.environ, "LANGSMITH_TRACING": "false", "LANGSMITH_TEST_TRACKING": "false"}


def harness(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kwargs
    )


def finish(proc: subprocess.Popen) -> None:
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err


def stable_rows(path: Path) -> list[str]:
    return [json.dumps({k: v for k, v in row.items() if k not in VOLATILE_ROW_FIELDS}, sort_keys=True) for row in read_rows(path)]


def test_two_runs_in_separate_processes_give_identical_results_and_traces(tmp_path):
    for run_id in ("a", "b"):
        finish(harness("run", "--cases", *CASES, "--seed", "3", "--out", str(tmp_path), "--run-id", run_id))
    a, b = tmp_path / "a", tmp_path / "b"
    rows_a, rows_b = stable_rows(a / "results.jsonl"), stable_rows(b / "results.jsonl")
    assert len(rows_a) == len(CASES)
    assert rows_a == rows_b  # byte for byte, apart from run_id and wall_time_s
    summaries = 0
    for row in read_rows(a / "results.jsonl"):
        ta, tb = load_trace(a / row["trace"]), load_trace(b / row["trace"])
        summaries += len(ta.events_of("summary"))
        assert comparable(ta) == comparable(tb), row["case_id"]
    assert summaries >= 8  # the runs did summarize: the seeded summarizer was exercised


def test_a_grid_killed_mid_run_and_resumed_equals_an_uninterrupted_one(tmp_path):
    spec = tmp_path / "grid.yaml"
    spec.write_text(
        "name: grid\nvariants: [deepagents-default, minimal, anchored]\nbaseline: deepagents-default\n"
        "thresholds: [20%]\nscenarios:\n  cases: [needle-h40k-d040, needle-h48k-d025, needle-h48k-d050, chain-s4-d025]\n"
        "trials: 1\nseed: 5\n"
    )
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    finish(harness("experiment", "run", str(spec), "--out", str(whole), "--no-langsmith", "--workers", "1"))
    cells = killed / "grid" / "cells.jsonl"
    proc = harness("experiment", "run", str(spec), "--out", str(killed), "--no-langsmith", "--workers", "1")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not cells.exists() or cells.read_text().count("\n") < 3):
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    done_before = len(read_rows(cells))
    assert 3 <= done_before < 12, f"the kill came at {done_before} of 12 cells: nothing to resume"
    finish(harness("experiment", "run", str(spec), "--out", str(killed), "--no-langsmith", "--workers", "1"))

    def by_cell(path: Path) -> dict[str, dict]:
        return {r["cell_id"]: r for r in read_rows(path / "grid" / "cells.jsonl")}

    a, b = by_cell(whole), by_cell(killed)
    assert sorted(a) == sorted(b) and len(a) == 12  # every cell once: nothing lost, nothing run twice
    for cell_id in a:
        for field in ("outcome", "scores", "tokens", "metrics", "events", "answers"):
            assert a[cell_id][field] == b[cell_id][field], (cell_id, field)
