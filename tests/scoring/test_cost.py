"""The whole cost of a case: tokens per role and kind as reported, dollars, and what a broken record makes unknown."""

from __future__ import annotations

import pytest

from harness.scoring import cost, metrics
from harness.trace.recorder import compaction_iterations
from harness.trace.schema import Trace

TABLE = {
    "models": {
        "anthropic:claude": {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75},
        "openai:gpt": {"input": 1.0, "output": 8.0, "cache_read": 0.1, "cache_write": None},
        "plain": {"input": 1.0, "output": 2.0, "cache_read": None, "cache_write": None},
        "openai:mini": {"input": 0.5, "output": 4.0, "cache_read": None, "cache_write": None},
    },
    "simulated_as": {"reference-agent": "anthropic:claude", "reference-summarizer": "plain"},
}


@pytest.fixture(autouse=True)
def _table(monkeypatch):
    monkeypatch.setattr(cost, "price_table", lambda: TABLE)
    monkeypatch.setattr(cost, "prices", lambda: TABLE["models"])


def usage(inp=1000, out=10, read=600, write=300, **details):
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "input_token_details": {"cache_read": read, "cache_creation": write, **details},
    }


def call(role, usage=None, **extra):
    return {"index": 0, "role": role, "turn": 0, "approx_tokens": 500, "usage": usage, "message_keys": [], **extra}


def trace(calls, agent="anthropic:claude", summ="plain"):
    return Trace(case_id="c", kind="goal", agent_model=agent, summary_model=summ, calls=calls)


# -- one call's tokens -----------------------------------------------------------------------------------------------
def test_usage_tokens_reads_the_four_kinds_as_langchain_normalizes_them():
    assert cost.usage_tokens(usage()) == {"input": 1000, "output": 10, "cache_read": 600, "cache_write": 300}


def test_a_missing_cache_field_is_unknown_not_zero():
    assert cost.usage_tokens({"input_tokens": 5, "output_tokens": 1})["cache_read"] is None
    assert cost.usage_tokens({"input_tokens": 5, "output_tokens": 1, "input_token_details": {"cache_read": 0}}) == {
        "input": 5,
        "output": 1,
        "cache_read": 0,
        "cache_write": None,
    }
    assert cost.usage_tokens(None) == dict.fromkeys(cost.KINDS)


def test_broken_counts_are_unknown():
    bad = {"input_tokens": -3, "output_tokens": True, "input_token_details": {"cache_read": "12", "cache_creation": 1.5}}
    assert cost.usage_tokens(bad) == dict.fromkeys(cost.KINDS)


def test_cache_writes_include_the_per_ttl_keys_langchain_anthropic_moves_them_to():
    # langchain-anthropic sets cache_creation to 0 and reports the writes under the TTL keys
    moved = {"cache_read": 0, "cache_creation": 0, "ephemeral_5m_input_tokens": 700, "ephemeral_1h_input_tokens": 0}
    assert cost.cache_writes(moved) == 700
    assert cost.cache_writes({"cache_read": 5}) is None
    assert cost.cache_writes({"cache_creation": 2, "ephemeral_5m_input_tokens": None}) is None


def test_an_iteration_entry_counts_its_cache_into_input_as_langchain_does_for_the_top_level():
    entry = {"type": "compaction", "input_tokens": 100, "cache_read_input_tokens": 20, "cache_creation_input_tokens": 5}
    assert cost.iteration_tokens({**entry, "output_tokens": 9}) == {"input": 125, "output": 9, "cache_read": 20, "cache_write": 5}
    assert cost.iteration_tokens({"type": "compaction", "input_tokens": 100, "output_tokens": 9})["input"] is None


def test_add_is_unknown_when_any_part_is():
    known = {"input": 1, "output": 2, "cache_read": 3, "cache_write": 4}
    assert cost.add([known, known]) == {"input": 2, "output": 4, "cache_read": 6, "cache_write": 8}
    assert cost.add([known, {**known, "cache_write": None}])["cache_write"] is None
    assert cost.add([]) == dict.fromkeys(cost.KINDS, 0)


# -- the recorder's capture of compaction passes -------------------------------------------------------------------------
def test_compaction_passes_are_read_from_the_raw_usage_langchain_keeps_in_response_metadata():
    entries = [{"type": "compaction", "input_tokens": 60000, "output_tokens": 900}, {"type": "message", "input_tokens": 40}]
    assert compaction_iterations({"usage": {"iterations": entries}}) == [entries[0]]
    assert compaction_iterations({"usage": {"iterations": None}}) == []
    assert compaction_iterations({"token_usage": {"prompt_tokens": 3}}) == []


