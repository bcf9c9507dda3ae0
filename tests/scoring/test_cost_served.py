"""The whole cost through `harness serve`'s Anthropic Messages endpoint: cache reads and writes per strategy, and a
provider compaction pass captured from ``usage.iterations`` (which langchain-anthropic does not read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_anthropic import ChatAnthropic

from harness.agent.models import Endpoint, choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.reference.serve import serving
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.cost import case_cost
from harness.trace.recorder import Recorder
from tests._wire import ANTHROPIC_TOOLS, compact_edit
from tests.reference.test_serve_apis import BIG_TURNS

pytestmark = [pytest.mark.live, pytest.mark.slow]
CASE = "needle-h24k-d000"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=600) as srv:
        yield srv


def served_cost(server, strategy: str) -> dict:
    """One case through /v1/messages under ``strategy``, with the server's simulated prompt cache emptied first."""
    server.state.reset()
    (scenario,) = [s for s in load_scenarios(all_scenario_files()) if s.id == CASE]
    config = make_config("forced-20", strategy=strategy)
    endpoint = Endpoint(server.url[: -len("/v1")], {"timeout": 10, "max_retries": 1})
    models = choose_models(
        "anthropic:reference-agent", "anthropic:reference-summarizer", window=config.window, agent_endpoint=endpoint
    )
    trace = run_case(scenario, config, models)
    assert trace.error is None and trace.simulated
    return case_cost(trace)


def test_cache_reads_and_writes_per_strategy_through_the_messages_api(server):
    costs = {s: served_cost(server, s) for s in ("none", "deepagents-summarization")}
    for strategy, c in costs.items():
        agent = c["roles"]["agent"]
        assert None not in (agent["cache_read"], agent["cache_write"], c["total"]["usd"]), strategy  # all reported
        assert agent["cache_read"] > 0 and agent["cache_write"] > 0, strategy
        assert c["simulated_prices"] and c["sent"]["source"] == "provider"
    whole, summarized = costs["none"]["total"], costs["deepagents-summarization"]["total"]
    # a summary rewrites the prefix: less is sent, but less of it is read from the cache and more is written again
    assert summarized["input"] < whole["input"]
    assert summarized["cache_read"] / summarized["input"] < whole["cache_read"] / whole["input"]
    assert summarized["cache_write"] > whole["cache_write"]
    assert costs["deepagents-summarization"]["roles"]["summarizer"]["calls"] > 0


def compacting_model(server, *, streaming: bool = False):  # noqa: ANN001, ANN201
    """ChatAnthropic against the served Messages API with compaction on (the turns of BIG_TURNS pass its trigger)."""
    server.state.reset()
    return ChatAnthropic(
        model="reference-agent",
        base_url=server.url.removesuffix("/v1"),
        api_key="sk-test",
        max_retries=1,
        timeout=10,
        streaming=streaming,
        context_management=compact_edit(),
        betas=["compact-2026-01-12"],
    ).bind_tools(ANTHROPIC_TOOLS)


def test_a_served_compaction_pass_is_recorded_and_costed_apart(server):
    message = compacting_model(server).invoke(BIG_TURNS)
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.finish_call(call, 0.0, message=message)
    (compaction,) = call["compaction_usage"]
    assert compaction["input_tokens"] > 50_000 and call["usage"]["input_tokens"] < 1_000
    from harness.trace.schema import Trace

    c = case_cost(Trace(case_id="x", kind="goal", agent_model="anthropic:reference-agent", calls=[call]))
    assert c["roles"]["compaction"]["input"] == compaction["input_tokens"] and c["roles"]["compaction"]["calls"] == 1
    assert c["roles"]["compaction"]["usd"] > c["roles"]["agent"]["usd"]  # the summary pass is most of the bill


def test_a_streamed_compaction_leaves_its_pass_unknown_not_free(server):
    message = compacting_model(server, streaming=True).invoke(BIG_TURNS)
    rec = Recorder()
    call = rec.new_call("agent", [], 0)
    rec.finish_call(call, 0.0, message=message)
    assert call["compaction_usage"] == [{"type": "compaction", "unreported": True}]  # langchain-anthropic kept no usage


