"""How an eval runs a case, defined once: `pytest evals/`, `harness.evaluate` (Python and notebooks) and the validity
matrix all call it.

An eval is a registry entry (`harness.suites.registry.SUITES`). Running case ``c`` as eval ``e`` under a session's
settings (its variant and overrides, its strategy, its models, its seed) means:

1. the configuration: ``e``'s preset when it names one (on the session's window unless it keeps the preset's own),
   with the session's strategy; otherwise the session's configuration;
2. the models: the session's, with the simulated provider limit ``e`` asks for (overflow), and a seeded fault's
   agent options, summarizer, backend, middleware or configuration when one is injected;
3. the run (`harness.agent.runner.run_case`, or `arun_case` on an event loop: one implementation, two callers);
4. the scores of ``e``'s scorer set, and what ``e`` asserts of them (`EvalSuite.required_of`).

`run_eval_case` / `arun_eval_case` do exactly that and write nothing; `harness.runs.executor.EvalSession` adds a run
directory (one row and trace per case), and `harness.api.evaluate` runs every case of one or more evals into one.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import _deepagents_adapter as da
from harness.agent.assembly import AgentSpec
from harness.agent.endpoints import DEFAULT_CASE_BUDGET_S
from harness.agent.models import ModelChoice, choose_models
from harness.agent.runner import arun_case, offline_skip_reason, run_case_for
from harness.compaction.config import DEFAULT_PRESET, DEFAULT_STRATEGY, CompactionConfig
from harness.compaction.variants import make_config
from harness.rows import ResultRow
from harness.scenarios.schema import Scenario, all_scenario_files, load_scenarios, select
from harness.scoring.scorers import VALIDITY, Score, score_case, scores_by_key
from harness.suites import replay
from harness.suites.eval_suite import EvalSuite
from harness.suites.registry import SUITES
from harness.trace.schema import Trace

if TYPE_CHECKING:
    from harness.agent.assembly import AgentSpec
    from harness.suites.faults import SeededFault


class NotRun(Exception):
    """The case is not run, and why: the eval does not apply to the strategy, or an offline run cannot do it. pytest
    reports it as a skip; `evaluate` lists it."""


@dataclass(frozen=True)
class Settings:
    """What a session fixes for every case: the configuration (variant, overrides, strategy), the models, the seed,
    the per-case budget and the user's own agent assembly (`harness.agent.assembly`; None: the harness's own agent)."""

    config: CompactionConfig
    models: ModelChoice
    seed: int = 0
    case_budget_s: float | None = None
    agent: AgentSpec | None = None

    @property
    def budget_s(self) -> float:
        """The per-case budget every case runs under: the session's, or the default (`DEFAULT_CASE_BUDGET_S`)."""
        return self.case_budget_s if self.case_budget_s is not None else DEFAULT_CASE_BUDGET_S

    @classmethod
    def offline(cls, variant: str = DEFAULT_PRESET, *, strategy: str | None = None, seed: int = 0) -> Settings:
        """The reference models under ``variant`` (a preset or a variant file) and ``strategy``."""
        config = make_config(variant, strategy=strategy)
        return cls(config, choose_models(None, None, window=config.window, seed=seed), seed)