def test_a_streamed_anthropic_compaction_without_raw_usage_is_a_pass_of_unknown_size():
    block = [{"type": "compaction", "content": "summary"}, {"type": "text", "text": "ok"}]
    (unreported,) = compaction_iterations({"model_provider": "anthropic"}, block)
    assert cost.iteration_tokens(unreported) == dict.fromkeys(cost.KINDS)
    assert compaction_iterations({"model_provider": "openai"}, block) == []  # the Responses usage counts its pass
    assert compaction_iterations({"model_provider": "anthropic"}, [{"type": "text", "text": "ok"}]) == []
    t = trace([call("agent", usage(), compaction_usage=[unreported])])
    assert cost.case_cost(t)["roles"]["compaction"]["input"] is None and cost.case_cost(t)["total"]["usd"] is None


# -- dollars ----------------------------------------------------------------------------------------------------------
def test_dollars_bill_each_kind_at_its_price():
    tokens = {"input": 1_000_000, "output": 1_000_000, "cache_read": 500_000, "cache_write": 100_000}
    # 400k uncached at 3, 500k read at 0.3, 100k written at 3.75, 1M out at 15
    assert cost.dollars(tokens, TABLE["models"]["anthropic:claude"]) == pytest.approx(1.2 + 0.15 + 0.375 + 15)


def test_dollars_are_unknown_when_a_cache_figure_the_price_tells_apart_is_unknown():
    tokens = {"input": 1000, "output": 10, "cache_read": None, "cache_write": None}
    assert cost.dollars(tokens, TABLE["models"]["anthropic:claude"]) is None
    assert cost.dollars(tokens, TABLE["models"]["plain"]) == pytest.approx((1000 + 20) / 1e6)  # cache not priced apart
    assert cost.dollars({**tokens, "cache_read": 0}, TABLE["models"]["openai:gpt"]) is not None  # writes not billed
    assert cost.dollars({**tokens, "input": None}, TABLE["models"]["plain"]) is None
    assert cost.dollars({**tokens, "cache_read": 0, "cache_write": 0}, None) is None  # no price: n/a, never a guess


def test_reference_models_are_priced_as_their_simulated_as_entry_with_or_without_a_provider():
    assert cost.pricing("reference-agent") == (TABLE["models"]["anthropic:claude"], "anthropic:claude")
    assert cost.pricing("anthropic:reference-agent")[1] == "anthropic:claude"
    assert cost.pricing("openai:gpt") == (TABLE["models"]["openai:gpt"], None)
    assert cost.pricing("openai:unlisted") == (None, None)


# -- a case ---------------------------------------------------------------------------------------------------------------
def test_case_cost_sums_each_role_and_prices_each_at_its_model():
    passes = [
        {
            "type": "compaction",
            "input_tokens": 5000,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 100,
        }
    ]
    t = trace([call("agent", usage(), compaction_usage=passes), call("agent", usage()), call("summarizer", usage(200, 50, 0, 0))])
    out = cost.case_cost(t)
    agent = out["roles"]["agent"]
    assert agent == {"input": 2000, "output": 20, "cache_read": 1200, "cache_write": 600, "calls": 2, "usd": agent["usd"]}
    assert agent["usd"] == pytest.approx(2 * (100 * 3 + 600 * 0.3 + 300 * 3.75 + 10 * 15) / 1e6)
    assert out["roles"]["compaction"]["input"] == 5000 and out["roles"]["compaction"]["calls"] == 1
    assert out["roles"]["summarizer"]["usd"] == pytest.approx((200 + 100) / 1e6)
    assert out["total"]["input"] == 7200 and out["total"]["usd"] == pytest.approx(sum(r["usd"] for r in out["roles"].values()))
    assert out["priced_as"] == {
        "agent": "anthropic:claude",
        "summarizer": "plain",
        "subagent": None,
        "tool": None,
        "compaction": "anthropic:claude",
    }
    assert out["simulated_prices"] is False and out["sent"] == {"tokens": 7200, "source": "provider"}


