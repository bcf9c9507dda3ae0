"""Running an experiment grid: arms (variants, or variants x strategies) x thresholds x cases x trials.

    reports/experiments/<name>/            (a shard: reports/experiments/<name>/shards/<i>of<n>/)
        spec.yaml, meta.json  the spec as run; its fingerprint, models, harness version, git commit, dataset hashes
        cells.jsonl           one row per finished cell, appended and flushed as each finishes
        traces/               one trace per cell
        not_run.jsonl         the eval cells not run (`NotRun`), each with the reason; done on resume

A rerun skips the cells already written (a kill loses only the cells in flight) and refuses one whose settings
changed; ``--shard i/n`` runs every n-th cell (`merge_experiments` joins shards). A spec with ``evals:`` runs each
eval's cases as that eval (`harness.suites.execute.run_eval_case`), one without as no eval (rows ``eval: null``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from harness.agent.endpoints import arm_summary_model
from harness.agent.models import in_process
from harness.compaction.config import CompactionConfig, quarter_keep
from harness.compaction.variants import parse_strategy, resolve_config
from harness.errors import ConfigError, HarnessError
from harness.rows import META_SCHEMA_VERSION, CellFields, CellRow, ExperimentMeta, write_meta
from harness.runs.jobs import Job, RunSettings, preflight
from harness.runs.outage import OutageStopped, OutageWatch, stop_after_errors
from harness.runs.pool import Pool, execute
from harness.runs.results import (
    NOT_RUN_FILE,
    append_jsonl,
    append_row,
    read_cells,
    read_jsonl,
    result_row,
    row_outcome,
    torn_last_line,
)
from harness.runs.run import check_plan_size, make_output_dir, progress_line, provenance, start_order
from harness.runs.spec import ExperimentSpec, Threshold
from harness.runs.versions import (
    VersionArm,
    arm_lock,
    check_row_versions,
    check_supported,
    ensure_env,
    lock_pins,
    read_lock,
    run_arm_cells,
)
from harness.scenarios.schema import Scenario, load_scenarios, select
from harness.scoring.scorers import ERROR
from harness.suites.execute import CaseResult, NotRun, offline_problem
from harness.suites.registry import SUITES
from harness.trace.schema import Trace

DEFAULT_EXPERIMENTS_DIR = Path("reports") / "experiments"


@dataclass(frozen=True)
class Cell:
    arm: str
    threshold: str
    case_id: str
    trial: int
    eval: str | None = None  # a spec with ``evals:``: the eval the case runs as (None: as no eval, rows eval null)

    @property
    def id(self) -> str:
        case = self.case_id if self.eval is None else f"{self.eval}:{self.case_id}"
        return f"{self.arm}|{self.threshold}|{case}|t{self.trial}"

    @property
    def file_stem(self) -> str:
        return hashlib.sha1(self.id.encode()).hexdigest()[:16]


def cell_config(spec: ExperimentSpec, arm: str, threshold: Threshold) -> CompactionConfig:
    """The config of one arm (a variant, or a variant under a strategy of the spec's axis) at one threshold."""
    variant, strategy = spec.arms()[arm]
    base, _ = resolve_config(variant)
    window = spec.window or base.window
    config = replace(base, trigger=threshold.sizes, keep=spec.keep or quarter_keep(threshold.sizes), window=window)
    if strategy is None:
        return replace(config, name=arm) if spec.versions else config
    name, custom = parse_strategy(strategy)
    return replace(config, name=arm, strategy=name or config.strategy, custom_strategy=custom)


def spec_eval_cases(spec: ExperimentSpec) -> list[tuple[str, Scenario]]:
    """(eval, case) of a spec with ``evals:``, in the spec's eval order: each eval's cases
    (`harness.suites.execute.eval_cases`: shipped, generated, or a user's sessions) filtered by ``scenarios:`` (kind, case globs, limit
    per eval); empty for a spec without ``evals:``."""
    from harness.suites.execute import eval_cases

    pairs = []
    for name in spec.evals:
        cases = eval_cases(name, spec.datasets)  # the session eval over a user's imported sessions, when named
        pairs += [(name, s) for s in select(cases, kind=spec.kind, ids=list(spec.cases) or None, limit=spec.limit)]
    return pairs


def spec_scenarios(spec: ExperimentSpec) -> list[Scenario]:
    """The cases the spec runs: each once (a spec with ``evals:``: every case of `spec_eval_cases`)."""
    if spec.evals:
        scenarios = list({s.id: s for _, s in spec_eval_cases(spec)}.values())
        if not scenarios:
            raise ConfigError(f"{spec.path}: scenarios: no case of evals {', '.join(spec.evals)} matches")
        return scenarios
    scenarios = select(
        load_scenarios(list(spec.datasets) or None), kind=spec.kind, ids=list(spec.cases) or None, limit=spec.limit
    )
    if not scenarios:
        raise ConfigError(f"{spec.path}: scenarios: no case matches")
    return scenarios


def _eval_pairs(spec: ExperimentSpec, scenarios: Sequence[Scenario]) -> list[tuple[str | None, Scenario]]:
    """(eval, case) of every case the grid runs, in plan order: a spec with ``evals:`` runs each case once per eval that
    runs it (`spec_eval_cases`); one without runs each case once, as no eval (None)."""
    if not spec.evals:
        return [(None, s) for s in scenarios]
    ids = {s.id for s in scenarios}
    return [(name, s) for name, s in spec_eval_cases(spec) if s.id in ids]


def plan_cells(spec: ExperimentSpec, scenarios: Sequence[Scenario]) -> list[Cell]:
    """Every cell, ordered so that a partial run covers all arms evenly: (trial, eval, case, arm, threshold); a case
    whose eval does not apply to an arm's strategy is left out (``not_applicable`` lists it with the reason)."""
    return [
        Cell(arm, t.label, s.id, trial, name)
        for trial in range(spec.trials)
        for name, s in _eval_pairs(spec, scenarios)
        for arm in spec.arms()
        if _not_applicable(spec, arm, s, name) is None
        for t in spec.thresholds
    ]


def _not_applicable(spec: ExperimentSpec, arm: str, scenario: Scenario, eval_name: str | None = None) -> str | None:
    strategy = spec.arms()[arm][1]
    name = eval_name or scenario.kind
    if strategy is None or ":" in strategy or name not in SUITES:
        return None
    return SUITES[name].not_applicable_reason(strategy)


def not_applicable(spec: ExperimentSpec, scenarios: Sequence[Scenario]) -> list[dict[str, str]]:
    """The (arm, case) pairs left out of the grid, each with the reason: never run, never counted (with ``evals:``,
    (arm, eval, case))."""
    return [
        {"arm": arm, **({"eval": name} if name is not None else {}), "case_id": s.id, "reason": reason}
        for name, s in _eval_pairs(spec, scenarios)
        for arm in spec.arms()
        if (reason := _not_applicable(spec, arm, s, name))
    ]


def experiment_dir(spec: ExperimentSpec, out_dir: str | Path, shard: tuple[int, int]) -> Path:
    root = Path(out_dir) / spec.name
    return root if shard[1] == 1 else root / "shards" / f"{shard[0]}of{shard[1]}"


def config_sha(
    config: CompactionConfig, agent: str | None, summary: str | None, seed: int, settings: dict[str, Any] | None = None
) -> str:
    payload = {"config": config.to_dict(), "agent": agent or "reference", "summary": summary, "seed": seed}
    if settings:  # model settings that change answers (temperature, max_tokens...), not timeout or retries
        payload["settings"] = settings
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _result_settings(spec: ExperimentSpec) -> dict[str, Any]:
    agent, summary = spec.endpoints()
    out: dict[str, Any] = {}
    for role, endpoint in (("agent", agent), ("summarizer", summary)):
        kept = {k: v for k, v in endpoint.model_kwargs.items() if k not in ("timeout", "max_retries")}
        if kept:
            out[role] = kept
    if spec.agent is not None:  # the user's own assembly changes every result (absent: the fingerprints stay as they were)
        out["agent_assembly"] = spec.agent
    return out


def run_settings(spec: ExperimentSpec) -> RunSettings:
    """What every cell of ``spec`` shares: its models and endpoints, its case budget, the experiment's name as run id."""
    return RunSettings(
        spec.model,
        spec.summary_model,
        spec.endpoints(limits=True),  # one rate limiter and token bucket for every cell, as `harness run` has
        spec.case_budget,
        run_id=spec.name,
        options=(f"{spec.path}: model", f"{spec.path}: summary_model"),
        agent=spec.agent,
    )


def cell_job(spec: ExperimentSpec, cell: Cell, scenario: Scenario, attempt: int = 1) -> Job:
    """The job of ``cell``: its case as its eval (None: as no eval) under its arm's config at its threshold."""
    threshold = next(t for t in spec.thresholds if t.label == cell.threshold)
    config = cell_config(spec, cell.arm, threshold)
    return Job(cell.eval, scenario, config, cell.trial, spec.seed + cell.trial, cell.threshold, attempt=attempt, key=cell.id)


CellResult = tuple[CellRow, dict[str, Any]] | tuple[dict[str, Any], None]  # (row, trace), or (`not_run_record`, None)


def not_run_record(cell: Cell, reason: str) -> dict[str, Any]:
    """A cell the executor did not run (`harness.suites.execute.NotRun`): its ids, the reason, and the package versions
    of the environment that decided it (a version arm's rows are checked for them, as rows are)."""
    from harness._version import package_versions

    return {
        "cell_id": cell.id,
        "arm": cell.arm,
        "threshold": cell.threshold,
        "eval": cell.eval,
        "case_id": cell.case_id,
        "trial": cell.trial,
        "not_run": reason,
        "packages": package_versions(),
    }


def cell_result(spec: ExperimentSpec, cell: Cell, job: Job, outcome: CaseResult | NotRun) -> CellResult:
    """A finished cell's row (its eval's scorer set, known upstream failures and name; ``arm`` the cell's, whatever
    preset an eval ran under) and trace, or its not-run record; the settings fingerprint is the cell's config's."""
    if isinstance(outcome, NotRun):
        return not_run_record(cell, str(outcome)), None
    assert outcome.trace is not None
    stem = cell.file_stem if job.attempt == 1 else f"{cell.file_stem}.a{job.attempt}"  # a re-run never overwrites a trace
    row = result_row(
        outcome.trace,
        list(outcome.scores.values()),
        trace_file=f"traces/{stem}.json.gz",
        scenario=job.case,
        scorers=job.scorers,
        eval_name=cell.eval,
    )
    arm = {"arm": cell.arm} if cell.eval is not None else {}
    cell_row: CellRow = {**row, **arm, **_cell_fields(spec, cell, job.config, job.attempt)}  # type: ignore[typeddict-item]
    return cell_row, outcome.trace.to_dict()


class ExperimentDir:
    """The experiment directory being written (a grid's sink): each finished cell's trace, then its row appended to
    cells.jsonl (a cell not run: its record in not_run.jsonl), as each finishes, so a kill loses only the cells in
    flight."""

    def __init__(self, path: Path, total: int, progress: Callable[[str], None]) -> None:
        self.path, self.total, self.progress = path, total, progress
        self.rows: list[CellRow] = []
        self.listed: list[str] = []  # cells this invocation wrote to not_run.jsonl
        self.started = time.perf_counter()

    def write(self, record: Mapping[str, Any], trace: dict[str, Any] | None) -> None:
        if trace is None:  # an eval cell the executor did not run: listed with the reason, never dropped
            append_jsonl(self.path / NOT_RUN_FILE, record)
            self.listed.append(str(record["cell_id"]))
            self.progress(f"not run: {record['cell_id']}: {record['not_run']}")
            return
        row = cast(CellRow, record)  # a finished cell: append_row checks it is one
        Trace.from_dict(trace).save(self.path / row["trace"])
        append_row(self.path / "cells.jsonl", row)
        self.rows.append(row)
        self.progress(progress_line(len(self.rows), self.total, time.perf_counter() - self.started, row))


def run_cells(
    spec: ExperimentSpec,
    scenarios: Sequence[Scenario],
    cells: Sequence[tuple[Cell, int]],
    workers: int,
    write: Callable[..., None],
    watch: OutageWatch | None = None,
) -> None:
    """``cells`` (each with its attempt number) with this environment's packages through the executor, ``workers`` at
    a time; ``write(record, trace)`` gets each as it finishes (`cell_result`), until ``watch`` stops the grid."""
    by_id, by_key = {s.id: s for s in scenarios}, {cell.id: cell for cell, _ in cells}
    jobs = [cell_job(spec, cell, by_id[cell.case_id], attempt) for cell, attempt in cells]
    pool = Pool.choose(live=_is_live(spec), concurrency=max(1, workers), forks=True)

    def done(job: Job, outcome: CaseResult | NotRun) -> None:
        write(*cell_result(spec, by_key[job.key], job, outcome))

    execute(jobs, run_settings(spec), pool, done, watch=watch)


def _cell_fields(spec: ExperimentSpec, cell: Cell, config: CompactionConfig, attempt: int) -> CellFields:
    return {
        "cell_id": cell.id,
        "threshold": cell.threshold,
        "experiment": spec.name,
        "attempt": attempt,
        "config_sha": cell_sha(spec, cell, config),
    }


def cell_sha(spec: ExperimentSpec, cell: Cell, config: CompactionConfig) -> str:
    """The settings fingerprint of ``cell`` (``config``: its arm's at its threshold): what a resumed run checks a done
    cell against; an eval cell's covers its eval and the eval's version too."""
    settings = _result_settings(spec)
    if cell.eval is not None:
        settings = {**settings, "eval": cell.eval, "eval_version": SUITES[cell.eval].version}
    return config_sha(
        config, spec.model, arm_summary_model(config.summary_model, spec.summary_model), spec.seed + cell.trial, settings
    )


@dataclass
class ExperimentRun:
    path: Path
    planned: int
    skipped: int
    ran: int
    rows: list[CellRow]
    wall_time_s: float
    stopped: str | None = None  # why the grid stopped early for an outage (`harness.runs.outage`), with what it left


def run_experiment(
    spec: ExperimentSpec,
    *,
    out_dir: str | Path = DEFAULT_EXPERIMENTS_DIR,
    shard: tuple[int, int] = (0, 1),
    workers: int | None = None,
    progress: Callable[[str], None] = print,
    max_cells: int | None = None,
    retry_errors: bool = True,
    allow_large: bool = False,
    endpoints_answered: bool = False,
) -> ExperimentRun:
    """Run the cells of ``spec`` not yet done (`resume_plan`: a cell whose last row is ERROR runs again unless
    ``retry_errors`` is False). The spec's ``stop_after_errors`` stops the grid (`harness.runs.outage`), ``stopped``
    saying what is left; a rerun resumes there. A grid above `MAX_PLANNED_RUNS` cells needs ``allow_large``."""
    if spec.versions:  # an arm outside the adapter's range is refused before anything runs
        check_supported(spec.versions, lock_pins(read_lock()), spec.path)
    scenarios = spec_scenarios(spec)
    configs = []  # every config and model is validated before anything is written
    for arm in spec.arms():
        for threshold in spec.thresholds:
            try:
                configs.append(
                    (f"{spec.path}: thresholds: {threshold.label} with arm {arm}: ", cell_config(spec, arm, threshold))
                )
            except ConfigError as exc:
                raise ConfigError(f"{spec.path}: arm {arm} at threshold {threshold.label}: {exc}") from None
    per_trial = len(plan_cells(replace(spec, trials=1), scenarios))  # counted, not listed: a typo may plan a billion
    check_plan_size(
        len(range(shard[0], per_trial * spec.trials, shard[1])),
        allow_large=allow_large,
        live=_is_live(spec),
        parallel=workers or spec.concurrency,
        what=f"{spec.path}: trials {spec.trials} x {per_trial} cell(s) a trial",
        progress=progress,
    )
    settings = run_settings(spec)
    preflight(configs, scenarios, settings, progress=progress, endpoints_answered=endpoints_answered)
    skipped = []
    if not _is_live(spec) and not spec.evals:  # offline: a case the reference agent cannot run is skipped (an eval's: NotRun)
        models = settings.models(configs[0][1], 0)
        reasons = {s.id: offline_problem(s, models) for s in scenarios}
        skipped = [{"case_id": case_id, "reason": why} for case_id, why in reasons.items() if why]
        scenarios = [s for s in scenarios if not reasons[s.id]]
        for item in skipped:
            progress(f"skipped {item['case_id']}: {item['reason']}")
    cells = plan_cells(spec, scenarios)[shard[0] :: shard[1]]
    path = experiment_dir(spec, out_dir, shard)
    make_output_dir(path / "traces", out_dir, "--out", exist_ok=True)
    cells_file = path / "cells.jsonl"
    cells_file.touch()  # an experiment directory from the plan on, even if no cell runs (every cell not run, or none planned)
    torn = torn_last_line(cells_file)
    if torn is not None:  # a kill mid-write: the line is dropped below and its cell is not done, so it runs again
        progress(f"{cells_file}: line {torn} was cut mid-write (not valid JSON); dropped, and its cell runs again")
    current = {r["cell_id"]: r for r in read_cells(cells_file, repair=True)}
    _check_reuse(spec, cells, current)
    not_run_file = path / NOT_RUN_FILE
    decided = {str(r["cell_id"]) for r in read_jsonl(not_run_file, repair=True)}  # not run: decided, done on resume
    runnable = [c for c in cells if c.id not in decided]
    done, attempts, todo = resume_plan(runnable, current, retry_errors=retry_errors, max_cells=max_cells)
    _write_meta(spec, path, scenarios, shard, planned=len(cells), skipped=skipped)
    if Path(spec.path).resolve() != (path / "spec.yaml").resolve():
        shutil.copyfile(spec.path, path / "spec.yaml")
    workers = max(1, workers or spec.concurrency)
    progress(
        f"experiment {spec.name}{'' if shard[1] == 1 else f' shard {shard[0]}/{shard[1]}'}: {len(cells)} cells, "
        f"{len(done) + len(decided & {c.id for c in cells})} already done, {len(todo)} to run ({len(attempts)} again after ERROR) with {workers} worker(s) -> {path}"
    )
    directory = ExperimentDir(path, len(todo), progress)
    watch = OutageWatch(stop_after_errors(spec.stop_after_errors))
    if workers > 1:  # several at a time: the largest cases first (`start_order`), so no long one runs alone at the end
        size = {s.id: s.size_chars for s in scenarios}
        todo = [todo[i] for i in start_order([size[cell.case_id] for cell in todo])]
    planned = [(cell, attempts.get(cell.id, 1)) for cell in todo]
    if spec.versions:
        _run_version_arms(spec, scenarios, planned, workers, directory.write, progress, watch)
    else:  # the executor feeds the watch each cell as it finishes (completion order: the order cells are written in)
        run_cells(spec, scenarios, planned, workers, directory.write, watch)
    rows = directory.rows
    stopped = None
    if watch.message is not None:
        left = len(todo) - len(rows) - len(directory.listed)
        stopped = (
            f"{watch.message}; {len(rows)} cell(s) written, {left} cell(s) not run: once the provider answers, run the "
            "same command again to resume (done cells are skipped, cells that ended in ERROR run again)"
        )
        progress(stopped)
    wall = round(time.perf_counter() - directory.started, 3)
    return ExperimentRun(path, len(cells), len(done), len(rows), rows, wall, stopped)


def _run_version_arms(
    spec: ExperimentSpec,
    scenarios: Sequence[Scenario],
    todo: Sequence[tuple[Cell, int]],
    workers: int,
    finish: Callable[..., None],
    progress: Callable[[str], None],
    watch: OutageWatch,
) -> None:
    """The cells of a versions axis, arm by arm, each in ``workers`` processes of its arm's environment (`ensure_env`;
    this one when it has the pins), every row checked for the pinned versions; ``watch`` stops the arms' workers."""
    lock = read_lock()
    by_arm: dict[str, list[tuple[Cell, int]]] = {}
    for cell, attempt in todo:
        by_arm.setdefault(cell.arm, []).append((cell, attempt))
    replaced = {k: getattr(spec, k) for k in ("case_budget", "max_rps", "max_tpm")}
    for arm, cells in by_arm.items():
        if watch.stopped:
            break
        named = spec.version_of(arm)
        assert named is not None
        text = arm_lock(named, lock)  # requirements.lock, or the arm's own lock file
        version = named.resolved(lock_pins(text))  # an arm without pins: the lock's versions of what a row records
        env = ensure_env(version, text)
        where = "this environment" if env.path is None else str(env.path)
        made = f"created in {env.seconds:.1f}s" if env.created else "reused"
        progress(f"arm {arm}: {len(cells)} cell(s) in {where} ({made})")

        def checked(row: Mapping[str, Any], trace: dict[str, Any] | None, version: VersionArm = version) -> None:
            check_row_versions(row, version)
            finish(row, trace)

        def checked_or_stop(row: Mapping[str, Any], trace: dict[str, Any] | None) -> None:
            checked(row, trace)
            if trace is not None:
                watch.see(row.get("error"))  # the order the arm's workers finish cells in
            if watch.stopped:
                raise OutageStopped(watch.message)  # run_arm_cells ends the arm's workers on the way out

        if env.path is None:
            run_cells(spec, scenarios, cells, workers, checked, watch)
        else:
            try:
                run_arm_cells(spec.path, env.python, cells, workers, checked_or_stop, replaced)
            except OutageStopped:
                break


def resume_plan(
    cells: Sequence[Cell], current: dict[str, CellRow], *, retry_errors: bool = True, max_cells: int | None = None
) -> tuple[dict[str, CellRow], dict[str, int], list[Cell]]:
    """What a re-run of an experiment does with the rows it finds (``current``: the last row of each cell id).
    Returns the cells done (kept as they are), the attempt number of each cell run again after an ERROR (its last
    row's attempt + 1; with ``retry_errors`` False an ERROR row counts as done), and the cells to run, in plan order,
    at most ``max_cells`` of them."""
    done = {k: r for k, r in current.items() if not (retry_errors and row_outcome(r)[0] == ERROR)}
    attempts = {k: r.get("attempt", 1) + 1 for k, r in current.items() if k not in done}
    todo = [c for c in cells if c.id not in done][: max_cells if max_cells is not None else None]
    return done, attempts, todo


def _is_live(spec: ExperimentSpec) -> bool:
    """Some model of the grid is live (a provider or an endpoint, not the in-process reference models)."""
    names = {spec.model} | {
        arm_summary_model(cell_config(spec, v, t).summary_model, spec.summary_model) for v in spec.arms() for t in spec.thresholds
    }
    return any(not in_process(name) for name in names)


def _check_reuse(spec: ExperimentSpec, cells: list[Cell], done: dict[str, CellRow]) -> None:
    for cell in cells:
        old = done.get(cell.id)
        if old is None:
            continue
        config = cell_config(spec, cell.arm, next(t for t in spec.thresholds if t.label == cell.threshold))
        expected = cell_sha(spec, cell, config)
        if old.get("config_sha") != expected:
            raise HarnessError(
                f"cell {cell.id} in {spec.name} was run with different settings (model, window, keep, seed or variant "
                "contents changed); rename the experiment or delete its directory to start over"
            )


def _write_meta(
    spec: ExperimentSpec,
    path: Path,
    scenarios: Sequence[Scenario],
    shard: tuple[int, int],
    planned: int,
    skipped: list[dict[str, Any]] | None = None,
) -> None:
    default = read_lock() if spec.versions else ""  # what an arm without pins (the lock as it is) runs
    meta: ExperimentMeta = {
        "schema_version": META_SCHEMA_VERSION,
        "experiment": spec.name,
        "spec": spec.raw,
        "spec_fingerprint": spec.fingerprint(),
        "baseline": spec.baseline,
        "arms": list(spec.arms()),  # the compared configurations (variants, or variant@strategy)
        "strategies": {arm: strategy for arm, (_, strategy) in spec.arms().items() if strategy},
        "versions": {
            arm: dict(v.resolved(lock_pins(arm_lock(v, default))).pins) for arm in spec.arms() if (v := spec.version_of(arm))
        },
        "not_applicable": not_applicable(spec, scenarios),
        "evals": list(spec.evals),  # empty: cases as no eval (a spec without evals:)
        "thresholds": [t.label for t in spec.thresholds],
        "trials": spec.trials,
        "seed": spec.seed,
        "model": spec.model or "reference",
        "summary_model": spec.summary_model,
        "endpoints": {
            role: e.describe()
            for role, e in zip(("agent", "summarizer"), spec.endpoints(limits=True))
            if e.base_url or e.model_kwargs
        },
        "limits": {
            "case_budget_s": spec.case_budget,
            "max_rps": spec.max_rps,
            "max_tpm": spec.max_tpm,
            "stop_after_errors": stop_after_errors(spec.stop_after_errors),
        },
        "shard": list(shard),
        "planned_cells": planned,
        "skipped": skipped or [],
        "warnings": [w for s in scenarios for w in s.warnings],
        **provenance(scenarios),
        "updated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if spec.agent is not None:  # the user's own assembly every cell ran on (`harness.agent.assembly`)
        meta["agent"] = spec.agent
    write_meta(path, meta)
