"""Goal drift in every case (issue 31): the goal-drift checks are shared, so a case of any kind or scorer set that has
steps is checked for a clarification request, a premature stop and the steps done; and a turn that ends in a request
for clarification is not a finished turn (`run_completed`)."""

from __future__ import annotations

import pytest

from harness.reference.policy import CLARIFICATION
from harness.scenarios.schema import ExpectedStep, Question, Scenario
from harness.scoring.scorers import (
    CHECK,
    DRIFT_KEYS,
    FAIL,
    PASS,
    Score,
    drift_scores,
    outcome,
    probe_scores,
    run_completed,
    score_case,
    scores_by_key,
    structure_ok,
    summaries_ok,
)
from harness.scoring.scorers import registry as registry_module
from harness.task_format import COMPLETION_MARKER, Step, render_task
from tests._facts import ASK, DOC1, LOST, VAULT
from tests._traces import HISTORY, Conversation

N_STEPS = 35
FIRST = 8  # the task turn asks for the first 8 documents; turn 2 asks for the other 27
PAGE = ("read_file", {"file_path": HISTORY, "offset": 0}, DOC1)


def _steps(first: int, last: int, number: int) -> list[Step]:
    fetches = [Step(number + i, "fetch_document", f"DOC-{d}") for i, d in enumerate(range(first, last + 1))]
    return [*fetches, Step(number + len(fetches), "reply")]


TASK_STEPS = _steps(1, FIRST, 1)
MORE_STEPS = _steps(FIRST + 1, N_STEPS, len(TASK_STEPS) + 1)
TASK = render_task("Review the archive; I will ask about it afterwards.", TASK_STEPS)
CARRY_ON = render_task("Thanks. Now carry on with the rest of the archive.", MORE_STEPS)
PROBE = Scenario(
    id="probe-drift",
    kind="probe",
    description="a probe case whose agent loses the task in turn 2",
    task=TASK,
    followups=(ASK["recall"], CARRY_ON),
    expected_steps=tuple(ExpectedStep(s.tool, s.target) for s in (*TASK_STEPS, *MORE_STEPS)),
    facts=(VAULT,),
    questions=(Question(1, ("vault",), "recall"),),
)


def _doc(d: int) -> tuple[str, dict, str]:
    return ("fetch_document", {"doc_id": f"DOC-{d}"}, DOC1 if d == 1 else f"DOC-{d}: nothing of note.")


def lost_in_turn_two(last_reply: str = CLARIFICATION, *, carry_on: bool = False) -> Conversation:
    """The issue's case: 8 of the 35 steps done in the task turn, a summary, the recall question answered from the
    history file, then turn 2 (the other 27 steps) answered with ``last_reply`` (``carry_on``: after doing them)."""
    conv = Conversation()
    conv.user(TASK)
    for d in range(1, FIRST + 1):
        conv.agent(tools=[_doc(d)])
    conv.summarize(LOST)
    conv.answer(f"{COMPLETION_MARKER}. I finished all {len(TASK_STEPS)} steps.")
    conv.user(ASK["recall"])
    conv.agent(tools=[PAGE])
    conv.answer(VAULT.value)
    conv.user(CARRY_ON)
    if carry_on:
        for d in range(FIRST + 1, N_STEPS + 1):
            conv.agent(tools=[_doc(d)])
    conv.answer(last_reply)
    return conv


def test_a_probe_case_that_asks_for_clarification_in_turn_2_after_8_of_35_steps_is_a_fail():
    trace = lost_in_turn_two().trace(kind="probe")
    # Before issue 31 this case was a PASS: the probe scorer set (with the shared checks of the time) saw nothing wrong
    own = probe_scores(trace, PROBE) + [structure_ok(trace), summaries_ok(trace)]
    assert outcome(own) == (PASS, [])
    scores = score_case(trace, PROBE)
    assert outcome(scores) == (FAIL, ["run_completed", "goal_no_clarification", "goal_all_steps_done"])
    by_key = scores_by_key(scores)
    assert by_key["probe_recall_correct"].value is True  # the question itself was answered right
    assert by_key["run_completed"] == Score(
        "run_completed",
        False,
        CHECK,
        f"1 of 3 turn(s) ended in a request for clarification, not a finished turn; first turn 2: {CLARIFICATION[:160]!r}",
    )
    asked = trace.agent_calls(2)[-1]["index"]
    assert by_key["goal_no_clarification"].explanation == (
        f"asked for clarification at call(s) [{asked}] (turn 2): {CLARIFICATION[:160]!r}"
    )
    assert (
        by_key["goal_steps_completed"].explanation
        == f"{FIRST}/{N_STEPS} expected tool steps done; first missing: fetch_document DOC-9"
    )
    assert by_key["goal_all_steps_done"].value is False
    # a clarification request is not a premature stop; the task turn's "TASK COMPLETE" came with its own 8 steps done
    assert by_key["goal_no_premature_completion"].value is True


