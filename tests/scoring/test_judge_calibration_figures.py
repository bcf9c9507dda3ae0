"""The judge's calibration figures in detail (`harness.scoring.calibration`): the kappa threshold's bounds, each
flag's reason, the rounding of what judge.json records, and the lines and rows that show them."""

from __future__ import annotations

import json

import pytest

from harness.errors import ConfigError
from harness.scoring.calibration import (
    JUDGE_FILE,
    _flag_rubrics,
    agreement_summary,
    check_threshold,
    load_judge_file,
    probe_items,
    rubric_rows,
    summary_line,
    usage_line,
)
from harness.stats import bootstrap_kappa
from tests.scoring.test_judge_calibration import CASE, SCENARIOS


@pytest.mark.parametrize("kappa", [0.0, -0.1, 1.01, 2])
def test_a_kappa_threshold_outside_zero_to_one_is_refused(kappa):
    with pytest.raises(ConfigError) as info:
        check_threshold(kappa)
    assert str(info.value) == f"--min-kappa {kappa}: give a kappa threshold above 0 and at most 1 (default 0.6)"


@pytest.mark.parametrize("kappa", [1.0, 0.6, 0.001])
def test_a_kappa_threshold_in_zero_to_one_is_taken(kappa):
    check_threshold(kappa)


def _judgements(pairs):
    return [{"judge": j, "deterministic": d} for j, d in pairs]


def test_the_summary_records_rounded_figures_and_its_threshold():
    pairs = [(True, True), (False, False), (True, True), (False, True), (False, False), (True, False)]
    out = agreement_summary(_judgements(pairs), 0.3)
    assert (out["n"], out["errors"], out["threshold"]) == (6, 0, 0.3)
    assert out["agreement"] == 0.6667  # 4/6 to four places
    assert out["kappa"] == 0.3333  # judge 3/6 true, det 3/6: chance 0.5; (2/3 - 1/2) / (1/2)
    judge, det = [j for j, _ in pairs], [d for _, d in pairs]
    assert out["interval"] == [round(x, 4) for x in bootstrap_kappa(judge, det)]
    assert out["interval"][0] < out["kappa"] < out["interval"][1]
    assert (out["flagged"], out["flag_reason"]) == (False, None)


def test_a_kappa_at_the_threshold_is_not_flagged_and_one_just_under_is():
    pairs = [(True, True), (False, False), (True, True), (False, True), (False, False), (True, False)]
    kappa = agreement_summary(_judgements(pairs), 0.5)["kappa"]
    assert not agreement_summary(_judgements(pairs), 0.3333)["flagged"]
    under = agreement_summary(_judgements(pairs), 0.34)
    assert under["flagged"] and under["flag_reason"] == "kappa 0.33 is below the threshold 0.34"
    assert kappa == 0.3333
    perfect = [(True, True), (False, False)]
    assert not agreement_summary(_judgements(perfect), 1.0)["flagged"]  # kappa 1.0 at the threshold 1.0


def test_one_class_of_verdicts_is_named_with_its_class_and_why():
    false_only = agreement_summary(_judgements([(True, False), (False, False)]), 0.6)
    assert false_only["flag_reason"] == (
        "the deterministic verdicts are all false: a sample with both classes is needed, kappa is 0.00 whatever the judge does"
    )
    true_only = agreement_summary(_judgements([(True, True), (True, True)]), 0.6)
    assert true_only["flag_reason"] == (
        "the deterministic verdicts are all true: a sample with both classes is needed, kappa undefined"
    )
    none = agreement_summary(_judgements([("ERROR", True), ("ERROR", False)]), 0.6)
    assert (none["n"], none["errors"], none["agreement"], none["kappa"], none["interval"]) == (0, 2, None, None, None)
    assert none["flag_reason"] == "no judgement has a verdict: kappa undefined" and none["flagged"]


def test_a_low_rubric_flags_the_overall_summary_naming_each_low_rubric():
    overall = {"flagged": False, "flag_reason": None, "kappa": 0.9}
    by_rubric = {
        "current_value": {"kappa": 0.5},
        "decision": {"kappa": None},
        "artifacts": {"kappa": 0.25},
        "continuation": {"kappa": 0.6},
    }
    out = _flag_rubrics(overall, by_rubric, 0.6)
    assert out == {
        "flagged": True,
        "flag_reason": "a rubric's kappa is below the threshold 0.6: current_value 0.50, artifacts 0.25",
        "kappa": 0.9,
    }
    assert overall["flagged"] is False  # the summary passed in is not changed
    already = {"flagged": True, "flag_reason": "kappa 0.10 is below the threshold 0.6"}
    assert _flag_rubrics(already, by_rubric, 0.6) == already  # the overall reason stands
    assert _flag_rubrics(overall, {"decision": {"kappa": 0.6}}, 0.6) == overall


def _result(**extra):
    result = {
        "judge_model": "openai:gpt-5-mini",
        "simulated": False,
        "kappa": 0.71234,
        "interval": [0.5, 0.875],
        "agreement": 0.875,
        "n": 40,
        "errors": 0,
        "threshold": 0.6,
    }
    return {**result, **extra}


