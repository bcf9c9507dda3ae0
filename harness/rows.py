"""The types of what a run writes: result rows (results.jsonl), experiment cells (cells.jsonl) and meta.json.

In the bedrock layer, so that every layer that holds a row (scoring's cost, an eval's `CaseResult`, runs, analysis,
reports) can name its type; `harness.runs` exports them as the public face.

Each is a `TypedDict`: at runtime a row stays the plain JSON dict it always was (pandas, json and every reader take it
as it is), while mypy checks every access to it. The same types are checked at runtime, with pydantic's
`TypeAdapter`, where rows and meta cross a file: `harness.runs.results.append_row` refuses a row that does not match
before it is written, `harness.runs.results.read_rows` one that does not after it is upgraded to the current schema,
and `write_meta` / `read_run_meta` / `read_experiment_meta` are the only functions that write and read meta.json. A
mismatch is a `HarnessError` naming the file, the line and the field.

The row's schema history (what `ROW_SCHEMA_VERSION` 1 to 4 hold) is in `harness.runs.results`, which upgrades rows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NotRequired, TypeVar, cast

from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from harness.errors import HarnessError

ROW_SCHEMA_VERSION = 4
"""The result row's schema (results.jsonl, and cells.jsonl, whose rows are result rows with cell fields):
1. before arms: the compared configuration is ``variant``; no ``outcome`` (derived from ``passed`` and ``validity``);
2. ``arm``, ``outcome`` and ``outcome_keys``, ``eval``, ``scorers``; no ``schema_version``;
3. ``schema_version`` and ``eval_version`` (the registry's version of the eval the row was scored under);
4. ``packages``: {package: version} of `harness._version.RECORDED_PACKAGES` as installed where the case ran (an
   earlier row reads as ``{}``: not recorded); ``known_upstream``: {check: issue URL} of the eval's declared known
   upstream failures the row scored (an earlier row reads as ``{}``), and the outcome KNOWN_UPSTREAM.
`harness.runs.results.upgrade_row` reads each as version 4; tests/data/rows keeps a row of each."""

META_SCHEMA_VERSION = 2
"""meta.json of a run or an experiment: 1 had no ``schema_version``; 2 adds it (and rows of schema 3 and later).
`read_run_meta` and `read_experiment_meta` read a version 1 file as version 2 (nothing else changed)."""

STRICT = ConfigDict(strict=True)  # no coercion: "3" is not a trial number, 1 is not a bool

ScoreValue = bool | int | float | None
"""A score's value (`harness.scoring.scorers.Score.value`)."""


@with_config(STRICT)
class Tokens(TypedDict):
    """A row's ``tokens``: approximate input tokens by role, the agent's peak context, the provider's count."""

    agent_input: int
    summarizer_input: int
    peak_context: int
    provider_input: int | None  # the provider's reported input tokens summed; None when it reported none
    counter: str  # how the approximate counts were counted


@with_config(STRICT)
class Calls(TypedDict):
    """A row's ``calls``: model calls by role."""

    agent: int
    summarizer: int


@with_config(STRICT)
class CaseInfo(TypedDict, total=False):
    """A row's ``case``: the scenario's shape (empty for a row scored without its scenario)."""

    haystack_tokens: int | None
    needle_depth: float | None


@with_config(STRICT)
class SentTokens(TypedDict):
    """``cost.sent``: tokens sent to the models, and which count they come from."""

    tokens: int | None
    source: str


@with_config(STRICT)
class Cost(TypedDict):
    """A row's ``cost`` (`harness.scoring.cost.case_cost`): per role its token kinds, calls and USD, their totals,
    the model each role is priced as, and whether a price is simulated. Rows written before costs lack it."""

    roles: dict[str, dict[str, Any]]
    total: dict[str, Any]
    priced_as: dict[str, str | None]
    simulated_prices: bool
    sent: SentTokens


@with_config(STRICT)
class ResultRow(TypedDict):
    """One case's row in results.jsonl (`harness.runs.results.result_row`), as schema `ROW_SCHEMA_VERSION` has it:
    the ids, the config, the model names, every score (value, pass and explanation), the outcome, event counts, token
    totals, cost, wall time, the trace's file name and the package versions that ran."""

    schema_version: int
    run_id: str
    case_id: str
    kind: str
    eval: str | None  # the registry entry the case ran as; None: it ran as no eval (an ad-hoc run)
    eval_version: int | None  # None: no eval, or one the registry does not know (`row_eval_version`)
    trial: int
    seed: int
    arm: str | None  # the compared configuration: a variant, or variant@strategy in a grid
    strategy: str
    config: dict[str, Any]  # `CompactionConfig.to_dict`
    agent_model: str | None
    summary_model: str | None
    simulated: bool
    scorers: str  # the scorer set that scored it
    outcome: str  # PASS | FAIL | INVALID | ERROR | KNOWN_UPSTREAM
    outcome_keys: list[str]  # the checks (or the cause) that decided it
    scores: dict[str, ScoreValue]
    passed: dict[str, bool]  # validity scores and checks: did each hold
    validity: list[str]  # the keys of ``passed`` that are validity scores
    known_upstream: dict[str, str]  # {check: issue URL} of declared known upstream failures the row scored
    answers: list[Any]
    case: CaseInfo
    metrics: dict[str, Any]  # per kind (`harness.scoring.metrics.case_metrics`) and cost metrics
    explanations: dict[str, str]
    events: dict[str, int]  # compaction events by type
    tokens: Tokens
    calls: Calls
    cost: NotRequired[Cost]
    wall_time_s: float
    error: dict[str, Any] | None  # `harness.agent.runner`: the classified failure (type, status, message, turn...)
    trace: str  # the trace file, relative to the run directory
    packages: dict[str, str | None]  # {package: version} where the case ran ({}: not recorded)
    facts: NotRequired[list[dict[str, Any]]]  # probe and retention rows: per fact, its retention and question


@with_config(STRICT)
class CellFields(TypedDict):
    """What a cell adds to its result row (`harness.runs.grid`)."""

    cell_id: str  # arm|threshold|case|trial (`harness.runs.grid.Cell.id`)
    threshold: str
    experiment: str
    attempt: int  # 1, or more for a cell run again after an ERROR
    config_sha: str  # the settings fingerprint a resumed run checks
    earlier_attempts: NotRequired[int]  # `harness.runs.results.read_cells`: rows of the cell before this one


@with_config(STRICT)
class CellRow(ResultRow, CellFields):
    """One experiment cell's row in cells.jsonl (`harness.runs.grid`): a result row with the cell's fields
    (`CellFields`)."""


@with_config(STRICT)
class RunMeta(TypedDict):
    """A run directory's meta.json (`harness.runs.run.RunSink`): what ran (config, models, seed, harness version, git
    commit, dataset hashes), the cases skipped and, once finished, the time it took."""

    schema_version: int
    run_id: str
    command: NotRequired[str]
    created_at: NotRequired[str]
    harness_version: NotRequired[str]
    git_commit: NotRequired[str | None]
    config: NotRequired[dict[str, Any]]
    config_label: NotRequired[str]
    agent_model: NotRequired[str]
    summary_model: NotRequired[str | None]
    endpoints: NotRequired[dict[str, Any]]
    seed: NotRequired[int]
    trials: NotRequired[int]
    cases: NotRequired[list[str]]
    datasets: NotRequired[dict[str, str]]
    fixed_overhead_tokens: NotRequired[int | None]
    warnings: NotRequired[list[str]]
    skipped: NotRequired[list[dict[str, str]]]
    finished_at: NotRequired[str]
    wall_time_s: NotRequired[float]
    stopped: NotRequired[dict[str, Any]]  # a run stopped for an outage: reason, not_run ([{case_id, trial}]), rerun hint
    cliff_threshold: NotRequired[float]  # the run report reads it when present; no writer sets it (the default holds)


@with_config(STRICT)
class ExperimentMeta(TypedDict):
    """An experiment directory's meta.json (`harness.runs.grid`): the spec as run and its fingerprint, the arms,
    thresholds, evals, models, limits, shard and planned cells; a merged one names its parts and missing shards."""

    schema_version: int
    experiment: str
    spec: NotRequired[dict[str, Any]]
    spec_fingerprint: NotRequired[str]
    baseline: NotRequired[str]  # the arm the others are compared against
    arms: NotRequired[list[str]]
    variants: NotRequired[list[str]]  # older experiments: the arms
    strategies: NotRequired[dict[str, str]]
    versions: NotRequired[dict[str, dict[str, str]]]
    not_applicable: NotRequired[list[dict[str, str]]]
    evals: NotRequired[list[str]]
    thresholds: NotRequired[list[str]]
    trials: NotRequired[int]
    seed: NotRequired[int]
    model: NotRequired[str]
    summary_model: NotRequired[str | None]
    endpoints: NotRequired[dict[str, Any]]
    limits: NotRequired[dict[str, Any]]
    shard: NotRequired[list[int] | None]  # [i, n]; None once merged
    planned_cells: NotRequired[int]
    skipped: NotRequired[list[dict[str, str]]]
    warnings: NotRequired[list[str]]  # what in the scenario rows misleads their author (scenarios.schema.case_warnings)
    datasets: NotRequired[dict[str, str]]
    harness_version: NotRequired[str]
    git_commit: NotRequired[str | None]
    updated_at: NotRequired[str]
    command: NotRequired[str]
    merged_from: NotRequired[list[str]]
    missing_shards: NotRequired[list[str]]


T = TypeVar("T")
_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(kind: type[T]) -> TypeAdapter[T]:
    """One adapter per type, built on first use (building one costs milliseconds; validating with it, microseconds)."""
    if kind not in _ADAPTERS:
        _ADAPTERS[kind] = TypeAdapter(kind)
    return cast(TypeAdapter[T], _ADAPTERS[kind])


def _field_error(error: ValidationError) -> str:
    """The first problem of ``error`` as 'field tokens.agent_input: Input should be a valid integer (got '3')'."""
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(the row)"
    got = "" if first["type"] == "missing" else f" (got {first['input']!r:.60})"
    more = error.error_count() - 1
    return f"field {field}: {first['msg']}{got}" + (f" (and {more} more)" if more else "")


def validate(kind: type[T], data: Any, where: str) -> T:
    """``data`` checked against the TypedDict ``kind`` (a row or a meta.json): returned as it is (the same dict, extra
    fields kept) when it matches; a HarnessError naming ``where`` (a file and line) and the field when it does not."""
    if not isinstance(data, dict):
        raise HarnessError(f"{where}: expected a JSON object, got {type(data).__name__}")
    try:
        _adapter(kind).validate_python(data)
    except ValidationError as exc:
        raise HarnessError(f"{where}: not a {kind.__name__}: {_field_error(exc)}") from None
    return cast(T, data)


def write_meta(directory: str | Path, meta: RunMeta | ExperimentMeta) -> None:
    """Write a run's or an experiment's meta.json (validated first: `RunMeta` when it has ``run_id``, else
    `ExperimentMeta`); the only writer of meta.json."""
    path = Path(directory) / "meta.json"
    validate(RunMeta if "run_id" in meta else ExperimentMeta, meta, str(path))
    tmp = path.with_suffix(".tmp")  # written whole, then renamed: a reader never sees half a file
    tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def _read_meta(kind: type[T], directory: str | Path) -> T:
    path = Path(directory) / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HarnessError(f"{directory}: no meta.json") from None
    except json.JSONDecodeError as exc:
        raise HarnessError(f"{path}: not valid JSON ({exc})") from None
    if isinstance(meta, dict):
        version = meta.get("schema_version", 1)
        if isinstance(version, int) and version > META_SCHEMA_VERSION:
            raise HarnessError(
                f"{path}: schema_version {version} is newer than this harness reads ({META_SCHEMA_VERSION}); upgrade the harness"
            )
        meta = {**meta, "schema_version": META_SCHEMA_VERSION}  # version 1 differs only in lacking it
    return validate(kind, meta, str(path))


def read_run_meta(directory: str | Path) -> RunMeta:
    """A run directory's meta.json as `RunMeta` (any schema version up to `META_SCHEMA_VERSION`)."""
    return _read_meta(RunMeta, directory)


def read_experiment_meta(directory: str | Path) -> ExperimentMeta:
    """An experiment directory's meta.json as `ExperimentMeta` (any schema version up to `META_SCHEMA_VERSION`)."""
    return _read_meta(ExperimentMeta, directory)
