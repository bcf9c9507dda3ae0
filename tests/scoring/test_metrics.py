"""Per-case metrics and cost: what each figure of a comparison is made of (hand-built traces, no agent runs)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.scoring import cost, metrics
from harness.scoring.scorers import CHECK, MEASURE, Score
from harness.trace.schema import Trace

TABLE = {
    "openai:gpt-4o": {"input": 2.5, "output": 10.0, "cache_read": 1.25},
    "openai:gpt-4o-mini": {"input": 0.15, "output": 0.6},
    "anthropic:claude": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
    "sum": {"input": 1.0, "output": 2.0},
}


def call(role: str, tokens: int, turn: int = 0, usage: dict | None = None, text: str | None = "", tools: bool = False):
    response = None if text is None else {"text": text, "tool_calls": [{"name": "ls"}] if tools else []}
    return {"role": role, "turn": turn, "approx_tokens": tokens, "usage": usage, "response": response}


def trace(calls: list[dict], events: list[dict] = (), turns: int = 2, agent="openai:gpt-4o", summ="sum") -> Trace:  # type: ignore[assignment]
    return Trace(
        case_id="c",
        kind="needle",
        agent_model=agent,
        summary_model=summ,
        calls=list(calls),
        events=list(events),
        turns=[{"index": i} for i in range(turns)],
    )


@pytest.fixture(autouse=True)
def _table(monkeypatch):
    monkeypatch.setattr(cost, "prices", lambda: dict(TABLE))


# -- prices --------------------------------------------------------------------------------------------------------
def test_a_price_is_the_exact_entry_before_any_prefix():
    assert cost.price_for("openai:gpt-4o-mini", TABLE) is TABLE["openai:gpt-4o-mini"]
    assert cost.price_for("openai:gpt-4o", TABLE) is TABLE["openai:gpt-4o"]


def test_a_dated_snapshot_takes_the_longest_listed_prefix():
    assert cost.price_for("openai:gpt-4o-mini-2024-07-18", TABLE) is TABLE["openai:gpt-4o-mini"]
    assert cost.price_for("openai:gpt-4o-2024-08-06", TABLE) is TABLE["openai:gpt-4o"]


def test_a_name_that_only_starts_like_a_listed_model_has_no_price():
    assert cost.price_for("openai:gpt-4oo", TABLE) is None
    assert cost.price_for("openai:gpt-4", TABLE) is None
    assert cost.price_for("unknown", {}) is None


def test_price_for_reads_the_shipped_table_by_default(monkeypatch):
    monkeypatch.setattr(cost, "prices", lambda: {"m": {"input": 9.0}})
    assert cost.price_for("m") == {"input": 9.0}
    assert cost.price_for("m-2025") == {"input": 9.0}


@pytest.fixture
def prices_file(monkeypatch, tmp_path):
    """cost.PRICES_FILE pointed at a file of the test's (the real prices(), not the autouse stand-in), read afresh."""
    f = tmp_path / "prices.yaml"
    monkeypatch.undo()
    monkeypatch.setattr(cost, "PRICES_FILE", f)
    cost.price_table.cache_clear()
    yield f
    cost.price_table.cache_clear()


def test_the_shipped_table_keeps_only_entries_that_are_prices(prices_file):
    prices_file.write_text("as_of: '2025-11'\nmodels:\n  a: {input: 1.0}\n  b: not-a-price\n  3: {input: 2.0}\n")
    assert cost.price_table()["as_of"] == "2025-11"
    assert cost.prices() == {"a": {"input": 1.0}, "3": {"input": 2.0}}


def test_a_table_without_a_models_key_is_read_as_the_models_themselves(prices_file, monkeypatch):
    prices_file.write_text("a: {input: 1.0}\n")
    assert cost.price_table() == {"models": {"a": {"input": 1.0}}}
    prices_file.write_text("")
    cost.price_table.cache_clear()
    assert cost.price_table() == {"models": {}}
    monkeypatch.setattr(cost, "PRICES_FILE", prices_file.parent / "missing.yaml")
    cost.price_table.cache_clear()
    assert cost.price_table() == {"models": {}}


