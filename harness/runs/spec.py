"""Experiment specs: one YAML file describing a comparison grid.

The keys, their types and what each means are one pydantic model, `SpecFile` (schemas/experiment-spec.schema.json is
generated from it by tools/schemas.py; docs/experiments.md shows a spec), the ``versions`` axis's two forms and
their pin sets included. `load_spec` checks a spec against it, then what no schema says (sizes, variants, strategies
and evals by name, the packages and lock files of `parse_versions`; each words its problems, naming the file and the
key), then builds the `ExperimentSpec` the grid runs. With a ``strategies`` axis each (variant, strategy) pair is an
arm, labelled by the strategy when there is one variant and ``variant@strategy`` otherwise; a ``versions`` axis
multiplies the arms again (``deepagents==0.7.6``, or a pin set's name, or ``<arm>+<versions>`` with several).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, get_args

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from harness._numbers import finite_problem
from harness._paths import not_a_file
from harness._yaml import load_yaml
from harness.compaction.config import MIN_WINDOW, ContextSize
from harness.compaction.variants import Size
from harness.errors import ConfigError
from harness.rows import FieldProblem, Kind, Says, check_input
from harness.runs.settings import SETTINGS, endpoints
from harness.runs.versions import VersionArm, normalize, parse_versions
from harness.suites.registry import SUITES

_INPUT = ConfigDict(strict=True, extra="forbid")  # YAML as written: no coercion, no key the harness would ignore
_POSITIVE = Says("must be a positive integer, got {value!r}")
_NON_NEGATIVE = Says("must be a non-negative integer, got {value!r}")
_NUMBER = Says("must be a positive number, got {value!r}")
_TEXT = Says("must be a string, got {type}")
_URL = Says("must be a URL string, got {type}")
_AGENT = Says("must be MODULE:FUNCTION (a string), got {type}")
_KWARGS = Says("a mapping of init_chat_model arguments, e.g. {temperature: 0, max_tokens: 2048}")


Trigger = Size | list[Size]

_SAID = {s.spec_key: s.description for s in SETTINGS if s.spec_key is not None}
"""A key that is a door's setting too is described once, by the setting (`harness.runs.settings.SETTINGS`)."""


def _finite(value: float | None) -> float | None:
    """The project's one finite-number rule (`finite_problem`) on a number the schema has found positive (.inf is)."""
    problem = None if value is None else finite_problem(value)
    if problem is not None:
        raise FieldProblem(problem)
    return value


def _a_window(value: int | None) -> int | None:
    if value is not None and value < MIN_WINDOW:
        raise FieldProblem(f"must be at least {MIN_WINDOW} tokens, got {value}")
    return value


def _once(item: str, same: Callable[[str], str] = str) -> AfterValidator:
    """A list, or a mapping's keys, naming each item once (``item``: what one is; ``same``: one item's name, as compared)."""

    def check(names: Collection[str] | None) -> Collection[str] | None:
        seen: dict[str, str] = {}
        for name in names or ():
            if same(name) in seen:
                raise FieldProblem(f"names {item} twice" + (f" ({seen[same(name)]}, {name})" if seen[same(name)] != name else ""))
            seen[same(name)] = name
        return names

    return AfterValidator(check)


LiveLimit = Annotated[float | None, _NUMBER, Field(gt=0), AfterValidator(_finite)]
"""A live bound (seconds, requests or tokens): a positive finite number, or unset."""


class ScenarioFilter(BaseModel):
    """``scenarios``: which cases a grid runs (default: every shipped one; with ``evals``: filters each eval's cases)."""

    model_config = _INPUT

    kind: Annotated[Kind | Literal["all"], Says(f"{', '.join(get_args(Kind))} or all, got {{value!r}}")] = Field(
        "all", description="the cases of one kind, or all"
    )
    cases: Annotated[list[str], Says("a list of case-id globs")] = Field([], description="case-id globs")
    limit: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(None, description="at most this many cases")
    datasets: Annotated[list[str], Says("a list of JSONL paths")] = Field(
        [], description="scenario files to read instead of the shipped ones"
    )


