"""The eval suites: one entry per eval, the only place an eval is defined.

An entry is the eval's pytest marker (its name, with the marker's description), the cases
it runs, the preset it runs under, the strategies it applies to, the scorer set that
scores it, the keys it asserts (validity scores first, then checks) and the seeded faults
it must catch, each with the check that must catch it. Everything that needs to know what
an eval is reads this table:

- the pytest plugin (`harness.pytest_plugin`) generates a test per case of every ``generated`` entry, asserting
  ``required`` through ``CaseResult.require_eval``; the others' modules in ``evals/`` take their cases from it;
- ``harness validity`` (``suites/validity.py``) runs ``matrix_cases`` healthy and under each
  fault in ``faults``, and checks that the named check is what fails;
- the nightly gate (``analysis/regress.py``) holds each eval's pass rate and its ``gated`` checks to the
  baseline;
- the validity report, ``harness bench``'s suite list and the marker test read it too.

Data only: this module imports nothing that runs an agent, so a report can read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from harness.compaction.config import SUBAGENT_WINDOW
from harness.suites.eval_suite import (
    COMMON,
    CUTTING,
    DEEPAGENTS,
    DEEPAGENTS_6503,
    DEER_FLOW_5454,
    DROPPED,
    GOAL_KEPT,
    LANGCHAIN_39754,
    MANUAL,
    PARITY_CHECKS,
    PROBE_CHECKS,
    REDO_CASE,
    SESSION_CHECKS,
    SUBAGENT_SUMMARIZING,
    SUMMARIZING,
    SUMMARIZING_OR_CONTROL,
    EvalSuite,
)

SUITES: Mapping[str, EvalSuite] = MappingProxyType(
    {
        s.name: s
        for s in (
            EvalSuite(
                "needle",
                "needle-recovery evals (a fact summarized away must be recovered from the offloaded history)",
                required=(*COMMON, "compacted", "needle_summarized_away", "needle_correct", "needle_via_history"),
                validity=("compacted", "needle_summarized_away"),
                kind="needle",
                matrix_cases=("needle-h24k-d000", "needle-h32k-d025"),
                faults={"history-unreadable": "needle_via_history", "offload-disabled": "needle_via_history", **DROPPED},
                gated=("needle_correct", "needle_via_history"),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "goal",
                "goal-preservation evals (after each summary the agent keeps working on its task)",
                required=(*COMMON, "compacted", "goal_continued_after_summary", *GOAL_KEPT, "goal_preserved"),
                validity=("compacted",),
                kind="goal",
                matrix_cases=("goal-ledgers-12", "goal-ledgers-16"),
                faults={"task-dropped": "goal_no_clarification", "false-completion": "goal_no_premature_completion", **DROPPED},
                gated=("goal_preserved",),
                version=2,  # issue 31: run_completed fails a turn ending in a clarification; the drift checks cover the whole run
            ),
            EvalSuite(
                "chain",
                "a fact planted early is recoverable after 1, 2, 4 and 8 chained summaries (survival curve in the report)",
                required=(
                    *COMMON,
                    "compacted",
                    "chain_length_reached",
                    "needle_summarized_away",
                    "needle_correct",
                    "needle_via_history",
                ),
                validity=("compacted", "chain_length_reached", "needle_summarized_away"),
                kind="chain",
                matrix_cases=("chain-s2-d000", "chain-s4-d025"),
                strategies=SUMMARIZING_OR_CONTROL,
                faults={"history-unreadable": "needle_via_history", "offload-disabled": "needle_via_history", **DROPPED},
                gated=("needle_correct", "needle_via_history"),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "probe",
                "probe questions after compaction: recall, artifact, continuation and decision (latest value, stale forbidden)",
                required=(
                    *COMMON,
                    "compacted",
                    "questions_out_of_view",
                    *PROBE_CHECKS,
                ),
                validity=("compacted", "questions_out_of_view"),
                when_present=PROBE_CHECKS,
                kind="probe",
                matrix_cases=("probe-decision-override-s7-i1",),
                # A summary prompt with a section for every fact type: without one (deepagents' default) a decision
                # is paged back from the history file, whose first page holds the value it was later changed from.
                # That loss is what the prompt comparison shows; this eval holds the agent's answers.
                preset="typed",
                faults={"summary-drops-decisions": "probe_decision_correct", "stale-answer": "no_stale_answer", **DROPPED},
                gated=PROBE_CHECKS,
                # a measure here (a prompt may lose a kind by design); the gate holds it per arm against the baseline
                gated_measures=("no_survival_cliff",),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "session",
                "a recorded session replayed from its cut: compaction fires at the first call, each probe the full-context "
                "control answers right must be answered right (retained, recovered or lost, per fact type)",
                required=(*COMMON, "compacted_at_cut", "session_probes_valid", *SESSION_CHECKS),
                validity=("compacted_at_cut", "session_probes_valid"),
                when_present=("session_no_stale",),
                kind="session",
                matrix_cases=("session-billing-runbook",),
                faults={"history-unreadable": "session_probes_correct", "stale-answer": "session_no_stale"},
                gated=SESSION_CHECKS,
                control=True,
                user_cases=True,
            ),
            EvalSuite(
                "retention",
                "a compacted fact keeps its latest value in what the agent receives next, round by round (typed prompt)",
                required=(*COMMON, "compacted", "facts_left_view", "facts_retained", "latest_value_kept", "no_survival_cliff"),
                validity=("compacted", "facts_left_view"),
                when_present=("latest_value_kept",),
                kind="probe",
                matrix_cases=("probe-decision-override-s7-i1", "probe-artifact-trail-s7-i0"),
                preset="typed",
                scorers="retention",
                strategies=SUMMARIZING_OR_CONTROL,
                faults={
                    "summary-drops-decisions": "facts_retained",
                    "stale-value-kept": "latest_value_kept",
                    "artifacts-forgotten": "facts_retained",
                    **DROPPED,
                },
                gated=("facts_retained", "latest_value_kept", "no_survival_cliff"),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "eviction",
                "a fact in an evicted tool result comes back by paging read_file on /large_tool_results/",
                required=("run_completed", "structure_ok", "evicted", "needle_correct", "needle_via_eviction_file"),
                validity=("evicted",),
                case_ids=("needle-h24k-d000", "needle-h24k-d050", "needle-h32k-d025", "needle-h40k-d040", "needle-h48k-d010"),
                matrix_cases=("needle-h24k-d000", "needle-h32k-d025"),
                preset="eviction",
                scorers="eviction",
                strategies=DEEPAGENTS,
                faults={"eviction-unreadable": "needle_via_eviction_file", **DROPPED},
                gated=("needle_correct", "needle_via_eviction_file"),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "truncation",
                "a file rewritten after its old write_file argument was clipped is read back first and ends up whole",
                required=(
                    "run_completed",
                    "structure_ok",
                    "args_clipped",
                    "reread_after_clipping",
                    "file_intact",
                    "goal_no_clarification",
                    "goal_no_premature_completion",
                ),
                validity=("args_clipped",),
                kind="truncation",
                matrix_cases=("truncation-report-06", "truncation-edits-08"),
                preset="truncation",
                keep_preset_window=True,
                strategies=DEEPAGENTS,
                vary_documents=True,
                faults={"clipped-args-trusted": "file_intact", "written-file-unreadable": "file_intact", **DROPPED},
                gated=("file_intact",),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "overflow",
                "the provider rejects a request the approximate counter thought fit; fallback summary and retry are recorded",
                required=("run_completed", "structure_ok", "overflowed", "overflow_recovered", *GOAL_KEPT),
                validity=("overflowed",),
                case_ids=("goal-ledgers-24", "goal-ledgers-30"),
                matrix_cases=("goal-ledgers-24",),
                preset="deepagents-85",
                scorers="overflow",
                strategies=DEEPAGENTS,
                hard_limit=36_000,
                faults={"overflow-unrecognized": "overflow_recovered", **DROPPED},
                gated=("overflow_recovered",),
                version=2,  # issue 31: run_completed fails a turn ending in a clarification; the drift checks cover the whole run
            ),
            EvalSuite(
                "subagent",
                "work delegated through the task tool compresses inside the subagent and its report reaches the parent",
                required=("run_completed", "structure_ok", "subagent_compressed", "subagent_results_returned", *GOAL_KEPT),
                validity=("subagent_compressed",),
                case_ids=("delegate-2x8", "delegate-3x7"),
                matrix_cases=("delegate-2x8",),
                scorers="subagent",
                strategies=DEEPAGENTS,
                faults={"subagent-result-lost": "subagent_results_returned", **DROPPED},
                gated=("subagent_results_returned",),
                version=2,  # issue 31: run_completed fails a turn ending in a clarification; the drift checks cover the whole run
            ),
            EvalSuite(
                "faults",
                "summarizer faults (raises, times out, empty, refuses) are recorded with their cause, never passed",
                required=COMMON,
                validity=(),
                case_ids=("needle-h24k-d000", "goal-ledgers-12"),
                matrix_cases=("goal-ledgers-12",),
                strategies=DEEPAGENTS,
                faults={"summarizer-raises": "summaries_ok", "summarizer-empty": "summaries_ok", **DROPPED},
                gated=("summaries_ok",),
                injects_faults=True,
                generated=False,  # evals/test_faults.py: one test per fault, asserting that the fault never passes
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "todos",
                "the plan kept with write_todos reaches the model after every summary and is continued, not lost or restarted",
                required=(
                    "run_completed",
                    "structure_ok",
                    "compacted",
                    "todos_planned",
                    "todos_reach_model",
                    "todos_continued",
                    *GOAL_KEPT,
                ),
                validity=("compacted", "todos_planned"),
                case_ids=("todos-ledgers-08",),
                matrix_cases=("todos-ledgers-08",),
                scorers="todos",
                strategies=DEEPAGENTS,
                faults={"todos-not-updated": "todos_reach_model"},
                gated=("todos_reach_model", "todos_continued"),
                version=2,  # issue 31: run_completed fails a turn ending in a clarification; the drift checks cover the whole run
            ),
            EvalSuite(
                "history",
                "every summary names a history file that exists in the backend and holds the span it summarized away",
                required=(
                    "run_completed",
                    "structure_ok",
                    "compacted",
                    "history_path_named",
                    "history_file_exists",
                    "history_holds_span",
                ),
                validity=("compacted",),
                case_ids=("goal-ledgers-12", "needle-h24k-d000"),
                matrix_cases=("goal-ledgers-12",),
                scorers="history",
                strategies=DEEPAGENTS,
                faults={"history-misplaced": "history_file_exists", "offload-disabled": "history_path_named"},
                gated=("history_holds_span",),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "longid",
                "a large tool result whose tool-call id is very long is still evicted to a file the agent can page (deepagents#5560)",
                required=(
                    "run_completed",
                    "structure_ok",
                    "long_ids_oversized",
                    "long_id_evicted",
                    "needle_correct",
                    "needle_via_eviction_file",
                ),
                validity=("long_ids_oversized",),
                case_ids=("longid-h24k-d000",),
                matrix_cases=("longid-h24k-d000",),
                preset="eviction",
                scorers="longid",
                strategies=DEEPAGENTS,
                faults={"eviction-unwritable": "long_id_evicted"},
                gated=("long_id_evicted",),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "pasted",
                "a pasted document too large for the request is saved to the workspace and re-read after a summary",
                required=(
                    "run_completed",
                    "structure_ok",
                    "compacted",
                    "pasted_evicted",
                    "pasted_out_of_view",
                    "pasted_in_workspace",
                    "needle_correct",
                    "pasted_via_file",
                ),
                validity=("compacted", "pasted_evicted", "pasted_out_of_view"),
                case_ids=("pasted-3k",),
                matrix_cases=("pasted-3k",),
                preset="pasted",
                scorers="pasted",
                strategies=DEEPAGENTS,
                faults={"history-unreadable": "pasted_via_file"},
                gated=("pasted_via_file",),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "parity",
                "manual (compact_conversation) vs automatic compaction of an image: summary, archive and media offload",
                required=(
                    *COMMON,
                    "media_compacted",
                    *PARITY_CHECKS,
                    *(MANUAL + k for k in PARITY_CHECKS),
                ),
                validity=("media_compacted",),
                when_present=(*PARITY_CHECKS, *(MANUAL + k for k in PARITY_CHECKS)),
                case_ids=("media-parity-auto", "media-parity-manual"),
                matrix_cases=("media-parity-auto",),
                preset="media",
                keep_preset_window=True,
                scorers="parity",
                strategies=DEEPAGENTS,
                faults={"media-offload-refused": "media_offloaded", **DROPPED},
                gated=PARITY_CHECKS,
                # deepagents#6503: the tool's compaction keeps no media, so the manual arm fails these for any model
                known_upstream={MANUAL + k: DEEPAGENTS_6503 for k in PARITY_CHECKS},
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "blobs",
                "binary read_file results offloaded to the blob store reach every request; a lost blob is read again",
                required=(
                    "run_completed",
                    "structure_ok",
                    "blob_offloaded",
                    "summarized_after_read",
                    "blob_rehydrated",
                    "reread_after_missing",
                    "media_answers_correct",
                ),
                validity=("blob_offloaded", "summarized_after_read"),
                case_ids=("media-blob-recovery",),
                matrix_cases=("media-blob-recovery",),
                preset="media-blobs",
                keep_preset_window=True,
                scorers="blobs",
                strategies=DEEPAGENTS,
                faults={"blob-deleted": "blob_rehydrated", "missing-blob-ignored": "reread_after_missing"},
                gated=("blob_rehydrated", "reread_after_missing", "media_answers_correct"),
                version=2,  # issue 31: the shared goal-drift checks asserted, a clarification is no finished turn
            ),
            EvalSuite(
                "tokens",
                "approximate vs exact token counts per call; late compaction when the true size passes the window first",
                required=("compacted",),
                validity=("compacted",),
                case_ids=("metrics-20", "needle-h32k-d025"),
                preset="tokens",
                keep_preset_window=True,
                strategies=DEEPAGENTS,
                generated=False,  # evals/test_tokens.py: the skew tables of both cases together
            ),
            EvalSuite(
                "reasoning",
                "reasoning across a summary over harness serve: Claude's bound blocks dropped from kept turns, other "
                "providers' kept, every later request accepted",
                required=(),  # its own keys, scored from the server's verdicts: harness.suites.reasoning (not a trace)
                validity=(),
                case_ids=("goal-ledgers-12",),  # harness.suites.reasoning.CASE, one short case per provider arm
                preset="forced-20",
                strategies=DEEPAGENTS,
                generated=False,  # evals/test_reasoning.py: served arms scored from the server's verdicts
            ),
            EvalSuite(
                "parent",
                "a subagent and its parent: the parent compacts on the call its task's report arrives, the report reaches "
                "its model paired with its call; a subagent with a smaller window never sends a request above it",
                required=(
                    "run_completed",
                    "structure_ok",
                    "parent_compacted_at_task",
                    "subagent_outgrew_window",
                    "task_result_kept",
                    "subagent_window_respected",
                    *GOAL_KEPT,
                ),
                validity=("parent_compacted_at_task", "subagent_outgrew_window"),
                case_ids=("parent-8x8",),
                matrix_cases=("parent-8x8",),
                preset="parent",
                keep_preset_window=True,
                scorers="parent",
                strategies=SUBAGENT_SUMMARIZING,
                subagent_window=SUBAGENT_WINDOW,
                faults={
                    "task-report-cut": "task_result_kept",
                    "subagent-parent-window": "subagent_window_respected",
                    **DROPPED,
                },
                gated=("task_result_kept", "subagent_window_respected"),
                # No known_upstream: 0.7.32 passes both checks under all three strategies. deepagents#802 (a subagent's
                # summarization computed from its parent's model) is still open, but 0.7.32 builds a declarative
                # subagent's default from its own model, and a subagent given its parent's deepagents slot is still
                # held to its own window by the input budget (95 % of request.model's window); LangChain's middleware
                # has no such budget (docs/evals.md, "A subagent and its parent").
            ),
            EvalSuite(
                "redo",
                "work redone after a compaction (repeated calls, rounds to new progress) and the next actions against a "
                "full-context fork of the same state (intent kept)",
                required=(*COMMON, "compacted_at_cut", "intent_comparable", "no_work_redone", "intent_kept"),
                validity=("compacted_at_cut", "intent_comparable"),
                case_ids=(REDO_CASE,),
                matrix_cases=(REDO_CASE,),
                scorers="redo",
                faults={"done-listed-pending": "no_work_redone", **DROPPED},
                gated=("no_work_redone", "intent_kept"),
                control=True,
            ),
            EvalSuite(
                "survives",
                "what is in view on the first call after each compaction against the last call before it: memory, skills, "
                "todos, files read (kept, re-injected, summarized or lost)",
                required=(
                    "run_completed",
                    "structure_ok",
                    "compacted",
                    "survives_audited",
                    "todos_planned",
                    "memory_after_compaction",
                    "skills_after_compaction",
                    "todos_reach_model",
                    *GOAL_KEPT,
                ),
                validity=("compacted", "survives_audited", "todos_planned"),
                case_ids=("survives-ledgers-08",),
                matrix_cases=("survives-ledgers-08",),
                scorers="survives",
                strategies=("deepagents-summarization", "summary-reinject"),
                faults={"memory-in-messages": "memory_after_compaction", "todos-not-updated": "todos_reach_model"},
                gated=("memory_after_compaction", "skills_after_compaction", "todos_reach_model"),
                agent="harness.scenarios.survives:assembly",
            ),
            EvalSuite(
                "notsummary",
                "every summary is a summary: not empty (reasoning only), LangChain's canned sentence, a tool call's "
                "text, an instruction with authority or the next turn (opencode#42363, open-webui#29308, claude-code#90218)",
                required=(*COMMON, "summarized", "summary_is_summary"),
                validity=("summarized",),
                case_ids=("goal-ledgers-12",),
                matrix_cases=("goal-ledgers-12",),
                scorers="notsummary",
                strategies=SUMMARIZING,
                # one seeded fault per shape (harness.reference.not_summaries.SHAPES), each caught by the one check
                faults={
                    f"summary-{shape}": "summary_is_summary"
                    for shape in ("continues", "tool-call", "reasoning-only", "canned", "authority")
                },
                gated=("summary_is_summary",),
            ),
            EvalSuite(
                "loops",
                "each compaction shrinks the request below the trigger, and none repeats without progress "
                "(codex#40619, claude-code#24179)",
                required=(*COMMON, "compacted", "compaction_shrinks", "no_compaction_loop"),
                validity=("compacted",),
                case_ids=("goal-ledgers-12",),
                matrix_cases=("goal-ledgers-12",),
                scorers="loops",  # every strategy: a mask or a trim must shrink the request too
                faults={
                    "summary-padded": "compaction_shrinks",
                    "keep-above-trigger": "compaction_shrinks",
                    "loop-without-progress": "no_compaction_loop",
                },
                gated=("compaction_shrinks", "no_compaction_loop"),
            ),
            EvalSuite(
                "cache",
                "after each compaction the next call reads the compacted prefix from the prompt cache again; cache damage "
                "per compaction",
                required=(
                    "run_completed",
                    "structure_ok",
                    "compacted",
                    "cache_compaction_followed",
                    "cache_reread_after_compaction",
                ),
                validity=("compacted", "cache_compaction_followed"),
                case_ids=("goal-ledgers-12",),
                matrix_cases=("goal-ledgers-12",),
                scorers="cache",
                # a per-call value in the system prompt (anomalyco/opencode#43249, macanderson/stella#3690)
                faults={"volatile-system-prompt": "cache_reread_after_compaction"},
                gated=("cache_reread_after_compaction",),
            ),
            EvalSuite(
                "boundary",
                "message structure across the cut: no tool result without its call (langchain#38352), a system prompt "
                "held in the message state kept (deer-flow#5454)",
                required=(
                    *COMMON,
                    "compacted",
                    "cut_at_parallel_calls",
                    "system_prompt_in_state",
                    "cut_made",
                    "no_orphan_tool_results",
                    "system_prompt_kept",
                ),
                validity=("compacted", "cut_at_parallel_calls", "system_prompt_in_state", "cut_made"),
                when_present=("cut_at_parallel_calls", "system_prompt_in_state", "cut_made", "system_prompt_kept"),
                case_ids=("boundary-parallel", "boundary-system"),  # harness.scenarios.boundary
                matrix_cases=("boundary-parallel",),
                scorers="boundary",
                strategies=CUTTING,
                faults={"tool-call-dropped": "no_orphan_tool_results"},
                gated=("no_orphan_tool_results", "system_prompt_kept"),
                # LangChain's cut slices the state by index: a system message at its head goes into the summary
                known_upstream={"system_prompt_kept": DEER_FLOW_5454},
            ),
            EvalSuite(
                "estimate",
                "compaction fires at its declared share of the window by an exact count (o200k_base) on content the "
                "approximate counter misjudges: Chinese, Japanese, HTML, JSON, base64, long ids (langchain#39754)",
                required=("run_completed", "structure_ok", "trigger_reached", "trigger_share_ok", "undercount_trigger_share_ok"),
                validity=("trigger_reached",),
                when_present=("trigger_share_ok", "undercount_trigger_share_ok"),
                case_ids=tuple(f"estimate-{t}" for t in ("prose", "zh", "ja", "html", "json", "base64", "ids")),
                matrix_cases=("estimate-prose",),
                preset="estimate",
                keep_preset_window=True,
                scorers="estimate",
                strategies=("deepagents-summarization", "langchain-summarization"),
                faults={"token-count-thirded": "trigger_share_ok"},
                gated=("trigger_share_ok",),
                # the approximate count alone decided (no usage reported) on content it under-counts: late for any model
                known_upstream={"undercount_trigger_share_ok": LANGCHAIN_39754},
            ),
        )
    }
)
STANDARD_EVALS = tuple(name for name, suite in SUITES.items() if suite.generated)
"""The evals whose test is "run each case as the eval, assert what it asserts" (``generated``): the pytest plugin
generates their tests, and a compactor from outside runs them as they are (`harness check`, `pytest
--compaction-strategy`)."""


def standard_evals(text: str | None, option: str = "--evals") -> list[str]:
    """The standard evals a comma-separated ``text`` names, every one when it names none (`harness check --evals`,
    the pytest plugin's ``--evals``); a ConfigError naming ``option`` and the choices for a name that is not one."""
    from harness.errors import ConfigError

    names = [n.strip() for n in text.split(",") if n.strip()] if text else list(STANDARD_EVALS)
    unknown = [n for n in names if n not in STANDARD_EVALS]
    if unknown:
        raise ConfigError(f"{option}: no eval {unknown[0]!r}; choose from {', '.join(STANDARD_EVALS)}")
    return names


OTHER_MARKERS = {
    "validity": "each eval fails under the fault it guards and passes healthy over 10 seeds (detection matrix)",
    "live": "through an OpenAI-compatible endpoint: `harness serve` (started by the test, no key) or a provider with --model",
    "slow": (
        "a tests/ file that starts an interpreter (a python, harness or pytest subprocess, a fresh venv) or a "
        "server (harness serve, the LangSmith stand-in), or has a test over 2 s in pytest --durations on a 2-core"
        " machine; marked once per file; make test-unit leaves it out, make test-slow runs it (tests/README.md)"
    ),
}
"""Markers that are not evals: the validity matrix over every entry, the live tier, and tests/'s slow tier."""


def get_suite(name: str) -> EvalSuite:
    try:
        return SUITES[name]
    except KeyError:
        raise KeyError(f"no eval suite {name!r}; known: {', '.join(SUITES)}") from None


def matrix_suites() -> list[EvalSuite]:
    """The entries the validity matrix runs: those with matrix cases and faults to catch."""
    return [s for s in SUITES.values() if s.matrix_cases and s.faults]
