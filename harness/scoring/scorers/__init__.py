"""Scorers: ``(trace, scenario) -> [Score]``, read from the trace alone.

The package: `types` (Score, roles, outcomes), `shared` (the checks every case gets; `goal.drift_scores` adds the goal-drift checks for a case with steps), one module per family
(`needle`, `goal`, `mechanisms`, `facts` for retention through rounds, `probes` for questions about typed facts;
`view` is where a thing is in a request) and `registry` (scorer sets, `score_case`, `outcome`). This face exports what a
user may import.

A score's key is also its LangSmith feedback key and its column in results; keys are
stable and never renamed. Each score has one of three roles:

- ``validity``: did the case test what it claims? (something was compacted, the needle
  was out of view, the file's argument was clipped, ...). A case that fails one is
  INVALID: counted in no rate, reported with the reason.
- ``check``: a pass/fail check the eval asserts on a valid case.
- ``measure``: a measurement reported beside them.

The roles and the outcomes are `Literal` types (`Role`, `Outcome`, declared with the result row in `harness.rows`):
mypy holds every place that writes one to the five outcomes and three roles.

`outcome` turns a case's scores into PASS, FAIL or INVALID, or ERROR when the run ended
in a provider error after every retry (it measured nothing about compaction, so it
counts in no rate either). Evals assert validity before anything else.
"""

from __future__ import annotations

from harness.scoring.scorers.facts import CLIFF_THRESHOLD, cliff_round, retention_scores, survival_by_round
from harness.scoring.scorers.goal import DRIFT_KEYS, drift_scores, goal_scores
from harness.scoring.scorers.mechanisms import eviction_scores, overflow_scores, subagent_scores, truncation_scores
from harness.scoring.scorers.needle import carries_answer, chain_length_reached, needle_scores
from harness.scoring.scorers.probes import fact_records, probe_scores
from harness.scoring.scorers.registry import (
    ANY_KIND,
    NEEDS_COMPACTION,
    SCORER_SETS,
    ScorerFn,
    load_installed_scorers,
    outcome,
    score_case,
    scorer,
    scorer_sets,
    scores_by_key,
    shared_scores,
)
from harness.scoring.scorers.shared import (
    MIN_SUMMARY_CHARS,
    compacted,
    is_clarification_request,
    run_completed,
    structural_issues,
    structure_ok,
    summaries_ok,
    summarizer_attempts,
    summary_defects,
    unfinished_turns,
)
from harness.scoring.scorers.types import (
    CHECK,
    ERROR,
    FAIL,
    GATING,
    INVALID,
    KNOWN_UPSTREAM,
    MEASURE,
    OUTCOMES,
    PASS,
    ROLES,
    VALIDITY,
    Outcome,
    Role,
    Score,
)

__all__ = [
    "ANY_KIND",
    "CHECK",
    "CLIFF_THRESHOLD",
    "DRIFT_KEYS",
    "ERROR",
    "FAIL",
    "GATING",
    "INVALID",
    "KNOWN_UPSTREAM",
    "MEASURE",
    "MIN_SUMMARY_CHARS",
    "NEEDS_COMPACTION",
    "OUTCOMES",
    "PASS",
    "ROLES",
    "SCORER_SETS",
    "Outcome",
    "Role",
    "load_installed_scorers",
    "scorer_sets",
    "VALIDITY",
    "Score",
    "ScorerFn",
    "carries_answer",
    "chain_length_reached",
    "cliff_round",
    "compacted",
    "drift_scores",
    "eviction_scores",
    "fact_records",
    "goal_scores",
    "is_clarification_request",
    "needle_scores",
    "outcome",
    "overflow_scores",
    "probe_scores",
    "retention_scores",
    "run_completed",
    "score_case",
    "scorer",
    "shared_scores",
    "scores_by_key",
    "structural_issues",
    "structure_ok",
    "subagent_scores",
    "summaries_ok",
    "summarizer_attempts",
    "summary_defects",
    "survival_by_round",
    "truncation_scores",
    "unfinished_turns",
]
