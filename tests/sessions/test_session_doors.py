"""A user's imported sessions through every door: `harness run --datasets`, a spec's ``scenarios.datasets``
(tests/runs/test_session_spec.py, tests/sessions/test_every_format_replays.py), `pytest evals/ -m session --sessions`
and `harness.evaluate("session", sessions=...)`: each runs the user's cases as the session eval, not the shipped one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.main import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "datasets" / "conversations" / "billing-runbook.jsonl"


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recording imported as a user would: `harness import openai`, its probes generated."""
    out = tmp_path_factory.mktemp("imported")
    assert main(["import", "openai", str(RECORDING), "--out", str(out), "--id", "my-billing"]) == 0
    return out / "sessions.jsonl"


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def test_harness_evaluate_runs_the_session_eval_on_the_users_sessions(sessions, tmp_path):
    import harness

    run = harness.evaluate("session", sessions=[sessions], runs_dir=tmp_path, workers=0)
    assert run.path is not None
    (row,) = _rows(run.path)
    assert (row["case_id"], row["eval"], row["outcome"]) == ("my-billing", "session", "PASS")
    assert row["session"]["control"]["right"] >= 1
    meta = json.loads((run.path / "meta.json").read_text())
    assert any("sessions.jsonl" in name for name in meta["datasets"])  # the user's dataset is hashed with the rest


def test_pytest_evals_runs_the_session_eval_on_the_users_sessions(sessions, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-q", "-rs", "-p", "no:cacheprovider", "-m", "session"]
        + ["--runs-dir", str(tmp_path), "--sessions", str(sessions)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:]
    (run_dir,) = tmp_path.iterdir()
    assert [r["case_id"] for r in _rows(run_dir)] == ["my-billing"]  # the user's case, not the shipped one


def test_a_sessions_file_that_does_not_load_is_a_usage_error_naming_it(tmp_path):
    bad = tmp_path / "sessions.jsonl"
    bad.write_text('{"id": "x", "kind": "session"}\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "-q", "-p", "no:cacheprovider", "-m", "session", "--sessions", str(bad)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 4 and "--sessions" in done.stderr and str(bad) in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
