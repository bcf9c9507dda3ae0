"""Running a set of scenarios under one config into a run directory.

    reports/runs/<run-id>/
        meta.json        what ran: config, models, seed, harness version, git commit, dataset hashes
        results.jsonl    one row per case, appended as each case finishes
        traces/          one gzip JSON trace per case
        token_curves.png and report.md, written at the end (`harness.report.run_report`)

Everything is validated (scenarios, config, models) before the directory is created,
so bad input leaves earlier runs untouched and exits non-zero.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness._version import __version__
from harness.agent.models import Endpoint, ModelChoice, check_endpoints_answer, choose_models, in_process
from harness.agent.preflight import fixed_overhead_tokens
from harness.agent.runner import DEFAULT_CASE_BUDGET_S, arun_case, case_budget, offline_skip_reason, run_async, run_case
from harness.compaction.config import CompactionConfig
from harness.errors import ConfigError
from harness.rows import META_SCHEMA_VERSION, ResultRow, RunMeta, write_meta
from harness.runs.outage import OutageWatch, stop_after_errors
from harness.runs.results import SCENARIOS_FILE, append_jsonl, append_row, result_row, row_events, row_outcome
from harness.scenarios.schema import Scenario, scenario_row
from harness.scoring.scorers import ERROR, PASS, Score, score_case
from harness.trace.schema import Trace

DEFAULT_RUNS_DIR = Path("reports") / "runs"

MAX_PLANNED_RUNS = 10_000
"""The most case runs one command starts without ``--allow-large``: cases x trials for `harness run`, a grid's cells
(this shard's) for `harness experiment run`. Every shipped spec is far below it (the largest, prompt-comparison, is
1,140 cells); a million cells is a typo (``trials: 1000000``), refused with its size and estimate before anything
is written."""

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


_DIR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]{0,199}")


def check_dir_name(name: str, what: str) -> None:
    """``name`` becomes one directory inside an output directory (a run id, an experiment name): one plain path
    component, so it cannot climb out (``../x``), go elsewhere (``/tmp/x``) or hide (``.x``)."""
    if not _DIR_NAME.fullmatch(name):
        raise ConfigError(
            f"{what} {name!r}: a directory name, not a path: letters, digits and . _ + - (starting with a letter or "
            "digit, at most 200 characters)"
        )


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


class RunSink:
    """A run directory being written: meta.json first, then one row and trace per case."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        config: CompactionConfig,
        *,
        agent_model: str | None,
        summary_model: str | None,
        seed: int,
        trials: int,
        out_dir: str | Path = DEFAULT_RUNS_DIR,
        run_id: str | None = None,
        command: str | None = None,
        progress: Callable[[str], None] = print,
        agent_endpoint: Endpoint | None = None,
        summary_endpoint: Endpoint | None = None,
        out_option: str = "--out",
    ) -> None:
        if run_id is not None:
            check_dir_name(run_id, "--run-id")
        # fail fast: bad spec, missing key, bad endpoint settings
        checked = choose_models(
            agent_model,
            summary_model,
            window=config.window,
            seed=seed,
            agent_endpoint=agent_endpoint,
            summary_endpoint=summary_endpoint,
        )
        overhead = fixed_overhead_tokens(config, scenarios)
        error = config.overhead_error(overhead)
        if error:
            raise ConfigError(error)
        # a live model's server answers at all, or the run stops here (exit 4) before any case spends its retries
        check_endpoints_answer(
            agent_endpoint if "agent" in checked.endpoints else None,
            (summary_endpoint or agent_endpoint) if "summarizer" in checked.endpoints else None,
        )
        # the config's traps, then what in the scenario rows misleads their author (`schema.case_warnings`)
        warnings = [w for w in [config.overhead_warning(overhead), config.prompt_warning()] if w]
        warnings += [w for s in scenarios for w in s.warnings]
        for w in warnings:
            progress(f"warning: {w}")
        run_id = run_id or new_run_id(config.name)
        self.run = RunDir(Path(out_dir) / run_id, run_id, warnings=warnings)
        if self.run.path.exists():
            raise ConfigError(
                f"--run-id {run_id}: {self.run.path} already exists; choose another run id (earlier results are kept)"
            )
        make_output_dir(self.run.path / "traces", out_dir, out_option)
        self.meta: RunMeta = {
            "schema_version": META_SCHEMA_VERSION,
            "run_id": run_id,
            "command": command or " ".join(["harness", *sys.argv[1:]]),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "harness_version": __version__,
            "git_commit": git_commit(),
            "config": config.to_dict(),
            "config_label": config.label(),
            "agent_model": agent_model or "reference",
            "summary_model": summary_model or ("reference" if in_process(agent_model) else agent_model),
            "endpoints": dict(checked.endpoints),
            "seed": seed,
            "trials": trials,
            "cases": [s.id for s in scenarios],
            "datasets": dataset_hashes(scenarios),
            "fixed_overhead_tokens": overhead,
            "warnings": warnings,
        }
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
        """Persist one finished case (trace file, then its results row) and return the row.

        The trace file is named by scorer set, arm (config name), case and trial, and never overwrites
        another: a second run under the same names gets a numbered suffix. A scenario that
        is not in a dataset file (generated in memory) is kept in the run's scenarios.jsonl,
        so ``harness score`` can score the run again.
        """
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
) -> RunDir:
    """Run every scenario x trial, persisting each case as it finishes; return the run directory.

    Live runs (and any run with ``concurrency`` > 1) go through `arun_case` on one event loop with up to
    ``concurrency`` cases in flight, each bounded by ``case_budget_s``. Cases start largest first (`start_order`),
    and rows are written in that order whatever order cases finish in and whatever the concurrency, so the same
    command writes the same file. With ``processes`` > 1 (live only) the cases are spread over that many processes,
    each with its own loop (`harness.agent.parallel`).

    The run stops early when ``stop_after`` cases in a row (in the order they finish) end in the same provider error
    (`harness.runs.outage`; None: the default, 0: never): the cases in flight are cancelled, every finished case is
    recorded, and the run directory's ``stopped`` (and meta.json's) names the cause, the count and the cases not run.
    """
    stop_after = stop_after_errors(stop_after)
    if concurrency < 1:
        raise ConfigError(f"--concurrency must be at least 1, got {concurrency}")
    if processes < 1 or processes > concurrency:
        raise ConfigError(f"--processes must be between 1 and --concurrency ({concurrency}), got {processes}")
    if case_budget_s is not None:
        case_budget(case_budget_s)  # refuses a budget that is not positive
    sink = RunSink(
        scenarios,
        config,
        agent_model=agent_model,
        summary_model=summary_model,
        seed=seed,
        trials=trials,
        out_dir=out_dir,
        run_id=run_id,
        command=command,
        progress=progress,
        agent_endpoint=agent_endpoint,
        summary_endpoint=summary_endpoint,
    )
    progress(
        f"run {sink.run.run_id}: {len(scenarios)} case(s) x {trials} trial(s) under {config.label()}"
        + (f", {concurrency} in flight" if concurrency > 1 else "")
        + f" -> {sink.path}"
    )
    started = time.perf_counter()
    jobs = []
    for trial in range(trials):
        trial_seed = seed + trial
        models: ModelChoice = choose_models(
            agent_model,
            summary_model,
            window=config.window,
            seed=trial_seed,
            agent_endpoint=agent_endpoint,
            summary_endpoint=summary_endpoint,
        )
        for scenario in scenarios:
            reason = offline_skip_reason(scenario, models)
            if reason is None:
                jobs.append((scenario, models, trial, trial_seed))
            elif trial == 0:
                sink.skip(scenario, reason)
                progress(f"skipped {scenario.id}: {reason}")
    total = len(jobs)
    if not jobs:
        return sink.finish()
    # The longest cases first: with several in flight the run ends sooner. Rows follow this order whatever the
    # concurrency, so a run with cases in flight writes the same file as one case at a time.
    jobs = [jobs[i] for i in start_order([job[0].size_chars for job in jobs])]

    def record(trace: Trace, scenario: Scenario) -> None:
        row = sink.record(trace, score_case(trace, scenario), scenario)
        progress(_progress_line(len(sink.run.rows), total, row, time.perf_counter() - started))

    watch = OutageWatch(stop_after)  # fed each case's error as it finishes (completion order)
    if processes > 1:
        if not jobs[0][1].endpoints:
            raise ConfigError(
                "--processes is for live models; offline grids run in worker processes with `harness experiment run --workers N`"
            )
        from harness.agent.parallel import run_in_processes

        run_in_processes(
            [(s, t, sd) for s, _, t, sd in jobs],
            config,
            sink.run.run_id,
            processes=processes,
            concurrency=concurrency,
            budget_s=case_budget_s,
            agent_model=agent_model,
            summary_model=summary_model,
            agent_endpoint=agent_endpoint or Endpoint(),
            summary_endpoint=summary_endpoint or agent_endpoint or Endpoint(),
            record=record,
            stop=lambda trace: watch.see(trace.error),
        )
    elif concurrency == 1 and not jobs[0][1].endpoints:
        for scenario, models, trial, trial_seed in jobs:
            if watch.stopped:
                break
            trace = run_case(scenario, config, models, run_id=sink.run.run_id, trial=trial, seed=trial_seed)
            watch.see(trace.error)
            record(trace, scenario)
    else:
        run_async(_run_concurrently(jobs, config, sink.run.run_id, concurrency, case_budget_s, record, watch))
    if watch.message is not None:
        ran = {(r["case_id"], r["trial"]) for r in sink.run.rows}
        not_run = [(s.id, t) for s, _, t, _ in jobs if (s.id, t) not in ran]
        errored = [r["case_id"] for r in sink.run.rows if row_outcome(r)[0] == ERROR]
        again = list(dict.fromkeys([*errored, *(case_id for case_id, _ in not_run)]))  # each case once, start order
        how = (
            "the same command with another --run-id (no case of it went through)"
            if set(again) >= {s.id for s, _, _, _ in jobs}
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


async def _run_concurrently(
    jobs: list,
    config: CompactionConfig,
    run_id: str,
    concurrency: int,
    budget_s: float | None,
    record: Callable[[Trace, Scenario], None],
    watch: OutageWatch | None = None,
) -> None:
    """Up to ``concurrency`` cases in flight; each finished case is recorded once every case planned before it is.
    When ``watch`` stops the run (a case finishing makes it), the cases in flight are cancelled, none starts, and the
    finished cases not yet recorded (waiting for an earlier one that will not finish) are recorded in start order."""
    gate = asyncio.Semaphore(concurrency)
    writing = asyncio.Lock()
    finished: dict[int, Trace] = {}
    running: dict[int, asyncio.Task] = {}
    next_to_record = 0

    async def one(i: int) -> None:
        nonlocal next_to_record
        scenario, models, trial, trial_seed = jobs[i]
        async with gate:
            if watch is not None and watch.stopped:
                return
            running[i] = task = asyncio.ensure_future(
                arun_case(scenario, config, models, run_id=run_id, trial=trial, seed=trial_seed, budget_s=budget_s)
            )
            try:
                trace = await task
            except asyncio.CancelledError:
                if task.cancelled() and watch is not None and watch.stopped:
                    return  # cancelled by the stop below: not run, named in the run's not_run
                raise
            finally:
                running.pop(i, None)
        finished[i] = trace
        if watch is not None and watch.see(trace.error):
            for other in running.values():
                other.cancel()
        async with writing:  # one writer; scoring and the gzip write run off the event loop so requests keep flowing
            while next_to_record in finished:
                await asyncio.to_thread(record, finished.pop(next_to_record), jobs[next_to_record][0])
                next_to_record += 1

    await asyncio.gather(*(one(i) for i in range(len(jobs))))
    for i in sorted(finished):  # after a stop: the finished cases behind a case that was cancelled
        await asyncio.to_thread(record, finished.pop(i), jobs[i][0])


def _progress_line(done: int, total: int, row: ResultRow, elapsed: float) -> str:
    result, keys = row_outcome(row)
    status = "ok" if result == PASS else f"{result} " + ",".join(keys)
    eta = elapsed / done * (total - done)
    width = len(str(total))
    # every strategy's events (summary, mask, trim, ...), not only summaries: a masking run is not "0 summaries"
    events = ", ".join(f"{kind} x{n}" for kind, n in row_events(row).items() if n) or "no compaction"
    return (
        f"[{done:>{width}}/{total}] {row['case_id']:<22} t{row['trial']} {status:<28} "
        f"{events}, {row['calls']['agent']} calls, {row['wall_time_s']:.2f}s  (eta {eta:.0f}s)"
    )