def eval_setup(
    suite: EvalSuite, settings: Settings, fault: SeededFault | None = None
) -> tuple[CompactionConfig, ModelChoice, dict[str, Any]]:
    """The configuration, models and run options eval ``suite`` runs a case with under ``settings`` (steps 1 and 2 of
    the module docstring); ``fault``: a seeded fault injected into them (the validity matrix)."""
    from harness.agent.models import in_process_model

    config, models = settings.config, settings.models
    if suite.preset is not None:
        config = replace(make_config(suite.preset), strategy=config.strategy, custom_strategy=config.custom_strategy)
        if not suite.keep_preset_window:
            config = replace(config, window=settings.config.window)
    if fault is not None and fault.config:  # a fault in the configuration itself (keep-above-trigger)
        config = replace(config, **fault.config)
    options = dict(fault.agent_options or {}) if fault is not None else {}
    if suite.hard_limit is not None or options:
        agent = in_process_model("reference:agent", "agent", window=config.window, hard_input_limit=suite.hard_limit, **options)
        name = f"fault:{fault.name}" if fault is not None and options else f"reference-agent+limit-{suite.hard_limit}"
        models = replace(models, agent=agent, agent_name=name, simulated=True)
        if suite.hard_limit is not None:
            config = replace(config, name=suite.name)
    kwargs: dict[str, Any] = {}
    if fault is not None:
        if fault.summarizer:
            models = replace(models, summarizer=fault.summarizer(), summarizer_name=f"fault:{fault.name}", simulated=True)
        if fault.backend:
            kwargs["backend"] = fault.backend()
        if fault.middleware:
            kwargs["middleware"] = fault.middleware()
    if suite.subagent_window is not None:
        kwargs["subagent_models"] = {"general-purpose": _subagent_model(suite.subagent_window, config, models, fault)}
    return config, models, kwargs


def _subagent_model(window: int, config: CompactionConfig, models: ModelChoice, fault: SeededFault | None) -> Any:
    """The model of an eval's own subagent (`EvalSuite.subagent_window`): the model under test declaring ``window``;
    offline the reference agent, refusing a request above it as a provider would (the agent's seeded-fault options
    too). The subagent-parent-window fault declares the parent's window instead, while the limit stays."""
    from harness.agent.models import in_process_model, is_simulated
    from harness.compaction.strategies.base import with_window

    declared = config.window if fault is not None and fault.subagent_declares_parent_window else window
    if "agent" not in models.endpoints and is_simulated(models.agent):  # the in-process reference agent
        options = dict(fault.agent_options or {}) if fault is not None else {}
        return in_process_model("reference:agent", "agent", window=declared, hard_input_limit=window, **options)
    return with_window(models.agent, declared)


@dataclass
class CaseResult:
    """One case run as one eval: its scenario, trace and scores, the eval's name, the strategy it ran under, and the
    result row when a session recorded it."""

    scenario: Scenario
    scores: dict[str, Score]
    row: ResultRow | None = None
    trace: Trace | None = None
    strategy: str = DEFAULT_STRATEGY
    eval_name: str | None = None

    def required(self, name: str | None = None) -> tuple[str, ...]:
        """What eval ``name`` (default: the one it ran as) asserts of this case, validity scores first."""
        keys = SUITES[name or self.eval_name or self.scenario.kind].required_of(self.strategy, set(self.scores))
        return tuple(sorted(keys, key=lambda k: self.scores[k].role != VALIDITY if k in self.scores else False))

    def failed(self, name: str | None = None) -> list[str]:
        """The keys of `required` that are missing or false."""
        return [k for k in self.required(name) if k not in self.scores or not self.scores[k].value]

    def require(self, key: str) -> None:
        """Assert one validity score or check, failing with its explanation."""
        score = self.scores.get(key)
        assert score is not None, f"{self.scenario.id}: no score {key!r}"
        label = "INVALID (the case did not test what it claims)" if score.role == VALIDITY else "failed"
        assert score.value, f"{self.scenario.id}: {key} {label}: {score.explanation}"

    def require_eval(self, name: str | None = None) -> None:
        """Assert everything eval ``name`` asserts (its ``required`` in `harness.suites.registry`, the list the validity
        matrix proves): its validity scores first, then its checks, in order."""
        for key in self.required(name):
            self.require(key)


@contextlib.contextmanager
def quiet_deepagents() -> Iterator[None]:
    """deepagents logs and warns about the failures a fault injects (history not offloaded, ...): expected there.
    What the run did is in its trace and scores; the console stays readable."""
    logger = logging.getLogger("deepagents")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def offline_problem(scenario: Scenario, models: ModelChoice) -> str | None:
    """Why ``models`` cannot run ``scenario`` as it is asked (a session case: its probes, `replay.session_turns`), or
    None: the one rule every door reads (`prepared`, and a grid's offline skip before it plans its cells)."""
    return offline_skip_reason(replay.session_turns(scenario, models), models)