def test_in_process_calls_without_usage_leave_every_figure_unknown_and_count_sent_tokens_approximately():
    out = cost.case_cost(trace([call("agent"), call("agent")], agent="reference-agent", summ="reference-summarizer"))
    assert out["roles"]["agent"]["input"] is None and out["total"]["usd"] is None
    assert out["roles"]["summarizer"] == {**dict.fromkeys(cost.KINDS, 0), "calls": 0, "usd": 0.0}  # no call, no cost
    assert out["simulated_prices"] is True and out["sent"] == {"tokens": 1000, "source": "approximate"}


def test_one_call_without_a_cache_field_makes_the_role_and_total_unknown():
    t = trace([call("agent", usage()), call("agent", {"input_tokens": 10, "output_tokens": 1})])
    out = cost.case_cost(t)
    assert out["roles"]["agent"]["cache_read"] is None and out["roles"]["agent"]["usd"] is None
    assert out["total"]["usd"] is None and out["total"]["input"] == 1010


def test_a_rejected_call_is_not_billed():
    t = trace([call("agent", usage()), call("agent", None, error={"type": "BadRequestError"})])
    assert cost.case_cost(t)["roles"]["agent"]["input"] == 1000


def test_cost_metrics_are_the_total_dollars_and_tokens_sent():
    out = cost.case_cost(trace([call("agent", usage())]))
    assert cost.cost_metrics(out) == {"whole_cost_usd": out["total"]["usd"], "tokens_sent": 1000}


# -- subagents ----------------------------------------------------------------------------------------------------------
TASK_CALL = {"text": "", "tool_calls": [{"name": "task", "args": {"description": "batch"}, "id": "t1"}]}


def test_subagent_calls_are_billed_in_their_own_role_at_the_model_each_was_made_on():
    t = trace(
        [
            call("agent", usage(), response=TASK_CALL),
            call("subagent", usage(), model="openai:gpt"),
            call("subagent", usage(200, 50, 0, 0), model="plain"),
            call("subagent", None, model="openai:gpt", error={"type": "BadRequestError"}),  # rejected: not billed
            call("agent", usage()),
        ]
    )
    out = cost.case_cost(t)
    sub, agent = out["roles"]["subagent"], out["roles"]["agent"]
    assert agent["calls"] == 2 and agent["input"] == 2000  # the parent's calls alone
    assert sub == {"input": 1200, "output": 60, "cache_read": 600, "cache_write": 300, "calls": 3, "usd": sub["usd"]}
    # openai:gpt: 100 uncached at 1, 600 read at 0.1, 300 written at the input price (it has no write price), 10 out at 8;
    # plain: 200 in at 1, 50 out at 2
    assert sub["usd"] == pytest.approx((100 + 60 + 300 + 80) / 1e6 + (200 + 100) / 1e6)
    assert out["priced_as"]["subagent"] == "openai:gpt + plain"
    assert out["total"]["input"] == 3200 and out["total"]["usd"] == pytest.approx(agent["usd"] + sub["usd"])
    assert out["sent"] == {"tokens": 3200, "source": "provider"}
    assert metrics.cost_usd(t) == pytest.approx(agent["usd"] + sub["usd"])  # the list-price metric counts them too


def test_a_subagent_call_of_unknown_usage_or_model_leaves_its_role_and_the_total_unknown_never_zero():
    no_usage = cost.case_cost(trace([call("agent", usage()), call("subagent", None, model="openai:gpt")]))
    assert no_usage["roles"]["subagent"]["input"] is None and no_usage["roles"]["subagent"]["usd"] is None
    assert no_usage["total"]["input"] is None and no_usage["total"]["usd"] is None
    no_model = cost.case_cost(trace([call("agent", usage()), call("subagent", usage(), model=None)]))
    assert no_model["roles"]["subagent"]["input"] == 1000 and no_model["roles"]["subagent"]["usd"] is None
    assert no_model["total"]["usd"] is None and no_model["priced_as"]["subagent"] is None


def test_a_reference_subagent_is_priced_as_its_simulated_as_entry():
    out = cost.case_cost(trace([call("subagent", usage(), model="anthropic:reference-agent")]))
    assert out["priced_as"]["subagent"] == "anthropic:claude" and out["simulated_prices"] is True
    assert out["roles"]["subagent"]["usd"] == pytest.approx((100 * 3 + 600 * 0.3 + 300 * 3.75 + 10 * 15) / 1e6)


def test_no_subagent_call_costs_nothing_in_that_role():
    out = cost.case_cost(trace([call("agent", usage())]))
    assert out["roles"]["subagent"] == {**dict.fromkeys(cost.KINDS, 0), "calls": 0, "usd": 0.0}
    assert out["priced_as"]["subagent"] is None and out["total"]["usd"] == out["roles"]["agent"]["usd"]


