"""The types of what a run writes: result rows (results.jsonl), experiment cells (cells.jsonl) and meta.json; the
`Literal` types of a case's kind, outcome and a score's role; and, for the models of what a user writes (dataset
rows, experiment specs, variant front matter), pydantic's errors told in the project's words (`input_problem`,
`check_input`).

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
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, Tag, TypeAdapter, ValidationError, with_config
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from harness.errors import ConfigError, HarnessError

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

Kind = Literal["needle", "goal", "chain", "truncation", "probe", "session"]
"""A case's kind (a dataset row's ``kind``, a result row's ``kind``): which family of scorers reads it."""
Outcome = Literal["PASS", "FAIL", "INVALID", "ERROR", "KNOWN_UPSTREAM"]
"""A case's outcome (`harness.scoring.scorers.outcome`; what each means: `harness.scoring.scorers.types`)."""
Role = Literal["validity", "check", "measure"]
"""A score's role (`harness.scoring.scorers.Score.role`): did the case test what it claims, a check, a measurement."""

ScoreValue = bool | int | float | None
"""A score's value (`harness.scoring.scorers.Score.value`)."""


@with_config(STRICT)
class Tokens(TypedDict):
    """A row's ``tokens``: approximate input tokens by role, the agent's peak context, the provider's count."""

    agent_input: int
    summarizer_input: int
    peak_context: int
    provider_input: int | None  # the provider's reported input tokens summed over every call, subagents' included; None: none
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
    kind: Kind
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
    outcome: Outcome
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
    session: NotRequired[dict[str, Any]]  # session rows: the window chosen, each compaction, the control, each probe


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
class Provenance(TypedDict):
    """What every meta.json records of where its rows came from (`harness.runs.run.provenance`): the command, the
    harness version and git commit, and a hash of each dataset file."""

    command: NotRequired[str]
    harness_version: NotRequired[str]
    git_commit: NotRequired[str | None]
    datasets: NotRequired[dict[str, str]]


@with_config(STRICT)
class RunMeta(Provenance):
    """A run directory's meta.json (`harness.runs.run.RunSink`): what ran (config, models, seed, harness version, git
    commit, dataset hashes), the cases skipped and, once finished, the time it took."""

    schema_version: int
    run_id: str
    created_at: NotRequired[str]
    config: NotRequired[dict[str, Any]]
    config_label: NotRequired[str]
    agent_model: NotRequired[str]
    summary_model: NotRequired[str | None]
    endpoints: NotRequired[dict[str, Any]]
    seed: NotRequired[int]
    trials: NotRequired[int]
    cases: NotRequired[list[str]]
    fixed_overhead_tokens: NotRequired[int | None]
    warnings: NotRequired[list[str]]
    skipped: NotRequired[list[dict[str, str]]]
    finished_at: NotRequired[str]
    wall_time_s: NotRequired[float]
    stopped: NotRequired[dict[str, Any]]  # a run stopped for an outage: reason, not_run ([{case_id, trial}]), rerun hint
    agent: NotRequired[str]  # the user's own agent assembly the cases ran on, module:function (absent: the harness's own)
    cliff_threshold: NotRequired[float]  # the run report reads it when present; no writer sets it (the default holds)


@with_config(STRICT)
class ExperimentMeta(Provenance):
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
    agent: NotRequired[str]  # the spec's agent: the user's own assembly every cell ran on (absent: the harness's own)
    endpoints: NotRequired[dict[str, Any]]
    limits: NotRequired[dict[str, Any]]
    shard: NotRequired[list[int] | None]  # [i, n]; None once merged
    planned_cells: NotRequired[int]
    skipped: NotRequired[list[dict[str, str]]]
    warnings: NotRequired[list[str]]  # what in the scenario rows misleads their author (scenarios.schema.case_warnings)
    updated_at: NotRequired[str]
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


# -- the inputs a user writes (dataset rows, specs, variant front matter): pydantic's errors in the project's words ----
_PATTERN_PROBLEMS: dict[str, str] = {}


