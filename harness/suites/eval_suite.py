"""What an eval is: the `EvalSuite` entry `harness.suites.registry.SUITES` holds one of per eval, the strategy sets and
check groups entries share, and the upstream issues they cite.

Data only, as the table is: nothing here runs an agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ALL_STRATEGIES = "all"
"""``strategies`` value for an eval that applies to every compaction strategy."""

DEEPAGENTS = ("deepagents-summarization",)
SUMMARIZING_OR_CONTROL = ("deepagents-summarization", "langchain-summarization", "hybrid", "none")
SUMMARIZING = SUMMARIZING_OR_CONTROL[:-1]
CUTTING = (*SUMMARIZING_OR_CONTROL, "sliding-window")
"""The strategies whose cut the harness makes with LangChain's code (a summary, a trimmed window), and the control;
masking leaves every message in place, and a provider's native compaction cuts on the server (not this cut)."""

DEEPAGENTS_6503 = "https://github.com/langchain-ai/deepagents/issues/6503"
"""deepagents#6503: the compact_conversation tool skips the inline-media offload automatic summarization does (open,
present in 0.7.32)."""
DEEPAGENTS_4161 = "https://github.com/langchain-ai/deepagents/issues/4161"
"""deepagents#4161: the todo list in state is not re-injected after a summary (closed; 0.7.32 re-injects nothing)."""
LANGCHAIN_39754 = "https://github.com/langchain-ai/langchain/issues/39754"
"""langchain#39754: ``count_tokens_approximately`` assumes four characters a token; Chinese and HTML run 1.4 to 2.1, so
a trigger set by it fires late (present in langchain-core 1.8.3, which deepagents 0.7.32 counts with)."""

DEEPAGENTS_802 = "https://github.com/langchain-ai/deepagents/issues/802"
"""deepagents#802: a subagent's summarization computed from the main agent's model, not its own (open; 0.7.32 builds
a declarative subagent's default from its own model, and checks every request against its model's window)."""
SUBAGENT_SUMMARIZING = ("deepagents-summarization", "langchain-summarization", "hybrid")
"""The strategies whose middleware in deepagents' summarization slot compacts inside a subagent too (the harness gives
a subagent the slot only, as deepagents gives its general-purpose subagent)."""
LANGCHAIN_38352 = "https://github.com/langchain-ai/langchain/issues/38352"
"""langchain#38352: `_find_safe_cutoff_point` keeps a tool result whose call it summarized away (open in 1.5.2)."""
DEER_FLOW_5454 = "https://github.com/bytedance/deer-flow/pull/5454"
"""deer-flow#5454: a system prompt held as message 0 of the state is summarized away with the messages before the cut
(LangChain's `_partition_messages` slices by index; deepagents 0.7.32 and langchain 1.5.2 both)."""

SESSION = None
"""``preset`` value for an eval that runs under the session's own config (``--variant``, ``--trigger``...)."""

COMMON = ("run_completed", "structure_ok", "summaries_ok")
GOAL_KEPT = ("goal_no_clarification", "goal_no_premature_completion", "goal_all_steps_done")
"""The shared goal-drift checks (`scoring.scorers.goal.drift_scores`): every case with steps is scored with them,
whatever its kind or scorer set, and every eval that asserts ``run_completed`` asserts them on such a case."""
PROBE_CHECKS = (
    "probe_recall_correct",
    "probe_continuation_correct",
    "probe_decision_correct",
    "probe_artifact_exact",
    "no_stale_answer",
)
REDO_CASE = "redo-docs-06-cut-04"
"""The redo eval's case (`harness.scenarios.redo`): six documents to fetch and note, four done before the cut."""
SESSION_CHECKS = ("session_probes_correct", "session_no_stale")
"""The session eval's checks (`harness.scoring.scorers.session`), over the probes its control answered right."""


