"""`harness.runs.pool.RunAhead`: every job runs exactly once, in a worker or in place; a worker's NotRun reaches the
caller as raised; a worker's unexpected error or death makes the caller run the job itself; forking waits for a lone
thread."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from harness._fork import can_fork
from harness.compaction.variants import make_config
from harness.runs import pool
from harness.runs.jobs import Job, RunSettings
from harness.runs.pool import RunAhead
from harness.suites.execute import NotRun, find_case

CASE, CONFIG = find_case("needle-h24k-d000"), make_config("forced-20")
KEYS = [("needle", f"case-{i}", None) for i in range(8)]
JOBS = {key: Job("needle", CASE, CONFIG, trial=i) for i, key in enumerate(KEYS)}


def _ahead(monkeypatch, run, jobs=JOBS) -> RunAhead:  # noqa: ANN001
    """A run-ahead whose workers run ``run(job)`` (set before the fork, so the workers inherit it)."""
    monkeypatch.setattr(pool, "run_job", lambda job, settings: run(job))
    return RunAhead(jobs, RunSettings(), workers=1)


def _slow_pid(job):  # noqa: ANN001, ANN202
    time.sleep(0.05)
    return job.trial, os.getpid()


def _take_all(runner: RunAhead, run_here) -> list:  # noqa: ANN001
    results = []
    for key, job in JOBS.items():
        done, value = runner.take(key)
        results.append(value if done else run_here(job))
    return results


def test_every_job_runs_once_some_in_the_worker_and_results_come_back_in_the_callers_order(monkeypatch):
    runner = _ahead(monkeypatch, _slow_pid)
    try:
        results = _take_all(runner, lambda job: (job.trial, os.getpid()))
    finally:
        runner.close()
    assert [trial for trial, _ in results] == list(range(8))  # the caller's order, nothing lost or doubled
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 2  # the first cases here, the last ones in the forked worker
    assert results[-1][1] != os.getpid() and runner.ran_ahead >= 1
    assert runner.status_line() == f"{runner.ran_ahead} of 8 cases ran ahead in 1 forked worker"


def _not_run(job):  # noqa: ANN001, ANN202
    raise NotRun(f"case-{job.trial}: not for this strategy")


def test_a_not_run_met_in_the_worker_is_raised_to_the_caller(monkeypatch):
    runner = _ahead(monkeypatch, _not_run, dict(list(JOBS.items())[:4]))
    try:
        time.sleep(0.3)  # the worker takes the last job
        with pytest.raises(NotRun, match="case-3: not for this strategy"):
            runner.take(KEYS[3])
    finally:
        runner.close()


def _boom(job):  # noqa: ANN001, ANN202
    raise RuntimeError("worker broke")


def test_an_unexpected_error_in_the_worker_hands_the_job_back_to_the_caller(monkeypatch):
    runner = _ahead(monkeypatch, _boom, dict(list(JOBS.items())[:4]))
    try:
        time.sleep(0.3)
        assert runner.take(KEYS[3]) == (False, None)  # run it in place: the real traceback shows there
    finally:
        runner.close()
    assert runner.ran_ahead == 0


def _dies(job):  # noqa: ANN001, ANN202
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_that_dies_hands_its_job_back_to_the_caller(monkeypatch):
    runner = _ahead(monkeypatch, _dies, dict(list(JOBS.items())[:4]))
    try:
        time.sleep(0.3)  # the worker took the last job and was killed on it
        assert runner.take(KEYS[3]) == (False, None)  # the case runs in place
        assert runner.take(KEYS[2]) == (False, None)  # and so does every case no worker ran
    finally:
        runner.close()
    assert runner.ran_ahead == 0


LOG = "RUN_AHEAD_LOG"


def _logged(job):  # noqa: ANN001, ANN202
    with open(os.environ[LOG], "a") as fh:  # noqa: PTH123 - appended from the forked worker
        fh.write(f"case-{job.trial}\n")
    time.sleep(0.02)
    return job.trial


@pytest.mark.parametrize("pause", [0.0, 0.05])
def test_a_job_is_run_by_a_worker_exactly_when_its_result_is_taken_from_one(tmp_path, monkeypatch, pause):
    """However the caller and the worker race (the caller at once, or after the worker got going), no job runs twice and
    none is lost: the worker ran precisely the jobs whose results the caller took from it."""
    monkeypatch.setenv(LOG, str(tmp_path / "log"))
    runner = _ahead(monkeypatch, _logged)
    taken = []
    try:
        time.sleep(pause)
        for key in KEYS:
            done, _ = runner.take(key)
            if done:
                taken.append(key[1])
        time.sleep(0.3)  # time for a worker to (wrongly) run a job the caller already ran in place
    finally:
        runner.close()
    ran_in_worker = (tmp_path / "log").read_text().split() if (tmp_path / "log").exists() else []
    assert sorted(ran_in_worker) == sorted(taken)
    assert runner.take(KEYS[0]) == (False, None)  # closed: the caller runs anything left


def test_closing_waits_only_for_the_jobs_in_flight(monkeypatch):
    """A session stopped early (``pytest -x``) closes the run-ahead: no further job starts, and closing waits for the
    one case each worker is on, not for the rest of the plan."""
    runner = _ahead(monkeypatch, lambda job: time.sleep(0.5))
    time.sleep(0.1)  # the worker is on its first job
    started = time.perf_counter()
    runner.close()
    assert time.perf_counter() - started < 2.0  # one job of 0.5 s, not the eight of the plan
    assert runner.take(KEYS[0]) == (False, None)


def test_forking_is_refused_while_another_thread_runs(monkeypatch):
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert can_fork()
