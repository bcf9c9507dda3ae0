"""`harness.runs.ahead.RunAhead`: every job runs exactly once, in a worker or in place; a worker's NotRun reaches the
caller as raised; a worker's unexpected error makes the caller run the job itself; forking waits for a lone thread."""

from __future__ import annotations

import os
import threading
import time

import pytest

from harness._fork import can_fork
from harness.runs import ahead
from harness.runs.ahead import RunAhead
from harness.suites.execute import NotRun

JOBS = [("needle", f"case-{i}", None) for i in range(8)]


def _slow_pid(job):  # noqa: ANN001, ANN202
    time.sleep(0.05)
    return job[1], os.getpid()


def _take_all(runner: RunAhead, jobs, run_here) -> list:  # noqa: ANN001
    results = []
    for job in jobs:
        done, value = runner.take(job)
        results.append(value if done else run_here(job))
    return results


def test_every_job_runs_once_some_in_the_worker_and_results_come_back_in_the_callers_order():
    runner = RunAhead(JOBS, _slow_pid, workers=1)
    try:
        results = _take_all(runner, JOBS, lambda job: (job[1], os.getpid()))
    finally:
        runner.close()
    assert [case for case, _ in results] == [job[1] for job in JOBS]  # the caller's order, nothing lost or doubled
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 2  # the first cases here, the last ones in the forked worker
    assert results[-1][1] != os.getpid() and runner.ran_ahead >= 1
    assert runner.status_line() == f"{runner.ran_ahead} of 8 cases ran ahead in 1 forked worker"


def _not_run(job):  # noqa: ANN001, ANN202
    raise NotRun(f"{job[1]}: not for this strategy")


def test_a_not_run_met_in_the_worker_is_raised_to_the_caller():
    runner = RunAhead(JOBS[:4], _not_run, workers=1)
    try:
        time.sleep(0.3)  # the worker takes the last job
        with pytest.raises(NotRun, match="case-3: not for this strategy"):
            runner.take(JOBS[3])
    finally:
        runner.close()


def _boom(job):  # noqa: ANN001, ANN202
    raise RuntimeError("worker broke")


def test_an_unexpected_error_in_the_worker_hands_the_job_back_to_the_caller():
    runner = RunAhead(JOBS[:4], _boom, workers=1)
    try:
        time.sleep(0.3)
        assert runner.take(JOBS[3]) == (False, None)  # run it in place: the real traceback shows there
    finally:
        runner.close()
    assert runner.ran_ahead == 0


LOG = "RUN_AHEAD_LOG"


def _logged(job):  # noqa: ANN001, ANN202
    with open(os.environ[LOG], "a") as fh:  # noqa: PTH123 - appended from the forked worker
        fh.write(job[1] + "\n")
    time.sleep(0.02)
    return job[1]


@pytest.mark.parametrize("pause", [0.0, 0.05])
def test_a_job_is_run_by_a_worker_exactly_when_its_result_is_taken_from_one(tmp_path, monkeypatch, pause):
    """However the caller and the worker race (the caller at once, or after the worker got going), no job runs twice and
    none is lost: the worker ran precisely the jobs whose results the caller took from it."""
    monkeypatch.setenv(LOG, str(tmp_path / "log"))
    runner = RunAhead(JOBS, _logged, workers=1)
    taken = []
    try:
        time.sleep(pause)
        for job in JOBS:
            done, _ = runner.take(job)
            if done:
                taken.append(job[1])
        time.sleep(0.3)  # time for a worker to (wrongly) run a job the caller already ran in place
    finally:
        runner.close()
    ran_in_worker = (tmp_path / "log").read_text().split() if (tmp_path / "log").exists() else []
    assert sorted(ran_in_worker) == sorted(taken)
    assert runner.take(JOBS[0]) == (False, None)  # closed: the caller runs anything left


def test_forking_is_refused_while_another_thread_runs(monkeypatch):
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()
    monkeypatch.setattr(ahead.threading, "active_count", lambda: 1)
    assert can_fork()
