"""From result rows to the frame every comparison reads (harness.analysis.compare.cells_frame), and the coverage
table that says what each rate counts and leaves out: ids and their defaults, the threshold label, which outcomes are
valid and pass, why a run was left out, which kinds a metric covers, and the order of the coverage rows."""

from __future__ import annotations

from typing import Any

import pandas as pd

from harness.analysis.compare import cells_frame, coverage, covered_kinds, is_priced


def row(outcome: str = "PASS", keys: list[str] | None = None, **fields: Any) -> dict[str, Any]:
    """A results row as `harness run` writes it, with only what the frame reads."""
    base: dict[str, Any] = {
        "arm": "base",
        "case_id": "needle-1",
        "kind": "needle",
        "threshold": "20%",
        "outcome": outcome,
        "outcome_keys": keys or [],
        "metrics": {},
    }
    base.update(fields)
    return base


def one(r: dict[str, Any]) -> dict[str, Any]:
    return cells_frame([r]).to_dict("records")[0]


# ---------------------------------------------------------------------------------------------------- ids


def test_a_cell_keeps_the_row_s_ids():
    cell = one(row(arm="v1", case_id="goal-3", kind="goal", eval="goal-long", strategy="mask", trial=2, threshold="50%"))
    assert {k: cell[k] for k in ("arm", "eval", "strategy", "threshold", "case_id", "kind", "trial")} == {
        "arm": "v1",
        "eval": "goal-long",
        "strategy": "mask",
        "threshold": "50%",
        "case_id": "goal-3",
        "kind": "goal",
        "trial": 2,
    }


def test_missing_ids_default_to_the_kind_s_eval_deepagents_summarization_and_trial_zero_and_no_eval_is_said():
    r = {"case_id": "needle-1", "kind": "needle", "outcome": "PASS", "threshold": "20%"}
    cell = one(r)
    assert cell["arm"] is None
    assert cell["eval"] == "needle"
    assert cell["strategy"] == "deepagents-summarization"
    assert cell["trial"] == 0
    # a row that ran as no eval (eval null) is named "<kind> cases, no eval" (`harness.rows.eval_label`), never its kind's eval
    assert one({**r, "eval": None})["eval"] == "needle cases, no eval"
    assert one({**r, "eval": ""})["eval"] == "needle cases, no eval"


def test_without_a_threshold_the_cell_is_labelled_by_the_config_s_triggers():
    def label(config: dict[str, Any] | None, threshold: Any = None) -> str:
        r = row(threshold=threshold)
        if config is not None:
            r["config"] = config
        return one(r)["threshold"]

    assert label({"trigger": [["fraction", 0.2]]}) == "20%"
    assert label({"trigger": [["fraction", 0.125]]}) == "12.5%"
    assert label({"trigger": [["tokens", 60000.0]]}) == "tokens:60000"
    assert label({"trigger": [["fraction", 0.5], ["messages", 40]]}) == "50%+messages:40"
    assert label({"trigger": []}) == "-"
    assert label({}) == "-"
    assert label(None) == "-"
    assert label({"trigger": [["fraction", 0.2]]}, threshold="") == "20%"
    assert label({"trigger": [["fraction", 0.2]]}, threshold="custom") == "custom"


# ---------------------------------------------------------------------------------------------------- outcomes


def test_pass_and_fail_are_valid_runs_and_passed_says_which():
    passed, failed = one(row("PASS")), one(row("FAIL", ["needle_correct"]))
    assert (passed["outcome"], passed["valid"], passed["passed"]) == ("PASS", True, True)
    assert (failed["outcome"], failed["valid"], failed["passed"]) == ("FAIL", True, False)
    assert passed["invalid_reasons"] == failed["invalid_reasons"] == ""
    assert passed["error_cause"] == failed["error_cause"] == ""


def test_an_invalid_run_counts_in_no_rate_and_keeps_why_it_is_invalid():
    cell = one(row("INVALID", ["compacted", "summary_present"]))
    assert (cell["outcome"], cell["valid"], cell["passed"]) == ("INVALID", False, None)
    assert cell["invalid_reasons"] == "compacted,summary_present"
    assert cell["error_cause"] == ""


