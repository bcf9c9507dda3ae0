"""The outage stop (`harness.runs.outage`): a provider that fails every request stops the run early, with exit 4, on
every path: `harness run` (one loop, cases in flight, processes), `harness experiment run` (then resumed), a pytest
session and `harness.evaluate`.

The rule is unit-tested first; the rest runs against `harness serve` on loopback with a 503 on every agent request and
the client's retries off (``max_retries=0``), so each errored case costs a fraction of a second, not the ~21 s the
default retries spend.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.errors import ConfigError
from harness.reference.serve import Fault, serving
from harness.runs.outage import DEFAULT_STOP_AFTER_ERRORS, OutageWatch, stop_after_errors

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CAUSE = "agent: HTTP 503 InternalServerError"
NEEDLES = ["needle-h24k-d000", "needle-h24k-d010", "needle-h24k-d025", "needle-h24k-d040", "needle-h24k-d050"]
SMALL = ["chain-s1-d000", "chain-s1-d025", "goal-ledgers-12"]  # the three shortest shipped cases (size_chars)


def _error(model: str = "agent", status: int | None = 503, kind: str = "InternalServerError", **extra) -> dict:
    return {
        "type": "InternalServerError",
        "message": "x",
        "provider_error": {"type": kind, "status": status, "model": model, **extra},
    }


# -- the rule ------------------------------------------------------------------------------------------------------------
def test_the_same_provider_error_in_a_row_stops_at_the_setting_naming_cause_and_count():
    watch = OutageWatch(3)
    assert [watch.see(_error()) for _ in range(2)] == [False, False] and not watch.stopped
    assert watch.see(_error(message="another text")) is True  # the classified cause counts, not the message
    assert watch.message is not None and CAUSE in watch.message and "3 cases in a row" in watch.message
    assert "--stop-after-errors 3" in watch.message
    assert watch.see(_error()) is False and watch.count == 3  # later cases (in flight at the stop) change nothing


def test_a_case_that_went_through_or_another_cause_starts_the_count_again():
    watch = OutageWatch(2)
    watch.see(_error())
    watch.see(None)  # PASS, FAIL, INVALID: the provider answered
    watch.see(_error())
    assert not watch.stopped and watch.count == 1
    watch.see(_error(model="summarizer"))  # another model: another cause
    watch.see(_error(status=429, kind="RateLimitError"))
    assert not watch.stopped
    watch.see({"type": "ValueError", "message": "a crash, not a provider error"})  # FAIL (run_completed): not ERROR
    assert watch.count == 0
    # a note (Retry-After not waited, with its numbers) is not part of the cause
    watch.see(_error(status=429, kind="RateLimitError", note="Retry-After 300 s exceeds the remaining case budget 80 s"))
    watch.see(_error(status=429, kind="RateLimitError", note="Retry-After 300 s exceeds the remaining case budget 20 s"))
    assert watch.stopped and "agent: HTTP 429 RateLimitError" in str(watch.message)


def test_zero_never_stops_and_the_setting_is_checked():
    watch = OutageWatch(0)
    for _ in range(50):
        watch.see(_error())
    assert not watch.stopped
    assert stop_after_errors(None) == DEFAULT_STOP_AFTER_ERRORS == 3 and stop_after_errors(0) == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(ConfigError, match="--stop-after-errors"):
            stop_after_errors(bad)  # type: ignore[arg-type]


def test_the_spec_key_is_read_checked_and_not_part_of_the_fingerprint(tmp_path):
    import yaml

    from harness.runs.spec import load_spec

    def spec(**extra) -> Path:
        path = tmp_path / "s.yaml"
        path.write_text(yaml.safe_dump({"name": "s", "variants": ["deepagents-default"], "trigger": "20%", **extra}))
        return path

    assert load_spec(spec()).stop_after_errors is None
    assert load_spec(spec(stop_after_errors=0)).stop_after_errors == 0
    assert load_spec(spec(stop_after_errors=5)).fingerprint() == load_spec(spec()).fingerprint()
    with pytest.raises(ConfigError, match="stop_after_errors"):
        load_spec(spec(stop_after_errors=-1))


# -- cases in flight at the stop: cancelled, never waited for ------------------------------------------------------------
async def _fake_case(job: SimpleNamespace, settings: object = None) -> SimpleNamespace:
    """A case that ends in the 503 at once, or, for ``slow``, one that would never end (a provider that hangs)."""
    await asyncio.sleep(3600 if job.name == "slow" else 0.01)
    return SimpleNamespace(trace=SimpleNamespace(error=_error(), name=job.name))


def _run_loop_with_a_hang(monkeypatch, *, in_order: bool, writes_s: float = 0.0) -> tuple[OutageWatch, list[str]]:
    """Jobs a, slow, b, c, two in flight on the executor's event loop, the run stopped after 2 errors in a row;
    ``writes_s``: how long handing each outcome over (scoring, writing) takes."""
    from harness.runs import pool

    monkeypatch.setattr(pool, "arun_job", _fake_case)
    jobs = [SimpleNamespace(name=name) for name in ("a", "slow", "b", "c")]
    handed: list[str] = []
    watch = OutageWatch(2)

    async def bounded() -> None:  # "slow" is cancelled by the stop, not waited for
        await asyncio.wait_for(pool._run_loop(jobs, None, 2, hand), 10)

    def done(job: SimpleNamespace, outcome: SimpleNamespace) -> None:
        time.sleep(writes_s)
        handed.append(outcome.trace.name)

    hand = pool._Handover(jobs, done, watch, in_order)
    from harness.agent.runner import run_async

    run_async(bounded())
    hand.flush()
    return watch, handed


def test_a_run_cancels_its_cases_in_flight_at_the_stop_and_records_the_finished_ones(monkeypatch):
    watch, recorded = _run_loop_with_a_hang(monkeypatch, in_order=True)
    assert watch.stopped and recorded == ["a", "b"]  # b, behind the cancelled slow one, is recorded too; c never started


def test_a_grid_cancels_its_cells_in_flight_at_the_stop(monkeypatch):
    watch, written = _run_loop_with_a_hang(monkeypatch, in_order=False)
    assert watch.stopped and written == ["a", "b"]


@pytest.mark.parametrize("in_order", [True, False])
def test_no_case_starts_after_the_one_that_stops_the_run_even_while_its_row_is_written(monkeypatch, in_order):
    """The watch sees a case as it finishes, before its slot is free: c used to start (and, under load, finish and be
    recorded) while b's row, the one that stops the run, was still being scored and written."""
    watch, written = _run_loop_with_a_hang(monkeypatch, in_order=in_order, writes_s=0.3)
    assert watch.stopped and written == ["a", "b"]


