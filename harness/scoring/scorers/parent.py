"""A subagent and its parent (the parent eval, issue 34): the parent compacts on the call its task's report arrives,
the report reaches the parent's model paired with its call, and a subagent declared with a smaller window than its
parent never sends a request above it.

Sizes are approximate tokens (`count_tokens_approximately` over system prompt, tool schemas and messages: the count
deepagents' trigger and input budget compare), read from the requests the recorder's subagent probe saw
(`harness.trace.subagents`, ``trace.final["subagent_requests"]``).
"""

from __future__ import annotations

from typing import Any

from harness.compaction.config import SUBAGENT_WINDOW
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.task_format import call_target
from harness.trace.schema import Trace


def parent_scores(trace: Trace, scenario: Scenario) -> list[Score]:  # noqa: ARG001 - the trace says it all
    """The parent's side (a compaction as the report arrives, the report kept with its call) and the subagent's (its
    requests within its own window)."""
    return [*_parent_side(trace), *_subagent_side(trace)]


def _result_keys(trace: Trace, tool_call_id: str) -> set[str]:
    return {
        k
        for k, data in trace.messages.items()
        if data.get("type") == "tool" and data.get("data", {}).get("tool_call_id") == tool_call_id
    }


def _calls_with(trace: Trace, data: dict[str, Any], tool_call_id: str) -> bool:
    return data.get("type") == "ai" and any(tc.get("id") == tool_call_id for tc in data.get("data", {}).get("tool_calls") or [])


def report_seen(trace: Trace, tool_call_id: str) -> tuple[list[int], list[int]]:
    """The parent's calls whose request held the task's result paired with its call before it, and those that held
    the result without its call (an orphan). The report must be in the first of them: the parent's next request after
    the task call, the one it arrived for."""
    results = _result_keys(trace, tool_call_id)
    paired: list[int] = []
    orphaned: list[int] = []
    for call in trace.agent_calls():
        keys = call["message_keys"]
        at = next((i for i, k in enumerate(keys) if k in results), None)
        if at is None:
            continue
        called = any(_calls_with(trace, trace.messages[k], tool_call_id) for k in keys[:at])
        (paired if called else orphaned).append(call["index"])
    return paired, orphaned


def _parent_side(trace: Trace) -> list[Score]:
    agent = trace.agent_calls()
    summaries = {e["call_index"] for e in trace.events_of("summary")}
    tasks = [(call, tc) for call, tc in trace.tool_calls() if tc["name"] == "task"]
    at_task = []
    for call, tc in tasks:
        following = next((c for c in agent if c["index"] > call["index"]), None)
        if following is not None and following["index"] in summaries:
            at_task.append((tc, following["index"]))
    scores = [
        Score(
            "parent_compacted_at_task",
            bool(at_task),
            VALIDITY,
            f"the parent summarized at call {at_task[0][1]}, the first after task {call_target(at_task[0][0])}'s report arrived"
            if at_task
            else f"{len(tasks)} task call(s), none followed by a summary on the parent's next call: the case is invalid",
        )
    ]
    problems, kept = [], 0
    for call, tc in tasks:
        batch = call_target(tc) or tc.get("id")
        text = (trace.tool_result(tc.get("id") or "") or "").strip()
        paired, orphaned = report_seen(trace, tc.get("id") or "")
        following = next((c["index"] for c in agent if c["index"] > call["index"]), None)
        if orphaned:
            problems.append(f"task {batch}'s report was sent without its call at call {orphaned[0]} (an orphan result)")
        elif following is None:
            problems.append(f"task {batch}'s report arrived after the parent's last call")
        elif following not in paired:
            problems.append(
                f"task {batch}'s report was not in the parent's next request (call {following}): summarized away or "
                "dropped unseen" + (f", first sent at call {paired[0]}" if paired else ", never sent")
            )
        elif not text:
            problems.append(f"task {batch}'s report reached the parent's model empty")
        else:
            kept += 1
    scores.append(
        Score(
            "task_result_kept",
            bool(tasks) and not problems,
            CHECK,
            f"{kept}/{len(tasks)} task report(s) reached the parent's next request paired with their call"
            + (f"; {problems[0]}" if problems else "" if tasks else ": no task call"),
        )
    )
    batches = [call_target(tc) for _, tc in tasks]
    redone = len(batches) - len(set(batches))
    scores.append(Score("tasks_redone", redone, MEASURE, f"{redone} task call(s) delegated a batch already delegated before"))
    return scores


def _subagent_side(trace: Trace) -> list[Score]:
    requests: list[dict[str, Any]] = trace.final.get("subagent_requests") or []
    parent_window = int(trace.config.get("window") or 0)
    outgrew = max((r["conversation_tokens"] for r in requests), default=0)
    compacted = sum(1 for r in requests if r["summary_at_head"])
    valid = SUBAGENT_WINDOW < outgrew < parent_window
    scores = [
        Score(
            "subagent_outgrew_window",
            valid,
            VALIDITY,
            f"the subagent was sent {outgrew:,} approximate tokens in all, against its window of {SUBAGENT_WINDOW:,} and "
            f"its parent's of {parent_window:,}; {compacted} of its {len(requests)} requests headed by a summary"
            + ("" if valid else ": the case is invalid (its work must outgrow its window, not its parent's)"),
        )
    ]
    over = [r for r in requests if r["approx_tokens"] > SUBAGENT_WINDOW]
    peak = max((r["approx_tokens"] for r in requests), default=0)
    scores.append(
        Score(
            "subagent_window_respected",
            bool(requests) and not over,
            CHECK,
            f"all {len(requests)} subagent requests within its {SUBAGENT_WINDOW:,}-token window (the largest {peak:,} "
            "approximate tokens)"
            if requests and not over
            else "no subagent request recorded"
            if not requests
            else f"{len(over)} of {len(requests)} subagent requests above its {SUBAGENT_WINDOW:,}-token window, the "
            f"largest {peak:,} approximate tokens"
            + (f" (its model declared {over[0]['window']:,})" if over[0].get("window") else "")
            + (
                f"; {sum(r['context_overflow'] for r in over)} refused as too long"
                if any(r["context_overflow"] for r in over)
                else ""
            ),
        )
    )
    scores.append(
        Score(
            "subagent_peak_share",
            round(peak / SUBAGENT_WINDOW, 3),
            MEASURE,
            f"the subagent's largest request as a share of its {SUBAGENT_WINDOW:,}-token window",
        )
    )
    return scores