@dataclass(frozen=True)
class EvalSuite:
    """One eval: its cases, preset, scorer set, the checks it asserts, the strategies and faults it covers."""

    name: str  # the pytest marker
    description: str  # the marker's description in pyproject.toml
    required: tuple[str, ...]  # validity scores and checks the eval asserts
    validity: tuple[str, ...]  # which of ``required`` are validity scores (a failure there is INVALID)
    when_present: tuple[str, ...] = ()  # of ``required``: asserted when the case has them (a probe kind it asks)
    kind: str | None = None  # pytest cases: every dataset case of this kind ...
    case_ids: tuple[str, ...] = ()  # ... or these ids (dataset or generated, see scenarios.generate.generated_case)
    matrix_cases: tuple[str, ...] = ()  # the validity matrix's cases (empty: not in the matrix)
    preset: str | None = SESSION
    keep_preset_window: bool = False  # False: the preset runs on the session's declared window
    scorers: str = "default"  # the scorer set (scoring.scorers.SCORER_SETS)
    strategies: tuple[str, ...] | str = ALL_STRATEGIES
    faults: Mapping[str, str] = field(default_factory=dict)  # seeded fault -> the check that must catch it
    gated: tuple[str, ...] = ()  # the checks the nightly gate holds to the baseline, beside the eval's pass rate
    gated_measures: tuple[str, ...] = ()  # boolean measures (not asserted) the gate holds to the baseline too
    hard_limit: int | None = None  # the simulated provider's input limit (overflow)
    vary_documents: bool = False  # healthy matrix seeds regenerate the case's documents
    injects_faults: bool = False  # every run has a fault injected: a FAIL is the fault detected, which the eval expects
    generated: bool = True  # the pytest plugin generates its test (each case run as the eval, ``required`` asserted),
    # in evals/ and in anyone's repository (`harness check` runs these too); False: a test module of its own in evals/
    known_upstream: Mapping[str, str] = field(default_factory=dict)  # check -> upstream issue URL: a check the
    # installed deepagents fails for any model (a known upstream failure: reported as such, never a pass or a FAIL)
    version: int = 1  # bump when the eval's cases, checks or scoring change meaning: rows record it, the gate compares
    # only rows of the same version (a baseline of version 1 against results of version 2 is refused, not compared)
    control: bool = False  # each case first runs its full-context control (harness.suites.replay): a session's gold
    user_cases: bool = False  # a spec's scenarios.datasets (a user's imported sessions) are its cases, not only shipped ones
    subagent_window: int | None = None  # the eval declares deepagents' general-purpose subagent itself, on the model under
    # test with this smaller window (offline the simulated provider refuses its requests above it: harness.suites.execute)
    agent: str | None = None  # the agent assembly (MODULE:FUNCTION) its cases run on; a session's own --agent is not run

    def __post_init__(self) -> None:
        # The goal-drift checks are shared like run_completed: an eval that asserts the shared checks asserts them
        # too, on the cases that have them (a case with steps); an entry that lists them asserts them always.
        if "run_completed" in self.required:
            extra = tuple(k for k in GOAL_KEPT if k not in self.required)
            object.__setattr__(self, "required", (*self.required, *extra))
            object.__setattr__(self, "when_present", (*self.when_present, *extra))

    def required_for(self, strategy: str) -> tuple[str, ...]:
        """``required`` under ``strategy``: the history-file recovery check becomes the strategy's own recovery
        check (re-calling a cleared tool under masking), and is dropped where the strategy leaves no way back
        (a sliding window, LangChain's summary): there the answer itself is all that can be asked."""
        return _under_strategy(self.required, strategy)

    def required_of(self, strategy: str, scored: set[str] | frozenset[str]) -> tuple[str, ...]:
        """``required_for(strategy)`` for one case scored with the keys ``scored``: the ``when_present`` keys only
        where the case has them (a case asking no decision question has no ``probe_decision_correct``)."""
        return tuple(k for k in self.required_for(strategy) if k in scored or k not in self.when_present)

    def gated_for(self, strategy: str) -> tuple[str, ...]:
        """``gated`` under ``strategy``, mapped as ``required_for`` maps it (a custom strategy keeps the keys)."""
        return _under_strategy((*self.gated, *self.gated_measures), strategy)

    def applies_to(self, strategy: str) -> bool:
        return self.strategies == ALL_STRATEGIES or strategy in self.strategies

    def not_applicable_reason(self, strategy: str) -> str | None:
        if self.applies_to(strategy):
            return None
        return (
            f"the {self.name} eval applies to {', '.join(self.strategies)}, not {strategy}: "
            f"it tests a mechanism that strategy does not have"
        )


def _under_strategy(keys: tuple[str, ...], strategy: str) -> tuple[str, ...]:
    if strategy == "none":  # the control arm: nothing is compacted by design, so those keys are measures there
        from harness.scoring.scorers import NEEDS_COMPACTION

        return tuple(k for k in keys if k not in NEEDS_COMPACTION and k != "needle_via_history")
    if "needle_via_history" not in keys:
        return keys
    from harness.compaction.strategies.registry import INFO

    info = INFO.get(strategy)
    if info is None:  # a strategy this version does not know (an old row's): keep the keys as written
        return keys
    if info.recovery_check is None:  # no way back under this strategy: only the answer itself is asked for
        return tuple(k for k in keys if k != "needle_via_history")
    return tuple(info.recovery_check if k == "needle_via_history" else k for k in keys)


DROPPED = {"tool-result-dropped": "structure_ok"}
PARITY_CHECKS = ("media_in_summary", "media_in_archive", "media_offloaded", "media_recalled")  # scoring.scorers.media
MANUAL = "manual_"  # their prefix when the compaction was the compact_conversation tool's
