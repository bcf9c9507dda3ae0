"""The one executor: run a plan's jobs (`harness.runs.jobs.Job`) in a pool and hand each outcome to the caller.

A `Pool` is ``serial`` (here, one at a time), ``loop`` (``size`` in flight on one event loop: live models), ``fork``
(``size`` forked workers: offline grids) or ``spawn`` (``processes`` fresh processes, each a loop: `harness run
--processes`). ``done(job, outcome)``, the plan's sink, gets each `CaseResult` (or the `NotRun` it raised) in plan
order (``in_order``: a run directory) or as each finishes (a grid, where a kill -9 loses only the cells in flight).
``watch`` (`harness.runs.outage`) stops the plan: no job starts, jobs in flight on a loop are cancelled (a process
pool's finish and are kept), and every finished one is handed over. Workers end with this process
(`harness.agent.parallel.end_with_parent`).
"""

from __future__ import annotations

import asyncio
import base64
import json
import multiprocessing as mp
import os
import pickle
import queue as queue_module
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union

from harness.agent.parallel import end_with_parent, without_limiter
from harness.errors import ConfigError, WorkerFailed
from harness.runs.jobs import Job, RunSettings, arun_job, run_job
from harness.runs.outage import OutageStopped, OutageWatch

if TYPE_CHECKING:
    from harness.suites.execute import CaseResult, NotRun

    Outcome = Union[CaseResult, NotRun]  # noqa: UP007 - a runtime alias under TYPE_CHECKING only


@dataclass(frozen=True)
class Pool:
    """How a plan's jobs run at once (see the module docstring): ``kind``, ``size`` jobs at a time, and for ``spawn``
    the number of processes."""

    kind: Literal["serial", "loop", "fork", "spawn"] = "serial"
    size: int = 1
    processes: int = 1

    @classmethod
    def choose(cls, *, live: bool, concurrency: int, processes: int = 1, forks: bool = False) -> Pool:
        """The pool of a plan: live models on an event loop (or spread over ``processes``), offline ones one at a time
        or, with ``forks`` and ``concurrency`` > 1, in that many forked workers; an offline plan asked for concurrency
        without forks still runs on the loop (`harness run --concurrency` offline: one row order either way)."""
        if concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {concurrency}")
        if processes < 1 or processes > concurrency:
            raise ConfigError(f"--processes must be between 1 and --concurrency ({concurrency}), got {processes}")
        if processes > 1:
            if not live:
                raise ConfigError(
                    "--processes is for live models; offline grids run in worker processes with "
                    "`harness experiment run --workers N`"
                )
            return cls("spawn", concurrency, processes)
        if live:
            return cls("loop", concurrency)
        if concurrency == 1:
            return cls("serial")
        return cls("fork", concurrency) if forks else cls("loop", concurrency)


def execute(
    jobs: Sequence[Job],
    settings: RunSettings,
    pool: Pool,
    done: Callable[[Job, Outcome], None],
    *,
    watch: OutageWatch | None = None,
    in_order: bool = False,
) -> None:
    """Run ``jobs`` in ``pool`` under ``settings``; ``done`` each outcome (see the module docstring)."""
    watch = watch if watch is not None else OutageWatch(0)
    hand = _Handover(jobs, done, watch, in_order)
    if pool.kind == "serial" or (pool.kind == "fork" and len(jobs) <= 1):
        for i, job in enumerate(jobs):
            if watch.stopped:
                break
            hand.finished(i, _outcome(job, settings))
    elif pool.kind == "loop":
        from harness.agent.runner import run_async

        run_async(_run_loop(jobs, settings, pool.size, hand))
    elif pool.kind == "fork":
        _run_forked(jobs, settings, pool.size, hand)
    else:
        _run_spawned(jobs, settings, pool, hand)
    hand.flush()


