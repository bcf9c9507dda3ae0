"""Worker processes end with their parent, even when it is killed with SIGKILL: the process pool of
`harness experiment run --workers N` and the live workers of `harness run --processes P` used to live on, orphaned,
after a `kill -9` of the command (the pool's workers blocked for ever on their task queue)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STARTUP_S = 180  # bound on waiting for the workers to appear (imports and the overhead probe come first)
GONE_S = 15  # the workers poll their parent every 0.5 s


def _kill_parent_once_workers_run(argv: list[str], workers: int, busy: Callable[[], bool] = lambda: True) -> list[str]:
    """Start ``harness ARGV``, wait for ``workers`` child processes and for them to be ``busy``, SIGKILL the parent;
    return the children still alive GONE_S seconds later, described (and then killed, so that a failure leaves nothing
    behind)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", *argv], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + STARTUP_S
        children: list[psutil.Process] = []
        while len(children) < workers or not busy():
            assert proc.poll() is None, f"harness {' '.join(argv)} ended (exit {proc.returncode}) before its workers ran"
            assert time.monotonic() < deadline, "the workers never started"
            time.sleep(0.2)
            children = parent.children(recursive=True)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _, alive = psutil.wait_procs(children, timeout=GONE_S)
    described = [f"{c.pid} ({c.status()}): {' '.join(c.cmdline()[:6])}" for c in alive]
    for child in alive:
        child.kill()
    return described


def test_experiment_pool_workers_end_when_the_parent_is_killed(tmp_path):
    argv = ["experiment", "run", "datasets/experiments/strategies.yaml", "--workers", "2", "--out", str(tmp_path)]
    alive = _kill_parent_once_workers_run([*argv, "--no-langsmith"], workers=2)
    assert alive == [], alive


@pytest.mark.live
def test_live_worker_processes_end_when_the_parent_is_killed(tmp_path):
    from harness.reference.serve import serving

    with serving(latency=0.3, max_seconds=600) as server:
        live = ["--model", "openai:reference-agent", "--summary-model", "openai:reference-summarizer", "--base-url", server.url]
        argv = ["run", *live, "--kind", "needle", "--concurrency", "4", "--processes", "2", "--out", str(tmp_path)]
        # busy: the workers (the only clients of the server) have sent chat requests, so they are past their start-up
        alive = _kill_parent_once_workers_run(argv, workers=2, busy=lambda: sum(server.state.stats()["requests"].values()) > 8)
    assert alive == [], alive