# -- cost ----------------------------------------------------------------------------------------------------------
def test_cost_is_unknown_when_the_provider_reported_no_usage_never_the_approximation():
    """The metric is the row's cost total (`cost.case_cost`): tokens no provider reported are unknown, so are their
    dollars (it used to bill the approximate count, a figure no provider gave, where the row's cost said unknown)."""
    t = trace([call("agent", 1000), call("agent", 3000), call("summarizer", 500)])
    assert metrics.cost_usd(t) is None
    usage = {"input_tokens": 4000, "output_tokens": 0}
    t = trace([call("agent", 1000, usage=usage), call("summarizer", 500)])
    assert metrics.cost_usd(t) is None  # one role unknown: the total is unknown, never the known part alone


def test_cost_uses_provider_tokens_and_bills_output_and_cache_at_their_prices():
    usage = {"input_tokens": 1000, "output_tokens": 40, "input_token_details": {"cache_read": 600}}
    t = trace([call("agent", 9999, usage=usage), call("agent", 9999, usage=usage)], agent="openai:gpt-4o-2024-08-06")
    expected = 2 * ((1000 - 600) * 2.5 + 600 * 1.25 + 40 * 10.0) / 1e6
    assert metrics.cost_usd(t) == pytest.approx(expected)


def test_cache_writes_are_billed_at_the_write_price_and_missing_cache_prices_fall_back_to_input():
    usage = {"input_tokens": 1000, "output_tokens": 10, "input_token_details": {"cache_read": 100, "cache_creation": 300}}
    t = trace([call("agent", 1, usage=usage)], agent="anthropic:claude")
    assert metrics.cost_usd(t) == pytest.approx((600 * 3.0 + 100 * 0.3 + 300 * 3.75 + 10 * 15.0) / 1e6)
    # gpt-4o has no cache_write price: writes cost what input costs
    t = trace([call("agent", 1, usage=usage)])
    assert metrics.cost_usd(t) == pytest.approx((600 * 2.5 + 100 * 1.25 + 300 * 2.5 + 10 * 10.0) / 1e6)
    # mini has no cache prices at all
    t = trace([call("agent", 1, usage=usage)], agent="openai:gpt-4o-mini")
    assert metrics.cost_usd(t) == pytest.approx((1000 * 0.15 + 10 * 0.6) / 1e6)


def test_cache_writes_langchain_anthropic_moves_to_its_per_ttl_keys_are_billed_as_writes():
    """langchain-anthropic sets ``cache_creation`` to 0 and reports the writes under ``ephemeral_5m/1h_input_tokens``
    when Anthropic splits them by TTL: read alone, the old key billed every write at the input price."""
    details = {"cache_read": 100, "cache_creation": 0, "ephemeral_5m_input_tokens": 300}
    usage = {"input_tokens": 1000, "output_tokens": 10, "input_token_details": details}
    t = trace([call("agent", 1, usage=usage)], agent="anthropic:claude")
    assert metrics.cost_usd(t) == pytest.approx((600 * 3.0 + 100 * 0.3 + 300 * 3.75 + 10 * 15.0) / 1e6)


def test_cost_is_unknown_when_a_model_that_made_calls_has_no_price():
    usage = {"input_tokens": 10, "output_tokens": 1}
    assert metrics.cost_usd(trace([call("agent", 10, usage=usage)], agent="unpriced")) is None
    calls = [call("agent", 10, usage=usage), call("summarizer", 10, usage=usage)]
    assert metrics.cost_usd(trace(calls, summ="unpriced")) is None