class _Handover:
    """Outcomes to ``done``: in plan order (holding a finished job until every job before it is handed over) or as
    they finish; the outage watch sees each as it finishes."""

    def __init__(self, jobs: Sequence[Job], done: Callable[[Job, Outcome], None], watch: OutageWatch, in_order: bool):
        self.jobs, self.done, self.watch, self.in_order = jobs, done, watch, in_order
        self.waiting: dict[int, Outcome] = {}
        self.next = 0

    def finished(self, i: int, outcome: Outcome) -> bool:
        """`see` job ``i``'s outcome, then `give` it; True when the plan has now stopped for an outage."""
        stops = self.see(outcome)
        self.give(i, outcome)
        return stops

    def see(self, outcome: Outcome) -> bool:
        """The outage watch counts a finished job (True: it stops the plan)."""
        trace = getattr(outcome, "trace", None)
        return self.watch.see(trace.error) if trace is not None else False

    def give(self, i: int, outcome: Outcome) -> None:
        """Hand over (or hold) job ``i``'s outcome."""
        if not self.in_order:
            self.done(self.jobs[i], outcome)
            return
        self.waiting[i] = outcome
        while self.next in self.waiting:
            self.done(self.jobs[self.next], self.waiting.pop(self.next))
            self.next += 1

    def flush(self) -> None:
        """After a stop: the finished jobs behind one that never finished, in plan order."""
        for i in sorted(self.waiting):
            self.done(self.jobs[i], self.waiting.pop(i))


def _outcome(job: Job, settings: RunSettings) -> Outcome:
    from harness.suites.execute import NotRun

    try:
        return run_job(job, settings)
    except NotRun as exc:
        return exc


async def _aoutcome(job: Job, settings: RunSettings) -> Outcome:
    from harness.suites.execute import NotRun

    try:
        return await arun_job(job, settings)
    except NotRun as exc:
        return exc


async def _run_loop(jobs: Sequence[Job], settings: RunSettings, size: int, hand: _Handover) -> None:
    """Up to ``size`` jobs in flight. When the watch stops the plan (a job finishing makes it), the jobs in flight are
    cancelled and none starts: the watch sees each job as it finishes, before its slot is free for the next."""
    gate = asyncio.Semaphore(size)
    writing = asyncio.Lock()
    running: dict[int, asyncio.Task] = {}

    async def one(i: int) -> None:
        async with gate:
            if hand.watch.stopped:
                return
            running[i] = task = asyncio.ensure_future(_aoutcome(jobs[i], settings))
            try:
                outcome = await task
            except asyncio.CancelledError:
                if task.cancelled() and hand.watch.stopped:
                    return  # cancelled by the stop below: not run
                raise
            finally:
                running.pop(i, None)
            if hand.see(outcome):
                for other in running.values():
                    other.cancel()
        async with writing:  # one writer; scoring and writes run off the event loop so requests keep flowing
            await asyncio.to_thread(hand.give, i, outcome)

    await asyncio.gather(*(one(i) for i in range(len(jobs))))


def fork_pool(size: int, claims: Any = None) -> ProcessPoolExecutor:
    """``size`` forked workers that end with this process, forked now, from the calling thread (a fork pool forks all
    its workers at its first job; forked later from another thread, a child could inherit a lock held here).
    ``claims``: a run-ahead's (`RunAhead`), which the workers inherit."""
    executor = ProcessPoolExecutor(
        max_workers=size, mp_context=mp.get_context("fork"), initializer=_forked, initargs=(os.getpid(), claims)
    )
    executor.submit(int).result()
    return executor


def _forked(parent_pid: int, claims: Any) -> None:
    global _CLAIMS
    end_with_parent(parent_pid)
    _CLAIMS = claims


def _run_forked(jobs: Sequence[Job], settings: RunSettings, size: int, hand: _Handover) -> None:
    """``size`` forked workers running ``jobs`` in plan order; once the watch stops the plan no job starts (jobs
    running finish and are kept: a process pool cannot cancel them)."""
    shared = settings.picklable()
    with fork_pool(size) as pool:
        pending: dict[Future, int] = {}
        queue = list(range(len(jobs)))
        while queue or pending:
            while queue and len(pending) < size and not hand.watch.stopped:
                i = queue.pop(0)
                pending[pool.submit(_outcome, jobs[i], shared)] = i
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                hand.finished(pending.pop(future), future.result())