def pattern(regex: str, problem: str) -> FieldInfo:
    """A field constraint: the value must match ``regex`` (searched, as JSON Schema does); ``problem`` is what an input
    that does not is told (`input_problem`)."""
    _PATTERN_PROBLEMS[regex] = problem
    return Field(pattern=regex)


NON_BLANK = r"\S"
NonBlank = Annotated[str, Strict(), pattern(NON_BLANK, "must be a non-empty string")]
"""A string with something in it (a blank one is refused as 'must be a non-empty string')."""


def one_of(label: str, choices: tuple[str, ...]) -> BeforeValidator:
    """A field constraint: a string must be one of ``choices`` ('unknown <label> 'x'; expected one of a, b')."""

    def check(value: Any) -> Any:
        if isinstance(value, str) and value not in choices:
            raise PydanticCustomError(
                "harness", "{problem}", {"problem": f"unknown {label} {value!r}; expected one of {', '.join(choices)}"}
            )
        return value

    return BeforeValidator(check)


class Says:
    """Annotated metadata: the problem an input is told for any shape error at or under this field, instead of
    pydantic's (a spec key's own wording: 'a non-empty list of variant or preset names'). ``{value!r}`` in it stands
    for the value given, ``{type}`` for its JSON type's Python name."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def told(self, value: Any) -> str:  # noqa: ANN401 - any input
        return self.problem.replace("{value!r}", repr(value)).replace("{type}", type(value).__name__)


class FieldProblem(ValueError):
    """A problem a model's own validator words (a spec's variant named twice): told as it is, where it is (``field``
    when given: a model validator's problem with one key, which pydantic places at the whole input), never replaced
    by the field's `Says`."""

    def __init__(self, problem: str, field: str | None = None) -> None:
        super().__init__(problem)
        self.field = field


class Problem(TypedDict):
    """The first problem of an input: where (``field``, e.g. ``needles[0].answer``; '' for the whole input) and what
    (``text``). ``unknown`` marks a name the place does not take, ``known`` the names it does."""

    field: str
    text: str
    unknown: bool
    known: list[str]


_TYPE_NAMES = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "dataclass_args_type": "an object",
}
_UNKNOWN = ("extra_forbidden", "unexpected_keyword_argument")


def unwrap_annotation(tp: Any) -> tuple[Any, list[Any], bool]:
    """(the type inside Annotated and Optional, the Annotated metadata met on the way, whether None is allowed)."""
    meta: list[Any] = []
    nullable = False
    while True:
        if get_origin(tp) is Annotated:
            tp, *more = get_args(tp)
            meta.extend(more)
        elif get_origin(tp) in (Union, types.UnionType) and type(None) in get_args(tp):
            rest = [a for a in get_args(tp) if a is not type(None)]
            nullable = True
            if len(rest) != 1:
                return tp, meta, nullable
            tp = rest[0]
        else:
            return tp, meta, nullable


def _fields(tp: Any) -> dict[str, Any]:
    """A model's or a dataclass's fields with their annotations (Annotated kept); {} for anything else."""
    if isinstance(tp, type) and (hasattr(tp, "model_fields") or hasattr(tp, "__dataclass_fields__")):
        return {k: v for k, v in get_type_hints(tp, include_extras=True).items() if k != "model_config"}
    return {}


