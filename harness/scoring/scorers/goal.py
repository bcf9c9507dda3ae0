"""Goal preservation: after each compaction the agent keeps going (a task step next, no clarification request,
no premature completion) and finishes the steps.

Two parts. The goal-drift checks (`drift_scores`: ``goal_no_clarification``, ``goal_no_premature_completion``,
``goal_all_steps_done`` and the measure ``goal_steps_completed``) are shared: `score_case` gives them to every case
with steps (`expected_steps`, or numbered steps in its turns), whatever its kind or scorer set, over the whole run.
The goal eval's own scores (`goal_scores`) add whether the next action after each compaction was a task step and
whether the goal was preserved across them."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.scenarios.schema import Scenario
from harness.scoring.scorers.shared import (
    _succeeded,
    _target,
    compacted,
    is_clarification_request,
)
from harness.scoring.scorers.types import CHECK, MEASURE, Score
from harness.task_format import COMPLETION_MARKER, parse_steps
from harness.trace.schema import Trace

DRIFT_KEYS = ("goal_no_clarification", "goal_no_premature_completion", "goal_steps_completed", "goal_all_steps_done")
"""The shared goal-drift scores (`drift_scores`): every case with steps gets them, whatever its kind or scorer set."""

Pair = tuple[str, str]


@dataclass
class Progress:
    """The steps of a case through a run (or one turn of it): which expected tool steps were done, which replies
    asked the user to restate the task, and the first reply that stopped with steps asked and not done."""

    expected: list[Pair]  # the expected tool steps, in order (a step listed twice is one step)
    done: set[Pair] = field(default_factory=set)
    repeats: int = 0
    clarifications: list[int] = field(default_factory=list)  # call indexes
    premature: tuple[int, int] | None = None  # (call index, steps asked and not done then)
    stalled: list[int] = field(default_factory=list)  # compaction calls whose next action was not a task step
    n_events: int = 0

    @property
    def fraction(self) -> float:
        return len(self.done) / len(set(self.expected)) if self.expected else 1.0

    @property
    def missing(self) -> list[str]:
        return [f"{t} {a}" for t, a in dict.fromkeys(self.expected) if (t, a) not in self.done]


def expected_pairs(scenario: Scenario) -> list[Pair]:
    """The case's tool steps: its ``expected_steps`` (a reply step is no tool step), else the numbered steps of its
    turns."""
    steps = [(s.tool, s.target) for s in scenario.expected_steps if s.tool != "reply"]
    if not steps:
        steps = [(s.tool, s.target) for text in scenario.turns for s in parse_steps(text) if s.tool != "reply"]
    return list(dict.fromkeys(steps))


def has_steps(scenario: Scenario) -> bool:
    """The case asks for steps: it gets the goal-drift checks."""
    return bool(expected_pairs(scenario))


def _asked_by_turn(scenario: Scenario, expected: list[Pair]) -> list[set[Pair]]:
    """Per turn, the expected steps asked up to and including it: a turn asks the steps its numbered list names (the
    task, or a follow-up that carries on with more); when no turn numbers them, the task asks them all."""
    wanted = set(expected)
    own = [{(s.tool, s.target) for s in parse_steps(text)} & wanted for text in scenario.turns]
    if not any(own):
        own = [wanted] + [set() for _ in scenario.turns[1:]]
    asked: list[set[Pair]] = []
    for mine in own:
        asked.append((asked[-1] if asked else set()) | mine)
    return asked


def step_progress(trace: Trace, scenario: Scenario, turn: int | None = None) -> Progress:
    """The case's steps through the whole run (``turn`` None: every turn, each judged by the steps asked up to it),
    or through one task turn (every expected step asked there)."""
    progress = Progress(expected_pairs(scenario))
    wanted = set(progress.expected)
    turns = list(range(len(scenario.turns))) if turn is None else [turn]
    asked = _asked_by_turn(scenario, progress.expected) if turn is None else None
    for t in turns:
        steps_here = wanted if asked is None else (asked[t] if t < len(asked) else wanted)
        asks_steps = asked is None or (t < len(asked) and bool(asked[t]) and (t == 0 or asked[t] != asked[t - 1]))
        events_at = {e["call_index"] for e in trace.compactions(t)} if turn is not None else set()
        progress.n_events += len(events_at)
        for call in trace.agent_calls(t):
            response = call.get("response") or {}
            tool_calls = response.get("tool_calls") or []
            text = response.get("text") or ""
            if call["index"] in events_at:
                on_task = any((tc["name"], _target(tc)) in wanted for tc in tool_calls) or (
                    not tool_calls and not (wanted - progress.done) and COMPLETION_MARKER in text
                )
                if not on_task:
                    progress.stalled.append(call["index"])
            for tc in tool_calls:
                step = (tc["name"], _target(tc))
                if step in wanted and _succeeded(trace, tc):
                    progress.repeats += step in progress.done
                    progress.done.add(step)
            if not tool_calls and response:
                if is_clarification_request(text):
                    progress.clarifications.append(call["index"])
                elif progress.premature is None and asks_steps and steps_here - progress.done:
                    progress.premature = (call["index"], len(steps_here - progress.done))
    return progress


def drift_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The goal-drift checks every case with steps gets (`has_steps`; none otherwise), over the whole run: no reply
    asks the user to restate the task (in any turn), no turn that asks for steps stops before they are done, and every
    expected step was done (``goal_steps_completed``: the share, a measure)."""
    if not has_steps(scenario):
        return []
    return _drift(trace, step_progress(trace, scenario))


