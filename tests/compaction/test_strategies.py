"""Compaction strategies: each builds released middleware into the real deep agent, records its own events, and
leaves a fact where its recovery check looks for it."""

import pytest
from deepagents.middleware import SummarizationMiddleware as DeepAgentsSummarization
from langchain.agents.middleware import ContextEditingMiddleware
from langchain.agents.middleware import SummarizationMiddleware as LangChainSummarization

from harness.agent.build import build_agent
from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.cli.main import EXIT_BAD_INPUT, main
from harness.compaction.strategies.names import PROVIDER_NATIVE
from harness.compaction.strategies.none import VacatedSummarizationSlot
from harness.compaction.strategies.registry import INFO
from harness.compaction.strategies.registry import NAMES as ALL_NAMES
from harness.compaction.strategies.sliding_window import SlidingWindowMiddleware
from harness.compaction.variants import make_config
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import score_case, scores_by_key
from harness.suites.registry import SUITES

pytestmark = pytest.mark.slow

CUSTOM = "tests._strategies:keep_task_and_last_six"
# the provider-native ones are in tests/compaction/test_native_strategies.py
NAMES = tuple(n for n in ALL_NAMES if n not in PROVIDER_NATIVE)
SCENARIOS = {s.id: s for s in load_scenarios(all_scenario_files())}


def _config(strategy):
    return make_config("forced-20", strategy=CUSTOM if strategy == "custom" else strategy)


@pytest.fixture(scope="module")
def needle_runs():
    out = {}
    for strategy in NAMES:
        cfg = _config(strategy)
        scenario = SCENARIOS["needle-h24k-d000"]
        trace = run_case(scenario, cfg, choose_models(None, None, window=cfg.window, seed=0), seed=0)
        out[strategy] = (trace, scores_by_key(score_case(trace, scenario)))
    return out


EXPECTED_SLOT = {
    "deepagents-summarization": DeepAgentsSummarization,
    "hybrid": DeepAgentsSummarization,
    "summary-reinject": DeepAgentsSummarization,
    "langchain-summarization": LangChainSummarization,
}


@pytest.mark.parametrize("strategy", NAMES)
def test_each_strategy_takes_the_one_summarization_slot_and_adds_its_own_middleware(strategy, captured):
    cfg = _config(strategy)
    build_agent(cfg, ReferenceAgentModel(profile={"max_input_tokens": cfg.window}))
    main_stack = captured[-1]
    slot = [m for m in main_stack if m.name == "SummarizationMiddleware"]
    assert len(slot) == 1
    assert type(slot[0]) is EXPECTED_SLOT.get(strategy, VacatedSummarizationSlot)
    masking = [m for m in main_stack if isinstance(m, ContextEditingMiddleware)]
    assert len(masking) == (1 if strategy in ("observation-masking", "hybrid") else 0)
    assert any(isinstance(m, SlidingWindowMiddleware) for m in main_stack) == (strategy == "sliding-window")
    names = [m.name for m in main_stack]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("strategy", NAMES)
def test_each_strategy_records_only_its_own_compaction_events(strategy, needle_runs):
    trace, scores = needle_runs[strategy]
    assert trace.error is None
    kinds = {e["type"] for e in trace.compactions()}
    assert kinds <= set(INFO[strategy].event_types), kinds
    if strategy == "none":
        assert not kinds and scores["compacted"].value == 0  # the control arm is INVALID for the needle eval
        assert not scores["needle_summarized_away"].value
    else:
        assert kinds and scores["compacted"].value > 0
        assert all(e["strategy"] == (strategy if strategy != "custom" else "custom") for e in trace.compactions())
        assert all(
            e["tokens_after"] < e["tokens_before"]
            for e in trace.compactions()
            if e["type"] != "summary" or e["tokens_before"] is not None
        )


def test_a_langchain_summary_is_one_event_not_one_per_call(needle_runs):
    trace, _ = needle_runs["langchain-summarization"]
    summaries = trace.events_of("summary")
    assert summaries and len(summaries) == len([c for c in trace.summarizer_calls() if not c.get("error")])
    assert all(e["history_path"] is None for e in summaries)  # LangChain's middleware offloads nothing


def test_each_strategy_is_scored_by_its_own_recovery_check(needle_runs):
    """Where the fact comes back from: the history file (deepagents), the tool called again (masking), either
    (hybrid); nowhere under a sliding window or LangChain's summary, whose needle eval asks only for the answer."""
    assert needle_runs["deepagents-summarization"][1]["needle_via_history"].value
    assert needle_runs["summary-reinject"][1]["needle_via_history"].value  # the needle came by fetch_document: not re-read
    masked = needle_runs["observation-masking"][1]
    assert masked["needle_via_recall"].value and not masked["needle_via_history"].value
    assert needle_runs["hybrid"][1]["needle_via_history_or_recall"].value
    for lost in ("sliding-window", "langchain-summarization"):
        scores = needle_runs[lost][1]
        assert not scores["needle_correct"].value and not scores["needle_via_history_or_recall"].value
    needle = SUITES["needle"]
    assert "needle_via_recall" in needle.required_for("observation-masking")
    assert "needle_via_history_or_recall" in needle.required_for("hybrid")
    assert not {"needle_via_history", "needle_via_recall"} & set(needle.required_for("sliding-window"))


def test_recall_check_fails_on_a_trace_with_no_repeated_call(needle_runs):
    trace, scores = needle_runs["deepagents-summarization"]
    assert scores["needle_via_recall"].value is False
    assert "no earlier tool call was made again" in scores["needle_via_recall"].explanation


