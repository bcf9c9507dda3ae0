"""Which scorers score a case: scorer sets, registration per case kind, `score_case`, the control arm, and
`outcome` (PASS, FAIL, INVALID or ERROR from a case's scores)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import lru_cache
from typing import Any

from harness.errors import ConfigError
from harness.rows import Outcome
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.boundary import boundary_scores
from harness.scoring.scorers.cache import cache_scores
from harness.scoring.scorers.estimate import estimate_scores
from harness.scoring.scorers.facts import retention_scores
from harness.scoring.scorers.goal import drift_scores, goal_eval_scores
from harness.scoring.scorers.loops import loop_scores
from harness.scoring.scorers.mechanisms import eviction_scores, overflow_scores, subagent_scores, truncation_scores
from harness.scoring.scorers.media import blob_scores, parity_scores
from harness.scoring.scorers.needle import chain_length_reached, needle_scores
from harness.scoring.scorers.parent import parent_scores
from harness.scoring.scorers.probes import probe_scores
from harness.scoring.scorers.redo import redo_eval_scores
from harness.scoring.scorers.session import session_scores
from harness.scoring.scorers.shared import (
    run_completed,
    structure_ok,
    summaries_ok,
)
from harness.scoring.scorers.state import history_scores, long_id_scores, pasted_scores, todo_scores
from harness.scoring.scorers.summary_shape import summary_shape_scores
from harness.scoring.scorers.survives import survives_scores
from harness.scoring.scorers.types import CHECK, ERROR, FAIL, GATING, INVALID, KNOWN_UPSTREAM, MEASURE, PASS, VALIDITY, Score
from harness.trace.schema import Trace

ScorerFn = Callable[[Trace, Scenario], "Score | list[Score]"]
_REGISTRY: dict[str, dict[str, list[ScorerFn]]] = {}
ANY_KIND = "*"


def scorer(*kinds: str, scorer_set: str = "default") -> Callable[[ScorerFn], ScorerFn]:
    """Register ``fn(trace, scenario) -> Score | [Score]`` for the case kinds it scores (``*``: any kind) in a scorer
    set. ``score_case`` runs the shared checks, then every scorer registered for the case's kind in that set, in
    registration order. Adding a scorer is this decorator on one function (and its unit test)."""

    def register(fn: ScorerFn) -> ScorerFn:
        for kind in kinds or (ANY_KIND,):
            _REGISTRY.setdefault(scorer_set, {}).setdefault(kind, []).append(fn)
        return fn

    return register


scorer("needle")(needle_scores)
scorer("chain")(chain_length_reached)
scorer("chain")(needle_scores)
scorer("goal")(goal_eval_scores)
scorer("truncation")(truncation_scores)
scorer("probe")(probe_scores)
scorer("session")(session_scores)
scorer(scorer_set="eviction")(eviction_scores)
scorer(scorer_set="overflow")(overflow_scores)
scorer(scorer_set="subagent")(subagent_scores)
scorer("probe", "needle", "chain", scorer_set="retention")(retention_scores)
scorer(scorer_set="history")(history_scores)
scorer("needle", scorer_set="longid")(long_id_scores)
scorer(scorer_set="pasted")(pasted_scores)
scorer(scorer_set="todos")(todo_scores)
scorer(scorer_set="parity")(parity_scores)
scorer(scorer_set="blobs")(blob_scores)
scorer(scorer_set="parent")(parent_scores)
scorer(scorer_set="redo")(redo_eval_scores)
scorer(scorer_set="survives")(todo_scores)  # the plan's checks (todos_planned, todos_reach_model) beside the audit
scorer(scorer_set="survives")(survives_scores)
scorer(scorer_set="notsummary")(summary_shape_scores)
scorer(scorer_set="loops")(loop_scores)
scorer(scorer_set="cache")(cache_scores)
scorer(scorer_set="boundary")(boundary_scores)
scorer(scorer_set="estimate")(estimate_scores)
SCORER_SETS = tuple(_REGISTRY)  # the built-in sets; a result row records which one scored it (``scorers``)
SCORER_GROUP = "compaction_harness.scorers"


@lru_cache(maxsize=1)
def load_installed_scorers() -> tuple[str, ...]:
    """Import the scorer modules installed packages declare (entry-point group ``compaction_harness.scorers``, each
    a module that registers its functions with `scorer`), once; the entry points' names. Raises ConfigError naming
    the entry point when one does not import. Called on first use, never at import: a scorer module imports this
    package's face, which must be whole by then."""
    from importlib.metadata import entry_points

    loaded = []
    for ep in sorted(entry_points(group=SCORER_GROUP), key=lambda e: (e.name, e.value)):
        try:
            ep.load()
        except Exception as exc:  # noqa: BLE001 - whatever the package raised on import, name the entry point
            raise ConfigError(
                f"scorers: entry point {ep.name!r} = {ep.value!r} (group {SCORER_GROUP}) does not load "
                f"({type(exc).__name__}: {exc})"
            ) from None
        loaded.append(ep.name)
    return tuple(loaded)


