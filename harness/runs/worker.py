"""A worker process of `harness.runs.pool.stream`: ``python -P -m harness.runs.worker`` reads one job from stdin and
writes one JSON line per finished result to stdout, for the parent, the only writer.

A job is a version arm's cells (``spec``: the spec's path, the command line's replacements, each cell with its attempt
number; a line ``{"row", "trace"}`` each, run with this environment's packages) or a share of the spawn pool's jobs
(``jobs``: pickled with the process's share of the run's limits; a line ``{"i", "outcome"}`` each), and the parent's
pid. Anything else the run prints goes to stderr, so stdout carries only results.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

Emit = Callable[[dict[str, Any]], None]


def run_job(job: dict[str, Any], out: TextIO) -> int:
    """Run the job, writing each result to ``out`` as it finishes."""
    from harness.agent.parallel import end_with_parent

    if job.get("parent_pid"):
        end_with_parent(int(job["parent_pid"]))

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record, default=str) + "\n")
        out.flush()

    (_run_jobs if "jobs" in job else _run_cells)(job, emit)
    return 0


def _run_cells(job: dict[str, Any], emit: Emit) -> None:
    from harness.runs import grid
    from harness.runs.spec import load_spec

    spec = replace(load_spec(job["spec"]), **job.get("replace", {}))
    # each cell: [arm, threshold, case, trial, attempt, eval (None: as no eval; absent from an older parent's job)]
    cells = [(grid.Cell(c[0], c[1], c[2], int(c[3]), c[5] if len(c) > 5 else None), int(c[4])) for c in job["cells"]]
    # live cells on this process's event loop, offline ones one at a time (the parent runs several workers)
    workers = spec.concurrency if grid._is_live(spec) else 1
    grid.run_cells(spec, grid.spec_scenarios(spec), cells, workers, lambda row, trace: emit({"row": row, "trace": trace}))


def _run_jobs(job: dict[str, Any], emit: Emit) -> None:
    """The spawn pool's share: its jobs on this process's event loop, ``size`` in flight, under its share of the limits
    (scored here, as a forked worker's are)."""
    from harness.agent.models import with_run_limits
    from harness.runs.pool import Pool, execute, pack, unpack

    chunk, settings, size, (rps, tpm) = unpack(job["jobs"])
    index = {id(planned): i for i, planned in chunk}  # the parent's index of each job
    endpoints = with_run_limits(settings.endpoints, max_rps=rps, max_tpm=tpm)

    def done(planned: Any, outcome: Any) -> None:
        emit({"i": index[id(planned)], "outcome": pack(outcome)})

    execute([planned for _, planned in chunk], replace(settings, endpoints=endpoints), Pool("loop", size), done)


def main() -> int:
    """The entry point: results on the original stdout, everything else on stderr (a failure's traceback redacted)."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        return run_job(json.loads(sys.stdin.read()), out)
    except BaseException:  # noqa: BLE001 - the parent hears of it by the exit code and this stderr
        import traceback

        from harness.redact import redact

        sys.stderr.write(redact(traceback.format_exc()))
        return 1


if __name__ == "__main__":
    sys.exit(main())