def prepared(
    name: str | None, scenario: Scenario, settings: Settings, fault: SeededFault | None
) -> tuple[EvalSuite | None, CompactionConfig, ModelChoice, dict[str, Any]]:
    """Eval ``name``'s setup for ``scenario`` (`eval_setup`; ``name`` None: no eval, the session's configuration and
    models as they are). Raises NotRun when the eval does not apply to the strategy, the installed deepagents lacks a
    feature its preset needs, or the offline models cannot run the case."""
    suite = SUITES[name] if name is not None else None
    reason = suite.not_applicable_reason(settings.config.strategy) if suite is not None else None
    if reason:
        raise NotRun(reason)
    if suite is not None:
        config, models, kwargs = eval_setup(suite, settings, fault)
    else:
        config, models, kwargs = settings.config, settings.models, {}
    reason = da.binary_offload_missing() if config.offload_binary else None
    if reason:  # a feature the installed deepagents lacks: listed as not run with the reason, never a FAIL
        raise NotRun(f"eval {name}: {reason}")
    reason = offline_problem(scenario, models)
    if reason:
        raise NotRun(f"{scenario.id}: {reason}")
    if suite is not None and suite.agent is not None:  # the eval's own assembly (its items are what it audits)
        if settings.agent is not None:
            raise NotRun(f"eval {name} runs on its own agent assembly ({suite.agent}), not --agent {settings.agent}")
        kwargs = {**kwargs, "agent": suite.agent}
    elif settings.agent is not None:  # the user's own assembly, built for the case by the runner
        kwargs = {**kwargs, "agent": settings.agent}
    return suite, config, models, kwargs


def _result(suite: EvalSuite | None, scenario: Scenario, config: CompactionConfig, trace: Trace) -> CaseResult:
    scores = score_case(trace, scenario, suite.scorers if suite is not None else "default")
    return CaseResult(scenario, scores_by_key(scores), None, trace, config.strategy, suite.name if suite is not None else None)


def run_eval_case(
    name: str | None,
    scenario: Scenario,
    settings: Settings,
    *,
    fault: SeededFault | None = None,
    run_id: str = "",
    trial: int = 0,
) -> CaseResult:
    """Run ``scenario`` as eval ``name`` under ``settings`` (and ``fault``), and score it with the eval's scorer set
    (``name`` None: as no eval, under the session's configuration, scored with the default set). Raises NotRun when
    the eval does not apply to the strategy or the offline models cannot run the case."""
    suite, config, models, kwargs = prepared(name, scenario, settings, fault)
    turned, config, session = _session(scenario, config, models, settings.agent, suite)  # a session case: turns, window
    control = None
    if session is not None and suite is not None and suite.control:  # the control answers first (step 3 of replay's)
        control = replay.run_control(turned, session["first_call_tokens"], **_control_settings(settings, run_id, trial))
    with quiet_deepagents() if fault is not None else contextlib.nullcontext():
        # a live model runs on the event loop under the per-case budget (`run_case_for`), offline in this thread
        trace = run_case_for(
            turned, config, models, budget_s=settings.budget_s, run_id=run_id, trial=trial, seed=settings.seed, **kwargs
        )
    return _result(suite, scenario, config, _recorded(trace, session, control, turned))


def _session(
    scenario: Scenario, config: CompactionConfig, models: ModelChoice, agent: AgentSpec | None, suite: EvalSuite | None
) -> tuple[Scenario, CompactionConfig, dict[str, Any] | None]:
    """A case replayed from its cut (`harness.suites.replay.replayed`: a session case, or a recorded prefix an eval with
    a control carries on): its turns and window (measured on the user's assembly when ``agent`` names one); any other
    case as it is, with no record."""
    if not replay.replayed(scenario, suite is not None and suite.control):
        return scenario, config, None
    scenario = replay.session_turns(scenario, models)
    config, session = replay.session_config(config, scenario, agent)
    return scenario, config, session


