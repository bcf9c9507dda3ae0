"""The session eval (`harness.suites.replay`, `harness.scoring.scorers.session`): a recorded session replayed from its
cut on a window that fires the trigger at the first call, its full-context control answering every probe first, a
probe counting only where the control answered it right, and each check failing on the trace that breaks it."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

import harness.agent.runner as runner
from harness.compaction.config import ContextSize, session_window
from harness.compaction.variants import make_config
from harness.scenarios.schema import Scenario
from harness.scoring.scorers import INVALID, PASS, outcome, score_case
from harness.scoring.scorers.session import probe_records, read_probe
from harness.suites.execute import Settings, find_case, run_eval_case
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.replay import CONTROL, forget_controls
from harness.trace.schema import Trace
from tests._sessions import CASE_ID

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def case() -> Scenario:
    return find_case(CASE_ID)


@pytest.fixture(scope="module")
def healthy(case: Scenario):
    forget_controls()
    return run_eval_case("session", case, Settings.offline(), run_id="test-healthy")


def _outcome(trace: Trace, case: Scenario) -> tuple[str, list[str], dict]:
    scores = score_case(trace, case)
    verdict, keys = outcome(scores, trace.error)
    return verdict, keys, {s.key: s for s in scores}


def _turn(trace: Trace, case: Scenario, probe_id: str) -> int:
    (record,) = [r for r in probe_records(trace, case) if r["id"] == probe_id]
    return record["turn"]


def test_healthy_the_trigger_fires_at_the_first_call_after_the_cut_and_every_probe_counts_and_passes(healthy, case):
    trace = healthy.trace
    session = trace.final["session"]
    assert (
        trace.config["window"]
        == session["window"]
        == session_window(make_config("forced-20"), session["first_call_message_tokens"])
    )
    first_event, first_call = trace.compactions()[0], trace.agent_calls()[0]
    assert (
        first_event["call_index"] == first_call["index"] and first_event["tokens_before"] >= session["first_call_tokens"] * 0.98
    )
    # offline the reference agent cannot carry the session on by itself: the first turn after the cut is the first probe
    assert trace.turns[0]["text"] == case.probes[0].question and len(trace.turns) == len(case.probes)
    assert healthy.scores["compacted_at_cut"].value and healthy.scores["session_probes_valid"].value
    records = probe_records(trace, case)
    assert all(r["valid"] and r["control"]["verdict"] == "right" for r in records), records
    assert all(r["verdict"] == "right" and r["bucket"] in ("retained", "recovered") for r in records), records
    assert healthy.scores["session_control_right"].value == len(case.probes)
    assert _outcome(trace, case)[0] == PASS
    control = trace.final["control"]
    assert control["config"]["name"] == CONTROL and control["config"]["strategy"] == "none" and control["compactions"] == 0
    assert control["config"]["window"] > session["first_call_tokens"]


def test_the_control_runs_once_per_case_and_trial_for_every_arm_of_a_plan(case, monkeypatch):
    ran: list[str] = []
    real = runner.run_case_for

    def counting(scenario, config, models, **kwargs):  # noqa: ANN001, ANN003, ANN202
        ran.append(config.name)
        return real(scenario, config, models, **kwargs)

    monkeypatch.setattr(runner, "run_case_for", counting)  # the control's run; the arms' go through execute's own name
    forget_controls()
    for strategy in ("deepagents-summarization", "observation-masking", "hybrid"):
        run_eval_case("session", case, Settings.offline(strategy=strategy), run_id="plan-a", trial=0)
    assert ran == [CONTROL]
    run_eval_case("session", case, Settings.offline(), run_id="plan-a", trial=1)
    run_eval_case("session", case, Settings.offline(), run_id="plan-b", trial=0)
    assert ran == [CONTROL, CONTROL, CONTROL]  # another trial, another plan: the control answers again


def test_a_probe_the_control_gets_wrong_is_invalid_with_the_controls_answer_never_a_pass_or_fail(case):
    wrong = replace(case.probes[0], expected=("16-minutes",))
    partly = replace(case, probes=(wrong, *case.probes[1:]))
    forget_controls()
    result = run_eval_case("session", partly, Settings.offline(), run_id="gate")
    (record,) = [r for r in probe_records(result.trace, partly) if r["id"] == wrong.id]
    assert not record["valid"] and record["why"].startswith("the control did not answer it:") and "15-minutes" in record["why"]
    assert result.scores["session_probes_correct"].value  # the others count and pass; this one is in no check
    assert _outcome(result.trace, partly)[0] == PASS
    every = replace(case, probes=tuple(replace(p, expected=("nothing-like-it",), stale=()) for p in case.probes))
    result = run_eval_case("session", every, Settings.offline(), run_id="gate")
    verdict, keys, _ = _outcome(result.trace, every)
    assert (verdict, keys) == (INVALID, ["session_probes_valid"])
    assert "the control did not answer it" in result.scores["session_probes_valid"].explanation


@pytest.mark.parametrize(
    ("fault", "check"), [("history-unreadable", "session_probes_correct"), ("stale-answer", "session_no_stale")]
)
def test_the_eval_catches_its_seeded_faults_with_the_check_named_for_them(case, fault, check):
    forget_controls()
    result = run_eval_case("session", case, Settings.offline(), fault=SEEDED_FAULTS[fault], run_id=f"fault-{fault}")
    assert result.scores["compacted_at_cut"].value and result.scores["session_probes_valid"].value  # valid: the fault
    assert not result.scores[check].value, result.scores[check].explanation  # ... is what fails
    assert result.trace.final["control"]["answers"][0] is not None  # the control ran healthy: a fault never reaches it


def test_compacted_at_cut_fails_without_a_compaction_at_the_first_call(healthy, case):
    trace = copy.deepcopy(healthy.trace)
    trace.events = [e for e in trace.events if e["type"] not in ("summary", "mask", "trim")]
    verdict, keys, scores = _outcome(trace, case)
    assert (verdict, keys) == (INVALID, ["compacted_at_cut"]) and "no compaction after the cut" in scores[
        "compacted_at_cut"
    ].explanation
    trace = copy.deepcopy(healthy.trace)
    trace.events[0] = {**trace.events[0], "call_index": trace.events[0]["call_index"] + 1}
    assert "not at the first call after the cut" in _outcome(trace, case)[2]["compacted_at_cut"].explanation


def test_a_session_shorter_than_the_trigger_is_invalid_with_the_reason_not_a_crash(case):
    settings = Settings.offline()
    config = settings.config.with_overrides(trigger=[ContextSize.parse("tokens:900000")])
    forget_controls()
    result = run_eval_case("session", case, replace(settings, config=config), run_id="short")
    verdict, keys, scores = _outcome(result.trace, case)
    assert verdict == INVALID and keys[0] == "compacted_at_cut"  # (and every probe still in view: none counts)
    assert "arm's window (no fraction trigger)" in scores["compacted_at_cut"].explanation


def test_session_probes_correct_fails_on_a_lost_answer_and_no_stale_on_a_stale_one(healthy, case):
    trace = copy.deepcopy(healthy.trace)
    trace.final["answers"][_turn(trace, case, "downtime")] = "I don't know the maximum downtime window."
    verdict, keys, scores = _outcome(trace, case)
    assert (verdict, keys) == ("FAIL", ["session_probes_correct"]) and "downtime (constraint): lost" in scores[
        keys[0]
    ].explanation
    assert {r["id"]: r["bucket"] for r in probe_records(trace, case)}["downtime"] == "lost"
    trace = copy.deepcopy(healthy.trace)
    trace.final["answers"][_turn(trace, case, "database")] = "The billing database is mysql-8."
    verdict, keys, scores = _outcome(trace, case)
    assert (
        verdict == "FAIL" and "session_no_stale" in keys and "database answered stale" in scores["session_no_stale"].explanation
    )


@pytest.mark.parametrize(
    ("control", "why"),
    [
        (None, "no control ran for this case"),
        ({"turns": [], "answers": [], "error": {"type": "APIError"}}, "the control ended in an error (APIError)"),
        ("dont-know", "the control did not answer it: \"I don't know"),
    ],
)
def test_session_probes_valid_fails_when_the_control_gives_nothing_to_compare_with(healthy, case, control, why):
    trace = copy.deepcopy(healthy.trace)
    if control is None:
        del trace.final["control"]
    elif control == "dont-know":
        trace.final["control"]["answers"] = ["I don't know." for _ in trace.final["control"]["answers"]]
    else:
        trace.final["control"] = control
    verdict, keys, scores = _outcome(trace, case)
    assert (verdict, keys) == (INVALID, ["session_probes_valid"])
    assert why in scores["session_probes_valid"].explanation


def test_a_probes_answer_is_read_by_the_one_reader():
    probe = find_case(CASE_ID).probes[2]  # the billing database: pg-16, stale mysql-8
    assert read_probe("It is PG-16 now (changed from mysql-8).", probe)[0] == "right"
    assert read_probe("mysql-8", probe)[0] == "stale"
    assert read_probe("I don't know the billing database.", probe)[0] == "lost"
    assert read_probe(None, probe) == ("lost", None, "no answer")


def test_a_session_too_short_for_a_fraction_trigger_is_invalid_with_the_reason(case):
    short = replace(case, conversation=case.conversation[:4], probes=case.probes[:2], followups=case.followups[:2])
    forget_controls()
    result = run_eval_case("session", short, Settings.offline(), run_id="tiny")
    assert result.trace.final["session"]["rule"] == "too short for the trigger"
    assert result.trace.config["window"] == make_config("forced-20").window  # the arm's own: no window fits
    verdict, keys, scores = _outcome(result.trace, short)
    assert verdict == INVALID and keys[0] == "compacted_at_cut"
    assert "no compaction after the cut" in scores["compacted_at_cut"].explanation
    assert "too short for the trigger" in scores["compacted_at_cut"].explanation


def test_arms_in_flight_together_on_one_event_loop_wait_for_one_control_run(case, monkeypatch):
    """The live path (`arun_eval_case`, many cases on one loop): a second arm of the same case waits for the control
    the first one started, never runs its own."""
    import asyncio

    from harness.suites.execute import arun_eval_case

    ran: list[str] = []
    real = runner.arun_case

    async def counting(scenario, config, models, **kwargs):  # noqa: ANN001, ANN003, ANN202
        ran.append(config.name)
        return await real(scenario, config, models, **kwargs)

    monkeypatch.setattr(runner, "arun_case", counting)  # the control's run; the arms' go through execute's own name
    forget_controls()

    async def arms():  # noqa: ANN202
        strategies = ("deepagents-summarization", "hybrid", "sliding-window")
        return await asyncio.gather(
            *(arun_eval_case("session", case, Settings.offline(strategy=s), run_id="loop") for s in strategies)
        )

    results = runner.run_async(arms())
    assert ran == [CONTROL]
    assert results[0].trace.final["control"] == results[1].trace.final["control"] == results[2].trace.final["control"]
    assert results[0].scores["session_probes_correct"].value


def test_a_path_or_artifact_probe_is_read_as_a_path_in_any_of_its_forms():
    from harness.scenarios.schema import SessionProbe

    probe = SessionProbe(
        "artifact-1",
        "Question: Which file did you write the text `x = 1` into? Reply with its path only.",
        ("astropy/modeling/separable.py", "/testbed/astropy/modeling/separable.py"),
        "artifact",
        74,
    )
    assert read_probe("astropy/modeling/separable.py", probe)[0] == "right"  # read as a value, this was lost
    assert read_probe("I wrote it into ./astropy/modeling/separable.py.", probe)[0] == "right"
    assert read_probe("astropy/modeling/core.py or astropy/modeling/separable.py", probe)[0] == "lost"  # a hedge
    assert read_probe("I don't know.", probe)[0] == "lost"
    stale = SessionProbe(
        "path-1", "Question: Where is the file `setup.py`?", ("/testbed/setup.py",), "path", 87, ("/old/setup.py",)
    )
    assert read_probe("/testbed/setup.py", stale)[0] == "right"
    assert read_probe("/old/setup.py", stale)[0] == "stale"
