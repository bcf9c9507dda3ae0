"""Goal preservation: after each compaction the agent keeps going (a task step next, no clarification request,
no premature completion) and finishes the steps."""

from __future__ import annotations

from harness.scenarios.schema import Scenario
from harness.scoring.scorers.shared import (
    _succeeded,
    _target,
    compacted,
    is_clarification_request,
)
from harness.scoring.scorers.types import CHECK, MEASURE, Score
from harness.task_format import COMPLETION_MARKER
from harness.trace.schema import Trace


def goal_scores(trace: Trace, scenario: Scenario, turn: int = 0) -> list[Score]:
    """Goal preservation: after a compaction the agent keeps going (no clarification request, no premature "done") and
    finishes the step list of ``turn`` without repeating steps."""
    expected = [(s.tool, s.target) for s in scenario.expected_steps if s.tool != "reply"]
    expected_set = set(expected)
    done: set[tuple[str, str]] = set()
    repeats = 0
    stalled = []
    clarifications, premature = [], None
    events_at = {e["call_index"] for e in trace.compactions(turn)}
    for call in trace.agent_calls(turn):
        response = call.get("response") or {}
        tool_calls = response.get("tool_calls") or []
        text = response.get("text") or ""
        if call["index"] in events_at:
            on_task = any((tc["name"], _target(tc)) in expected_set for tc in tool_calls) or (
                not tool_calls and not (expected_set - done) and COMPLETION_MARKER in text
            )
            if not on_task:
                stalled.append(call["index"])
        for tc in tool_calls:
            step = (tc["name"], _target(tc))
            if step in expected_set and _succeeded(trace, tc):
                repeats += step in done
                done.add(step)
        if not tool_calls and response:
            if is_clarification_request(text):
                clarifications.append(call["index"])
            elif premature is None and expected_set - done:
                premature = (call["index"], len(expected_set - done))
    n_events = len(events_at)
    scores = [compacted(trace, before_turn=turn + 1)]
    if n_events == 0:
        scores.append(
            Score("goal_continued_after_summary", False, CHECK, "no compaction in the task turn, nothing to continue across")
        )
    else:
        scores.append(
            Score(
                "goal_continued_after_summary",
                not stalled,
                CHECK,
                f"the next action after all {n_events} compaction(s) was a task step"
                if not stalled
                else f"after {len(stalled)} of {n_events} compaction(s) the next action was not a task step; "
                f"first at call {stalled[0]}: {_action(trace, stalled[0])}",
            )
        )
    scores.append(
        Score(
            "goal_no_clarification",
            not clarifications,
            CHECK,
            "never asked the user to restate the task"
            if not clarifications
            else f"asked for clarification at call(s) {clarifications[:5]}: {_reply(trace, clarifications[0])[:160]!r}",
        )
    )
    scores.append(
        Score(
            "goal_no_premature_completion",
            premature is None,
            CHECK,
            "did not stop before the work was done"
            if premature is None
            else f"stopped at call {premature[0]} with {premature[1]} expected step(s) not done: {_reply(trace, premature[0])[:120]!r}",
        )
    )
    fraction = len(done) / len(expected_set) if expected_set else 1.0
    missing = [f"{t} {a}" for t, a in expected if (t, a) not in done]
    scores.append(
        Score(
            "goal_steps_completed",
            round(fraction, 4),
            MEASURE,
            f"{len(done)}/{len(expected_set)} expected tool steps done" + (f"; first missing: {missing[0]}" if missing else ""),
        )
    )
    scores.append(
        Score(
            "goal_all_steps_done",
            fraction == 1.0,
            CHECK,
            "every expected tool step was done"
            if fraction == 1.0
            else f"{len(missing)} expected step(s) not done; first: {missing[0]}",
        )
    )
    control_arm = trace.config.get("strategy") == "none"  # nothing is compacted by design: finishing is the goal
    preserved = not stalled and not clarifications and premature is None and fraction == 1.0 and (n_events > 0 or control_arm)
    scores.append(
        Score(
            "goal_preserved",
            preserved,
            CHECK,
            (
                "finished the task with the whole history in view"
                if control_arm
                else "kept working on the task across every compaction and finished it"
            )
            if preserved
            else "see goal_* scores",
        )
    )
    scores.append(
        Score("goal_repeated_steps", repeats, MEASURE, f"{repeats} expected step(s) done more than once (lost progress)")
    )
    return scores


def _action(trace: Trace, call_index: int) -> str:
    call = trace.call(call_index)
    if call.get("error"):
        return f"the call failed ({call['error']['type']})"
    response = call.get("response") or {}
    if response.get("tool_calls"):
        return "called " + ", ".join(f"{tc['name']}({_target(tc)})" for tc in response["tool_calls"])
    return f"replied {response.get('text', '')[:140]!r}"


def _reply(trace: Trace, call_index: int) -> str:
    return ((trace.call(call_index).get("response") or {}).get("text")) or ""