def _walk(model: type, loc: tuple[int | str, ...]) -> tuple[tuple[int | str, ...], Any, list[Any], bool, Says | None]:
    """Follow ``loc`` down ``model``'s types: (``loc`` as the input names it, without a tagged union's tags and a key's
    problem at its mapping, up to the first `Says` on the way if any; its type, metadata, nullable, that `Says`)."""
    tp: Any = model
    meta: list[Any] = []
    nullable = False
    path: list[int | str] = []
    at = 0
    while at < len(loc):
        part = loc[at]
        tags = get_args(tp) if get_origin(tp) in (Union, types.UnionType) else ()
        member = next((a for a in tags if get_origin(a) is Annotated and Tag(str(part)) in get_args(a)[1:]), None)
        if member is not None:  # the tag pydantic names a tagged union's member by: not in the input
            tp, meta, nullable = unwrap_annotation(member)
        elif get_origin(tp) is dict:
            key = loc[at + 1 : at + 2] == ("[key]",)  # the key itself is wrong: told at its mapping
            tp, meta, nullable = unwrap_annotation(get_args(tp)[0 if key else 1])
            path += [] if key else [part]
            at += key
        elif isinstance(part, int):
            args = [a for a in get_args(tp) if a is not Ellipsis]
            if get_origin(tp) not in (list, tuple) or not args:
                break
            tp, meta, nullable = unwrap_annotation(args[0])
            path.append(part)
        elif _fields(tp):
            if part not in _fields(tp):
                break
            tp, meta, nullable = unwrap_annotation(_fields(tp)[part])
            path.append(part)
        else:
            break
        at += 1
        says = next((m for m in meta if isinstance(m, Says)), None)
        if says is not None:
            return tuple(path), tp, meta, nullable, says
    return (*path, *loc[at:]), tp, meta, nullable, None


def _item(data: object, part: int | str) -> object:
    """``data[part]`` when ``data`` has it, else None."""
    if isinstance(data, list) and isinstance(part, int):
        return data[part] if 0 <= part < len(data) else None
    return data.get(part) if isinstance(data, dict) else None


def field_path(loc: tuple[int | str, ...], data: object = None) -> str:
    """``('needles', 0, 'answer')`` as ``needles[0].answer``; with the input, ``data``, an item of a list that is named
    (a mapping with a ``name``) set apart and told by its name: ``versions[1] (old): pins.langchain``, or
    ``versions[1]: name`` when the name is what is wrong."""
    out = ""
    for depth, part in enumerate(loc):
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        data, rest = _item(data, part), loc[depth + 1 :]
        if isinstance(part, int) and isinstance(data, dict) and rest and ("name" in data or rest[0] == "name"):
            name = data.get("name")
            return f"{out}{f' ({name})' if isinstance(name, str) and rest[0] != 'name' else ''}: {field_path(rest, data)}"
    return out


def _bounds(meta: list[Any]) -> tuple[Any, Any]:
    ge = le = None
    for m in meta:
        for x in getattr(m, "metadata", ()):
            ge = getattr(x, "ge", ge)
            le = getattr(x, "le", le)
    return ge, le


def _text(error: Any, tp: Any, meta: list[Any], nullable: bool) -> str:
    kind, value = error["type"], error.get("input")
    got = type(value).__name__
    if kind == "missing":
        return "missing required field"
    if kind in _TYPE_NAMES:
        return f"expected {_TYPE_NAMES[kind]}{' or null' if nullable else ''}, got {got}"
    if kind == "literal_error":
        if not isinstance(value, str):
            return f"expected a string, got {got}"
        return f"expected one of {', '.join(map(str, get_args(tp)))}, got {value!r}"
    if kind == "string_pattern_mismatch":
        return _PATTERN_PROBLEMS.get(error["ctx"]["pattern"], f"must match {error['ctx']['pattern']!r}")
    if kind in ("greater_than_equal", "less_than_equal", "greater_than"):
        ge, le = _bounds(meta)
        if ge is not None and le is not None:
            return f"must be between {ge} and {le}, got {value!r}"
        if kind == "greater_than":
            return f"must be more than {error['ctx']['gt']}, got {value!r}"
        return f"must be at least {ge}, got {value!r}" if ge is not None else f"must be at most {le}, got {value!r}"
    if kind == "too_short":
        return "must not be empty"
    return str(error["msg"]).removeprefix("Value error, ")


def _rank(error: Any) -> int:
    """Which problem is told first: an unknown name at the top, then a missing field or a wrong type, then a value."""
    if error["type"] in _UNKNOWN:
        return 0 if len(error["loc"]) == 1 else 1
    return 1 if error["type"] == "missing" or error["type"] in _TYPE_NAMES else 2


