"""The results row a finished case writes: ids, config, models, scores by role, outcome, event counts, token totals."""

from __future__ import annotations

from harness.runs.results import result_row
from harness.scenarios.schema import Scenario
from harness.scoring.scorers import CHECK, MEASURE, VALIDITY, Score
from harness.trace.schema import EVENT_TYPES, Trace

SCORES = [
    Score("run_completed", True, CHECK, "finished"),
    Score("compacted", True, VALIDITY, "1 summary"),
    Score("needle_correct", False, CHECK, "answered TANGO-8"),
    Score("history_pages_read", 0, MEASURE, "no page read"),
]


def _call(role: str, tokens: int, turn: int = 0, usage: dict | None = None) -> dict:
    return {"role": role, "turn": turn, "approx_tokens": tokens, "usage": usage, "response": None}


def _trace(**overrides) -> Trace:
    fields = {
        "case_id": "needle-h24k-d050",
        "kind": "needle",
        "run_id": "run-7",
        "trial": 2,
        "seed": 11,
        "config": {"name": "small-window", "strategy": "mask", "trigger_tokens": 900},
        "agent_model": "agent-x",
        "summary_model": "summarizer-y",
        "simulated": False,
        "wall_time_s": 4.25,
        "turns": [{"index": 0}, {"index": 1}],
        "calls": [
            _call("agent", 300, usage={"input_tokens": 320}),
            _call("summarizer", 250, usage={"input_tokens": 260}),
            _call("agent", 700, turn=1),
            _call("agent", 500, turn=1, usage={}),
        ],
        "events": [
            {"type": "summary", "turn": 0, "tokens_before": 800, "tokens_after": 200},
            {"type": "summary", "turn": 1, "tokens_before": 900, "tokens_after": 300},
            {"type": "mask", "turn": 1, "tokens_before": 600, "tokens_after": 400},
        ],
        "final": {"answers": ["Reviewed.", "TANGO-8"], "error": None},
    }
    return Trace(**{**fields, **overrides})


def test_the_row_names_the_case_its_arm_models_and_trace_file():
    row = result_row(_trace(), SCORES, trace_file="traces/needle-h24k-d050.json")
    assert {k: row[k] for k in ("run_id", "case_id", "kind", "trial", "seed", "arm", "strategy", "simulated")} == {
        "run_id": "run-7",
        "case_id": "needle-h24k-d050",
        "kind": "needle",
        "trial": 2,
        "seed": 11,
        "arm": "small-window",
        "strategy": "mask",
        "simulated": False,
    }
    assert row["config"] == {"name": "small-window", "strategy": "mask", "trigger_tokens": 900}
    assert (row["agent_model"], row["summary_model"]) == ("agent-x", "summarizer-y")
    assert (row["wall_time_s"], row["trace"], row["error"]) == (4.25, "traces/needle-h24k-d050.json", None)
    assert row["answers"] == ["Reviewed.", "TANGO-8"]


def test_a_row_of_no_eval_says_null_and_never_borrows_its_kinds_eval_and_the_scorer_set_is_default_unless_named():
    row = result_row(_trace(), SCORES, trace_file="t.json")
    assert (row["eval"], row["eval_version"], row["scorers"]) == (None, None, "default")
    assert row["known_upstream"] == {}  # an eval's declared known upstream failures are no ad-hoc run's
    assert result_row(_trace(), SCORES, trace_file="t.json", eval_name="needle")["eval"] == "needle"
    named = result_row(_trace(), SCORES, trace_file="t.json", eval_name="faults", scorers="subagent")
    assert (named["eval"], named["scorers"]) == ("faults", "subagent")


def test_the_row_records_the_version_of_its_eval_and_an_unknown_eval_has_none(monkeypatch):
    from dataclasses import replace

    from harness.runs import results
    from harness.suites.registry import SUITES

    # version 2 since issue 31 (the shared goal-drift checks asserted)
    needle = {"eval_name": "needle"}
    assert result_row(_trace(), SCORES, trace_file="t.json", **needle)["eval_version"] == SUITES["needle"].version == 2
    monkeypatch.setattr(results, "SUITES", {**SUITES, "needle": replace(SUITES["needle"], version=3)})
    assert result_row(_trace(), SCORES, trace_file="t.json", **needle)["eval_version"] == 3
    assert result_row(_trace(), SCORES, trace_file="t.json", eval_name="not-an-eval")["eval_version"] is None


