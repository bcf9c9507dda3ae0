"""Cases run ahead of the tests that ask for them, in forked processes: the second core of `pytest evals/` offline.

pytest runs its tests one after another, so an offline eval session used one core. `RunAhead` forks worker processes
once the session is set up (everything imported, the shipped cases loaded: a fork costs milliseconds where a fresh
interpreter costs seconds) and has them run the session's cases from the end of the test order, while the tests run
from its start: a test whose case a worker has done takes the result (waiting if the worker is on it); a test that
reaches a case no worker has taken runs it in place. Each case is still recorded by the parent, in test order, when its
test asks for it, so results.jsonl, the report and every row are what a one-process run writes.

A worker runs exactly what the test would (`run_eval_case` under the session's settings, inherited by the fork), and the
reference models are a pure function of the messages they are sent, so a case's result does not depend on the process
that ran it. Only offline sessions run ahead (`EvalSession.can_run_ahead`): a live model's calls belong under their
test (LangSmith tracing, rate limits shared in one process). A worker's unexpected exception is not re-raised from a
pickle: the test runs the case in place and shows the real traceback.
"""

from __future__ import annotations

import collections
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

Job = tuple[str, str, str | None]  # (eval name, case id, seeded summarizer fault or None)

_RUN: Callable[[Job], Any] | None = None  # set in the parent before the fork: what a worker runs for a job


def _run_job(job: Job) -> tuple[str, Any]:
    """In a worker: ("ok", result) or ("raised", exception) for a NotRun-like exception the parent re-raises as is;
    anything else ("failed", repr) so the parent runs the case in place."""
    from harness.suites.execute import NotRun

    assert _RUN is not None
    try:
        return "ok", _RUN(job)
    except NotRun as exc:
        return "raised", exc
    except Exception as exc:  # noqa: BLE001 - the parent reruns the case in place for the real traceback
        return "failed", repr(exc)


def _start_worker(parent_pid: int) -> None:
    from harness.agent.parallel import end_with_parent

    end_with_parent(parent_pid)


class RunAhead:
    """``workers`` forked processes running ``jobs`` (in test order) from the end while the caller takes them from the
    start. `take(job)` returns ``(True, result)`` for a job a worker took (waiting for it), ``(False, None)`` for one
    the caller must run itself (and no worker will)."""

    def __init__(self, jobs: list[Job], run: Callable[[Job], Any], workers: int) -> None:
        global _RUN
        _RUN = run
        self._pending: collections.deque[Job] = collections.deque(dict.fromkeys(jobs))
        self._taken: dict[Hashable, Future] = {}
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(workers)
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=mp.get_context("fork"), initializer=_start_worker, initargs=(os.getpid(),)
        )
        # Fork now, from this thread, while it is the only one running: the pool starts every worker on its first job.
        self._pool.submit(int).result()
        self._closed = False
        self.workers, self.jobs, self.ran_ahead = workers, len(self._pending), 0
        self._feeder = threading.Thread(target=self._feed, name="harness-run-ahead", daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        while True:
            self._slots.acquire()
            with self._lock:
                if self._closed or not self._pending:
                    return
                job = self._pending.pop()
                future = self._pool.submit(_run_job, job)
                self._taken[job] = future
            future.add_done_callback(lambda _f: self._slots.release())

    def take(self, job: Job) -> tuple[bool, Any]:
        """The result of ``job`` if a worker has taken it (``(True, result)``; a NotRun the worker met is raised), else
        ``(False, None)`` after making sure no worker will take it."""
        with self._lock:
            future = self._taken.pop(job, None)
            if future is None:
                try:
                    self._pending.remove(job)
                except ValueError:
                    pass
                return False, None
        try:
            status, value = future.result()
        except BrokenProcessPool:  # the worker died (killed, out of memory): the case runs in place
            return False, None
        if status == "raised":
            raise value
        if status == "failed":
            return False, None
        self.ran_ahead += 1
        return True, value

    def status_line(self) -> str:
        """What ran ahead, for the session's summary: "12 of 20 cases ran ahead in 1 forked worker"."""
        return f"{self.ran_ahead} of {self.jobs} cases ran ahead in {self.workers} forked worker{'s' if self.workers > 1 else ''}"

    def close(self) -> None:
        """Stop handing out jobs and end the workers, once the jobs they are on finish (a session stopped early,
        ``pytest -x``, waits for at most one case per worker)."""
        with self._lock:
            self._closed = True
            self._pending.clear()
        self._slots.release()
        self._pool.shutdown(wait=True, cancel_futures=True)


def default_workers() -> int:
    """How many workers run ahead unless told: one per core beyond the first, at most 3 (the tests' own process keeps
    a core)."""
    return max(0, min(3, (os.cpu_count() or 1) - 1))