def test_a_model_that_made_no_call_needs_no_price():
    usage = {"input_tokens": 1000, "output_tokens": 0, "input_token_details": {"cache_read": 0}}
    assert metrics.cost_usd(trace([call("agent", 1, usage=usage)], summ="unpriced")) == pytest.approx(1000 * 2.5 / 1e6)
    assert metrics.cost_usd(trace([], agent="unpriced", summ="unpriced")) == 0.0


def test_a_price_without_input_or_output_counts_them_as_free(monkeypatch):
    monkeypatch.setattr(cost, "prices", lambda: {"a": {"output": 4.0}, "s": {"input": None}})
    usage = {"input_tokens": 100, "output_tokens": 50}
    t = trace([call("agent", 1, usage=usage), call("summarizer", 1, usage=usage)], agent="a", summ="s")
    assert metrics.cost_usd(t) == pytest.approx(50 * 4.0 / 1e6)


def test_cost_is_rounded_to_a_millionth_of_a_dollar():
    one = {"input_tokens": 1, "output_tokens": 0}
    assert metrics.cost_usd(trace([call("agent", 1, usage=one)], agent="openai:gpt-4o-mini")) == 0.0  # 1.5e-7
    many = {"input_tokens": 1234567, "output_tokens": 0, "input_token_details": {"cache_read": 0}}
    assert metrics.cost_usd(trace([call("agent", 1, usage=many)])) == round(1234567 * 2.5 / 1e6, 6)


def test_token_sums_treat_missing_usage_and_missing_keys_as_zero():
    calls = [
        {"usage": None},
        {"usage": {"input_tokens": None}},
        {"usage": {"input_tokens": 7, "input_token_details": None}},
        {"usage": {"input_tokens": 5, "input_token_details": {"cache_read": 2, "cache_creation": None}}},
        {},
    ]
    assert metrics._tokens(calls, "input_tokens") == 12
    assert metrics._cache_tokens(calls, "cache_read") == 2
    assert metrics._cache_tokens(calls, "cache_creation") == 0


# -- case metrics --------------------------------------------------------------------------------------------------
def summary(turn: int, before: int, after: int) -> dict[str, Any]:
    return {"type": "summary", "turn": turn, "tokens_before": before, "tokens_after": after}


def test_case_metrics_measure_tokens_peaks_and_summaries():
    usage = {"input_tokens": 100, "output_tokens": 7, "input_token_details": {"cache_read": 30, "cache_creation": 5}}
    calls = [
        call("agent", 1000, usage=usage, tools=True),
        call("summarizer", 800, text="x" * 40, usage={"input_tokens": 50, "output_tokens": 3}),
        call("agent", 400, turn=1, text="The code is TANGO-7."),
        call("summarizer", 900, text="y" * 20),
        call("summarizer", 10, text=None),  # failed: no response
        call("agent", 600, turn=1, usage=usage, text="done"),
    ]
    events = [summary(0, 1000, 300), summary(1, 2000, 700), {"type": "mask", "turn": 1}, {"type": "note", "turn": 1}]
    m = metrics.case_metrics(trace(calls, events), [], "needle")
    assert m["summary_events"] == 2
    assert m["compaction_events"] == 3
    assert m["agent_tokens"] == 2000
    assert m["summarizer_tokens"] == 1710
    assert m["total_tokens"] == 3710
    assert m["agent_tokens_provider"] == 200
    assert m["agent_output_tokens_provider"] == 14
    assert m["summarizer_tokens_provider"] == 50
    assert m["cache_read_tokens"] == 60
    assert m["cache_write_tokens"] == 10
    assert m["peak_context"] == 1000
    assert m["tokens_removed_per_event"] == 1000.0  # (700 + 1300) / 2
    assert m["summary_length"] == 30.0
    assert m["summaries_before_question"] == 1
    assert m["cost_usd"] == metrics.cost_usd(trace(calls, events))
    assert m["clarification_requested"] is False