def test_an_errored_run_counts_in_no_rate_and_keeps_its_cause():
    cell = one(row("ERROR", ["agent: HTTP 503 InternalServerError", "summarizer: APITimeoutError"]))
    assert (cell["outcome"], cell["valid"], cell["passed"]) == ("ERROR", False, None)
    assert cell["error_cause"] == "agent: HTTP 503 InternalServerError,summarizer: APITimeoutError"
    assert cell["invalid_reasons"] == ""


def test_an_old_row_without_an_outcome_is_classified_from_its_checks():
    legacy = {"case_id": "n", "kind": "needle", "threshold": "20%", "passed": {"compressed": False, "needle_correct": True}}
    cell = one(legacy)
    assert (cell["outcome"], cell["valid"], cell["passed"], cell["invalid_reasons"]) == ("INVALID", False, None, "compressed")


# ---------------------------------------------------------------------------------------------------- the rest


def test_a_cell_carries_the_case_s_needle_placement_and_every_metric():
    cell = one(
        row(
            case={"needle_depth": 0.25, "haystack_tokens": 8000},
            metrics={"needle_recovered": True, "agent_tokens": 1234},
            simulated=False,
        )
    )
    assert (cell["needle_depth"], cell["haystack_tokens"]) == (0.25, 8000)
    assert (cell["needle_recovered"], cell["agent_tokens"]) == (True, 1234)
    assert cell["simulated"] is False
    bare = one(row(case=None))
    assert bare["needle_depth"] is None and bare["haystack_tokens"] is None and bare["simulated"] is None


def test_a_simulated_run_has_no_cost_and_a_live_one_keeps_its_cost():
    assert one(row(simulated=True, metrics={"cost_usd": 0.0, "agent_tokens": 10}))["cost_usd"] is None
    assert one(row(simulated=True, metrics={"agent_tokens": 10}))["cost_usd"] is None
    assert one(row(simulated=False, metrics={"cost_usd": 0.42}))["cost_usd"] == 0.42
    assert one(row(metrics={"cost_usd": 0.42}))["cost_usd"] == 0.42
    assert "cost_usd" not in one(row(metrics={"agent_tokens": 10}))


def test_only_a_run_that_is_not_simulated_is_priced():
    assert is_priced({"simulated": False}) is True
    assert is_priced({}) is True
    assert is_priced({"simulated": None}) is True
    assert is_priced({"simulated": True}) is False


def test_one_cell_per_row_in_row_order():
    frame = cells_frame([row(case_id="a"), row(case_id="b", outcome="FAIL"), row(case_id="c", outcome="ERROR")])
    assert frame["case_id"].tolist() == ["a", "b", "c"]
    assert frame["outcome"].tolist() == ["PASS", "FAIL", "ERROR"]


# ---------------------------------------------------------------------------------------------------- covered kinds


def _kinds_frame() -> pd.DataFrame:
    return cells_frame(
        [
            row(case_id="n1", kind="needle", metrics={"needle_recovered": True, "agent_tokens": 5}),
            row(case_id="n2", kind="needle", outcome="FAIL", metrics={"needle_recovered": False, "agent_tokens": 7}),
            row(case_id="g1", kind="goal", outcome="INVALID", keys=["compacted"], metrics={"agent_tokens": 9}),
            row(case_id="c1", kind="chat", outcome="ERROR", keys=["agent: HTTP 500"]),
        ]
    )


def test_a_metric_covers_the_kinds_where_any_run_has_a_value():
    frame = _kinds_frame()
    assert covered_kinds(frame, "needle_recovered") == ["needle"]
    assert covered_kinds(frame, "agent_tokens") == ["goal", "needle"]


def test_task_success_covers_every_kind_even_one_with_no_valid_run():
    # goal and chat ran only INVALID or ERROR, so their `passed` is empty: they are still what the rate left out
    assert covered_kinds(_kinds_frame(), "passed") == ["chat", "goal", "needle"]


def test_a_metric_no_run_has_covers_every_kind_and_a_frame_without_kinds_none():
    frame = _kinds_frame()
    assert covered_kinds(frame, "summary_length") == ["chat", "goal", "needle"]
    assert covered_kinds(frame.drop(columns=["kind"]), "passed") == []
    assert covered_kinds(pd.DataFrame({"kind": ["b", None, "a", "b"]}), "passed") == ["a", "b"]