def test_mechanism_evals_skip_strategies_they_do_not_apply_to():
    assert SUITES["needle"].not_applicable_reason("sliding-window") is None
    reason = SUITES["eviction"].not_applicable_reason("observation-masking")
    assert reason and "deepagents-summarization" in reason


def test_bad_strategy_options_are_usage_errors(tmp_path, capsys):
    with pytest.raises(ConfigError, match="unknown strategy"):
        make_config("forced-20", strategy="summarise")
    with pytest.raises(ConfigError, match="no callable 'NOT_CALLABLE'"):
        make_config("forced-20", strategy="tests._strategies:NOT_CALLABLE")
    with pytest.raises(ConfigError, match="cannot import"):
        make_config("forced-20", strategy="no_such_module_xyz:fn")
    out = tmp_path / "runs"
    assert main(["run", "--strategy", "summarise", "--out", str(out), "--limit", "1"]) == EXIT_BAD_INPUT
    assert not out.exists()
    assert "unknown strategy" in capsys.readouterr().err


def test_a_variant_file_sets_the_strategy(tmp_path):
    path = tmp_path / "masked.md"
    path.write_text("---\nstrategy: observation-masking\nmask_keep: 2\nprompt: deepagents-default\n---\n")
    cfg = make_config(str(path))
    assert (cfg.strategy, cfg.mask_keep) == ("observation-masking", 2)
    bad = tmp_path / "bad.md"
    bad.write_text("---\nstrategy: windowing\nprompt: deepagents-default\n---\n")
    with pytest.raises(ConfigError, match="bad.md: strategy"):
        make_config(str(bad))


def test_only_the_strategys_own_recovery_check_can_fail_a_case(needle_runs):
    from harness.scoring.scorers import CHECK, MEASURE

    checks = {name: i.recovery_check for name, i in INFO.items() if i.recovery_check}
    assert checks == {
        "deepagents-summarization": "needle_via_history",
        "summary-reinject": "needle_via_history",  # deepagents' summary, and the history file it offloads
        "observation-masking": "needle_via_recall",
        "hybrid": "needle_via_history_or_recall",
        "anthropic-context-editing": "needle_via_recall",  # the provider's clearing: the tool is called again
    }
    for strategy, (_, scores) in needle_runs.items():
        kinds = {k: scores[k].role for k in ("needle_via_history", "needle_via_recall", "needle_via_history_or_recall")}
        own = checks.get(strategy)
        assert kinds == {k: CHECK if k == own else MEASURE for k in kinds}, (strategy, kinds)


# -- the strategy axis of an experiment ----------------------------------------------------------
def _spec(tmp_path, body):
    path = tmp_path / "s.yaml"
    path.write_text(body)
    return path


def test_a_spec_with_a_strategy_axis_compares_arms_and_names_bad_entries(tmp_path):
    from harness.runs.spec import load_spec

    spec = load_spec(
        _spec(
            tmp_path,
            "variants: [deepagents-default]\nstrategies: [deepagents-summarization, sliding-window]\nthresholds: [20%]\n",
        )
    )
    assert spec.arms() == {
        "deepagents-summarization": ("deepagents-default", "deepagents-summarization"),
        "sliding-window": ("deepagents-default", "sliding-window"),
    }
    assert spec.baseline == "deepagents-summarization"
    two = load_spec(
        _spec(tmp_path, "variants: [minimal, structured]\nstrategies: [none]\nbaseline: structured@none\nthresholds: [20%]\n")
    )
    assert list(two.arms()) == ["minimal@none", "structured@none"]
    with pytest.raises(ConfigError, match=r"strategies\[1\]: 'windowing': unknown strategy"):
        load_spec(_spec(tmp_path, "variants: [minimal]\nstrategies: [none, windowing]\nthresholds: [20%]\n"))
    with pytest.raises(ConfigError, match="baseline: 'minimal' is not one of the compared arms"):
        load_spec(_spec(tmp_path, "variants: [minimal]\nstrategies: [none]\nbaseline: minimal\nthresholds: [20%]\n"))


def test_a_strategy_experiment_runs_offline_and_reports_the_strategies_side_by_side(tmp_path):
    from harness.runs.grid import run_experiment
    from harness.runs.results import read_cells
    from harness.runs.spec import load_spec

    spec = load_spec(
        _spec(
            tmp_path,
            "name: strat\nvariants: [deepagents-default]\n"
            "strategies: [deepagents-summarization, observation-masking, sliding-window, none]\n"
            "thresholds: [20%]\nscenarios: {cases: [needle-h24k-d000, chain-s2-d000]}\n",
        )
    )
    result = run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None)
    rows = read_cells(result.path / "cells.jsonl")
    # chain does not apply to masking or a sliding window: those pairs are left out, with the reason, never counted
    assert len(rows) == 6 and {r["strategy"] for r in rows} == {
        "deepagents-summarization",
        "observation-masking",
        "sliding-window",
        "none",
    }
    import json

    meta = json.loads((result.path / "meta.json").read_text())
    assert {(x["arm"], x["case_id"]) for x in meta["not_applicable"]} == {
        ("observation-masking", "chain-s2-d000"),
        ("sliding-window", "chain-s2-d000"),
    }
    by = {(r["strategy"], r["case_id"]): r for r in rows}
    assert by[("observation-masking", "needle-h24k-d000")]["outcome"] == "PASS"
    assert by[("sliding-window", "needle-h24k-d000")]["outcome"] == "FAIL"  # nothing to recover from: a finding
    assert by[("none", "needle-h24k-d000")]["outcome"] == "PASS"  # the control arm: valid without compaction
    from harness.report.run_report import write_report

    report = write_report(result.path).read_text()
    assert "## Strategies side by side" in report and "none: what leaves the window is gone" in report
    assert (result.path / "strategy_cost_success.png").stat().st_size > 10_000
