"""Experiment specs: one YAML file describing a comparison grid.

    name: prompt-comparison            # the results directory name (default: the file's stem)
    description: Five prompts at two thresholds.
    model: reference                   # agent model, provider:name or reference (default)
    summary_model: reference           # summarizer for every variant that does not set its own
    variants: [deepagents-default, minimal, structured, completed-work, anchored]
    strategies: [deepagents-summarization, observation-masking]  # grid axis (default: each variant's own)
    baseline: deepagents-default       # the arm others are compared against (default: the first)
    thresholds:                        # grid axis: each item is one trigger, a size or a list OR-combined
      - 15%
      - 25%
      - [20%, messages:60]             # DeerFlow style: whichever fires first
    # trigger: 20%                     # shorthand for a single threshold
    keep: 5%                           # default: a quarter of the lowest trigger (the presets' rule)
    window: 64000
    evals: [needle, goal, todos]       # run these registry evals (harness/suites/registry.py) instead: each eval's
                                       # cases, through harness.suites.execute (its preset, scorers, known upstream)
    scenarios:                         # which cases (default: all shipped; with evals: filters each eval's cases)
      kind: needle                     # needle | goal | chain | truncation | all
      cases: ["needle-h24k-*"]
      limit: 10
      datasets: [datasets/needle.jsonl]
    trials: 3
    seed: 0
    concurrency: 2                     # cases in flight: live on one asyncio event loop, offline in worker processes
    base_url: http://127.0.0.1:8765/v1 # the agent's OpenAI-compatible endpoint (vLLM, Ollama, harness serve)
    model_kwargs: {temperature: 0, timeout: 60, max_retries: 4}   # init_chat_model arguments
    summary_base_url: ...              # default: base_url
    summary_model_kwargs: {...}        # default: model_kwargs when the summarizer shares the endpoint
    case_budget: 900                   # live: a cell's total seconds, retries and waits included (default 900)
    max_rps: 2                         # live: model requests per second across the grid, both models (LangChain's limiter)
    max_tpm: 200000                    # live: input tokens per minute across the grid (approximate counts)
    stop_after_errors: 3               # stop (exit 4) when this many cells in a row end in the same provider error
                                       # (default 3; 0: never; harness/runs/outage.py); a rerun resumes
    versions:                          # grid axis: package versions, each arm in its own environment (runs/versions.py)
      deepagents: ["0.7.6", "0.7.32"]

With a ``strategies`` axis, each (variant, strategy) pair is one arm of the comparison,
labelled by the strategy when there is one variant and ``variant@strategy`` otherwise;
``baseline`` names an arm (or, with one variant, a strategy). A strategy is a name from
``harness/compaction/strategies/`` or ``module:function`` (a custom strategy). A ``versions`` axis multiplies the
arms again: with one (variant, strategy) arm the arms are the versions (``deepagents==0.7.6``), otherwise
``<arm>+<versions>`` (``structured+deepagents==0.7.6``).

Sizes are written as on the command line (20%, fraction:0.2, tokens:12000, messages:40)
or DeerFlow style ({type: tokens, value: 12000}). Unknown keys and bad values are
errors naming the file and the key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from harness._numbers import finite_problem
from harness._paths import not_a_file
from harness._yaml import load_yaml
from harness.compaction.config import ContextSize
from harness.errors import ConfigError
from harness.runs.versions import VersionArm, parse_versions
from harness.scenarios.schema import KINDS

_KEYS = {
    "name",
    "description",
    "model",
    "summary_model",
    "variants",
    "strategies",
    "baseline",
    "thresholds",
    "trigger",
    "keep",
    "window",
    "scenarios",
    "trials",
    "seed",
    "concurrency",
    "base_url",
    "summary_base_url",
    "model_kwargs",
    "summary_model_kwargs",
    "case_budget",
    "max_rps",
    "max_tpm",
    "stop_after_errors",
    "versions",
    "evals",
}
_SCENARIO_KEYS = {"kind", "cases", "limit", "datasets"}


@dataclass(frozen=True)
class Threshold:
    """One trigger setting: sizes OR-combined."""

    sizes: tuple[ContextSize, ...]

    @property
    def label(self) -> str:
        return "+".join(str(s) for s in self.sizes)


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    path: str
    variants: tuple[str, ...]
    thresholds: tuple[Threshold, ...]
    baseline: str
    description: str = ""
    model: str | None = None
    summary_model: str | None = None
    keep: ContextSize | None = None
    window: int | None = None
    kind: str | None = None
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

    def endpoints(self) -> tuple[Any, Any]:
        """(agent, summarizer) `harness.agent.models.Endpoint` from base_url / model_kwargs and their summary_ forms."""
        from harness.agent.endpoints import Endpoint

        agent = Endpoint(self.base_url, self.model_kwargs)
        if self.summary_base_url is None and self.summary_model_kwargs is None:
            return agent, agent
        kwargs = self.summary_model_kwargs if self.summary_model_kwargs is not None else self.model_kwargs
        return agent, Endpoint(self.summary_base_url or self.base_url, kwargs)

    def fingerprint(self) -> str:
        """Hash of everything that changes a cell's result (not name, description, concurrency)."""
        # An endpoint's settings change results (temperature, max_tokens); its address and retry/timeout do not.
        kwargs = {k: v for k, v in (self.raw.get("model_kwargs") or {}).items() if k not in ("timeout", "max_retries")}
        keys = {
            k: v
            for k, v in self.raw.items()
            if k
            not in (
                "name",
                "description",
                "concurrency",
                "variants",
                "strategies",
                "thresholds",
                "trigger",
                "trials",
                "scenarios",
                "base_url",
                "summary_base_url",
                "model_kwargs",
                "case_budget",
                "max_rps",
                "max_tpm",
                "stop_after_errors",
                "versions",
                "evals",
            )
        }
        if kwargs:
            keys["model_kwargs"] = kwargs
        return hashlib.sha256(json.dumps(keys, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _fail(path: str, key: str, problem: str) -> ConfigError:
    return ConfigError(f"{path}: {key}: {problem}")


def _size(value: Any, path: str, key: str) -> ContextSize:
    if isinstance(value, dict):
        if set(value) != {"type", "value"}:
            raise _fail(path, key, f"a size mapping needs exactly 'type' and 'value', got {sorted(value)}")
        value = f"{value['type']}:{value['value']}"
    try:
        return ContextSize.parse(value)
    except ConfigError as exc:
        raise _fail(path, key, str(exc)) from None


def _threshold(value: Any, path: str, key: str) -> Threshold:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _fail(path, key, "an empty trigger list")
    return Threshold(tuple(_size(v, path, f"{key}[{i}]" if isinstance(value, list) else key) for i, v in enumerate(items)))


def _positive_int(data: dict, key: str, path: str, default: int | None) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    least = 0 if key in ("seed", "stop_after_errors") else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _fail(path, key, f"must be a {'non-negative' if least == 0 else 'positive'} integer, got {value!r}")
    return value


def _positive_number(data: dict, key: str, path: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise _fail(path, key, f"must be a positive number, got {value!r}")
    problem = finite_problem(value)  # .inf passes `> 0`
    if problem is not None:
        raise _fail(path, key, problem)
    return float(value)


def _evals(data: dict, where: str) -> tuple[str, ...]:
    """The spec's ``evals`` list, each a registry eval (`harness.suites.registry.SUITES`), once."""
    if "evals" not in data:
        return ()
    from harness.suites.registry import SUITES

    value = data["evals"]
    if not isinstance(value, list) or not value or not all(isinstance(e, str) for e in value):
        raise _fail(where, "evals", f"a non-empty list of eval names; known: {', '.join(SUITES)}")
    for i, name in enumerate(value):
        if name not in SUITES:
            raise _fail(where, f"evals[{i}]", f"no eval {name!r}; known: {', '.join(SUITES)}")
    if len(set(value)) != len(value):
        raise _fail(where, "evals", "names an eval twice")
    return tuple(value)


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
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise _fail(where, unknown[0], f"unknown key; known keys: {', '.join(sorted(_KEYS))}")

    variants = data.get("variants")
    if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
        raise _fail(where, "variants", "a non-empty list of variant or preset names")
    if len(set(variants)) != len(variants):
        raise _fail(where, "variants", "names a variant twice")
    from harness.compaction.variants import resolve_config

    for i, name in enumerate(variants):
        try:
            resolve_config(name)
        except ConfigError as exc:
            raise _fail(where, f"variants[{i}]", str(exc)) from None
    strategies = data.get("strategies") or []
    if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
        raise _fail(where, "strategies", "a list of strategy names (or module:function)")
    if len(set(strategies)) != len(strategies):
        raise _fail(where, "strategies", "names a strategy twice")
    from harness.compaction.variants import parse_strategy

    for i, name in enumerate(strategies):
        try:
            parse_strategy(name)
        except ConfigError as exc:
            raise _fail(where, f"strategies[{i}]", str(exc).removeprefix("--strategy ")) from None
    versions = parse_versions(data["versions"], where) if "versions" in data else ()
    arms = ExperimentSpec("", "", tuple(variants), (), "", strategies=tuple(strategies), versions=versions).arms()
    baseline = data.get("baseline", next(iter(arms)))
    if baseline not in arms:
        raise _fail(where, "baseline", f"{baseline!r} is not one of the compared arms ({', '.join(arms)})")

    if "thresholds" in data and "trigger" in data:
        raise _fail(where, "trigger", "give either trigger (one threshold) or thresholds (a grid), not both")
    if "thresholds" in data:
        raw = data["thresholds"]
        if not isinstance(raw, list) or not raw:
            raise _fail(where, "thresholds", "a non-empty list of triggers")
        thresholds = tuple(_threshold(t, where, f"thresholds[{i}]") for i, t in enumerate(raw))
    elif "trigger" in data:
        thresholds = (_threshold(data["trigger"], where, "trigger"),)
    else:
        raise _fail(where, "thresholds", "missing: give thresholds (a list) or trigger")
    if len({t.label for t in thresholds}) != len(thresholds):
        raise _fail(where, "thresholds", "lists the same trigger twice")

    scen = data.get("scenarios", {}) or {}
    if not isinstance(scen, dict):
        raise _fail(where, "scenarios", "a mapping with kind, cases, limit, datasets")
    bad = sorted(set(scen) - _SCENARIO_KEYS)
    if bad:
        raise _fail(where, f"scenarios.{bad[0]}", f"unknown key; known: {', '.join(sorted(_SCENARIO_KEYS))}")
    kind = scen.get("kind", "all")
    if kind not in (*KINDS, "all"):
        raise _fail(where, "scenarios.kind", f"{', '.join(KINDS)} or all, got {kind!r}")
    cases = scen.get("cases", [])
    if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
        raise _fail(where, "scenarios.cases", "a list of case-id globs")
    datasets = scen.get("datasets", [])
    if not isinstance(datasets, list) or not all(isinstance(d, str) for d in datasets):
        raise _fail(where, "scenarios.datasets", "a list of JSONL paths")
    limit = _positive_int(scen, "limit", where, None)

    evals = _evals(data, where)
    if evals and datasets:
        raise _fail(
            where, "scenarios.datasets", "an eval runs its own cases (the registry's): filter them with cases, kind or limit"
        )
    for key in ("model", "summary_model", "name", "description"):
        if key in data and data[key] is not None and not isinstance(data[key], str):
            raise _fail(where, key, f"must be a string, got {type(data[key]).__name__}")
    if data.get("name"):  # the experiment's directory under --out: a name, never a path out of it
        from harness.runs.run import check_dir_name

        try:
            check_dir_name(data["name"], "name")
        except ConfigError as exc:
            raise _fail(where, "name", str(exc).removeprefix("name ")) from None
    from harness.agent.endpoints import check_base_url, parse_model_kwargs

    for key in ("base_url", "summary_base_url"):
        if data.get(key) is not None:
            if not isinstance(data[key], str):
                raise _fail(where, key, f"must be a URL string, got {type(data[key]).__name__}")
            check_base_url(data[key], f"{where}: {key}")
    kwargs: dict[str, dict[str, Any] | None] = {}
    for key in ("model_kwargs", "summary_model_kwargs"):
        value = data.get(key)
        if value is not None and not isinstance(value, dict):
            raise _fail(where, key, "a mapping of init_chat_model arguments, e.g. {temperature: 0, max_tokens: 2048}")
        kwargs[key] = (
            parse_model_kwargs([f"{k}={json.dumps(v)}" for k, v in value.items()], f"{where}: {key}")
            if value
            else ({} if value is not None else None)
        )
    window = _positive_int(data, "window", where, None)
    if window is not None and window < 1000:
        raise _fail(where, "window", f"must be at least 1000 tokens, got {window}")
    return ExperimentSpec(
        name=str(data.get("name") or path.stem),
        path=where,
        variants=tuple(variants),
        thresholds=thresholds,
        baseline=baseline,
        description=str(data.get("description") or ""),
        model=data.get("model"),
        summary_model=data.get("summary_model"),
        keep=_size(data["keep"], where, "keep") if data.get("keep") is not None else None,
        window=window,
        kind=None if kind == "all" else kind,
        cases=tuple(cases),
        limit=limit,
        datasets=tuple(datasets),
        trials=_positive_int(data, "trials", where, 1) or 1,
        seed=_positive_int(data, "seed", where, 0) or 0,
        concurrency=_positive_int(data, "concurrency", where, 1) or 1,
        base_url=data.get("base_url"),
        summary_base_url=data.get("summary_base_url"),
        model_kwargs=kwargs["model_kwargs"] or {},
        summary_model_kwargs=kwargs["summary_model_kwargs"],
        strategies=tuple(strategies),
        case_budget=_positive_number(data, "case_budget", where),
        max_rps=_positive_number(data, "max_rps", where),
        max_tpm=_positive_number(data, "max_tpm", where),
        stop_after_errors=_positive_int(data, "stop_after_errors", where, None),
        versions=versions,
        evals=evals,
        raw=data,
    )
