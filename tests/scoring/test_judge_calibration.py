"""Judge calibration (`harness.scoring.calibration`, `harness.scoring.judge`): the items, the two verdicts, kappa and
its flag, ERROR judgements, and the judge chosen from --judge-model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import ConfigError, HarnessError, LiveModelUnavailable
from harness.judge_prompt import value_reference
from harness.scenarios.schema import load_scenarios
from harness.scoring.calibration import (
    ProbeItem,
    agreement_summary,
    calibrate,
    judge_usage,
    probe_items,
    rubric_rows,
    usage_line,
)
from harness.scoring.judge import ERROR, choose_judge, judge_answer

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "judge_probe.jsonl"
SCENARIOS = {s.id: s for s in load_scenarios([FIXTURE])}
CASE = "probe-hand-01"


DEV = {s.id: s for s in load_scenarios([Path(__file__).resolve().parents[2] / "datasets" / "probes.jsonl"])}
PLAN, TRAIL = "probe-plan-state-s7-i0", "probe-artifact-trail-s7-i0"


def answered(case: str, turn: int, answer: str, scenarios=SCENARIOS) -> ProbeItem:
    """The probe item of ``case``'s question in ``turn`` answered by ``answer``."""
    answers = [""] * turn + [answer]
    (only,) = [i for i in probe_items([{"case_id": case, "kind": "probe", "arm": "a", "answers": answers}], scenarios)]
    return only


@pytest.mark.parametrize(
    ("case", "turn", "answer", "verdict"),
    [
        (CASE, 3, "500", True),  # recall: the maximum batch size
        (CASE, 3, "The maximum batch size is 500.", True),
        (CASE, 3, "500, not 1000", True),
        (CASE, 3, "It is not 500.", False),  # negated: no value given
        (CASE, 3, "It is no longer 500.", False),
        (CASE, 2, "pg-16 or mysql-8; rejected: mysql-8", False),  # ambiguous: two of the chain's values as decided
        (CASE, 2, "pg-16; rejected: mysql-8", True),  # decision: the latest decided, the earlier rejected
        (CASE, 2, "mysql-8; rejected: pg-16", False),  # roles swapped
        (CASE, 2, "pg-16; rejected: none", False),  # decided right, the rejected alternative left out
        (PLAN, 2, "close-backlog", True),  # continuation: the latest status
        (PLAN, 2, "The next step is update-manifests.", False),  # a stale status
        (TRAIL, 1, "/notes/ledger_01.md\n/notes/ledger_02.md\n/reports/log.md", True),  # artifact: exactly the set
        (TRAIL, 1, "/notes/ledger_01.md\n/reports/log.md", False),  # one missing
        (TRAIL, 1, "/notes/ledger_01.md\n/notes/ledger_02.md\n/reports/log.md\n/docs/DOC-001.md", False),  # one extra
    ],
)
def test_the_deterministic_verdict_is_the_probe_checks_reading(case, turn, answer, verdict):
    item = answered(case, turn, answer, {**SCENARIOS, **DEV})
    assert item.deterministic is verdict


def test_each_probe_kind_gets_its_rubric_and_reference():
    scenarios = {**SCENARIOS, **DEV}
    decision, recall = answered(CASE, 2, "x", scenarios), answered(CASE, 3, "x", scenarios)
    plan, trail = answered(PLAN, 2, "x", scenarios), answered(TRAIL, 1, "x", scenarios)
    assert (decision.rubric, decision.reference) == ("decision", {"decided": "pg-16", "rejected": ["mysql-8"]})
    assert (recall.rubric, recall.reference) == ("current_value", {"expected": "500", "stale": []})
    assert (plan.rubric, plan.reference) == (
        "continuation",
        {"expected": "close-backlog", "stale": ["update-manifests", "reconcile-ledgers"]},
    )
    assert trail.rubric == "artifacts" and trail.reference == {
        "files": [
            {"path": "/notes/ledger_01.md", "action": "written"},
            {"path": "/notes/ledger_02.md", "action": "written"},
            {"path": "/reports/log.md", "action": "edited"},
        ]
    }
    assert decision.question.startswith("Question: What was decided for the billing database")


def test_probe_items_take_answered_questions_of_probe_rows_sorted_by_id():
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


def test_a_question_about_the_later_fact_still_gets_the_whole_chain():
    scenario = SCENARIOS[CASE]
    questions = tuple(replace(q, facts=("db2",)) if q.facts == ("db1",) else q for q in scenario.questions)
    rows = [{"case_id": CASE, "kind": "probe", "answers": ["done", "x", "mysql-8"]}]
    (_, decision) = probe_items(rows, {CASE: replace(scenario, questions=questions)})
    assert decision.reference == {"decided": "pg-16", "rejected": ["mysql-8"]}
    assert not decision.deterministic


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


def recall_item(answer: str) -> ProbeItem:
    return answered(CASE, 3, answer)