def _run_spawned(jobs: Sequence[Job], settings: RunSettings, pool: Pool, hand: _Handover) -> None:
    """``pool.processes`` worker processes (`harness.runs.worker`, through `stream`), each running its share of ``jobs``
    (dealt round-robin) on its own loop under its share of the run's concurrency and rate limits (`worker_share`)."""
    agent, rps, tpm = without_limiter(settings.endpoints[0])
    worker_settings = replace(settings, endpoints=(agent, without_limiter(settings.endpoints[1])[0]))
    size, rps, tpm = worker_share(pool.size, pool.processes, rps, tpm)
    chunks = [[(i, jobs[i]) for i in range(w, len(jobs), pool.processes)] for w in range(pool.processes)]
    shares = [{"jobs": pack((chunk, worker_settings, size, (rps, tpm)))} for chunk in chunks if chunk]
    here = str(Path(__file__).resolve().parents[2])  # the harness this process runs, as spawned workers had it
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}

    def finished(record: dict[str, Any]) -> None:
        if hand.finished(record["i"], unpack(record["outcome"])):
            raise OutageStopped(hand.watch.message)  # no further case is worth its retries: `stream` ends the workers

    try:
        stream(sys.executable, shares, finished, WORKER, capture=False, env=env)
    except OutageStopped:
        pass


