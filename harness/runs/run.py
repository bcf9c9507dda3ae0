"""Running a set of scenarios under one config into a run directory.

    reports/runs/<run-id>/
        meta.json        what ran: config, models, seed, harness version, git commit, dataset hashes
        results.jsonl    one row per case, appended as each case finishes
        traces/          one gzip JSON trace per case
        token_curves.png and report.md, written at the end (`harness.report.run_report`)

Nothing is created before the plan's pre-flight passes (`RunSink`): bad input leaves earlier runs untouched.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from harness._paths import check_dir_name
from harness._version import __version__
from harness.agent.assembly import AgentSpec, agent_name
from harness.agent.endpoints import DEFAULT_CASE_BUDGET_S, case_budget
from harness.agent.models import Endpoint, in_process
from harness.compaction.config import WINDOW_SAID, CompactionConfig
from harness.errors import ConfigError
from harness.rows import META_SCHEMA_VERSION, CellRow, Provenance, ResultRow, RunMeta, write_meta
from harness.runs.outage import OutageWatch, stop_after_errors
from harness.runs.results import SCENARIOS_FILE, append_jsonl, append_row, result_row, row_events, row_outcome
from harness.scenarios.schema import Scenario, scenario_row
from harness.scoring.scorers import ERROR, PASS, Score
from harness.suites.registry import SUITES
from harness.trace.schema import Trace

if TYPE_CHECKING:
    from harness.runs.jobs import Job, Preflight, RunSettings
    from harness.suites.execute import CaseResult, NotRun

DEFAULT_RUNS_DIR = Path("reports") / "runs"

MAX_PLANNED_RUNS = 10_000
"""The most case runs (cases x trials, or a shard's grid cells) one command starts without ``--allow-large``: a
million is a typo (``trials: 1000000``), refused with its size and estimate before anything is written."""

OFFLINE_RUN_S = 0.5
"""About how long one offline case takes on one core (reference models; docs/performance.md), for the estimate."""

LIVE_RUN_S = 30.0
"""An assumed live case (a provider answering in seconds, a few dozen calls), for the estimate only."""


def plan_estimate(runs: int, *, live: bool, parallel: int) -> str:
    """``runs`` case runs in words, with a rough wall time (`OFFLINE_RUN_S` or `LIVE_RUN_S` each, ``parallel`` at once)."""
    each = LIVE_RUN_S if live else OFFLINE_RUN_S
    seconds = runs * each / max(1, parallel)
    for unit, size in (("days", 86_400), ("hours", 3_600), ("minutes", 60)):
        if seconds >= size:
            took = f"{seconds / size:,.1f} {unit}"
            break
    else:
        took = f"{seconds:.0f} s"
    kind = "live" if live else "offline"
    return f"{runs:,} case run(s), about {took} at ~{each:g} s per {kind} case, {max(1, parallel)} at a time"


def check_plan_size(
    runs: int, *, allow_large: bool, live: bool, parallel: int, what: str, progress: Callable[[str], None]
) -> None:
    """Refuse a plan above `MAX_PLANNED_RUNS` unless ``allow_large`` (ConfigError naming ``what`` made it so, with the
    plan's size and estimate); print the estimate when a large plan is allowed."""
    if runs <= MAX_PLANNED_RUNS:
        return
    estimate = plan_estimate(runs, live=live, parallel=parallel)
    if not allow_large:
        raise ConfigError(
            f"{what}: the plan is {estimate}, above the ceiling of {MAX_PLANNED_RUNS:,} case runs; "
            "lower it, or pass --allow-large to run it anyway. Nothing was written"
        )
    progress(f"large plan (--allow-large): {estimate}")


def trace_file_name(scorers: str, arm: str, case_id: str, trial: int) -> str:
    """``<scorers>.<arm>.<case>.t<trial>``, safe as a file name."""
    return re.sub(r"[^A-Za-z0-9_.+\-]", "_", f"{scorers}.{arm}.{case_id}.t{trial}")


@dataclass
class RunDir:
    path: Path
    run_id: str
    rows: list[ResultRow] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    stopped: str | None = None  # why the run stopped early for an outage (`harness.runs.outage`); None: it ran through
    not_run: list[dict[str, str | int]] = field(default_factory=list)  # the cases a stop left out: case_id, trial
    rerun: str = ""  # after a stop: how to run what it left out

    @property
    def results_path(self) -> Path:
        return self.path / "results.jsonl"


def new_run_id(arm: str) -> str:
    safe_arm = re.sub(r"[^A-Za-z0-9_.+\-]", "_", arm)  # a variant file's name may hold anything
    return f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{safe_arm}-{uuid.uuid4().hex[:6]}"


def make_output_dir(path: Path, out_dir: str | Path, option: str, *, exist_ok: bool = False) -> None:
    """Create ``path`` (inside ``out_dir``) or raise ConfigError naming ``option``: ``out_dir`` or a directory on
    the way is a file, or cannot be created."""
    for parent in (path, *path.parents):
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"{option} {out_dir}: {parent} is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=exist_ok)
    except OSError as exc:
        raise ConfigError(f"{option} {out_dir}: cannot create {path} ({exc.strerror or exc})") from None


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5, cwd=Path(__file__).parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def dataset_hashes(scenarios: Sequence[Scenario]) -> dict[str, str]:
    out = {}
    for source in sorted({s.source for s in scenarios}):
        try:
            out[Path(source).name] = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:12]
        except OSError:
            out[Path(source).name] = "unreadable"
    return out


def provenance(scenarios: Sequence[Scenario], command: str | None = None) -> Provenance:
    """What a run's or an experiment's meta.json records of where its rows came from: the command (this process's
    own unless given), the harness version and git commit, and a hash of each dataset file the cases came from."""
    return {
        "command": command or " ".join(["harness", *sys.argv[1:]]),
        "harness_version": __version__,
        "git_commit": git_commit(),
        "datasets": dataset_hashes(scenarios),
    }


class RunSink:
    """A run directory being written: meta.json first, then one row and trace per case."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        config: CompactionConfig,
        settings: RunSettings | None = None,
        *,
        seed: int,
        trials: int,
        out_dir: str | Path = DEFAULT_RUNS_DIR,
        run_id: str | None = None,
        command: str | None = None,
        progress: Callable[[str], None] = print,
        checked: Preflight | None = None,
        endpoints_answered: bool = False,
    ) -> None:
        """``settings``: what the jobs share (None: the offline reference models); ``checked``: the plan's pre-flight when
        the caller ran it (else run here, before anything is written)."""
        if run_id is not None:
            check_dir_name(run_id, "--run-id")
        from harness.runs.jobs import RunSettings, preflight

        settings = settings or RunSettings()
        if checked is None:
            checked = preflight([("", config)], scenarios, settings, progress=progress, endpoints_answered=endpoints_answered)
        overhead, warnings = checked.overhead, checked.warnings
        run_id = run_id or new_run_id(config.name)
        self.run = RunDir(Path(out_dir) / run_id, run_id, warnings=warnings)
        if self.run.path.exists():
            raise ConfigError(
                f"--run-id {run_id}: {self.run.path} already exists; choose another run id (earlier results are kept)"
            )
        make_output_dir(self.run.path / "traces", out_dir, "--out")
        self.meta: RunMeta = {
            "schema_version": META_SCHEMA_VERSION,
            "run_id": run_id,
            **provenance(scenarios, command),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "config": config.to_dict(),
            "config_label": config.label(),
            "agent_model": settings.agent_model or "reference",
            "summary_model": settings.summary_model
            or ("reference" if in_process(settings.agent_model) else settings.agent_model),
            "endpoints": checked.endpoints,
            "seed": seed,
            "trials": trials,
            "cases": [s.id for s in scenarios],
            "fixed_overhead_tokens": overhead,
            "warnings": warnings,
        }
        if settings.agent is not None:  # the user's own assembly the cases ran on (`harness.agent.assembly`)
            self.meta["agent"] = agent_name(settings.agent)
        self._started = time.perf_counter()
        self._kept: set[str] = set()
        write_meta(self.run.path, self.meta)

    @property
    def path(self) -> Path:
        return self.run.path

    def record(
        self,
        trace: Trace,
        scores: list[Score],
        scenario: Scenario | None = None,
        *,
        scorers: str = "default",
        eval_name: str | None = None,
    ) -> ResultRow:
        """Persist one finished case (trace file, never overwriting one: `trace_file_name` + a numbered suffix; then
        its row) and return the row. A scenario in no dataset file is kept in scenarios.jsonl for ``harness score``."""
        name = trace_file_name(scorers, str(trace.config.get("name")), trace.case_id, trace.trial)
        stem, n = name, 1
        while (self.run.path / "traces" / f"{name}.json.gz").exists():
            n += 1
            name = f"{stem}.{n}"
        trace.save(self.run.path / "traces" / f"{name}.json.gz")
        if scenario is not None and not Path(scenario.source).is_file() and scenario.id not in self._kept:
            self._kept.add(scenario.id)
            append_jsonl(self.run.path / SCENARIOS_FILE, scenario_row(scenario))
        row = result_row(
            trace, scores, trace_file=f"traces/{name}.json.gz", scenario=scenario, scorers=scorers, eval_name=eval_name
        )
        append_row(self.run.results_path, row)
        self.run.rows.append(row)
        return row

    def done(self, job: Job, outcome: CaseResult | NotRun) -> ResultRow | None:
        """Record one job's outcome (the sink `harness.runs.pool.execute` hands it to): its row and trace as the eval it ran as, or, for a job
        not run, the case as skipped with the reason. Returns the row (None for a skip)."""
        from harness.suites.execute import NotRun

        if isinstance(outcome, NotRun):
            self.skip(job.case, str(outcome).removeprefix(f"{job.case.id}: "))
            return None
        assert outcome.trace is not None
        scores = list(outcome.scores.values())
        return self.record(outcome.trace, scores, job.case, scorers=job.scorers, eval_name=job.eval)

    def skip(self, scenario: Scenario, reason: str) -> None:
        """A case not run, with why: listed in meta.json and the report, counted nowhere."""
        self.run.skipped.append({"case_id": scenario.id, "reason": reason})
        self.meta["skipped"] = self.run.skipped
        write_meta(self.run.path, self.meta)

    def stop(self, reason: str, not_run: Sequence[tuple[str, int]], rerun: str) -> None:
        """The run stopped early for an outage: why, the cases it did not run and how to run them, in meta.json."""
        self.run.stopped = reason
        self.run.not_run = [{"case_id": case_id, "trial": trial} for case_id, trial in not_run]
        self.run.rerun = rerun
        self.meta["stopped"] = {"reason": reason, "not_run": self.run.not_run, "rerun": rerun}
        write_meta(self.run.path, self.meta)

    def finish(self) -> RunDir:
        self.meta["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        self.meta["wall_time_s"] = round(time.perf_counter() - self._started, 3)
        write_meta(self.run.path, self.meta)
        return self.run


def run_cases(
    scenarios: Sequence[Scenario],
    config: CompactionConfig,
    *,
    agent_model: str | None = None,
    summary_model: str | None = None,
    seed: int = 0,
    trials: int = 1,
    out_dir: str | Path = DEFAULT_RUNS_DIR,
    run_id: str | None = None,
    progress: Callable[[str], None] = print,
    command: str | None = None,
    agent_endpoint: Endpoint | None = None,
    summary_endpoint: Endpoint | None = None,
    concurrency: int = 1,
    case_budget_s: float | None = DEFAULT_CASE_BUDGET_S,
    processes: int = 1,
    stop_after: int | None = None,
    eval_name: str | None = None,
    endpoints_answered: bool = False,
    agent: AgentSpec | None = None,
) -> RunDir:
    """Run every scenario x trial as eval ``eval_name`` (None: as no eval, under ``config`` with the default scorer
    set, rows ``eval: null``) into a new run directory, each case recorded as it finishes; a case the eval does not
    run is listed as skipped with the reason. Cases start largest first (`start_order`) on the pool `Pool.choose`
    picks, and rows are written in that order at any concurrency. ``stop_after`` cases in a row ending in the same
    provider error stop the run (`harness.runs.outage`; None: the default, 0: never): ``stopped`` and meta.json name
    the cause and the cases not run. ``agent``: the user's own assembly every case runs on (`harness.agent.assembly`;
    meta.json names it)."""
    from harness.runs.jobs import Job, RunSettings, check
    from harness.runs.pool import Pool, execute
    from harness.suites.execute import NotRun

    stop_after = stop_after_errors(stop_after)
    if case_budget_s is not None:
        case_budget(case_budget_s)  # refuses a budget that is not positive
    agent_endpoint = agent_endpoint or Endpoint()
    settings = RunSettings(
        agent_model, summary_model, (agent_endpoint, summary_endpoint or agent_endpoint), case_budget_s, agent=agent
    )
    pool = Pool.choose(live=bool(settings.models(config, seed).endpoints), concurrency=concurrency, processes=processes)
    sink = RunSink(
        scenarios,
        config,
        settings,
        seed=seed,
        trials=trials,
        out_dir=out_dir,
        run_id=run_id,
        command=command,
        progress=progress,
        endpoints_answered=endpoints_answered,
    )
    settings = replace(settings, run_id=sink.run.run_id)
    preset = SUITES[eval_name].preset if eval_name is not None else None
    progress(
        f"run {sink.run.run_id}: {len(scenarios)} case(s) x {trials} trial(s) "
        + (f"as the {eval_name} eval, " if eval_name else "as no eval, ")
        + (f"under its preset {preset} ({config.strategy})" if preset else f"under {config.label()}")
        + (f"; {WINDOW_SAID}" if any(s.session for s in scenarios) else "")
        + (f", {concurrency} in flight" if concurrency > 1 else "")
        + f" -> {sink.path}"
    )
    started = time.perf_counter()
    jobs = []
    for trial in range(trials):
        for scenario in scenarios:
            job = Job(eval_name, scenario, config, trial, seed + trial)
            try:
                check(job, settings)
            except NotRun as exc:
                if trial == 0:
                    reason = str(exc).removeprefix(f"{scenario.id}: ")
                    sink.skip(scenario, reason)
                    progress(f"skipped {scenario.id}: {reason}")
                continue
            jobs.append(job)
    total = len(jobs)
    if not jobs:
        return sink.finish()
    jobs = [jobs[i] for i in start_order([job.case.size_chars for job in jobs])]
    width = max(len(job.case.id) for job in jobs)  # the case column fits the longest id

    def record(job: Job, outcome: CaseResult | NotRun) -> None:
        row = sink.done(job, outcome)  # a NotRun was decided when the plan was made: a worker meeting one skips it too
        if row is not None:
            progress(progress_line(len(sink.run.rows), total, time.perf_counter() - started, row, width))

    watch = OutageWatch(stop_after)  # fed each case's error as it finishes (completion order)
    execute(jobs, settings, pool, record, watch=watch, in_order=True)
    if watch.message is not None:
        ran = {(r["case_id"], r["trial"]) for r in sink.run.rows}
        not_run = [(j.case.id, j.trial) for j in jobs if (j.case.id, j.trial) not in ran]
        errored = [r["case_id"] for r in sink.run.rows if row_outcome(r)[0] == ERROR]
        again = list(dict.fromkeys([*errored, *(case_id for case_id, _ in not_run)]))  # each case once, start order
        how = (
            "the same command with another --run-id (no case of it went through)"
            if set(again) >= {j.case.id for j in jobs}
            else f"the same command with another --run-id and, in place of any --cases or --limit, --cases {' '.join(again)}"
        )
        rerun = (
            f"{len(not_run)} case run(s) not run. This run directory keeps its {len(sink.run.rows)} row(s); `harness run` "
            f"does not resume one: to run the cases not run and the {len(errored)} that ended in ERROR once the provider "
            f"answers, run {how}" + (" (every trial of each)" if trials > 1 else "")
        )
        sink.stop(watch.message, not_run, rerun)
        progress(f"{watch.message}; {rerun}")
    return sink.finish()


def start_order(sizes: Sequence[int]) -> list[int]:
    """The order to start jobs of ``sizes`` (estimated lengths) in when several run at once: the largest first, ties
    in plan order. Started in plan order, a long case that starts late runs alone at the end while the other slots
    sit idle; longest first (the classic LPT rule) leaves the short ones to fill the tail."""
    return sorted(range(len(sizes)), key=lambda i: -sizes[i])


def progress_line(done: int, total: int, elapsed: float, row: ResultRow | CellRow, width: int = 22) -> str:
    """The line printed as a case finishes, in `harness run` and a grid alike: how many of how many, the case (in a
    grid, the cell's arm, threshold and eval:case), its outcome (ok, or the outcome and its deciding checks), its
    compaction events, agent calls and time, and the time left at the rate so far; the case column is at least
    ``width`` wide."""
    result, keys = row_outcome(row)
    status = "ok" if result == PASS else f"{result} " + ",".join(keys)
    eta = elapsed / done * (total - done) if done else 0.0
    digits = len(str(total))
    case = row["case_id"]
    if "cell_id" in row:
        cell = cast(CellRow, row)
        case = f"{cell['arm']} {cell['threshold']} {cell['cell_id'].split('|')[2]}"
    # every strategy's events (summary, mask, trim, ...), not only summaries: a masking run is not "0 summaries"
    events = ", ".join(f"{kind} x{n}" for kind, n in row_events(row).items() if n) or "no compaction"
    return (
        f"[{done:>{digits}}/{total}] {case:<{width}} t{row['trial']} {status:<28} "
        f"{events}, {row['calls']['agent']} calls, {row['wall_time_s']:.2f}s  (eta {eta:.0f}s)"
    )
