"""The settings every door accepts, declared once: `harness run`'s and `harness experiment run`'s options, the pytest
options (`add_pytest_options`), the experiment spec's keys and `harness.evaluate`'s keywords are made from `SETTINGS`
or checked against it (tests/runs/test_settings.py), so a setting added here reaches every door that takes it.

A `Setting` names its Python keyword (the option is made from it), its spec key (None where a spec states it as an
axis: ``variants:``, ``thresholds:``, ``strategies:``), the doors that take it (``run``, ``experiment``,
``evaluate``, ``check``, ``pytest``) and what it means, written once (``about``: the option's help and the spec key's
description).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness._numbers import finite_problem
from harness.compaction.config import DEFAULT_PRESET, PRESETS
from harness.compaction.strategies.names import builtin_said

EVERY = frozenset({"run", "evaluate", "pytest", "check"})
LIMITS = EVERY | {"experiment"}


def finite_float(text: str) -> float:
    """The argparse type of every numeric option that takes a fraction: `harness._numbers.finite_problem`'s rule, so
    ``nan``, ``inf`` and ``1e309`` are refused by argparse (exit 2, the option named) before anything runs."""
    problem = finite_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return float(text)


@dataclass(frozen=True)
class Setting:
    """One setting: its keyword, its option, its spec key (None: not one, or stated as an axis), the doors that take
    it, its group in ``--help``, the option's keywords (type, default, action, metavar, help) and what it means
    (``about``: one text for every door, another setting named ``{name}``: the option's help and the spec key's
    description are made from it)."""

    name: str
    spec_key: str | None
    doors: frozenset[str]
    group: str
    option: Mapping[str, Any] = field(default_factory=dict)
    about: str = ""

    def __post_init__(self) -> None:
        if self.about:  # argparse formats help with %: a literal % is %%
            help_text = _named(self.about, lambda name: "--" + name.replace("_", "-")).replace("%", "%%")
            object.__setattr__(self, "option", {**self.option, "help": help_text})

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def description(self) -> str:
        """What the setting means, as a spec states it (`harness.runs.spec.SpecFile`'s description of its key)."""
        return _named(self.about, lambda name: name)


def _named(text: str, name: Callable[[str], str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: name(m.group(1)), text)


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "variant",
        None,  # a spec's variants: axis
        EVERY,
        "compaction config",
        {
            "default": DEFAULT_PRESET,
            "help": f"a threshold preset ({', '.join(PRESETS)}; default {DEFAULT_PRESET}) or a variant file in "
            "datasets/variants/ (its prompt and settings on top of the default preset); see `harness variants`",
        },
    ),
    Setting(
        "trigger",
        None,  # a spec's thresholds: axis
        EVERY,
        "compaction config",
        {
            "action": "append",
            "metavar": "SIZE",
            "help": "summarization trigger, overrides the variant's: 20%%, fraction:0.2, tokens:12000 or messages:40; "
            "repeat to OR-combine",
        },
    ),
    Setting(
        "keep",
        "keep",
        EVERY,
        "compaction config",
        {"metavar": "SIZE"},
        "what to keep after a summary, same syntax as {trigger} (default: a quarter of the lowest trigger, the presets' rule)",
    ),
    Setting(
        "window",
        "window",
        EVERY,
        "compaction config",
        {"metavar": "TOKENS"},
        "the model's context window (max input tokens), written into the model profile",
    ),
    Setting(  # a spec's strategies: axis; `harness check` names its own --strategy (the compactor under test)
        "strategy",
        None,
        EVERY - {"check"},
        "compaction config",
        {"metavar": "NAME", "help": f"compaction strategy: {builtin_said()}"},
    ),
    Setting(
        "agent",
        "agent",
        EVERY,
        "models",
        {"metavar": "MODULE:FUNCTION"},
        "your own deep agent: a function of no arguments returning create_deep_agent's keyword arguments (tools, "
        "system_prompt, subagents, backend, middleware, memory, skills, ...); every case runs on it with the harness's "
        "model, compaction strategy, recorder and faults (docs/your-agent.md). Imported from the environment or the "
        "working directory, in every worker; default: the harness's own agent",
    ),
    Setting(
        "model",
        "model",
        EVERY,
        "models",
        {},
        "agent model, provider:name (e.g. openai:gpt-5.2) or reference; default: the offline reference agent",
    ),
    Setting(
        "summary_model",
        "summary_model",
        EVERY,
        "models",
        {},
        "summarizer model, provider:name or 'reference', for every variant that does not set its own; default: "
        "reference offline, else the agent model",
    ),
    Setting(
        "base_url",
        "base_url",
        EVERY,
        "models",
        {"metavar": "URL"},
        "the agent model's endpoint, any OpenAI-compatible server (vLLM, Ollama, LM Studio, `harness serve`); "
        "no key needed when the server has no auth",
    ),
    Setting(
        "summary_base_url",
        "summary_base_url",
        EVERY,
        "models",
        {"metavar": "URL"},
        "the summarizer's endpoint (default: {base_url})",
    ),
    Setting(
        "model_kwargs",
        "model_kwargs",
        EVERY,
        "models",
        {"action": "append", "metavar": "KEY=VALUE"},
        "init_chat_model arguments for the agent model (an option: KEY=VALUE, repeatable): temperature=0, "
        "max_tokens=2048, seed=1, timeout=60 (default 120 s), max_retries=3 (default 6)",
    ),
    Setting(
        "summary_model_kwargs",
        "summary_model_kwargs",
        EVERY,
        "models",
        {"action": "append", "metavar": "KEY=VALUE"},
        "the same for the summarizer (default: the agent's when both use the same endpoint)",
    ),
    Setting(
        "seed",
        "seed",
        EVERY,
        "run",
        {"type": int, "default": 0},
        "seed of the reference summarizer's loss (trial t uses seed+t; default 0)",
    ),
    Setting(
        "case_budget",
        "case_budget",
        LIMITS,
        "live limits",
        {"type": finite_float, "metavar": "SECONDS"},
        "a live case's total seconds, retries and waits included; past it the case ends in ERROR (default 900)",
    ),
    Setting(
        "max_rps",
        "max_rps",
        LIMITS,
        "live limits",
        {"type": finite_float, "metavar": "N"},
        "live: at most this many model requests per second across every case of the run, agent and summarizer "
        "together (LangChain's InMemoryRateLimiter, shared)",
    ),
    Setting(
        "max_tpm",
        "max_tpm",
        LIMITS,
        "live limits",
        {"type": finite_float, "metavar": "N"},
        "live: at most this many input tokens per minute across every case of the run, agent and summarizer "
        "together (approximate counts, checked before each request)",
    ),
    Setting(
        "stop_after_errors",
        "stop_after_errors",
        LIMITS,
        "live limits",
        {"type": int, "metavar": "N"},
        "stop early, exit 4, when this many cases in a row (in the order they finish) end in ERROR with the same "
        "provider error and none succeeded in between; rows written are kept (default 3; 0: never stop)",
    ),
)
"""Every setting a door takes (see the module docstring). Door-specific options (``--trials``, ``--concurrency``,
``--processes``, ``--out``, ``--run-id``; a spec's ``trials``, ``concurrency``; `evaluate`'s ``runs_dir``, ``workers``)
stay with their door."""


