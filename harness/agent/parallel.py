"""Live cases in several processes, each with its own event loop: ``harness run --processes P --concurrency N``.

One event loop keeps dozens of live cases in flight while the provider takes seconds per
answer. Against a fast local server it becomes the bottleneck: every request costs the
client about 15 ms of CPU (the OpenAI SDK building it, deepagents counting tokens,
LangChain converting messages), all on one core. With ``--processes P`` the cases are
dealt round-robin to P worker processes (spawned: a fresh interpreter, no inherited
threads), each running N / P of them at once with `arun_case`. Finished traces come back
through a queue; the parent is the only writer and records them in start order, as the
one-process path does. ``--max-rps`` and ``--max-tpm`` limits are split evenly between the processes.
Workers end with the parent, even one killed with ``kill -9`` (`end_with_parent`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as queue_module
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from harness.agent.models import Endpoint
from harness.compaction.config import CompactionConfig
from harness.scenarios.schema import Scenario
from harness.trace.schema import Trace

POLL_S = 5.0  # how often the parent checks that its workers are alive while it waits for a case
PARENT_POLL_S = 0.5  # how often a worker checks that its parent is alive


def end_with_parent(parent_pid: int) -> None:
    """In a worker process: end it as soon as ``parent_pid`` is no longer its parent (the parent died, even by
    ``kill -9``, and the worker was handed to init). A daemon thread polls ``os.getppid()``, which works on every
    POSIX system and for forked and spawned workers alike; Linux's PR_SET_PDEATHSIG is not used because it fires when
    the *thread* that started the worker ends, not the process. Used as the initializer of every worker pool
    (`run_in_processes` here, `harness.runs.grid`'s process pool)."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)  # no cleanup to wait for: the parent, the only writer, is gone

    threading.Thread(target=watch, name="harness-end-with-parent", daemon=True).start()


def _without_limiter(endpoint: Endpoint) -> tuple[Endpoint, float | None, float | None]:
    """The endpoint without its shared limiters (they live in this process), and their rates: requests/s, tokens/min."""
    kwargs = dict(endpoint.model_kwargs)
    limiter = kwargs.pop("rate_limiter", None)
    tpm = endpoint.token_budget.tokens_per_minute if endpoint.token_budget is not None else None
    return replace(endpoint, model_kwargs=kwargs, token_budget=None), getattr(limiter, "requests_per_second", None), tpm


def _worker(
    worker: int,
    chunk: list[tuple[int, Scenario, int, int]],
    config: CompactionConfig,
    run_id: str,
    concurrency: int,
    budget_s: float | None,
    models: dict[str, Any],
    rps: float | None,
    tpm: float | None,
    out: Any,
    parent_pid: int,
) -> None:
    """Run ``chunk`` (index, scenario, trial, seed) on this process's event loop; put (index, trace dict) as each finishes."""
    import asyncio

    end_with_parent(parent_pid)

    from harness.agent.models import choose_models
    from harness.agent.runner import arun_case, run_async
    from harness.redact import redact

    try:
        from harness.agent.models import with_run_limits

        agent, summary = with_run_limits((models["agent_endpoint"], models["summary_endpoint"]), max_rps=rps, max_tpm=tpm)
        by_seed: dict[int, Any] = {}

        async def main() -> None:
            gate = asyncio.Semaphore(concurrency)

            async def one(index: int, scenario: Scenario, trial: int, seed: int) -> None:
                if seed not in by_seed:
                    by_seed[seed] = choose_models(
                        models["agent"],
                        models["summary"],
                        window=config.window,
                        seed=seed,
                        agent_endpoint=agent,
                        summary_endpoint=summary,
                    )
                async with gate:
                    trace = await arun_case(
                        scenario, config, by_seed[seed], run_id=run_id, trial=trial, seed=seed, budget_s=budget_s
                    )
                out.put(("case", index, trace.to_dict()))

            await asyncio.gather(*(one(*job) for job in chunk))

        run_async(main())
        out.put(("done", worker, None))
    except BaseException:  # noqa: BLE001 - the parent must hear of it, or it would wait for cases that never come
        out.put(("crash", worker, redact(traceback.format_exc())))


def run_in_processes(
    jobs: list[tuple[Scenario, int, int]],
    config: CompactionConfig,
    run_id: str,
    *,
    processes: int,
    concurrency: int,
    budget_s: float | None,
    agent_model: str | None,
    summary_model: str | None,
    agent_endpoint: Endpoint,
    summary_endpoint: Endpoint,
    record: Callable[[Trace, Scenario], None],
    stop: Callable[[Trace], bool] | None = None,
) -> None:
    """Run ``jobs`` (scenario, trial, seed) over ``processes`` workers, ``concurrency`` cases in flight in all; record
    each finished case in the order of ``jobs`` (`harness.runs.run` starts them largest first). ``stop(trace)`` is
    asked of each case as it arrives (completion order); when it answers True the workers are ended, their cases in
    flight with them, and every case that arrived is recorded (in the order of ``jobs``, skipping those that did not)."""
    agent, rps, tpm = _without_limiter(agent_endpoint)
    summary, _, _ = _without_limiter(summary_endpoint)
    models = {"agent": agent_model, "summary": summary_model, "agent_endpoint": agent, "summary_endpoint": summary}
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    chunks = [[(i, *job) for i, job in enumerate(jobs) if i % processes == w] for w in range(processes)]
    workers = [
        ctx.Process(
            target=_worker,
            daemon=True,
            name=f"harness-live-{w}",
            args=(
                w,
                chunk,
                config,
                run_id,
                max(1, concurrency // processes),
                budget_s,
                models,
                rps / processes if rps else None,
                tpm / processes if tpm else None,
                out,
                os.getpid(),
            ),
        )
        for w, chunk in enumerate(chunks)
        if chunk
    ]
    for proc in workers:
        proc.start()
    finished: dict[int, Trace] = {}
    next_to_record, running = 0, len(workers)
    try:
        while running:
            try:
                kind, key, data = out.get(timeout=POLL_S)
            except queue_module.Empty:
                if not any(p.is_alive() for p in workers):
                    raise RuntimeError("the live worker processes stopped without reporting their cases") from None
                continue
            if kind == "crash":
                raise RuntimeError(f"live worker {key} failed:\n{data}")
            if kind == "done":
                running -= 1
                continue
            finished[key] = trace = Trace.from_dict(data)
            if stop is not None and stop(trace):
                for proc in workers:  # the outage stop: no further case is worth its retries
                    proc.terminate()
                for index in sorted(finished):
                    record(finished.pop(index), jobs[index][0])
                return
            while next_to_record in finished:
                record(finished.pop(next_to_record), jobs[next_to_record][0])
                next_to_record += 1
    finally:
        for proc in workers:
            if proc.is_alive() and running:
                proc.terminate()
            proc.join(timeout=10)