# -- every path, against an outage ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=600) as srv:
        yield srv


@pytest.fixture
def outage(server):
    server.state.reset()
    server.add_fault(Fault("503", count=None, scope="agent"))
    yield server
    server.state.reset()


def _live(url: str) -> list[str]:
    return [
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        url,
        "--model-kwargs",
        "max_retries=0",
        "--model-kwargs",
        "timeout=2",
    ]


def _run(url: str, out: Path, run_id: str, *extra: str, cases: list[str] = NEEDLES) -> int:
    from harness.cli.main import main

    return main(["run", *_live(url), "--cases", *cases, "--out", str(out), "--run-id", run_id, *extra])


@pytest.mark.live
@pytest.mark.parametrize(
    "extra, ran",
    [
        ((), [3]),  # the default, 3; one case in flight
        (("--stop-after-errors", "2"), [2]),
        (("--stop-after-errors", "2", "--concurrency", "3"), [2, 3, 4]),  # in flight at the stop: cancelled or written
        (("--stop-after-errors", "2", "--concurrency", "2", "--processes", "2"), [2, 3, 4]),
    ],
    ids=["default", "one-at-a-time", "in-flight", "processes"],
)
def test_harness_run_stops_on_an_outage_with_exit_4_keeping_every_row(outage, tmp_path, capsys, extra, ran):
    assert _run(outage.url, tmp_path, "r", *extra) == 4
    err = capsys.readouterr().err
    run = tmp_path / "r"
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    meta = json.loads((run / "meta.json").read_text())
    assert len(rows) in ran and {r["outcome"] for r in rows} == {"ERROR"}, [r["outcome"] for r in rows]
    assert all((run / r["trace"]).exists() for r in rows)
    not_run = meta["stopped"]["not_run"]
    assert len(not_run) == len(NEEDLES) - len(rows)  # every case is a row or named as not run, none lost
    assert {r["case_id"] for r in rows} | {n["case_id"] for n in not_run} == set(NEEDLES)
    count = 2 if "2" in extra else 3
    assert f"{count} cases in a row ended in ERROR with the same provider error ({CAUSE})" in err
    assert f"{len(not_run)} case run(s) not run" in err  # and how to run them: no case went through, so all again
    assert "run the same command with another --run-id (no case of it went through)" in meta["stopped"]["rerun"]
    assert "Stopped early" in (run / "report.md").read_text()