def test_the_served_strategies_spec_reports_the_whole_cost_of_every_arm(tmp_path):
    """datasets/experiments/strategies-served.yaml (the Messages-API arms of strategies.yaml, the native
    anthropic-context-editing among them) through a fresh `harness serve`, one case: the experiment report's Cost
    section has a row per arm with tokens sent and simulated dollars, and the tokens by role."""
    import yaml

    from harness.report.experiment_report import write_experiment_report
    from harness.runs.grid import run_experiment
    from harness.runs.spec import load_spec

    spec = yaml.safe_load((ROOT / "datasets" / "experiments" / "strategies-served.yaml").read_text())
    spec["scenarios"] = {**spec["scenarios"], "cases": ["needle-h24k-d010"]}
    with serving(max_seconds=600) as srv:
        spec["base_url"] = srv.url.removesuffix("/v1")  # Anthropic's base URL: its SDK adds /v1
        (tmp_path / "served.yaml").write_text(yaml.safe_dump(spec))
        result = run_experiment(load_spec(tmp_path / "served.yaml"), out_dir=tmp_path / "out", progress=lambda _: None)
    text = write_experiment_report(result.path).read_text()
    cost = text[text.index("\n## Cost\n") :]
    cost = cost[: cost.find("\n## ", 1)] if "\n## " in cost[1:] else cost
    assert "Tokens per task by role" in cost and "simulated" in cost.lower()
    header = [c.strip() for c in next(x for x in cost.splitlines() if "USD per task" in x).split("|")]
    for arm in spec["strategies"]:
        line = [c.strip() for c in next(x for x in cost.splitlines() if x.startswith(f"| {arm} ")).split("|")]
        row = dict(zip(header, line, strict=True))
        assert row["counted by"] == "provider" and float(row["USD per task"]) > 0, row  # every call reported usage
    # the cause per compaction: what each arm's compactions cost the cache (none compacts nothing, so has nothing per one)
    damage = cost[cost.index("Cache damage per compaction") :]
    header = [c.strip() for c in next(x for x in damage.splitlines() if "rewritten per compaction" in x).split("|")]
    rows = {
        r["arm"]: r
        for r in (
            dict(zip(header, [c.strip() for c in x.split("|")], strict=True))
            for x in damage.splitlines()
            if x.startswith("| ") and "rewritten per compaction" not in x
        )
    }
    assert set(rows) == set(spec["strategies"])
    assert rows["none"]["compactions per task"] == "0" and rows["none"]["rewritten per compaction"] == "n/a"
    assert float(rows["deepagents-summarization"]["rewritten per compaction"].replace(",", "")) > 0


def test_the_parent_evals_subagent_calls_are_billed_in_their_own_role_through_the_messages_api(server):
    """The parent eval's case (the parent delegates a batch through `task` to its declared general-purpose subagent)
    through /v1/messages: each of the subagent's model calls is in the trace with the usage the server reported, and
    the row's cost bills them as the ``subagent`` role, in the total; the parent's calls stay the agent's."""
    from harness.runs.results import result_row
    from harness.suites.execute import Settings, find_case, run_eval_case

    server.state.reset()
    config = make_config("parent")
    endpoint = Endpoint(server.url[: -len("/v1")], {"timeout": 10, "max_retries": 1})
    models = choose_models(
        "anthropic:reference-agent", "anthropic:reference-summarizer", window=config.window, agent_endpoint=endpoint
    )
    result = run_eval_case("parent", find_case("parent-8x8"), Settings(config, models))
    trace = result.trace
    assert trace is not None and trace.error is None
    result.require_eval()
    subagent = trace.subagent_calls()
    assert len(subagent) == len(trace.final["subagent_requests"]) > 0  # every request the probe saw was a call
    assert all(c["usage"]["input_tokens"] > 0 and c["model"] == "anthropic:reference-agent" for c in subagent)
    assert not [c for c in trace.agent_calls() if c["namespace"]]  # the parent's calls alone
    row = result_row(trace, list(result.scores.values()), trace_file="t", eval_name="parent")
    roles, total = row["cost"]["roles"], row["cost"]["total"]
    assert roles["subagent"]["calls"] == len(subagent) and row["calls"]["agent"] == len(trace.agent_calls())
    assert roles["subagent"]["input"] == sum(c["usage"]["input_tokens"] for c in subagent)
    assert roles["subagent"]["usd"] > 0 and row["cost"]["priced_as"]["subagent"] == "anthropic:claude-sonnet-4-5"
    assert total["input"] == sum(roles[r]["input"] for r in roles)
    assert total["usd"] == pytest.approx(sum(roles[r]["usd"] for r in roles), abs=1e-6)