def test_a_tools_own_model_calls_are_billed_in_their_own_role_at_the_model_each_was_made_on():
    t = trace(
        [
            call("agent", usage()),
            call("tool", usage(200, 50, 0, 0), model="openai:mini"),
            call("tool", usage(100, 10, 0, 0), model="plain"),
            call("tool", None, model="openai:mini", error={"type": "RateLimitError"}),  # rejected: not billed
            call("agent", usage()),
        ]
    )
    out = cost.case_cost(t)
    own, agent, sub = out["roles"]["tool"], out["roles"]["agent"], out["roles"]["subagent"]
    assert agent["calls"] == 2 and agent["input"] == 2000 and sub["calls"] == 0  # neither the parent's nor a subagent's
    assert own == {"input": 300, "output": 60, "cache_read": 0, "cache_write": 0, "calls": 3, "usd": own["usd"]}
    assert own["usd"] == pytest.approx((200 * 0.5 + 50 * 4.0) / 1e6 + (100 * 1.0 + 10 * 2.0) / 1e6)
    assert out["priced_as"]["tool"] == "openai:mini + plain"
    assert out["total"]["input"] == 2300 and out["total"]["usd"] == pytest.approx(agent["usd"] + own["usd"])
    unpriced = cost.case_cost(trace([call("agent", usage()), call("tool", usage(), model="openai:unlisted")]))
    assert unpriced["roles"]["tool"]["usd"] is None and unpriced["total"]["usd"] is None  # unknown, never 0


def test_the_cost_metric_is_the_rows_cost_total_whatever_the_roles_models_and_usage():
    """One rule for a case's dollars: `metrics.cost_usd` is `case_cost`'s total (the row's ``cost``), on a case whose
    agent, summarizer, subagent and tool calls ran on four models, on one with an unpriced model and on one whose
    models reported no usage (on main the metric billed the approximate count there, and left tool calls out)."""
    calls = [
        call("agent", usage(), response=TASK_CALL),
        call("summarizer", usage(200, 50, 0, 0)),
        call("subagent", usage(400, 20, 100, 0), model="openai:gpt"),
        call("tool", usage(300, 30, 0, 0), model="openai:mini"),
        call("agent", usage()),
    ]
    priced = trace(calls)
    out = cost.case_cost(priced)
    parts = (
        2 * (100 * 3 + 600 * 0.3 + 300 * 3.75 + 10 * 15)  # the agent at anthropic:claude
        + (200 * 1.0 + 50 * 2.0)  # the summarizer at plain
        + (300 * 1.0 + 100 * 0.1 + 20 * 8.0)  # the subagent at openai:gpt
        + (300 * 0.5 + 30 * 4.0)  # the tool's model at openai:mini
    ) / 1e6
    assert out["total"]["usd"] == pytest.approx(parts)
    assert metrics.cost_usd(priced) == out["total"]["usd"]
    assert metrics.case_metrics(priced, [], "goal")["cost_usd"] == out["total"]["usd"]
    for other in (trace(calls, summ="unpriced"), trace([*calls[:3], call("tool", usage(), model="unpriced")])):
        assert cost.case_cost(other)["total"]["usd"] is None and metrics.cost_usd(other) is None
    unreported = trace([call("agent"), call("summarizer"), call("tool", model="openai:mini")])
    assert cost.case_cost(unreported)["total"]["usd"] is None and metrics.cost_usd(unreported) is None


def test_a_trace_from_before_subagent_calls_were_recorded_has_them_unknown_when_the_agent_delegated():
    delegated = trace([call("agent", usage(), response=TASK_CALL)])
    delegated.upgraded_from = 2  # schema 2: a subagent's calls were made but not recorded
    out = cost.case_cost(delegated)
    assert out["roles"]["subagent"] == {**dict.fromkeys(cost.KINDS), "calls": None, "usd": None}
    assert out["total"]["input"] is None and out["total"]["usd"] is None
    assert out["sent"] == {"tokens": None, "source": "approximate"} and metrics.cost_usd(delegated) is None
    alone = trace([call("agent", usage())])
    alone.upgraded_from = 2  # it never delegated: nothing is missing
    assert cost.case_cost(alone)["roles"]["subagent"]["calls"] == 0 and cost.case_cost(alone)["total"]["usd"] is not None