def _drift(trace: Trace, p: Progress) -> list[Score]:
    n = len(set(p.expected))
    missing = p.missing
    return [
        Score(
            "goal_no_clarification",
            not p.clarifications,
            CHECK,
            "never asked the user to restate the task"
            if not p.clarifications
            else f"asked for clarification at call(s) {p.clarifications[:5]}"
            f"{_turn_of(trace, p.clarifications[0])}: {_reply(trace, p.clarifications[0])[:160]!r}",
        ),
        Score(
            "goal_no_premature_completion",
            p.premature is None,
            CHECK,
            "did not stop before the work was done"
            if p.premature is None
            else f"stopped at call {p.premature[0]} with {p.premature[1]} expected step(s) not done: "
            f"{_reply(trace, p.premature[0])[:120]!r}",
        ),
        Score(
            "goal_steps_completed",
            round(p.fraction, 4),
            MEASURE,
            f"{len(p.done)}/{n} expected tool steps done" + (f"; first missing: {missing[0]}" if missing else ""),
        ),
        Score(
            "goal_all_steps_done",
            p.fraction == 1.0,
            CHECK,
            "every expected tool step was done"
            if p.fraction == 1.0
            else f"{len(missing)} expected step(s) not done; first: {missing[0]}",
        ),
    ]


def goal_scores(trace: Trace, scenario: Scenario, turn: int = 0) -> list[Score]:
    """Goal preservation in task turn ``turn``: after a compaction the agent keeps going (a task step next, no
    clarification request, no premature "done") and finishes the step list without repeating steps. The drift checks
    here are those of that turn; `drift_scores` gives every case with steps the same checks over the whole run."""
    p = step_progress(trace, scenario, turn)
    stalled = p.stalled
    scores = [compacted(trace, before_turn=turn + 1)]
    if p.n_events == 0:
        scores.append(
            Score("goal_continued_after_summary", False, CHECK, "no compaction in the task turn, nothing to continue across")
        )
    else:
        scores.append(
            Score(
                "goal_continued_after_summary",
                not stalled,
                CHECK,
                f"the next action after all {p.n_events} compaction(s) was a task step"
                if not stalled
                else f"after {len(stalled)} of {p.n_events} compaction(s) the next action was not a task step; "
                f"first at call {stalled[0]}: {_action(trace, stalled[0])}",
            )
        )
    scores += _drift(trace, p)
    scores.append(goal_preserved(trace, p))
    scores.append(
        Score("goal_repeated_steps", p.repeats, MEASURE, f"{p.repeats} expected step(s) done more than once (lost progress)")
    )
    return scores


def goal_preserved(trace: Trace, p: Progress) -> Score:
    """The goal eval's verdict: continued across every compaction, no drift, every step done."""
    control_arm = trace.config.get("strategy") == "none"  # nothing is compacted by design: finishing is the goal
    preserved = (
        not p.stalled and not p.clarifications and p.premature is None and p.fraction == 1.0 and (p.n_events > 0 or control_arm)
    )
    return Score(
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


def goal_eval_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """What the goal eval scores beyond the shared drift checks (`score_case` adds those): `goal_scores` of the task
    turn without `DRIFT_KEYS`."""
    return [s for s in goal_scores(trace, scenario) if s.key not in DRIFT_KEYS]


def _turn_of(trace: Trace, call_index: int) -> str:
    turn = trace.call(call_index).get("turn")
    return f" (turn {turn})" if turn else ""


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
