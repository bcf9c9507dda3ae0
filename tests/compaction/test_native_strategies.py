"""The provider-native strategies end to end: the real deep agent, its model ChatAnthropic or ChatOpenAI (Responses
API) talking to a loopback `harness serve` with the reference models behind it, as an offline run does.

One served run per strategy shows the compaction happened where the provider does it (a compaction block or item, or
cleared tool results, in the trace as ``summary`` / ``mask`` events marked ``native``), that neither deepagents' nor
LangChain's summarization ran (no summarizer call, no history file), and that the eval passes or fails as the
strategy's recovery allows: a needle the provider's summary dropped is a FAIL (no history file to page), a cleared
tool result is fetched again (PASS). Live, the same strategies run on a provider key, skipped with the reason without
one; a trigger Anthropic refuses is exit 2 before any case."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.errors import LiveModelUnavailable
from harness.reference import native
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import FAIL, PASS, outcome, score_case, scores_by_key

pytestmark = [pytest.mark.live, pytest.mark.slow]


@pytest.fixture(scope="module")
def scenarios():
    return {s.id: s for s in load_scenarios(all_scenario_files())}


def run_native(scenario, strategy, trigger="20%"):  # noqa: ANN001, ANN201
    from harness.reference.local import local_server

    local_server(0).state.reset()  # no fault or cache left by another native test in this process
    config = make_config("forced-20", trigger=[trigger], strategy=strategy)
    trace = run_case(scenario, config, choose_models(None, None, window=config.window))
    scores = score_case(trace, scenario)
    return trace, scores_by_key(scores), outcome(scores, trace.error)[0]


def no_harness_summarization(trace) -> None:  # noqa: ANN001
    """Neither deepagents' nor LangChain's summarization ran: no summarizer call, no summary but the provider's, no
    history file named anywhere."""
    assert [c for c in trace.calls if c["role"] != "agent"] == []
    assert all(e.get("native") for e in trace.events_of(("summary", "mask")))
    assert not any(e.get("history_path") for e in trace.events)


def test_openai_compaction_compacts_on_the_responses_api_and_the_needle_it_dropped_fails(scenarios):
    trace, scores, result = run_native(scenarios["needle-h24k-d010"], "openai-compaction")
    (event,) = trace.events_of("summary")
    assert event["native"] == "openai" and event["summary_readable"] and trace.simulated
    summary = trace.message_text(event["summary_key"])
    assert summary.startswith(native.NATIVE_SUMMARY_OPENING) and "## SESSION INTENT" in summary  # decoded offline
    no_harness_summarization(trace)
    assert scores["compacted"].value and scores["needle_summarized_away"].value  # valid: the provider dropped it
    assert result == FAIL and not scores["needle_correct"].value and not scores["needle_in_summary"].value


def test_anthropic_context_editing_clears_tool_results_and_the_agent_fetches_the_needle_again(scenarios):
    trace, scores, result = run_native(scenarios["needle-h24k-d010"], "anthropic-context-editing")
    masks = trace.events_of("mask")
    assert masks and all(e["native"] == "anthropic" and e["tool_call_ids"] for e in masks)
    no_harness_summarization(trace)
    assert result == PASS and scores["needle_via_recall"].value and scores["needle_correct"].value


def test_anthropic_compaction_compacts_past_its_50k_minimum_and_the_goal_survives(scenarios):
    trace, scores, result = run_native(scenarios["goal-ledgers-28"], "anthropic-compaction", trigger="tokens:50000")
    (event,) = trace.events_of("summary")
    assert event["native"] == "anthropic" and event["tokens_before"] > event["tokens_after"]
    no_harness_summarization(trace)
    later = [c for c in trace.calls if c["index"] > event["call_index"]]
    assert later and all(c["summary_at_head"] for c in later)  # every later request starts from the provider's summary
    assert result == PASS and scores["goal_continued_after_summary"].value


def test_a_trigger_anthropic_refuses_is_exit_2_naming_the_minimum_and_the_window(tmp_path, capsys):
    from harness.cli.main import main

    argv = ["run", "--strategy", "anthropic-compaction", "--cases", "needle-h24k-d010", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "below the provider's compaction minimum of 50,000" in err and "at least 250,000 tokens" in err
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_a_spec_arm_anthropic_refuses_stops_the_experiment_before_any_cell(tmp_path):
    """The shipped strategies spec with anthropic-compaction added (20 % of 64,000 tokens) is exit 2 naming the arm; the
    shipped Anthropic spec (a 250,000-token window) builds every arm."""
    import yaml

    from harness.errors import ConfigError
    from harness.runs.grid import cell_config, run_experiment
    from harness.runs.spec import load_spec

    experiments = Path(__file__).resolve().parents[2] / "datasets" / "experiments"
    shipped = yaml.safe_load((experiments / "strategies.yaml").read_text())
    shipped["strategies"].append("anthropic-compaction")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(shipped))
    with pytest.raises(ConfigError, match="arm anthropic-compaction at threshold 20%: .*minimum of 50,000"):
        run_experiment(load_spec(tmp_path / "s.yaml"), out_dir=tmp_path / "out", progress=lambda _: None)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("cells.jsonl"))
    spec = load_spec(experiments / "strategies-anthropic-compaction.yaml")
    configs = [cell_config(spec, arm, t) for arm in spec.arms() for t in spec.thresholds]
    assert {c.strategy for c in configs} == {"anthropic-compaction", "none"} and configs[0].trigger_tokens() == 50_000


@pytest.mark.parametrize(
    ("strategy", "model"),
    [("anthropic-compaction", "anthropic:claude-sonnet-4-6"), ("openai-compaction", "openai:gpt-5-mini")],
)
def test_live_each_runs_unchanged_on_the_provider_key(strategy, model, scenarios):
    config = make_config("forced-20", trigger=["tokens:50000"], strategy=strategy)
    try:
        models = choose_models(model, None, window=config.window)
    except LiveModelUnavailable as exc:
        pytest.skip(str(exc))
    trace = run_case(scenarios["goal-ledgers-28"], config, models)
    assert trace.error is None and trace.events_of("summary")