_NAME = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a package's or an arm's: no '+' '@' '|' '=' ',' (labels join on them)
_ARM = Says("{value!r} is not an arm name (letters, digits, '.', '_' and '-', e.g. lock-2026-11-26)")
Package = Annotated[str, Says("{value!r} is not a package name"), _NAME]
Version = Annotated[
    str, Says("{value!r} is not a version string (quote it: '1.5', not 1.5)"), Field(pattern=r"^[0-9][0-9A-Za-z.+!-]*$")
]
_V = TypeVar("_V")
ByPackage = Annotated[dict[Package, _V], Field(json_schema_extra={"additionalProperties": False}), _once("a package", normalize)]
"""package -> a value, each package once as PyPI compares names (the schema refuses a key that is not a package name)."""


class PinSet(BaseModel):
    """One arm of a ``versions`` list: a name and the packages it pins together (`harness.runs.versions.parse_pin_sets`)."""

    model_config = _INPUT

    name: Annotated[str, _ARM, _NAME] = Field(description="the arm's name in rows and reports")
    pins: ByPackage[Version] | None = Field(None, description="package -> version, pinned together (none: the lock as it is)")
    lock: Annotated[str | None, Says("a lock file's path (relative to the spec), got {value!r}"), Field(min_length=1)] = Field(
        None, description="a lock file (relative to the spec) made into the arm's environment"
    )


def _each_arm_once(sets: list[PinSet]) -> list[PinSet]:
    """Pin sets that name each arm once (told at the second's name, with the first's index)."""
    names = [s.name for s in sets]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise FieldProblem(f"{name!r} names versions[{names.index(name)}] too", f"versions[{i}]: name")
    return sets


def _versions_form(value: Any) -> str | None:  # noqa: ANN401 - the spec's value, as read
    """Which form a ``versions`` value is written in (None: neither)."""
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return "pin sets"
    return "packages" if isinstance(value, dict) and value else None


Versions = Annotated[
    Annotated[
        ByPackage[Annotated[list[Version], Field(min_length=1), _once("a version")]],
        Field(min_length=1, description="package -> versions: an arm for every combination"),
        Tag("packages"),
    ]
    | Annotated[
        list[PinSet],
        Field(min_length=1, description="named pin sets: an arm each"),
        AfterValidator(_each_arm_once),
        Tag("pin sets"),
    ],
    Discriminator(
        _versions_form,
        custom_error_type="versions",
        custom_error_message='a mapping of package -> list of versions (every combination), e.g. {deepagents: ["0.7.6", '
        '"0.7.32"]}, or a list of named pin sets, e.g. [{name: lock}, {name: old, pins: {langchain: "1.4.7", '
        'langchain-core: "1.7.2"}}]',
    ),
]
"""A spec's ``versions`` axis, in either form (`harness.runs.versions.parse_versions` makes it arms)."""