@pytest.mark.live
def test_after_a_case_went_through_the_rerun_hint_names_the_cases_to_run_again(server, tmp_path, capsys):
    server.state.reset()
    server.add_fault(Fault("503", count=None, scope="agent", after=20))  # the first case passes, then the outage
    try:
        assert _run(server.url, tmp_path, "r", "--stop-after-errors", "2") == 4
    finally:
        server.state.reset()
    rows = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in rows] == ["PASS", "ERROR", "ERROR"]
    hint = json.loads((tmp_path / "r" / "meta.json").read_text())["stopped"]["rerun"]
    again = hint.rsplit("--cases ", 1)[1].split()
    assert sorted(again) == sorted(set(NEEDLES) - {rows[0]["case_id"]})  # the ERROR ones and the 2 not run, each once
    assert again[:2] == [rows[1]["case_id"], rows[2]["case_id"]] and again[0] in capsys.readouterr().err


@pytest.mark.live
def test_harness_run_with_zero_never_stops(outage, tmp_path, capsys):
    assert _run(outage.url, tmp_path, "r", "--stop-after-errors", "0") == 4  # exit 4: the cases ended in ERROR
    rows = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    assert len(rows) == len(NEEDLES) and "stopped early" not in capsys.readouterr().err
    assert "stopped" not in json.loads((tmp_path / "r" / "meta.json").read_text())


@pytest.mark.live
def test_a_bad_setting_is_bad_input(server, tmp_path, capsys):
    assert _run(server.url, tmp_path, "r", "--stop-after-errors", "-1") == 2
    assert "--stop-after-errors must be a whole number" in capsys.readouterr().err