def settings_of(door: str, group: str | None = None) -> tuple[Setting, ...]:
    """The settings ``door`` takes (of ``group`` only, when named), in declaration order."""
    return tuple(s for s in SETTINGS if door in s.doors and (group is None or s.group == group))


def add_cli_options(parser: argparse.ArgumentParser, door: str, groups: Sequence[str]) -> None:
    """``door``'s settings of ``groups`` as argparse options, one argument group each."""
    for group in groups:
        g = parser.add_argument_group(group)
        for setting in settings_of(door, group):
            g.add_argument(setting.flag, **{"default": None, **setting.option})


def add_pytest_options(group: Any, *, prefix: str = "--", exclude: Sequence[str] = ()) -> None:
    """Every pytest-door setting as a pytest option of ``group`` (``parser.getgroup(...)``), named ``prefix`` + the
    setting (``--compaction-`` for the plugin: ``--compaction-summary-base-url``); ``exclude``: settings the caller
    declares itself (the plugin's ``--compaction-strategy`` is the compactor that turns it on)."""
    for setting in (s for s in settings_of("pytest") if s.name not in exclude):
        group.addoption(prefix + setting.flag[2:], **{"default": None, **setting.option})


def endpoints(
    *,
    base_url: str | None = None,
    summary_base_url: str | None = None,
    model_kwargs: Sequence[str] | Mapping[str, Any] | None = None,
    summary_model_kwargs: Sequence[str] | Mapping[str, Any] | None = None,
    max_rps: float | None = None,
    max_tpm: float | None = None,
    where: str | None = None,
) -> tuple[Any, Any]:
    """(agent Endpoint, summary Endpoint) from the endpoint settings, the same at every door: model kwargs as
    ``KEY=VALUE`` texts (an option) or a mapping (Python, a spec: each value as JSON); the summarizer shares the
    agent's endpoint unless told otherwise (its own URL, or its own kwargs: given, even empty, they replace the
    agent's), and both share the run's limits (`with_run_limits`). ``where``: the spec file the settings come from,
    so that an error names its key (``<where>: model_kwargs``) rather than the option."""
    from harness.agent.endpoints import Endpoint, check_base_url, parse_model_kwargs, with_run_limits

    def named(key: str) -> str:
        return f"{where}: {key}" if where is not None else "--" + key.replace("_", "-")

    def kwargs(value: Sequence[str] | Mapping[str, Any] | None, key: str) -> dict[str, Any]:
        if isinstance(value, Mapping):
            return parse_model_kwargs([f"{k}={json.dumps(v)}" for k, v in value.items()], named(key))
        return parse_model_kwargs(list(value) if value else None, named(key))

    check_base_url(base_url, named("base_url"))
    check_base_url(summary_base_url, named("summary_base_url"))
    agent_kwargs = kwargs(model_kwargs, "model_kwargs")
    agent = Endpoint(base_url, agent_kwargs)
    summary = agent
    if summary_base_url is not None or summary_model_kwargs is not None:
        summary_kwargs = (
            kwargs(summary_model_kwargs, "summary_model_kwargs") if summary_model_kwargs is not None else agent_kwargs
        )
        summary = Endpoint(summary_base_url or base_url, summary_kwargs)
    return with_run_limits((agent, summary), max_rps=max_rps, max_tpm=max_tpm)