def worker_share(size: int, processes: int, rps: float | None, tpm: float | None) -> tuple[int, float | None, float | None]:
    """One process's share of a run split over ``processes`` processes (the spawn pool's workers, a version arm's):
    cases in flight (``size`` in all, at least one each), requests per second and tokens per minute (None: no limit),
    so that the run's concurrency and limits hold across the processes together, not in each."""
    n = max(1, processes)
    return max(1, size // n), (rps / n if rps else None), (tpm / n if tpm else None)


WORKER = ("-P", "-m", "harness.runs.worker")
"""How `stream` starts a worker after the Python it is given (``-P``: the harness comes from that Python's install,
never from a ``harness/`` in the working directory)."""


def pack(value: Any) -> str:
    """``value`` pickled, as text for a JSON line (`unpack` reads it)."""
    return base64.b64encode(pickle.dumps(value)).decode("ascii")


def unpack(text: str) -> Any:
    return pickle.loads(base64.b64decode(text))


def stream(
    python: str,
    jobs: Sequence[Mapping[str, Any]],
    result: Callable[[dict[str, Any]], None],
    worker: Sequence[str] = WORKER,
    *,
    capture: bool = True,
    env: Mapping[str, str] | None = None,
) -> None:
    """The one worker-process protocol (the spawn pool's, a version arm's): each of ``jobs`` (JSON, with this process's
    pid added) goes to the stdin of its own process of ``python`` + ``worker`` (`harness.runs.worker`), which writes one
    JSON line per finished result; ``result(record)`` gets each here as it comes, so this process stays the only writer.
    A worker that exits non-zero, or writes a line that is not JSON (killed mid-write), is a WorkerFailed (with the end
    of its stderr when ``capture``; else its stderr is this process's) and ends the others, as does an exception from
    ``result`` (the outage stop), which is raised."""
    lines: queue_module.Queue = queue_module.Queue()
    procs, logs = [], []
    for job in jobs:
        log = tempfile.TemporaryFile(mode="w+") if capture else None  # a file, not a pipe: a chatty worker cannot stall
        proc = subprocess.Popen([python, *worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
        procs.append(proc)
        logs.append(log)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({**job, "parent_pid": os.getpid()}))
        proc.stdin.close()
        threading.Thread(target=_pump, args=(proc, lines, log, python), daemon=True).start()
    running = len(procs)
    try:
        while running:
            kind, payload = lines.get()
            if kind == "broken":
                raise WorkerFailed(payload)
            if kind == "done":
                running -= 1
            else:
                result(payload)
    except BaseException:
        for proc in procs:
            proc.kill()
            proc.wait()
        raise
    for log in logs:
        if log is not None:
            log.close()


def _pump(proc: subprocess.Popen, lines: queue_module.Queue, log: Any = None, python: str = "") -> None:
    """A worker's output lines as records, then whether it failed, then "done" whatever happens: a line cut short (a
    worker killed mid-write) ends the worker's stream with the reason, instead of leaving the parent waiting."""
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if line.strip():
                try:
                    lines.put(("row", json.loads(line)))
                except ValueError:
                    proc.kill()
                    lines.put(("broken", f"a worker wrote a line that is not JSON (cut short?): {line[:200]!r}"))
                    return
        if proc.wait() != 0:
            if log is not None:
                log.seek(0)
            err = f":\n{log.read()[-3000:]}" if log is not None else " (its stderr is above)"
            lines.put(("broken", f"a worker in {python} ended with exit {proc.returncode}{err}"))
    finally:
        lines.put(("done", None))


_CLAIMS: Any = None  # in a run-ahead's forked worker: who runs each job (`RunAhead`)
FREE, AHEAD, HERE = 0, 1, 2  # a job no one started, one a worker runs, one the caller took (or the run-ahead closed)


def _ahead(job: Job, settings: RunSettings, i: int) -> Outcome | None:
    """In a run-ahead's worker: job ``i``'s outcome when the caller has not taken it; None when it has, and for an
    unexpected error (the caller then runs the job in place, where the real traceback shows)."""
    with _CLAIMS.get_lock():
        if _CLAIMS[i] == HERE:
            return None
        _CLAIMS[i] = AHEAD
    try:
        return _outcome(job, settings)
    except Exception:  # noqa: BLE001
        return None


class RunAhead:
    """Offline cases run ahead of the tests that ask for them: the second core of `pytest evals/` (and of
    `harness.evaluate`) offline. ``workers`` forked workers (a fork costs milliseconds where a fresh interpreter costs
    seconds) run ``jobs`` (key -> job, in test order) from the end of the test order, while the tests take them from
    its start; a shared claim per job says who runs it.

    `take(key)` returns ``(True, outcome)`` for a job a worker started (waiting for it; a `NotRun` the worker met is
    raised) and ``(False, None)`` for one the caller runs in place, which no worker will then start: a job no worker
    started, one whose worker met an unexpected error, or one whose worker died. The caller still records every case
    itself, in test order, so rows are what a one-process run writes: a worker runs exactly what the test would."""

    def __init__(self, jobs: Mapping[Any, Job], settings: RunSettings, workers: int) -> None:
        keys = list(jobs)[::-1]  # from the end of the test order
        self._index = {key: i for i, key in enumerate(keys)}
        self._taken: set[int] = set()  # asked for by the caller
        self._claims = mp.get_context("fork").Array("b", len(keys))  # FREE, AHEAD or HERE, shared with the workers
        self._claims[: min(workers, len(keys))] = [AHEAD] * min(workers, len(keys))  # what the workers start with
        self.workers, self.jobs, self.ran_ahead = workers, len(keys), 0
        self._pool = fork_pool(workers, self._claims)  # now, from this thread, while it is the only one running
        shared = settings.picklable()
        self._futures = [self._pool.submit(_ahead, jobs[key], shared, i) for i, key in enumerate(keys)]

    def take(self, key: Hashable) -> tuple[bool, Any]:
        """``(True, outcome)`` of the job ``key`` if a worker started it, else ``(False, None)`` (see the class)."""
        from harness.suites.execute import NotRun

        i = self._index.get(key)
        if i is None or i in self._taken:
            return False, None
        self._taken.add(i)
        with self._claims.get_lock():
            ahead = self._claims[i] == AHEAD
            if not ahead:
                self._claims[i] = HERE
        if not ahead:
            self._futures[i].cancel()  # not yet handed to a worker: it never will be
            return False, None
        try:
            outcome = self._futures[i].result()
        except Exception:  # noqa: BLE001 - BrokenProcessPool: its worker died
            return False, None
        if isinstance(outcome, NotRun):
            raise outcome
        self.ran_ahead += outcome is not None
        return outcome is not None, outcome

    def status_line(self) -> str:
        """What ran ahead, for the session's summary: "12 of 20 cases ran ahead in 1 forked worker"."""
        return f"{self.ran_ahead} of {self.jobs} cases ran ahead in {self.workers} forked worker{'s' if self.workers > 1 else ''}"

    def close(self) -> None:
        """Start no further job and end the workers once the jobs they are on finish (a session stopped early,
        ``pytest -x``, waits for at most one case per worker)."""
        with self._claims.get_lock():
            for i in range(self.jobs):
                self._claims[i] = HERE if self._claims[i] == FREE else self._claims[i]
        self._pool.shutdown(wait=True, cancel_futures=True)


def default_workers() -> int:
    """How many workers run ahead unless told: one per core beyond the first, at most 3 (the tests' own process keeps
    a core)."""
    return max(0, min(3, (os.cpu_count() or 1) - 1))