def _spec(tmp_path: Path, url: str, cases: list[str], **extra) -> Path:
    import yaml

    spec = {
        "name": "outage",
        "model": "openai:reference-agent",
        "summary_model": "openai:reference-summarizer",
        "base_url": url,
        "model_kwargs": {"max_retries": 0, "timeout": 2},
        "variants": ["deepagents-default"],
        "thresholds": ["20%"],
        "scenarios": {"cases": cases},
        **extra,
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


@pytest.mark.live
def test_a_grid_stops_on_an_outage_and_a_rerun_resumes_there(outage, tmp_path, capsys):
    from harness.cli.main import main
    from harness.runs.results import read_cells, read_rows

    spec, out = _spec(tmp_path, outage.url, SMALL, stop_after_errors=2), tmp_path / "out"
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == 4
    err = capsys.readouterr().err
    assert f"2 cases in a row ended in ERROR with the same provider error ({CAUSE})" in err
    assert "2 cell(s) written, 1 cell(s) not run" in err and "run the same command again to resume" in err
    assert [r["outcome"] for r in read_rows(out / "outage" / "cells.jsonl")] == ["ERROR", "ERROR"]

    outage.state.reset()  # the provider answers again: the rerun runs the cell left out and the two ERROR cells
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == 0
    assert "3 to run (2 again after ERROR)" in capsys.readouterr().out
    raw = read_rows(out / "outage" / "cells.jsonl")
    assert [r["outcome"] for r in raw] == ["ERROR", "ERROR", "PASS", "PASS", "PASS"]  # nothing rewritten
    assert sorted(r["case_id"] for r in read_cells(out / "outage" / "cells.jsonl")) == sorted(SMALL)


@pytest.mark.live
def test_a_grid_with_cells_in_flight_cancels_them_at_the_stop(outage, tmp_path, capsys):
    from harness.cli.main import main
    from harness.runs.results import read_rows

    spec, out = _spec(tmp_path, outage.url, NEEDLES, concurrency=3), tmp_path / "out"
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith", "--stop-after-errors", "2"]) == 4
    err = capsys.readouterr().err
    rows = read_rows(out / "outage" / "cells.jsonl")
    assert len(rows) in (2, 3, 4) and f"{len(rows)} cell(s) written, {len(NEEDLES) - len(rows)} cell(s) not run" in err
    meta = json.loads((out / "outage" / "meta.json").read_text())
    assert meta["limits"]["stop_after_errors"] == 2  # the command line's, over the spec's (here the default)


@pytest.mark.live
def test_a_pytest_session_skips_the_rest_with_the_cause_and_exits_4(outage, tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/test_evals.py",
            "-m",
            "needle",
            "-k",
            "needle-h24k",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rs",
            *_live(outage.url),
            "--stop-after-errors",
            "2",
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    tail = out.stdout.strip().splitlines()[-1]
    assert out.returncode == 4, out.stdout[-3000:]
    assert "2 errors" in tail and "3 skipped" in tail and "failed" not in tail, out.stdout[-3000:]
    assert f"2 cases in a row ended in ERROR with the same provider error ({CAUSE})" in out.stdout
    assert "3 case(s) not run since; exit 4" in out.stdout
    (run,) = tmp_path.iterdir()
    assert len((run / "results.jsonl").read_text().splitlines()) == 2
    stopped = json.loads((run / "meta.json").read_text())["stopped"]  # recorded, as `harness run` records it
    assert CAUSE in stopped["reason"] and len(stopped["not_run"]) == 3
    assert "**Stopped early:**" in (run / "report.md").read_text()


@pytest.mark.live
def test_evaluate_stops_and_lists_what_it_did_not_run(outage, tmp_path, monkeypatch):
    import harness
    from harness.agent import models

    monkeypatch.setattr(models, "DEFAULT_MAX_RETRIES", 0)  # the API takes no client settings: the default, turned down
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("OPENAI_BASE_URL", outage.url)
    run = harness.evaluate("needle", cases=NEEDLES, model="openai:reference-agent", runs_dir=tmp_path, stop_after_errors=2)
    assert len(run.errors) == 2 and [c for _, c, _ in run.not_run] == NEEDLES[2:]
    assert run.stopped is not None and CAUSE in run.stopped and "3 case(s) not run since" in run.stopped
    assert all("not run: the session stopped early" in reason for _, _, reason in run.not_run)
    assert len((run.path / "results.jsonl").read_text().splitlines()) == 2
    stopped = json.loads((run.path / "meta.json").read_text())["stopped"]
    assert [e["case_id"] for e in stopped["not_run"]] == [f"needle:{c}" for c in NEEDLES[2:]]
    assert "**Stopped early:**" in (run.path / "report.md").read_text()


def test_a_pytest_session_that_stopped_exits_4_and_an_xdist_worker_tells_its_controller():
    from harness.pytest_plugin.verdicts import OUTAGE_KEY, outage_exit

    plain = SimpleNamespace(config=SimpleNamespace(), exitstatus=1)
    assert outage_exit(plain, None) is None and plain.exitstatus == 1  # nothing stopped: pytest's own code stands
    assert outage_exit(plain, "stopped early: ...") == "stopped early: ..." and plain.exitstatus == 4
    worker = SimpleNamespace(config=SimpleNamespace(workeroutput={}), exitstatus=1)
    outage_exit(worker, "stopped early: on gw1")
    assert worker.config.workeroutput[OUTAGE_KEY] == "stopped early: on gw1"  # read by the controller's testnodedown
    controller = SimpleNamespace(config=SimpleNamespace(), exitstatus=1)
    assert outage_exit(controller, None, ["stopped early: on gw1"]) == "stopped early: on gw1"
    assert controller.exitstatus == 4


@pytest.mark.live
def test_harness_check_stops_without_a_verdict_or_a_baseline(outage, tmp_path, monkeypatch, capsys):
    from harness.agent import models
    from harness.cli.main import main

    monkeypatch.setattr(models, "DEFAULT_MAX_RETRIES", 0)  # check takes no client settings: the default, turned down
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("OPENAI_BASE_URL", outage.url)
    baseline = tmp_path / "baseline.json"
    argv = ["check", "--evals", "needle", "--cases", *NEEDLES, "--model", "openai:reference-agent", "--out", str(tmp_path)]
    assert main([*argv, "--baseline", str(baseline), "--update", "--stop-after-errors", "2"]) == 4
    err = capsys.readouterr().err
    assert f"2 cases in a row ended in ERROR with the same provider error ({CAUSE})" in err and not baseline.exists()
