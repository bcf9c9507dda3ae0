"""Judge calibration (`harness.scoring.calibration`, `harness.scoring.judge`): the items, the two verdicts, kappa and
its flag, ERROR judgements, and the judge chosen from --judge-model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import ConfigError, HarnessError, LiveModelUnavailable
from harness.scenarios.schema import load_scenarios
from harness.scoring.calibration import ProbeItem, agreement_summary, calibrate, probe_items
from harness.scoring.judge import ERROR, choose_judge, judge_answer

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "judge_probe.jsonl"
SCENARIOS = {s.id: s for s in load_scenarios([FIXTURE])}
CASE = "probe-hand-01"


def item(answer: str, probe: str = "recall", expected: str = "pg-16", stale: tuple[str, ...] = ("mysql-8",)) -> ProbeItem:
    return ProbeItem(
        "a/c/t0/turn1", probe, "Question: What is the billing database?", answer, "billing database", expected, stale
    )


@pytest.mark.parametrize(
    ("answer", "probe", "verdict"),
    [
        ("pg-16", "recall", True),
        ("The billing database is pg-16.", "recall", True),
        ("pg-16, not mysql-8", "recall", True),
        ("It is not pg-16.", "recall", False),  # negated: no value given
        ("pg-16 or mysql-8", "recall", False),  # ambiguous: two values
        ("mysql-8", "recall", False),  # the stale value
        ("pg-16; rejected: mysql-8", "decision", True),
        ("mysql-8; rejected: pg-16", "decision", False),
    ],
)
def test_the_deterministic_verdict_reads_the_value_given(answer, probe, verdict):
    assert item(answer, probe).deterministic() is verdict


def test_probe_items_take_value_probes_with_answers_and_the_fact_chain():
    rows = [
        {"case_id": CASE, "kind": "probe", "arm": "a", "trial": 1, "answers": ["done", "6174-BASALT", "pg-16", "500"]},
        {"case_id": CASE, "kind": "probe", "arm": "a", "trial": 0, "answers": ["done", "", "pg-16"]},
        {"case_id": "needle-x", "kind": "needle", "answers": ["done", "x"]},
    ]
    items = probe_items(rows, SCENARIOS)
    assert [i.id for i in items] == [
        "a/probe-hand-01/t0/turn2",
        "a/probe-hand-01/t1/turn1",
        "a/probe-hand-01/t1/turn2",
        "a/probe-hand-01/t1/turn3",
    ]
    decision = items[0]
    assert (decision.probe, decision.key, decision.expected, decision.stale) == (
        "decision",
        "billing database",
        "pg-16",
        ("mysql-8",),
    )
    assert decision.question.startswith("Question: What was decided for the billing database")


def test_a_question_about_the_later_fact_still_gets_the_whole_chain():
    scenario = SCENARIOS[CASE]
    questions = tuple(replace(q, facts=("db2",)) if q.facts == ("db1",) else q for q in scenario.questions)
    rows = [{"case_id": CASE, "kind": "probe", "answers": ["done", "x", "mysql-8"]}]
    (_, decision) = probe_items(rows, {CASE: replace(scenario, questions=questions)})
    assert (decision.expected, decision.stale) == ("pg-16", ("mysql-8",))
    assert not decision.deterministic()


def test_probe_items_refuse_a_case_missing_from_the_scenario_files():
    with pytest.raises(HarnessError, match="pass --datasets"):
        probe_items([{"case_id": "nowhere", "kind": "probe", "answers": []}], SCENARIOS)


def judgements(pairs):
    return [{"judge": j, "deterministic": d} for j, d in pairs]


def test_a_judge_that_agrees_is_not_flagged():
    out = agreement_summary(judgements([(True, True), (False, False), (True, True), (False, False)]), 0.6)
    assert (out["n"], out["agreement"], out["kappa"], out["flagged"]) == (4, 1.0, 1.0, False)


def test_a_judge_below_the_threshold_is_flagged_and_error_judgements_are_left_out():
    out = agreement_summary(judgements([(True, True), (True, False), (False, False), (True, False), (ERROR, True)]), 0.6)
    assert (out["n"], out["errors"], out["agreement"]) == (4, 1, 0.5)
    # judge 3 of 4 true, deterministic 1 of 4: chance 0.75*0.25 + 0.25*0.75 = 0.375; (0.5 - 0.375) / 0.625
    assert out["kappa"] == pytest.approx(0.2) and out["flagged"]
    assert "below the threshold 0.6" in out["flag_reason"]


def test_one_class_of_deterministic_verdicts_is_flagged_as_no_calibration():
    undefined = agreement_summary(judgements([(True, True), (True, True)]), 0.6)
    assert undefined["kappa"] is None and undefined["interval"] is None and undefined["flagged"]
    assert "all true" in undefined["flag_reason"] and "kappa undefined" in undefined["flag_reason"]
    zero = agreement_summary(judgements([(True, False), (False, False)]), 0.6)
    assert zero["flagged"] and "kappa is 0.00 whatever the judge does" in zero["flag_reason"]
    assert agreement_summary(judgements([(ERROR, True)]), 0.6)["flag_reason"].startswith("no judgement has a verdict")


def test_the_stand_in_is_fooled_by_a_negation_and_calibration_catches_it():
    items = [item("pg-16"), item("mysql-8"), item("It is not pg-16."), item("pg-16 or mysql-8"), item("none")]
    result = calibrate(items, choose_judge("reference"), 0.6)
    assert [j["judge"] for j in result["judgements"]] == [True, False, True, True, False]
    assert [j["deterministic"] for j in result["judgements"]] == [True, False, False, False, False]
    # agreement 3/5; judge 3 true of 5, deterministic 1 of 5: chance 0.6*0.2 + 0.4*0.8 = 0.44
    assert result["kappa"] == pytest.approx(round((0.6 - 0.44) / 0.56, 4))
    assert result["flagged"] and result["simulated"] and result["judge_model"] == "reference-judge"


class APIConnectionError(Exception):
    """Shaped like a provider client's error: classified by its module."""