def test_case_metrics_round_averages_to_one_decimal():
    calls = [call("summarizer", 1, text="abc"), call("summarizer", 1, text="ab"), call("summarizer", 1, text="ab")]
    events = [summary(0, 10, 0), summary(0, 10, 0), summary(0, 11, 0)]
    m = metrics.case_metrics(trace(calls, events), [], "goal")
    assert m["summary_length"] == 2.3
    assert m["tokens_removed_per_event"] == 10.3


def test_case_metrics_without_summaries_or_usage_say_none_not_zero():
    m = metrics.case_metrics(trace([call("agent", 50)]), [], "needle")
    assert m["summary_events"] == 0 and m["compaction_events"] == 0
    for key in (
        "tokens_removed_per_event",
        "summary_length",
        "agent_tokens_provider",
        "agent_output_tokens_provider",
        "summarizer_tokens_provider",
        "cache_read_tokens",
        "cache_write_tokens",
    ):
        assert m[key] is None, key
    assert metrics.case_metrics(trace([]), [], "needle")["peak_context"] == 0


def test_summaries_before_the_question_count_only_turns_before_it_and_only_for_question_kinds():
    events = [summary(0, 10, 1), summary(0, 10, 1), summary(1, 10, 1)]
    assert metrics.case_metrics(trace([], events), [], "needle")["summaries_before_question"] == 2
    assert metrics.case_metrics(trace([], events), [], "chain")["summaries_before_question"] == 2
    assert metrics.case_metrics(trace([], events), [], "goal")["summaries_before_question"] is None
    assert metrics.case_metrics(trace([], events, turns=1), [], "needle")["summaries_before_question"] is None


def test_rates_come_from_the_scores_and_are_none_where_they_do_not_apply():
    none = metrics.case_metrics(trace([]), [], "goal")
    for key in ("needle_recovered", "needle_via_history", "goal_preserved", "premature_completion"):
        assert none[key] is None, key
    scores = [
        Score("needle_correct", 1, CHECK, ""),
        Score("needle_via_history", 0, MEASURE, ""),
        Score("goal_preserved", True, CHECK, ""),
        Score("goal_no_premature_completion", False, CHECK, ""),
    ]
    m = metrics.case_metrics(trace([]), scores, "needle")
    assert m["needle_recovered"] is True
    assert m["needle_via_history"] is False
    assert m["goal_preserved"] is True
    assert m["premature_completion"] is True
    flipped = [Score(s.key, not s.value, s.role, "") for s in scores]
    m = metrics.case_metrics(trace([]), flipped, "needle")
    assert (m["needle_recovered"], m["needle_via_history"], m["goal_preserved"], m["premature_completion"]) == (
        False,
        True,
        False,
        False,
    )


def test_a_clarification_is_looked_for_only_in_final_replies_of_the_agent():
    ask = "Could you clarify what you would like me to do next?"
    assert metrics.case_metrics(trace([call("agent", 1, text=ask)]), [], "goal")["clarification_requested"] is True
    # the same words in a call that also calls a tool, in a failed call, or from the summarizer are not a request
    calls = [call("agent", 1, text=ask, tools=True), call("agent", 1, text=None), call("summarizer", 1, text=ask)]
    assert metrics.case_metrics(trace(calls), [], "goal")["clarification_requested"] is False


def test_a_case_whose_agent_made_no_call_still_costs_its_summarizer_calls():
    t = trace([call("summarizer", 1, usage={"input_tokens": 2000, "output_tokens": 0})])
    assert metrics.cost_usd(t) == pytest.approx(2000 * 1.0 / 1e6)


def test_cache_tokens_of_a_model_priced_without_input_cost_nothing(monkeypatch):
    monkeypatch.setattr(cost, "prices", lambda: {"a": {"output": 4.0}})
    usage = {"input_tokens": 100, "output_tokens": 0, "input_token_details": {"cache_read": 60, "cache_creation": 20}}
    assert metrics.cost_usd(trace([call("agent", 1, usage=usage)], agent="a")) == 0.0