def _control_settings(settings: Settings, run_id: str, trial: int) -> dict[str, Any]:
    """What a session's control runs with: the session's configuration, models and agent assembly, before any eval or
    fault changes them (a seeded fault never reaches the control), its seed and budget, the run and trial."""
    return {
        "config": settings.config,
        "models": settings.models,
        "agent": settings.agent,
        "seed": settings.seed,
        "budget_s": settings.budget_s,
        "run_id": run_id,
        "trial": trial,
    }


def _recorded(trace: Trace, session: dict[str, Any] | None, control: dict[str, Any] | None, scenario: Scenario) -> Trace:
    """The trace with how a replayed case's window was chosen, the calls of its recorded prefix and what its control
    answered and did (data, scored later)."""
    if session is not None:
        trace.final["session"] = session
        trace.final["prefix_calls"] = replay.prefix_calls(scenario)
    if control is not None:
        trace.final["control"] = control
    return trace


async def arun_eval_case(
    name: str | None,
    scenario: Scenario,
    settings: Settings,
    *,
    fault: SeededFault | None = None,
    run_id: str = "",
    trial: int = 0,
) -> CaseResult:
    """`run_eval_case` on the running event loop (live runs with many cases in flight): the same setup and scoring."""
    suite, config, models, kwargs = prepared(name, scenario, settings, fault)
    turned, config, session = _session(scenario, config, models, settings.agent, suite)
    control = None
    if session is not None and suite is not None and suite.control:
        control = await replay.arun_control(turned, session["first_call_tokens"], **_control_settings(settings, run_id, trial))
    trace = await arun_case(
        turned,
        config,
        models,
        run_id=run_id,
        trial=trial,
        seed=settings.seed,
        budget_s=settings.budget_s,
        **kwargs,
    )
    return _result(suite, scenario, config, _recorded(trace, session, control, turned))


_SCENARIOS: list[Scenario] | None = None


def shipped_scenarios() -> list[Scenario]:
    """Every case of the shipped scenario files (loaded once per process)."""
    global _SCENARIOS
    if _SCENARIOS is None:
        _SCENARIOS = load_scenarios(all_scenario_files())
    return _SCENARIOS


_SESSIONS: dict[tuple[str, ...], list[Scenario]] = {}


def session_scenarios(sessions: Sequence[str | Path]) -> list[Scenario]:
    """The cases of the session datasets ``sessions`` (`harness import` writes them), loaded once per process."""
    key = tuple(str(p) for p in sessions)
    if key not in _SESSIONS:
        _SESSIONS[key] = load_scenarios(list(key))
    return _SESSIONS[key]


def find_case(case_id: str, sessions: Sequence[str | Path] = ()) -> Scenario:
    """A case by id: one of the session datasets ``sessions``, a shipped one, or a generated one
    (`harness.scenarios.generate.generated_case`)."""
    from harness.scenarios.generate import generated_case

    mine = next((s for s in session_scenarios(sessions) if s.id == case_id), None) if sessions else None
    if mine is not None:
        return mine
    found = next((s for s in shipped_scenarios() if s.id == case_id), None)
    return found if found is not None else generated_case(case_id)


def eval_cases(name: str, sessions: Sequence[str | Path] = ()) -> list[Scenario]:
    """The cases eval ``name`` runs: every shipped case of its kind, or the ids its entry lists; for an eval that takes
    a user's cases (`EvalSuite.user_cases`: the session eval), the cases of its kind in the session datasets
    ``sessions`` when any are given (every door: `harness run --datasets`, a spec's ``scenarios.datasets``, pytest's
    ``--sessions``, ``harness.evaluate(sessions=...)``)."""
    suite = SUITES[name]
    if sessions and suite.user_cases:
        return select(session_scenarios(sessions), kind=suite.kind)
    if suite.kind:
        return select(shipped_scenarios(), kind=suite.kind)
    return [find_case(case_id) for case_id in suite.case_ids]


def eval_case_ids(name: str, sessions: Sequence[str | Path] = ()) -> list[str]:
    """The ids of `eval_cases`."""
    suite = SUITES[name]
    if not sessions and not suite.kind:
        return list(suite.case_ids)  # generated cases by id: not built to be listed
    return [c.id for c in eval_cases(name, sessions)]
