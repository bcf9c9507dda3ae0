"""A worker of a version arm (`harness.runs.versions`): ``python -m harness.runs.version_worker`` in the arm's
environment reads one job from stdin (the spec's path, the command line's replacements, its cells with their
attempt numbers, the parent's pid) and writes one JSON line ``{"row", "trace"}`` per finished cell to stdout. Anything
else the run prints goes to stderr, so stdout carries only results; the parent is the only writer of the experiment.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from typing import Any, TextIO


def run_job(job: dict[str, Any], out: TextIO) -> int:
    """Run the job's cells with this interpreter's packages, writing each result to ``out`` as it finishes."""
    from harness.agent.parallel import end_with_parent
    from harness.runs import grid
    from harness.runs.spec import load_spec

    if job.get("parent_pid"):
        end_with_parent(int(job["parent_pid"]))
    spec = replace(load_spec(job["spec"]), **job.get("replace", {}))
    # each cell: [arm, threshold, case, trial, attempt, eval (None: as no eval; absent from an older parent's job)]
    cells = [(grid.Cell(c[0], c[1], c[2], int(c[3]), c[5] if len(c) > 5 else None), int(c[4])) for c in job["cells"]]

    def emit(row: dict[str, Any], trace: dict[str, Any] | None) -> None:
        out.write(json.dumps({"row": row, "trace": trace}, default=str) + "\n")
        out.flush()

    # live cells on this process's event loop, offline ones one at a time (the parent runs several workers)
    workers = spec.concurrency if grid._is_live(spec) else 1
    grid.run_cells(spec, grid.spec_scenarios(spec), cells, workers, emit)
    return 0


def main() -> int:
    """The entry point: results on the original stdout, everything else on stderr."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return run_job(json.loads(sys.stdin.read()), out)


if __name__ == "__main__":
    sys.exit(main())