def test_a_config_without_a_strategy_is_deepagents_summarization_and_without_a_name_has_no_arm():
    row = result_row(_trace(config={"trigger_tokens": 900}), SCORES, trace_file="t.json")
    assert (row["arm"], row["strategy"]) == (None, "deepagents-summarization")


def test_scores_are_kept_by_role_gating_ones_as_passed_and_validity_ones_listed():
    row = result_row(_trace(), SCORES, trace_file="t.json")
    assert row["scores"] == {"run_completed": True, "compacted": True, "needle_correct": False, "history_pages_read": 0}
    assert row["passed"] == {"run_completed": True, "compacted": True, "needle_correct": False}
    assert row["validity"] == ["compacted"]
    assert row["explanations"] == {
        "run_completed": "finished",
        "compacted": "1 summary",
        "needle_correct": "answered TANGO-8",
        "history_pages_read": "no page read",
    }
    assert (row["outcome"], row["outcome_keys"]) == ("FAIL", ["needle_correct"])


def test_a_provider_error_makes_the_row_error_with_its_cause():
    error = {"provider_error": {"model": "agent", "status": 503, "type": "InternalServerError"}}
    row = result_row(_trace(final={"answers": [], "error": error}), SCORES, trace_file="t.json")
    assert (row["outcome"], row["outcome_keys"]) == ("ERROR", ["agent: HTTP 503 InternalServerError"])
    assert row["error"] == error
    assert row["answers"] == []


def test_events_are_counted_by_type_every_type_present_even_at_zero():
    row = result_row(_trace(), SCORES, trace_file="t.json")
    assert list(row["events"]) == list(EVENT_TYPES)
    assert row["events"] == {"summary": 2, "mask": 1, "trim": 0, "evict": 0, "truncate-args": 0, "overflow-recovery": 0}


def test_token_totals_split_agent_and_summarizer_and_the_peak_is_the_largest_agent_request():
    row = result_row(_trace(), SCORES, trace_file="t.json")
    assert row["tokens"] == {
        "agent_input": 1500,
        "summarizer_input": 250,
        "peak_context": 700,
        "provider_input": 580,  # every call that reported usage, the summarizer's included
        "counter": "approximate (count_tokens_approximately)",
    }
    assert row["calls"] == {"agent": 3, "summarizer": 1}


def test_without_provider_usage_the_provider_total_is_none_and_without_agent_calls_the_peak_is_zero():
    row = result_row(_trace(calls=[_call("summarizer", 90)]), SCORES, trace_file="t.json")
    assert row["tokens"]["provider_input"] is None
    assert (row["tokens"]["peak_context"], row["tokens"]["agent_input"], row["tokens"]["summarizer_input"]) == (0, 0, 90)
    assert row["calls"] == {"agent": 0, "summarizer": 1}


def test_the_case_holds_the_scenarios_haystack_and_depth_and_is_empty_without_a_scenario():
    scenario = Scenario("needle-h24k-d050", "needle", "d", "task", haystack_tokens=24000, needle_depth=0.5)
    row = result_row(_trace(), SCORES, trace_file="t.json", scenario=scenario)
    assert row["case"] == {"haystack_tokens": 24000, "needle_depth": 0.5}
    assert result_row(_trace(), SCORES, trace_file="t.json")["case"] == {}


def test_the_metrics_read_the_cases_trace_scores_and_kind():
    metrics = result_row(_trace(), SCORES, trace_file="t.json")["metrics"]
    assert metrics["needle_recovered"] is False  # from the scores
    assert (metrics["summary_events"], metrics["peak_context"]) == (2, 700)  # from the trace
    assert metrics["summaries_before_question"] == 1  # a needle case: summaries before turn 1


def test_a_trace_that_ended_before_any_answer_has_an_empty_answer_list():
    row = result_row(_trace(final={"error": {"type": "ValueError", "message": "boom"}}), SCORES, trace_file="t.json")
    assert row["answers"] == []