def scorer_sets() -> tuple[str, ...]:
    """Every scorer set: the built-in ones, then those installed packages' scorers register."""
    load_installed_scorers()
    return tuple(_REGISTRY)


def shared_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The checks every case gets, whatever its kind or scorer set: the run finished (every turn, none ending in a
    request for clarification), requests well formed, summaries usable, and, for a case with steps, the goal-drift
    checks (`goal.drift_scores`: no clarification request, no premature stop, every expected step done)."""
    return [run_completed(trace), structure_ok(trace), summaries_ok(trace), *drift_scores(trace, scenario)]


def score_case(trace: Trace, scenario: Scenario, scorers: str = "default") -> list[Score]:
    """Scores for one case: the shared checks (`shared_scores`), then the scorers registered for its kind in the
    scorer set. A registered scorer never scores a shared key again (ValueError names it)."""
    if scorers not in scorer_sets():
        raise ValueError(f"unknown scorer set {scorers!r}; known: {', '.join(_REGISTRY)}")
    scores = shared_scores(trace, scenario)
    shared = {s.key for s in scores}
    by_kind = _REGISTRY[scorers]
    for fn in by_kind.get(scenario.kind, by_kind.get(ANY_KIND, [])):
        out = fn(trace, scenario)
        out = out if isinstance(out, list) else [out]
        again = [s.key for s in out if s.key in shared]
        if again:
            raise ValueError(f"scorer {getattr(fn, '__name__', fn)!r} scores the shared key(s) {again}: they are scored once")
        scores += out
    if trace.config.get("strategy") == "none":
        scores = [_as_control_arm(sc) for sc in scores]
    return scores


NEEDS_COMPACTION = (
    "compacted",
    "needle_summarized_away",
    "chain_length_reached",
    "goal_continued_after_summary",
    "questions_out_of_view",
    "facts_left_view",
    "compacted_at_cut",
    "cache_compaction_followed",
    "cache_reread_after_compaction",
    "cut_at_parallel_calls",
    "cut_made",
    "system_prompt_kept",
)
"""Scores that ask whether compaction happened or how the agent went on after it. Under the ``none`` strategy (the
control arm) nothing is compacted by design, so they are measures there: the arm's PASS / FAIL is the task itself
with the whole history in view, the reference the other strategies are compared with."""


def _as_control_arm(score: Score) -> Score:
    if score.key not in NEEDS_COMPACTION:
        return score
    return Score(score.key, score.value, MEASURE, f"(control arm: nothing is compacted by design) {score.explanation}")


def scores_by_key(scores: list[Score]) -> dict[str, Score]:
    """The scores by key."""
    return {s.key: s for s in scores}


def outcome(
    scores: list[Score], error: dict[str, Any] | None = None, known_upstream: Collection[str] = ()
) -> tuple[Outcome, list[str]]:
    """PASS, FAIL, INVALID, ERROR or KNOWN_UPSTREAM for a case, and the keys (or, for ERROR, the cause) that decided it.

    A run that ended in a provider error (``error["provider_error"]``, see `harness.agent.live`) is
    ERROR: an outage is not a finding about compaction. Any other run that did not complete (``run_completed``
    failed: it raised, or a turn ended in a request for clarification) is FAIL (that is the finding, whatever the
    run did not get to); otherwise a failed validity
    score makes the case INVALID (it did not test what it claims, so it counts in no
    rate); otherwise any failed check is a FAIL, unless every failed check is in ``known_upstream`` (the eval's
    declared known upstream failures, `EvalSuite.known_upstream`): then the case is KNOWN_UPSTREAM.
    """
    if error and error.get("provider_error"):
        from harness.agent.live import error_cause

        return ERROR, [error_cause(error)]
    failed = [s for s in scores if s.role in GATING and not s.value]
    if any(s.key == "run_completed" for s in failed):
        return FAIL, [s.key for s in failed if s.role == CHECK]
    invalid = [s.key for s in failed if s.role == VALIDITY]
    if invalid:
        return INVALID, invalid
    if not failed:
        return PASS, []
    keys = [s.key for s in failed]
    return (KNOWN_UPSTREAM if all(k in known_upstream for k in keys) else FAIL), keys