def test_the_summary_line_shows_kappa_with_its_interval_n_and_threshold():
    assert summary_line(_result()) == (
        "judge `openai:gpt-5-mini`: Cohen's kappa 0.71 (95 % bootstrap [0.50, 0.88]), n=40, agreement 88%, threshold 0.6"
    )
    line = summary_line(_result(simulated=True, kappa=None, interval=None, agreement=None, errors=3, n=0))
    assert line == (
        "judge `openai:gpt-5-mini` (simulated): Cohen's kappa undefined (no interval), n=0, 3 ERROR (left out), "
        "agreement n/a, threshold 0.6"
    )


def test_rubric_rows_show_each_rubric_and_flag_one_below_its_threshold():
    r = {"n": 5, "errors": 1, "agreement": 0.8, "kappa": 0.55, "interval": [0.1, 0.9], "threshold": 0.6, "flag_reason": "x"}
    ok = {**r, "kappa": 0.6, "flag_reason": None}
    undefined = {**r, "kappa": None, "interval": None, "agreement": None, "flag_reason": "kappa undefined"}
    rows = rubric_rows({"by_rubric": {"decision": r, "current_value": ok, "artifacts": undefined}})
    assert rows == [
        {
            "rubric": "decision",
            "n": 5,
            "ERROR": 1,
            "agreement": "80%",
            "kappa": "0.55",
            "95 % interval": "[0.10, 0.90]",
            "flag": "below threshold",
        },
        {
            "rubric": "current_value",
            "n": 5,
            "ERROR": 1,
            "agreement": "80%",
            "kappa": "0.60",
            "95 % interval": "[0.10, 0.90]",
            "flag": "",
        },
        {
            "rubric": "artifacts",
            "n": 5,
            "ERROR": 1,
            "agreement": "n/a",
            "kappa": "undefined",
            "95 % interval": "none",
            "flag": "kappa undefined",
        },
    ]
    assert rubric_rows({"by_rubric": {"decision": {**undefined, "flag_reason": None}}})[0]["flag"] == ""
    assert rubric_rows({}) == [] and rubric_rows({"by_rubric": None}) == []


def test_the_usage_line_gives_tokens_and_cost_and_says_when_none_was_recorded():
    usage = {"judgements": 3, "input_tokens": 12345, "output_tokens": 678, "cost_usd": 0.01234, "prices_as_of": "2026-11-01"}
    assert usage_line({"usage": usage}) == (
        "judge calls: 3 judgements, 12,345 input and 678 output tokens, cost $0.0123 (prices as of 2026-11-01)"
    )
    assert usage_line({}) == "judge tokens: not recorded (judge.json from an earlier harness)"
    assert usage_line({"usage": {}}) == "judge tokens: not recorded (judge.json from an earlier harness)"


def test_load_judge_file_reads_judge_json_or_gives_none(tmp_path):
    assert JUDGE_FILE == "judge.json"
    assert load_judge_file(tmp_path) is None
    (tmp_path / JUDGE_FILE).write_text(json.dumps({"kappa": 0.5}), encoding="utf-8")
    assert load_judge_file(tmp_path) == {"kappa": 0.5}


def test_an_item_id_names_arm_threshold_case_trial_and_turn_and_other_kinds_are_skipped():
    rows = [
        {"case_id": "not-a-case", "answers": ["x"]},  # not a probe row: skipped, and its case never looked up
        {"case_id": CASE, "kind": "probe", "arm": "sw", "threshold": 0.5, "trial": 2, "answers": ["", "", "pg-16"]},
        {"case_id": CASE, "kind": "probe", "answers": ["", "", "pg-16"]},  # no arm, threshold or trial
        {"case_id": CASE, "kind": "probe", "arm": "x", "threshold": 0, "answers": ["", "", "pg-16"]},
        {"case_id": CASE, "kind": "probe", "arm": "y", "answers": None},
    ]
    items = probe_items(rows, SCENARIOS)
    assert [i.probe for i in items] == ["decision"] * 3
    assert [i.id for i in items] == [
        "/probe-hand-01/t0/turn2",
        "sw@0.5/probe-hand-01/t2/turn2",
        "x/probe-hand-01/t0/turn2",
    ]


def test_each_judgement_records_the_item_and_the_judge_and_an_endpoint_only_when_there_is_one():
    from dataclasses import replace

    from harness.scoring.calibration import calibrate, judge_usage
    from harness.scoring.judge import choose_judge
    from tests.scoring.test_judge_calibration import recall_item

    result = calibrate([recall_item("500")], choose_judge("reference"), 0.6)
    (j,) = result["judgements"]
    assert (j["id"], j["probe"], j["rubric"], j["answer"], j["deterministic"]) == (
        "a/probe-hand-01/t0/turn3",
        "recall",
        "current_value",
        "500",
        True,
    )
    assert j["reference"] == {"expected": "500", "stale": []} and "endpoint" not in result
    live = replace(choose_judge("reference"), endpoint={"endpoint": "http://127.0.0.1:9/v1"})
    assert calibrate([recall_item("500")], live, 0.6)["endpoint"] == {"endpoint": "http://127.0.0.1:9/v1"}
    one_token = judge_usage([{"usage": {"input_tokens": 1, "output_tokens": 0}}], "openai:gpt-5-mini")
    assert one_token["cost_usd"] == 0.0  # $0.25 per M tokens: 2.5e-7, rounded to six places
    unpriced = {"judgements": 1, "input_tokens": 5, "output_tokens": 1, "cost_usd": None, "prices_as_of": "x"}
    assert usage_line({"usage": unpriced}) == (
        "judge calls: 1 judgements, 5 input and 1 output tokens, cost n/a: no price for this model"
    )