APIConnectionError.__module__ = "openai"


def test_a_judge_provider_error_is_error_never_a_verdict_and_its_secret_is_redacted():
    def failing(**_):
        raise APIConnectionError("connection refused; Authorization: Bearer sk-live-0123456789abcdef")

    out = judge_answer(failing, "Q", "pg-16", "pg-16", [])
    assert out["judge"] == ERROR and "reasoning" not in out
    assert out["error"]["provider_error"]["model"] == "judge"
    assert "sk-live-0123456789abcdef" not in str(out) and "[REDACTED]" in str(out)


def test_a_judge_answer_that_is_not_true_or_false_is_error():
    assert judge_answer(lambda **_: {"score": 0.7, "comment": "?"}, "Q", "a", "pg-16", [])["judge"] == ERROR
    assert judge_answer(lambda **_: {"score": True, "comment": "ok"}, "Q", "a", "pg-16", []) == {"judge": True, "reasoning": "ok"}


def test_choose_judge_builds_a_live_judge_like_the_other_models():
    choice = choose_judge("openai:reference-judge", base_url="http://127.0.0.1:9/v1", model_kwargs=["temperature=0"], max_rps=5)
    assert choice.simulated and choice.name == "openai:reference-judge"
    assert (choice.model.request_timeout, choice.model.max_retries, choice.model.temperature) == (120.0, 6, 0)
    assert choice.model.rate_limiter is not None
    assert choice.endpoint["endpoint"] == "http://127.0.0.1:9/v1"
    assert choice.endpoint["settings"]["max_rps"] == 5


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("reference", {"base_url": "http://127.0.0.1:9/v1"}, "--judge-base-url apply to a live judge"),
        ("reference", {"model_kwargs": ["timeout=5"]}, "--judge-model-kwargs apply"),
        ("gpt-5", {}, "write provider:name"),
        ("nope:model", {}, "unknown provider 'nope'"),
        ("openai:gpt-5", {"model_kwargs": ["api_key=sk-x"]}, "read from the environment"),
    ],
)
def test_choose_judge_refuses_bad_specs(spec, options, message):
    with pytest.raises(ConfigError, match=message):
        choose_judge(spec, **options)


def test_choose_judge_skips_a_live_judge_without_its_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LiveModelUnavailable, match="OPENAI_API_KEY is not set"):
        choose_judge("openai:gpt-5")