def test_the_stand_in_is_fooled_by_a_negation_and_calibration_catches_it():
    items = [recall_item(a) for a in ("500", "1000", "It is not 500.", "no longer 500", "none")]
    result = calibrate(items, choose_judge("reference"), 0.6)
    assert [j["judge"] for j in result["judgements"]] == [True, False, True, True, False]
    assert [j["deterministic"] for j in result["judgements"]] == [True, False, False, False, False]
    # agreement 3/5; judge 3 true of 5, deterministic 1 of 5: chance 0.6*0.2 + 0.4*0.8 = 0.44
    assert result["kappa"] == pytest.approx(round((0.6 - 0.44) / 0.56, 4))
    assert result["flagged"] and result["simulated"] and result["judge_model"] == "reference-judge"
    assert list(result["by_rubric"]) == ["current_value"] and result["by_rubric"]["current_value"]["n"] == 5


def test_each_rubric_gets_its_own_kappa_and_a_bad_rubric_flags_a_judge_that_agrees_overall():
    scenarios = {**SCENARIOS, **DEV}
    good = [recall_item(a) for a in ("500", "1000", "500", "none")] * 3  # the stand-in is right on these
    files = "/notes/ledger_01.md\n/notes/ledger_02.md\n/reports/log.md"
    trail = [answered(TRAIL, 1, a, scenarios) for a in (files, files + "\n/docs/x.md", "/reports/log.md")]
    result = calibrate(good + trail, choose_judge("reference"), 0.6)
    recall, artifacts = result["by_rubric"]["current_value"], result["by_rubric"]["artifacts"]
    assert (recall["n"], recall["kappa"]) == (12, 1.0)
    # the extra file: judge true, deterministic false. agreement 2/3; judge 2 of 3 true, deterministic 1 of 3:
    # chance 2/3*1/3 + 1/3*2/3 = 4/9; (2/3 - 4/9) / (5/9) = 0.4
    assert (artifacts["n"], artifacts["kappa"], artifacts["flagged"]) == (3, 0.4, True)
    assert result["kappa"] > 0.6  # overall the judge looks fine ...
    assert result["flagged"] and "artifacts 0.40" in result["flag_reason"]  # ... and is flagged for its artifacts rubric


def test_a_rubric_with_one_class_is_shown_undefined_without_flagging_the_judge():
    good = [recall_item(a) for a in ("500", "1000")] * 2
    plan = answered(PLAN, 2, "close-backlog", {**SCENARIOS, **DEV})
    result = calibrate([*good, plan], choose_judge("reference"), 0.6)
    assert result["by_rubric"]["continuation"]["kappa"] is None and result["by_rubric"]["continuation"]["flagged"]
    assert not result["flagged"] and result["kappa"] == 1.0
    (row,) = [r for r in rubric_rows(result) if r["rubric"] == "continuation"]
    assert (row["kappa"], row["95 % interval"]) == ("undefined", "none") and "all true" in row["flag"]


def test_judge_tokens_and_cost_are_recorded_and_an_unpriced_judge_has_no_cost():
    items = [recall_item(a) for a in ("500", "1000")]
    result = calibrate(items, choose_judge("reference"), 0.6)
    usage = result["usage"]
    per_call = [j["usage"] for j in result["judgements"]]
    assert usage["judgements"] == 2 and all(u["input_tokens"] > 100 for u in per_call)
    assert usage["input_tokens"] == sum(u["input_tokens"] for u in per_call)
    assert usage["output_tokens"] == sum(u["output_tokens"] for u in per_call) > 0
    assert usage["cost_usd"] == 0.0 and usage["prices_as_of"]  # the stand-in is priced at zero
    assert "cost $0.0000" in usage_line(result)
    unpriced = judge_usage([{"usage": {"input_tokens": 1000, "output_tokens": 10}}], "openai:no-such-model")
    assert unpriced["cost_usd"] is None and "n/a: no price" in usage_line({"usage": unpriced})
    priced = judge_usage([{"usage": {"input_tokens": 1_000_000, "output_tokens": 100_000}}], "openai:gpt-5-mini")
    assert priced["cost_usd"] == pytest.approx(0.25 + 0.2)  # $0.25 per M input, $2.00 per M output


class APIConnectionError(Exception):
    """Shaped like a provider client's error: classified by its module."""


APIConnectionError.__module__ = "openai"


def test_a_judge_provider_error_is_error_never_a_verdict_and_its_secret_is_redacted():
    def failing(**_):
        raise APIConnectionError("connection refused; Authorization: Bearer sk-live-0123456789abcdef")

    out = judge_answer(failing, "Q", "pg-16", value_reference("pg-16", []))
    assert out["judge"] == ERROR and "reasoning" not in out
    assert out["error"]["provider_error"]["model"] == "judge"
    assert "sk-live-0123456789abcdef" not in str(out) and "[REDACTED]" in str(out)


def test_a_judge_answer_that_is_not_true_or_false_is_error():
    ref = value_reference("pg-16", [])
    assert judge_answer(lambda **_: {"score": 0.7, "comment": "?"}, "Q", "a", ref)["judge"] == ERROR
    assert judge_answer(lambda **_: {"score": True, "comment": "ok"}, "Q", "a", ref) == {
        "judge": True,
        "reasoning": "ok",
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


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
