"""The spawn pool (`harness run --processes`) through the one worker-process protocol (`harness.runs.pool.stream`,
`harness.runs.worker`), offline: each job comes back from its worker process as this process would have run it, in
plan order, and a worker that fails is an error naming it, not a hang. The live paths (a server, the outage stop, a
killed parent) are tests/agent/test_live.py's, tests/runs/test_outage.py's and tests/runs/test_workers.py's."""

from __future__ import annotations

import pytest

from harness.compaction.variants import make_config
from harness.errors import WorkerFailed
from harness.runs import pool
from harness.runs.jobs import Job, RunSettings
from harness.runs.pool import Pool, execute
from harness.suites.execute import find_case
from harness.trace.schema import comparable

pytestmark = pytest.mark.slow  # starts two interpreters

CONFIG = make_config("forced-20")
JOBS = [Job("needle", find_case(case), CONFIG, trial, trial) for trial, case in enumerate(["needle-h24k-d000"] * 3)]


def _outcomes(kind: str) -> list:
    got: list = []
    execute(
        JOBS,
        RunSettings(run_id="spawn"),
        Pool(kind, 2, 2 if kind == "spawn" else 1),
        lambda j, o: got.append((j, o)),
        in_order=True,
    )
    return got


def test_jobs_run_in_spawned_workers_come_back_as_run_here_in_plan_order():
    here, spawned = _outcomes("serial"), _outcomes("spawn")
    assert [job.trial for job, _ in spawned] == [0, 1, 2]
    for (_, a), (_, b) in zip(here, spawned):
        assert {k: s.value for k, s in a.scores.items()} == {k: s.value for k, s in b.scores.items()}
        assert comparable(a.trace) == comparable(b.trace)


def test_a_worker_that_fails_is_an_error_naming_its_exit(monkeypatch):
    monkeypatch.setattr(pool, "WORKER", ("-c", "import sys; sys.stdin.read(); sys.exit(7)"))
    with pytest.raises(WorkerFailed, match=r"ended with exit 7 \(its stderr is above\)"):
        execute(JOBS[:2], RunSettings(), Pool("spawn", 2, 2), lambda j, o: None)


def test_a_failed_worker_exits_4_not_2_bad_input(monkeypatch, capsys):
    """A worker that dies is not the user's mistake: the command exits 4 (ERROR) with the message, no traceback."""
    from harness.cli import main as cli

    def handler(args):  # noqa: ANN001, ANN202
        raise WorkerFailed("worker 2 ended with exit 7 (its stderr is above)")

    monkeypatch.setattr(cli, "build_parser", lambda: _Parser(handler))
    assert cli.main(["run"]) == 4
    assert "error: worker 2 ended with exit 7" in capsys.readouterr().err


class _Parser:
    def __init__(self, handler) -> None:  # noqa: ANN001
        self.handler = handler

    def parse_args(self, argv):  # noqa: ANN001, ANN202
        import argparse

        return argparse.Namespace(command="run", handler=self.handler)