def test_the_same_case_carried_on_to_the_end_passes_every_drift_check():
    conv = lost_in_turn_two(f"{COMPLETION_MARKER}. I finished all {MORE_STEPS[-1].number} steps.", carry_on=True)
    scores = score_case(conv.trace(kind="probe"), PROBE)
    assert outcome(scores) == (PASS, [])
    assert scores_by_key(scores)["goal_steps_completed"].value == 1.0


def test_a_later_turn_that_asks_for_steps_and_stops_without_them_is_a_premature_stop():
    trace = lost_in_turn_two(last_reply="The archive review is finished.").trace(kind="probe")
    by_key = scores_by_key(drift_scores(trace, PROBE))
    stop = trace.agent_calls(2)[-1]["index"]
    assert by_key["goal_no_premature_completion"] == Score(
        "goal_no_premature_completion",
        False,
        CHECK,
        f"stopped at call {stop} with {N_STEPS - FIRST} expected step(s) not done: 'The archive review is finished.'",
    )
    assert by_key["goal_no_clarification"].value is True
    assert run_completed(trace).value is True  # an answer, if a wrong one: the turn finished


def test_a_question_turn_answered_without_tool_calls_is_not_a_premature_stop():
    # turn 1 asks a question, not steps: its answer while turn 2's steps are still ahead stops nothing
    trace = lost_in_turn_two(last_reply="The archive review is finished.").trace(kind="probe")
    first_stop = scores_by_key(drift_scores(trace, PROBE))["goal_no_premature_completion"].explanation
    assert f"call {trace.agent_calls(1)[-1]['index']} " not in first_stop


def test_a_case_without_steps_gets_no_drift_checks():
    no_steps = Scenario(id="n", kind="probe", description="", task="Review the archive.", followups=(ASK["recall"],))
    trace = lost_in_turn_two().trace(kind="probe")
    assert drift_scores(trace, no_steps) == []
    assert not set(DRIFT_KEYS) & {s.key for s in score_case(trace, no_steps, "history")}


@pytest.mark.parametrize("scorers", ["default", "retention", "history", "todos", "subagent", "overflow"])
def test_every_scorer_set_gets_the_drift_checks_once(scorers):
    trace = lost_in_turn_two().trace(kind="probe")
    keys = [s.key for s in score_case(trace, PROBE, scorers)]
    assert keys[:7] == ["run_completed", "structure_ok", "summaries_ok", *DRIFT_KEYS]
    assert len(keys) == len(set(keys))


def test_numbered_steps_without_expected_steps_are_the_steps_checked():
    bare = Scenario(id="b", kind="needle", description="", task=TASK, followups=(ASK["recall"], CARRY_ON))
    trace = lost_in_turn_two().trace(kind="needle")
    assert scores_by_key(drift_scores(trace, bare))["goal_steps_completed"].value == round(FIRST / N_STEPS, 4)


def test_a_registered_scorer_that_scores_a_shared_key_again_is_refused(monkeypatch):
    fresh: dict = {}
    monkeypatch.setattr(registry_module, "_REGISTRY", fresh)
    monkeypatch.setattr(registry_module, "scorer_sets", lambda: ("default",))
    registry_module.scorer("probe")(lambda trace, scenario: [Score("goal_all_steps_done", True, CHECK, "")])
    with pytest.raises(ValueError, match=r"scores the shared key\(s\) \['goal_all_steps_done'\]"):
        score_case(lost_in_turn_two().trace(kind="probe"), PROBE)
