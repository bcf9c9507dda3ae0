"""The whole cost per arm (strategy x cost table, tokens by role), its rendering, and the LangSmith llm runs."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.analysis import cost_table
from harness.langsmith import llm as langsmith_llm
from harness.report import cost_report
from harness.scoring import cost
from harness.trace.schema import Trace


def record(inp=1000, out=10, read=0, write=0, usd=0.01, source="provider", simulated=False):
    role = {"input": inp, "output": out, "cache_read": read, "cache_write": write, "calls": 2, "usd": usd}
    zero = {**dict.fromkeys(cost.KINDS, 0), "calls": 0, "usd": 0.0}
    return {
        "roles": {"agent": role, "summarizer": zero, "subagent": zero, "compaction": zero},
        "total": {k: role[k] for k in (*cost.KINDS, "usd")},
        "priced_as": {"agent": "anthropic:claude-sonnet-4-5" if simulated else "x"},
        "simulated_prices": simulated,
        "sent": {"tokens": inp, "source": source},
    }


def row(arm, case, outcome="PASS", strategy=None, trial=0, **kw):
    return {
        "arm": arm,
        "strategy": strategy or arm,
        "threshold": "20%",
        "case_id": case,
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": [],
        "cost": record(**kw),
    }


ROWS = [
    row("none", "a", inp=1000, usd=0.02),
    row("none", "b", inp=2000, usd=0.04),
    row("sum", "a", inp=500, usd=0.03, read=100),
    row("sum", "b", inp=1000, usd=0.05, outcome="FAIL", read=100),
]


def test_strategy_cost_table_counts_runs_passes_ratios_and_cost_per_pass():
    table = cost_table.strategy_cost_table(ROWS).set_index("arm")
    assert table.loc["sum", "runs"] == 2 and table.loc["sum", "PASS"] == 1
    assert table.loc["sum", "vs none"] == pytest.approx(0.5) and table.loc["sum", "pairs"] == 2
    assert table.loc["sum", "USD per task"] == pytest.approx(0.04)
    assert table.loc["sum", "USD per PASS"] == pytest.approx(0.08)  # every run's dollars over the one PASS
    assert table.loc["sum", "cache read share"] == pytest.approx(200 / 1500)
    assert table.loc["none", "vs none"] == pytest.approx(1.0)


def test_no_pass_and_an_unknown_dollar_give_no_cost_per_pass():
    rows = [row("sum", "a", outcome="FAIL", usd=0.1), row("x", "a", usd=None)]
    table = cost_table.strategy_cost_table(rows).set_index("arm")
    assert pd.isna(table.loc["sum", "USD per PASS"])
    assert pd.isna(table.loc["x", "USD per task"]) and pd.isna(table.loc["x", "USD per PASS"])


def test_ratios_pair_only_the_same_case_and_trial_counted_the_same_way():
    rows = [
        row("none", "a", inp=1000),
        row("sum", "a", inp=400, source="approximate"),  # counted otherwise: no pair
        row("sum", "b", inp=400),  # no control on b
        row("sum", "a", inp=300, trial=1),  # no control on trial 1
    ]
    assert cost_table.compression_ratios(rows) == {("none", "20%"): [1.0]}


def test_ratios_pair_each_arm_with_the_none_arm_of_its_own_variant_version_and_eval():
    rows = [
        row("v1@none", "a", strategy="none", inp=100),
        row("v1@sum", "a", strategy="sum", inp=50),
        row("v2@none", "a", strategy="none", inp=1000),  # another variant's control: never v1's
        row("sum+deepagents==0.7.6", "a", strategy="sum", inp=80),
        row("none+deepagents==0.7.6", "a", strategy="none", inp=160),
    ]
    ratios = cost_table.compression_ratios(rows)
    assert ratios[("v1@sum", "20%")] == [0.5] and ratios[("v1@none", "20%")] == [1.0]
    assert ratios[("sum+deepagents==0.7.6", "20%")] == [0.5]
    other_eval = [row("none", "a", inp=100) | {"eval": "needle"}, row("sum", "a", inp=50) | {"eval": "history"}]
    assert ("sum", "20%") not in cost_table.compression_ratios(other_eval)  # one case run as two evals: two units


def test_without_a_none_arm_there_is_no_ratio_and_a_row_without_cost_is_unknown():
    rows = [row("sum", "a", inp=400), {**row("sum", "b", inp=1), "cost": None}]
    table = cost_table.strategy_cost_table(rows)
    assert pd.isna(table.loc[0, "vs none"]) and pd.isna(table.loc[0, "USD per task"])
    roles = cost_table.role_table(rows).set_index("role")
    assert pd.isna(roles.loc["agent", "input"]) and roles.loc["agent", "runs"] == 2


def test_role_table_has_each_role_and_the_total_per_task():
    roles = cost_table.role_table(ROWS[:2]).set_index("role")
    assert list(roles.index) == ["agent", "summarizer", "subagent", "tool", "compaction", "total"]
    assert roles.loc["agent", "input"] == 1500 and roles.loc["agent", "calls"] == 2
    assert roles.loc["compaction", "usd"] == 0.0 and roles.loc["total", "usd"] == pytest.approx(0.03)
    assert roles.loc["subagent", "calls"] == 0 and roles.loc["subagent", "usd"] == 0.0
    assert pd.isna(roles.loc["tool", "calls"]) and pd.isna(roles.loc["tool", "usd"])  # rows from before the role: unknown


def test_a_row_written_before_the_subagent_role_shows_that_role_unknown_never_zero():
    old = row("sum", "a", inp=400)
    del old["cost"]["roles"]["subagent"]
    roles = cost_table.role_table([old, row("sum", "b", inp=400)]).set_index("role")
    assert pd.isna(roles.loc["subagent", "input"]) and pd.isna(roles.loc["subagent", "usd"])
    assert roles.loc["agent", "input"] == 400  # the roles it has are read as they were


def test_simulated_prices_name_the_borrowed_list_models():
    assert cost_table.simulated_prices(ROWS) == {}
    assert cost_table.simulated_prices([row("a", "a", inp=1, simulated=True)]) == {"agent": "anthropic:claude-sonnet-4-5"}
    assert "Simulated" in cost_report.price_note([row("a", "a", inp=1, simulated=True)])
    assert "Simulated" not in cost_report.price_note(ROWS)


def test_fmt_shows_unknown_as_na_never_zero():
    assert cost_report.fmt(None) == "n/a" and cost_report.fmt(float("nan"), "usd") == "n/a"
    assert cost_report.fmt(0) == "0" and cost_report.fmt(12345.6) == "12,346"
    assert cost_report.fmt(0.123456, "usd") == "0.1235" and cost_report.fmt(0.5, "share") == "50%"


def _comparison(**means):
    recs = [{"arm": a, "metric": "passed", "mean": 0.5, "low": 0.2, "high": 0.8, "n": 4} for a in ("x", "y")]
    for metric, values in means.items():
        recs += [{"arm": a, "metric": metric, "mean": v, "low": v, "high": v, "n": 4 if v is not None else 0} for a, v in values]
    return pd.DataFrame(recs)


def test_the_chart_uses_the_whole_cost_when_every_arm_has_one_else_falls_back():
    both = _comparison(whole_cost_usd=[("x", 0.1), ("y", 0.2)], total_tokens=[("x", 10), ("y", 20)])
    assert cost_report.x_metric(both, ["x", "y"])[0] == "whole_cost_usd"
    one = _comparison(whole_cost_usd=[("x", 0.1), ("y", None)], total_tokens=[("x", 10), ("y", 20)])
    assert cost_report.x_metric(one, ["x", "y"])[0] == "total_tokens"
    assert cost_report.x_metric(_comparison(), ["x", "y"]) is None
    assert cost_report.success_vs_cost(both, ["x", "y"], "simulated: reference models served over HTTP") is not None


# -- LangSmith llm runs ---------------------------------------------------------------------------------------------------
def test_usage_metadata_carries_known_kinds_and_costs_only():
    tokens = {"input": 1000, "output": 10, "cache_read": 600, "cache_write": None}
    price = {"input": 1.0, "output": 2.0, "cache_read": None, "cache_write": None}
    out = langsmith_llm.usage_metadata(tokens, price)
    assert out["input_token_details"] == {"cache_read": 600} and out["total_tokens"] == 1010
    assert out["total_cost"] == pytest.approx(1020 / 1e6) and out["output_cost"] == pytest.approx(20 / 1e6)
    assert "total_cost" not in langsmith_llm.usage_metadata(tokens, None)
    assert langsmith_llm.usage_metadata({**tokens, "output": None}, price) is None


def test_llm_runs_one_per_call_and_per_compaction_pass():
    passes = [
        {
            "type": "compaction",
            "input_tokens": 50,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "output_tokens": 5,
        }
    ]
    calls = [
        {
            "index": 0,
            "role": "agent",
            "message_keys": ["k"],
            "usage": {"input_tokens": 9, "output_tokens": 1},
            "compaction_usage": passes,
        },
        {"index": 1, "role": "summarizer", "message_keys": [], "usage": None, "response": {"text": "sum"}},
        {"index": 2, "role": "agent", "message_keys": [], "usage": None, "error": {"type": "APIError"}},
        {
            "index": 3,
            "role": "subagent",
            "message_keys": [],
            "usage": {"input_tokens": 7, "output_tokens": 2},
            "model": "openai:z",
        },
    ]
    runs = langsmith_llm.llm_runs(Trace(case_id="c", kind="goal", agent_model="openai:x", summary_model="openai:y", calls=calls))
    names = ["agent call 0", "compaction pass 0.0", "summarizer call 1", "agent call 2", "subagent call 3"]
    assert [r["name"] for r in runs] == names
    assert runs[4]["metadata"]["role"] == "subagent" and runs[4]["metadata"]["ls_model_name"] == "z"  # its own model
    assert runs[4]["outputs"]["usage_metadata"]["input_tokens"] == 7
    assert runs[0]["outputs"]["usage_metadata"]["input_tokens"] == 9 and runs[0]["metadata"]["ls_model_name"] == "x"
    assert runs[1]["outputs"]["usage_metadata"]["input_tokens"] == 50 and runs[1]["metadata"]["role"] == "compaction"
    assert "usage_metadata" not in runs[2]["outputs"] and runs[3]["outputs"]["error"] == "APIError"


def _section(rows, tmp_path, judge=None):
    from harness.report._document import Document

    if judge is not None:
        (tmp_path / "judge.json").write_text(__import__("json").dumps({"usage": judge}))
    doc = Document("t")
    cost_report.add_cost_section(doc, tmp_path, rows, pd.DataFrame(), ["none", "sum"], "", chart=False)
    return doc


def test_a_run_no_model_reported_usage_for_shows_no_dollar_column(tmp_path):
    rows = [row("none", "a", source="approximate", usd=None), row("sum", "a", source="approximate", usd=None)]
    assert not cost_report.reported(rows) and cost_report.reported(ROWS)
    tables = [v for k, v in _section(rows, tmp_path).blocks if k == "table"]
    assert len(tables) == 1 and not [c for c in tables[0].columns if "USD" in c or "cache" in c]
    assert "vs none" in tables[0].columns


def test_a_reported_run_shows_dollars_roles_and_the_judge_line(tmp_path):
    doc = _section(ROWS, tmp_path, judge={"judgements": 3, "input_tokens": 900, "output_tokens": 30, "cost_usd": None})
    tables = [v for k, v in doc.blocks if k == "table"]
    assert "USD per PASS" in tables[0].columns and set(tables[1]["role"]) == {
        "agent",
        "summarizer",
        "subagent",
        "tool",
        "compaction",
        "total",
    }
    judge = [v for k, v in doc.blocks if k == "text" and v.startswith("Judge")]
    assert judge == [
        "Judge (judge.json, the whole run): 3 judgements, 900 input and 30 output tokens, USD n/a; not in the per-task figures above."
    ]


def test_the_served_strategies_spec_is_the_strategies_spec_through_harness_serve():
    from harness._paths import DATASETS_DIR
    from harness.runs.spec import load_spec

    plain, served = (load_spec(DATASETS_DIR / "experiments" / f"{n}.yaml") for n in ("strategies", "strategies-served"))
    same = ("variants", "thresholds", "baseline", "kind", "cases", "datasets", "trials", "seed")
    assert [getattr(served, f) for f in same] == [getattr(plain, f) for f in same]
    # every arm but the one that needs another provider's API (the served spec talks Anthropic Messages)
    assert sorted(served.strategies) == sorted(s for s in plain.strategies if s != "openai-compaction")
    assert served.model == "anthropic:reference-agent" and served.base_url and plain.base_url is None