def input_problem(error: ValidationError, model: type, skip: frozenset[str] = frozenset(), data: object = None) -> Problem | None:
    """The first problem of ``error`` (raised validating ``model``) in the project's words, with where it is: a
    missing field, an unknown one (with the names the place takes), a wrong type ('expected a string, got int'), a
    value out of its range or pattern; a field's `Says` overrides the wording. Never pydantic's own text or its links.
    Problems at or under a field named in ``skip`` (``trigger``, ``arg_truncation.keep``: a field whose own reader
    words them) are left out: None if only they remain. ``data``, the input, names a list's items (`field_path`)."""

    def skipped(e: Any) -> bool:  # noqa: ANN401 - one of pydantic's error dicts
        path = field_path(tuple(e["loc"]))
        return any(path == s or path.startswith((f"{s}.", f"{s}[")) for s in skip)

    errors = [e for e in error.errors(include_url=False) if not skipped(e)]
    if not errors:
        return None
    first = min(range(len(errors)), key=lambda i: (_rank(errors[i]), i))
    err = errors[first]
    loc = tuple(err["loc"])
    if err["type"] in _UNKNOWN:
        at, parent, _, _, says = _walk(model, loc[:-1])
        if says is None:
            field = field_path((*at, loc[-1]), data)
            return Problem(field=field, text="unknown field", unknown=True, known=list(_fields(parent)))
    named, tp, meta, nullable, says = _walk(model, loc)
    raised = (err.get("ctx") or {}).get("error")
    if isinstance(raised, FieldProblem):
        return Problem(field=raised.field or field_path(named, data), text=str(raised), unknown=False, known=[])
    if says is not None:  # a missing field's value is None, not the mapping it is missing from
        told = says.told(None if err["type"] == "missing" else err.get("input"))
        return Problem(field=field_path(named, data), text=told, unknown=False, known=[])
    return Problem(field=field_path(named, data), text=_text(err, tp, meta, nullable), unknown=False, known=[])


def told(problem: Problem, noun: str) -> str:
    """``problem``'s text as it follows its field, for an unknown name with the names the place takes: 'unknown key;
    known keys: a, b' at the top of the input (``noun`` key or field), 'unknown key; known: a, b' under it."""
    if not problem["unknown"]:
        return problem["text"]
    top = "." not in problem["field"] and "[" not in problem["field"]
    return f"unknown {noun}; known{f' {noun}s' if top else ''}: {', '.join(problem['known'])}"


def check_input(
    data: dict[str, Any], model: type[BaseModel], where: str, skip: frozenset[str] = frozenset()
) -> ConfigError | None:
    """Validate a file a user writes (an experiment spec, a variant file's front matter) against ``model``: its first
    problem raised as a ConfigError naming ``where`` (the file) and the key. A problem only under a key in ``skip`` (a
    key read by a reader of its own, which words its problems) is returned instead, for the caller to raise if that
    reader lets the value pass; None when ``data`` is valid. An unknown key is told with the known ones, sorted."""
    try:
        model.model_validate(data)
    except ValidationError as exc:
        problem = input_problem(exc, model, skip=skip, data=data)
        deferred = problem or input_problem(exc, model, data=data)
        if deferred is None:
            return None
        error = ConfigError(f"{where}: {deferred['field']}: {told({**deferred, 'known': sorted(deferred['known'])}, 'key')}")
        if problem is None:
            return error
        raise error from None
    return None


NO_EVAL = "cases, no eval"


def eval_label(row: Mapping[str, Any]) -> str:
    """What a row or a gate cell ran as, as the run report and the gate name it: its eval (a registry entry; a row
    from before rows named their eval: its kind's), or for one that ran as no eval (``eval`` null: an ad-hoc run)
    "<kind> cases, no eval", never passed off as the eval of that kind."""
    if "eval" not in row:
        return str(row["kind"])
    return row["eval"] or f"{row['kind']} {NO_EVAL}"


def eval_said(label: str) -> str:
    """An `eval_label` in a sentence: "goal eval", or "goal cases, no eval" as it is."""
    return label if label.endswith(NO_EVAL) else f"{label} eval"