# ---------------------------------------------------------------------------------------------------- coverage


def _coverage_rows() -> list[dict[str, Any]]:
    return [
        row(arm="v2", threshold="50%", eval="needle", case_id="a"),
        row(arm="v2", threshold="50%", eval="needle", case_id="b", outcome="INVALID", keys=["compacted"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="c", outcome="INVALID", keys=["compacted", "summary"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="d", outcome="INVALID", keys=["compacted"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="e", outcome="ERROR", keys=["agent: HTTP 503"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="f", outcome="ERROR", keys=["agent: HTTP 503"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="g", outcome="ERROR", keys=["summarizer: timeout"]),
        row(arm="v2", threshold="50%", eval="needle", case_id="h", outcome="FAIL", keys=["needle_correct"]),
        row(arm="base", threshold="50%", eval="needle", case_id="a"),
        row(arm="base", threshold="50%", eval="goal", case_id="g", kind="goal", outcome="FAIL", keys=["goal"]),
        row(arm="base", threshold="20%", eval="needle", case_id="a"),
        row(arm="v1", threshold="20%", eval="needle", case_id="a"),
    ]


def test_coverage_counts_every_outcome_and_why_runs_were_left_out():
    table = coverage(cells_frame(_coverage_rows()), arms=["base"])
    v2 = table[table["arm"] == "v2"].to_dict("records")
    assert v2 == [
        {
            "arm": "v2",
            "threshold": "50%",
            "eval": "needle",
            "runs": 8,
            "PASS": 1,
            "FAIL": 1,
            "INVALID": 3,
            "invalid because": "compacted (3), summary (1)",
            "ERROR": 3,
            "error causes": "agent: HTTP 503 (2), summarizer: timeout (1)",
        }
    ]
    clean = table[(table["arm"] == "base") & (table["threshold"] == "20%")].to_dict("records")[0]
    assert (clean["runs"], clean["PASS"], clean["FAIL"], clean["INVALID"], clean["ERROR"]) == (1, 1, 0, 0, 0)
    assert clean["invalid because"] == "-" and clean["error causes"] == "-"


def test_coverage_rows_follow_the_given_arms_then_thresholds_then_evals():
    table = coverage(cells_frame(_coverage_rows()), arms=["base"])
    assert list(zip(table["arm"], table["threshold"], table["eval"])) == [
        ("base", "20%", "needle"),
        ("base", "50%", "goal"),
        ("base", "50%", "needle"),
        ("v2", "50%", "needle"),
        ("v1", "20%", "needle"),
    ]
    ordered = coverage(cells_frame(_coverage_rows()), arms=["v1", "base"], thresholds=["50%"])
    assert list(zip(ordered["arm"], ordered["threshold"], ordered["eval"])) == [
        ("v1", "20%", "needle"),
        ("base", "50%", "goal"),
        ("base", "50%", "needle"),
        ("base", "20%", "needle"),
        ("v2", "50%", "needle"),
    ]


def test_without_given_orders_arms_come_as_they_appear_and_thresholds_sorted():
    table = coverage(cells_frame(_coverage_rows()))
    assert list(zip(table["arm"], table["threshold"])) == [
        ("v2", "50%"),
        ("base", "20%"),
        ("base", "50%"),
        ("base", "50%"),
        ("v1", "20%"),
    ]
    assert table["eval"].tolist()[2:4] == ["goal", "needle"]


def test_coverage_of_a_frame_without_evals_outcomes_or_reasons_counts_every_run_as_pass():
    frame = pd.DataFrame({"arm": ["a", "a", "b"], "threshold": ["20%", "20%", "20%"], "case_id": ["x", "y", "x"]})
    assert coverage(frame).to_dict("records") == [
        {
            "arm": "a",
            "threshold": "20%",
            "runs": 2,
            "PASS": 2,
            "FAIL": 0,
            "INVALID": 0,
            "invalid because": "-",
            "ERROR": 0,
            "error causes": "-",
        },
        {
            "arm": "b",
            "threshold": "20%",
            "runs": 1,
            "PASS": 1,
            "FAIL": 0,
            "INVALID": 0,
            "invalid because": "-",
            "ERROR": 0,
            "error causes": "-",
        },
    ]