class SpecFile(BaseModel):
    """An experiment spec: one YAML file describing a comparison grid (``harness experiment run SPEC``)."""

    model_config = ConfigDict(
        strict=True, extra="forbid", title="Experiment spec", json_schema_extra={"$comment": "generated: tools/schemas.py"}
    )

    name: Annotated[str | None, _TEXT] = Field(None, description="the results directory name (default: the file's stem)")
    description: Annotated[str | None, _TEXT] = Field(None, description="one line for humans")
    model: Annotated[str | None, _TEXT] = Field(None, description=_SAID["model"])
    summary_model: Annotated[str | None, _TEXT] = Field(None, description=_SAID["summary_model"])
    agent: Annotated[str | None, _AGENT] = Field(None, description=_SAID["agent"])
    variants: Annotated[
        list[str], Says("a non-empty list of variant or preset names"), Field(min_length=1), _once("a variant")
    ] = Field(description="variant files (datasets/variants/) or presets compared")
    strategies: Annotated[list[str] | None, Says("a list of strategy names (or module:function)"), _once("a strategy")] = Field(
        None, description="grid axis: strategies (default: each variant's own)"
    )
    baseline: str | None = Field(None, description="the arm the others are compared against (default: the first)")
    thresholds: Annotated[list[Trigger] | None, Field(min_length=1)] = Field(
        None, description="grid axis: each item one trigger, a size or a list of sizes OR-combined"
    )
    trigger: Trigger | None = Field(None, description="shorthand for a single threshold")
    keep: Size | None = Field(None, description=_SAID["keep"])
    window: Annotated[
        int | None, _POSITIVE, Field(ge=1, json_schema_extra={"minimum": MIN_WINDOW}), AfterValidator(_a_window)
    ] = Field(None, description=_SAID["window"])
    evals: Annotated[
        list[str] | None,
        Says(f"a non-empty list of eval names; known: {', '.join(SUITES)}"),
        Field(min_length=1),
        _once("an eval"),
    ] = Field(None, description="run these registry evals, each eval's cases run as the eval")
    scenarios: ScenarioFilter | None = Field(None, description="which cases")
    trials: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(None, description="runs of each cell (default 1)")
    seed: Annotated[int | None, _NON_NEGATIVE, Field(ge=0)] = Field(None, description=_SAID["seed"])
    concurrency: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(None, description="cells in flight (default 1)")
    base_url: Annotated[str | None, _URL] = Field(None, description=_SAID["base_url"])
    summary_base_url: Annotated[str | None, _URL] = Field(None, description=_SAID["summary_base_url"])
    model_kwargs: Annotated[dict[str, Any] | None, _KWARGS] = Field(None, description=_SAID["model_kwargs"])
    summary_model_kwargs: Annotated[dict[str, Any] | None, _KWARGS] = Field(None, description=_SAID["summary_model_kwargs"])
    case_budget: LiveLimit = Field(None, description=_SAID["case_budget"])
    max_rps: LiveLimit = Field(None, description=_SAID["max_rps"])
    max_tpm: LiveLimit = Field(None, description=_SAID["max_tpm"])
    stop_after_errors: Annotated[int | None, _NON_NEGATIVE, Field(ge=0)] = Field(None, description=_SAID["stop_after_errors"])
    versions: Versions | None = Field(
        None,
        description="grid axis, each arm in its own environment: package -> versions (every combination), or a list of "
        "named pin sets",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_threshold_axis(cls, data: Any) -> Any:  # noqa: ANN401 - the file as read
        given = [key for key in ("thresholds", "trigger") if isinstance(data, dict) and data.get(key) is not None]
        if len(given) == 2:
            raise FieldProblem("give either trigger (one threshold) or thresholds (a grid), not both", "trigger")
        if not given and isinstance(data, dict):
            raise FieldProblem("missing: give thresholds (a list) or trigger", "thresholds")
        return data


_ENDPOINT_KEYS = ("base_url", "summary_base_url", "model_kwargs", "summary_model_kwargs")

_AS_WRITTEN = (
    "description", "model", "summary_model", "agent", "window", "trials", "seed", "concurrency", "stop_after_errors",
    "base_url", "summary_base_url", "model_kwargs", "summary_model_kwargs", "case_budget", "max_rps", "max_tpm",
)  # fmt: skip
"""Keys an `ExperimentSpec` takes as validated, under the same name (unset: its default)."""

_PARSED = frozenset({"thresholds", "trigger", "keep"})
"""Keys read by a reader of their own (`ContextSize.read`), which words their problems."""


_NOT_FINGERPRINTED = frozenset(
    {"name", "description", "concurrency", "trials", "scenarios", "evals"}  # which cells; a cell's own id says them
    | {"variants", "strategies", "thresholds", "trigger", "versions"}  # the axes: a cell's arm and threshold say them
    | {"base_url", "summary_base_url", "model_kwargs"}  # an endpoint's address; its answer-changing kwargs are added back
    | {"case_budget", "max_rps", "max_tpm", "stop_after_errors"}  # live bounds: they never change a result
)
"""Spec keys a cell's result does not depend on beyond its id (`ExperimentSpec.fingerprint`)."""


@dataclass(frozen=True)
class Threshold:
    """One trigger setting: sizes OR-combined."""

    sizes: tuple[ContextSize, ...]

    @property
    def label(self) -> str:
        return "+".join(str(s) for s in self.sizes)


@dataclass(frozen=True)
class ExperimentSpec:
    """An experiment spec (`datasets/experiments/*.yaml`) as loaded: its arms, thresholds, cases and settings."""

    name: str
    path: str
    variants: tuple[str, ...]
    thresholds: tuple[Threshold, ...]
    baseline: str
    description: str = ""
    model: str | None = None
    summary_model: str | None = None
    agent: str | None = None  # the user's own assembly, module:function (`harness.agent.assembly`); None: the harness's
    keep: ContextSize | None = None
    window: int | None = None
    kind: Kind | None = None
    cases: tuple[str, ...] = ()
    limit: int | None = None
    datasets: tuple[str, ...] = ()
    trials: int = 1
    seed: int = 0
    concurrency: int = 1
    base_url: str | None = None
    summary_base_url: str | None = None
    model_kwargs: dict[str, Any] = field(default_factory=dict)
    summary_model_kwargs: dict[str, Any] | None = None
    strategies: tuple[str, ...] = ()  # empty: no strategy axis (each variant's own strategy)
    case_budget: float | None = None  # live bounds (None: the run's default, or none); they never change a result
    max_rps: float | None = None
    max_tpm: float | None = None
    stop_after_errors: int | None = None  # the outage stop (None: the default, 0: never); it never changes a result
    versions: tuple[VersionArm, ...] = ()  # empty: no versions axis (every arm runs in this environment)
    evals: tuple[str, ...] = ()  # empty: cases by kind with the default scorers; else each eval's cases, run as the eval
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    def arms(self) -> dict[str, tuple[str, str | None]]:
        """label -> (variant, strategy or None): the compared configurations, in order."""
        return {label: inner for label, (inner, _) in self._arms().items()}

    def version_of(self, arm: str) -> VersionArm | None:
        """The versions ``arm`` runs with (None without a versions axis)."""
        return self._arms()[arm][1]

    def _arms(self) -> dict[str, tuple[tuple[str, str | None], VersionArm | None]]:
        if not self.strategies:
            inner: dict[str, tuple[str, str | None]] = {v: (v, None) for v in self.variants}
        elif len(self.variants) == 1:
            inner = {s: (self.variants[0], s) for s in self.strategies}
        else:
            inner = {f"{v}@{s}": (v, s) for v in self.variants for s in self.strategies}
        if not self.versions:
            return {label: (pair, None) for label, pair in inner.items()}
        if len(inner) == 1:
            ((pair),) = inner.values()
            return {arm.label: (pair, arm) for arm in self.versions}
        return {f"{label}+{arm.label}": (pair, arm) for label, pair in inner.items() for arm in self.versions}

    def endpoints(self, *, limits: bool = False) -> tuple[Any, Any]:
        """(agent, summarizer) `harness.agent.models.Endpoint` from base_url / model_kwargs and their summary_ forms, by
        every door's rule (`harness.runs.settings.endpoints`); ``limits``: sharing the spec's ``max_rps`` and
        ``max_tpm`` (one rate limiter and one token bucket for every cell of the run)."""
        return endpoints(
            base_url=self.base_url,
            summary_base_url=self.summary_base_url,
            model_kwargs=self.model_kwargs,
            summary_model_kwargs=self.summary_model_kwargs,
            max_rps=self.max_rps if limits else None,
            max_tpm=self.max_tpm if limits else None,
            where=self.path,
        )

    def fingerprint(self) -> str:
        """Hash of everything that changes a cell's result (not name, description, concurrency)."""
        # An endpoint's settings change results (temperature, max_tokens); its address and retry/timeout do not.
        kwargs = {k: v for k, v in (self.raw.get("model_kwargs") or {}).items() if k not in ("timeout", "max_retries")}
        keys = {k: v for k, v in self.raw.items() if k not in _NOT_FINGERPRINTED}
        if kwargs:
            keys["model_kwargs"] = kwargs
        return hashlib.sha256(json.dumps(keys, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _fail(path: str, key: str, problem: str) -> ConfigError:
    return ConfigError(f"{path}: {key}: {problem}")


def _threshold(value: Any, path: str, key: str) -> Threshold:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _fail(path, key, "an empty trigger list")
    return Threshold(
        tuple(
            ContextSize.read(v, f"{path}: {key}[{i}]" if isinstance(value, list) else f"{path}: {key}")
            for i, v in enumerate(items)
        )
    )


def _takes_user_cases(evals: tuple[str, ...]) -> bool:
    """Every eval named takes its cases from ``scenarios.datasets`` (`EvalSuite.user_cases`: the session eval, whose
    cases are the sessions a user imported)."""
    return all(SUITES[name].user_cases for name in evals)


def load_spec(path: str | Path) -> ExperimentSpec:
    """An experiment spec (YAML: datasets/experiments/), checked key by key. Raises ConfigError naming the file and the
    key for anything it cannot run."""
    path = Path(path)
    where = str(path)
    problem = not_a_file(path)
    if problem is not None:
        raise ConfigError(f"{where}: {'no such experiment spec' if problem == 'no such file' else problem}")
    try:
        data = load_yaml(path.read_text(encoding="utf-8"), where)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{where}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: an experiment spec is a mapping of keys")
    deferred = check_input(data, SpecFile, where, skip=_PARSED)
    from harness.compaction.variants import parse_strategy, resolve_config

    variants, strategies = data["variants"], data.get("strategies") or []
    for i, name in enumerate(variants):
        try:
            resolve_config(name)
        except ConfigError as exc:
            raise _fail(where, f"variants[{i}]", str(exc)) from None
    for i, name in enumerate(strategies):
        try:
            parse_strategy(name)
        except ConfigError as exc:
            raise _fail(where, f"strategies[{i}]", str(exc).removeprefix("--strategy ")) from None
    versions = parse_versions(data["versions"], where) if data.get("versions") is not None else ()
    arms = ExperimentSpec("", "", tuple(variants), (), "", strategies=tuple(strategies), versions=versions).arms()
    baseline = data.get("baseline", next(iter(arms)))
    if baseline not in arms:
        raise _fail(where, "baseline", f"{baseline!r} is not one of the compared arms ({', '.join(arms)})")

    if data.get("trigger") is not None:
        thresholds: tuple[Threshold, ...] = (_threshold(data["trigger"], where, "trigger"),)
    else:  # SpecFile holds that one of them is given, and thresholds as a list
        raw = data["thresholds"] if isinstance(data["thresholds"], list) else []
        thresholds = tuple(_threshold(t, where, f"thresholds[{i}]") for i, t in enumerate(raw))
    if len({t.label for t in thresholds}) != len(thresholds):
        raise _fail(where, "thresholds", "lists the same trigger twice")
    keep = ContextSize.read(data["keep"], f"{where}: keep") if data.get("keep") is not None else None
    evals = tuple(data.get("evals") or ())  # SpecFile has checked the list; each a registry eval (`SUITES`):
    for i, name in enumerate(evals):
        if name not in SUITES:
            raise _fail(where, f"evals[{i}]", f"no eval {name!r}; known: {', '.join(SUITES)}")
    if deferred is not None:  # what the schema refuses and no reader did
        raise deferred

    spec = SpecFile.model_validate(data)
    scenarios = spec.scenarios or ScenarioFilter.model_validate({})
    if evals and scenarios.datasets and not _takes_user_cases(evals):
        raise _fail(
            where,
            "scenarios.datasets",
            "an eval runs its own cases (the registry's): filter them with cases, kind or limit (only the session eval "
            "reads datasets: a user's imported sessions)",
        )
    if spec.name:  # the experiment's directory under --out: a name, never a path out of it
        from harness._paths import check_dir_name

        try:
            check_dir_name(spec.name, "name")
        except ConfigError as exc:
            raise _fail(where, "name", str(exc).removeprefix("name ")) from None
    endpoints(**{key: data.get(key) for key in _ENDPOINT_KEYS}, where=where)  # the URLs and kwargs, each key named
    return ExperimentSpec(
        name=spec.name or path.stem,
        path=where,
        variants=tuple(variants),
        thresholds=thresholds,
        baseline=baseline,
        keep=keep,
        kind=None if scenarios.kind == "all" else scenarios.kind,
        cases=tuple(scenarios.cases),
        limit=scenarios.limit,
        datasets=tuple(scenarios.datasets),
        strategies=tuple(strategies),
        versions=versions,
        evals=evals,
        raw=data,
        **{key: value for key in _AS_WRITTEN if (value := getattr(spec, key)) is not None},
    )
