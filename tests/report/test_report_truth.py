"""Every figure covers what it claims: invalid runs count in no rate, nothing is overwritten, statistics match scipy."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.analysis.compare import cells_frame, compare, coverage, format_cell, mcnemar_exact, pass_at_k, sign_flip_p
from harness.compaction.variants import make_config
from harness.report.plots import plot_needle_grid
from harness.report.run_report import write_run_report
from harness.runs.results import read_rows, row_outcome
from harness.runs.run import RunSink
from harness.scoring.scorers import FAIL, INVALID, PASS, score_case
from harness.stats import wilson
from harness.suites.registry import matrix_suites

pytestmark = pytest.mark.slow


# -- a run with one valid and one invalid case ------------------------------------------------
@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory, scenarios):
    """forced-25: the needle case is valid and passes, the one-summary chain case gets no summary (INVALID)."""
    config = make_config("forced-25")
    models = choose_models(None, None, window=config.window)
    cases = [scenarios["needle-h24k-d000"], scenarios["chain-s1-d000"]]
    sink = RunSink(
        cases,
        config,
        seed=0,
        trials=1,
        out_dir=tmp_path_factory.mktemp("runs"),
        progress=lambda _: None,
    )
    for case in cases:
        trace = run_case(case, config, models)
        sink.record(trace, score_case(trace, case), case)
    sink.finish()
    return sink.path


def test_rows_carry_their_outcome_and_the_keys_that_decided_it(mixed_run):
    rows = {r["case_id"]: r for r in read_rows(mixed_run / "results.jsonl")}
    assert rows["needle-h24k-d000"]["outcome"] == PASS
    chain = rows["chain-s1-d000"]
    assert chain["outcome"] == INVALID and "compacted" in chain["outcome_keys"] and "compacted" in chain["validity"]
    assert chain["scorers"] == "default"


def test_the_run_report_rates_count_valid_runs_only_and_name_the_excluded(mixed_run):
    report = write_run_report(mixed_run).read_text()
    chain = report[report.index("### chain") : report.index("### needle")]
    assert "0 PASS, 0 FAIL, 1 INVALID, 0 ERROR: rates over the 0 valid runs; excluded as INVALID: 1 (" in chain
    assert re.search(r"\| all checks\s+\| n/a\s+\| -\s+\|\s+0 \|", chain)  # never "100%" from an invalid run
    assert re.search(r"\| needle_correct\s+\| n/a", chain)
    assert "**chain-s1-d000** (trial 0) INVALID" in report and "FAILED" not in report


def test_a_simulated_run_report_says_it_is_not_priced_and_prints_no_cost(mixed_run):
    """The reference models are listed at 0.0: a simulated run prints no '$0.0000' and no cost column."""
    report = write_run_report(mixed_run).read_text()
    assert "- cost: not priced (simulated" in report
    assert "$" not in report and "cost $" not in report and "cost at list prices" not in report


def test_old_rows_without_an_outcome_are_labelled_from_the_stable_validity_keys():
    for key in (
        "compressed",  # rows written before compaction strategies
        "needle_summarized_away",
        "chain_length_reached",
        "evicted",
        "overflowed",
        "args_clipped",
        "subagent_compressed",
    ):
        row = {"passed": {"run_completed": True, key: False, "needle_correct": False}}
        assert row_outcome(row) == (INVALID, [key])
    assert row_outcome({"passed": {"run_completed": True, "needle_correct": False}}) == (FAIL, ["needle_correct"])
    crashed = {"passed": {"run_completed": False, "compressed": False}}
    assert row_outcome(crashed) == (FAIL, ["run_completed"])  # a crash is a finding, not an invalid case


# -- experiment statistics over valid cells ---------------------------------------------------------
def _cell(arm, case, outcome, recovered, tokens, trial=0):
    return {
        "arm": arm,
        "threshold": "20%",
        "case_id": case,
        "kind": "needle",
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": ["compacted"] if outcome == INVALID else [],
        "passed": {},
        "metrics": {"needle_recovered": recovered, "agent_tokens": tokens},
        "case": {"needle_depth": 0.5, "haystack_tokens": 8000},
    }


def test_compare_and_pass_at_k_exclude_invalid_cells_and_say_how_many():
    rows = [_cell("base", f"c{i}", PASS, True, 100) for i in range(4)]
    rows += [_cell("base", f"x{i}", INVALID, True, 50) for i in range(6)]  # "recovered" while invalid: must not count
    rows += [_cell("other", f"c{i}", FAIL if i < 2 else PASS, i >= 2, 120) for i in range(4)]
    frame = cells_frame(rows)
    table = compare(frame, "base", ["passed", "needle_recovered", "agent_tokens"]).set_index(["arm", "metric"])
    base = table.loc[("base", "needle_recovered")]
    assert base["n"] == 4 and base["excluded"] == 6 and base["mean"] == 1.0
    assert table.loc[("base", "agent_tokens"), "mean"] == 100  # the invalid cells' 50s are not in the mean
    assert format_cell(base.to_dict()).endswith("n=4 (6 invalid excluded)")
    assert table.loc[("other", "passed"), "n_pairs"] == 4  # pairs only where both sides are valid
    cover = coverage(frame).set_index("arm")
    assert cover.loc["base", "INVALID"] == 6 and cover.loc["base", "invalid because"] == "compacted (6)"
    pk = pass_at_k(frame).set_index("arm")
    assert pk.loc["base", "cases"] == 4


def test_the_needle_grid_colours_valid_runs_only_and_hatches_invalid_squares():
    frame = pd.DataFrame(
        [
            {"needle_depth": 0.0, "haystack_tokens": 8000, "needle_recovered": True, "valid": True},
            {"needle_depth": 0.0, "haystack_tokens": 8000, "needle_recovered": True, "valid": False},
            {"needle_depth": 1.0, "haystack_tokens": 8000, "needle_recovered": True, "valid": False},
            {"needle_depth": 1.0, "haystack_tokens": 4000, "needle_recovered": False, "valid": True},
            {"needle_depth": 0.0, "haystack_tokens": 4000, "needle_recovered": True, "valid": True},
        ]
    )
    fig = plot_needle_grid(frame, x="needle_depth", y="haystack_tokens")
    ax = fig.axes[0]
    texts = {(round(t.get_position()[0]), round(t.get_position()[1])): t.get_text() for t in ax.texts}
    assert texts[(0, 1)] == "1/1\n+1 inv." and texts[(1, 1)] == "INVALID\n1" and texts[(1, 0)] == "0/1"
    grid = ax.images[0].get_array()
    assert grid[1, 1] is np.ma.masked and grid[0, 1] == 0.0 and grid[1, 0] == 1.0  # the invalid-only square is not coloured


# -- nothing is overwritten; harness score re-scores any run directory ------------------------------
def test_traces_are_keyed_by_scorers_arm_case_and_trial_and_never_overwritten(tmp_path, scenarios, needle_trace):
    from dataclasses import replace

    from harness.runs.rescore import rescore
    from harness.scenarios.generate import delegation_scenario
    from harness.scenarios.schema import _scenario

    config = make_config("forced-20")
    case = scenarios[needle_trace.case_id]
    sink = RunSink([case], config, seed=0, trials=1, out_dir=tmp_path, progress=lambda _: None)
    rows = [sink.record(needle_trace, score_case(needle_trace, case), case) for _ in range(2)]
    evicted = replace(needle_trace, config={**needle_trace.config, "name": "eviction"})
    rows.append(sink.record(evicted, score_case(evicted, case, "eviction"), case, scorers="eviction", eval_name="eviction"))
    delegated = _scenario(delegation_scenario(2, 8, seed=7), "generated by harness.scenarios.generate.delegation_scenario")
    trace = run_case(delegated, config, choose_models(None, None, window=config.window))
    rows.append(sink.record(trace, score_case(trace, delegated, "subagent"), delegated, scorers="subagent"))
    names = [r["trace"] for r in rows]
    assert len(set(names)) == 4 and all((sink.path / n).exists() for n in names)
    assert names[0] == "traces/default.forced-20.needle-h24k-d025.t0.json.gz" and names[1].endswith(".t0.2.json.gz")
    kept = [json.loads(line)["id"] for line in (sink.path / "scenarios.jsonl").read_text().splitlines()]
    assert kept == ["delegate-2x8"]  # generated in memory: kept with the run
    rescored = rescore(sink.path)
    assert [r["scores"] for r in rescored] == [r["scores"] for r in rows]  # each with its own scorer set
    assert [r["scorers"] for r in rescored] == ["default", "default", "eviction", "subagent"]
    assert rescored[2]["eval"] == "eviction"  # re-scoring keeps the eval the row ran as


# -- statistics: checked against scipy on the same data -------------------------------------------
def test_wilson_matches_scipy():
    for k, n in [(0, 5), (3, 10), (17, 20), (40, 40)]:
        ours = wilson(k, n)
        low, high = sps.binomtest(k, n).proportion_ci(method="wilson")
        assert ours.low == pytest.approx(low, abs=1e-9) and ours.high == pytest.approx(high, abs=1e-9)


def test_exact_mcnemar_matches_scipys_binomial_test():
    rng = np.random.default_rng(1)
    for _ in range(20):
        base, other = rng.random(30) < 0.7, rng.random(30) < 0.5
        b, c = int(np.sum(base & ~other)), int(np.sum(~base & other))
        expected = sps.binomtest(min(b, c), b + c, 0.5).pvalue if b + c else 1.0
        assert mcnemar_exact(base, other) == pytest.approx(expected, rel=1e-9)


def test_sign_flip_p_matches_scipys_permutation_test_and_is_never_zero():
    diffs = np.array([3.0, 1.5, -0.5, 2.0, 4.0, 1.0, 2.5, -1.0])
    exact = sps.permutation_test((diffs,), np.mean, permutation_type="samples", n_resamples=np.inf).pvalue
    assert sign_flip_p(diffs, np.random.default_rng(0)) == pytest.approx(exact, rel=1e-9)
    many = np.full(40, 5.0)  # every flip but the observed one is smaller: the exact p would be 2 / 2**40
    p = sign_flip_p(many, np.random.default_rng(0))
    assert p > 0 and p == pytest.approx(1 / 20_001, rel=0.05)  # (b + 1) / (m + 1) with m = 20,000 random flips
    noisy = np.random.default_rng(3).normal(0.3, 1.0, 30)
    ref = sps.permutation_test((noisy,), np.mean, permutation_type="samples", n_resamples=20_000, random_state=0).pvalue
    assert sign_flip_p(noisy, np.random.default_rng(0)) == pytest.approx(ref, abs=0.02)


# -- one list of checks per eval ----------------------------------------------------------------
def test_every_pytest_eval_asserts_the_list_the_validity_matrix_proves():
    root = Path(__file__).resolve().parents[2]
    for suite in matrix_suites():
        name = suite.name
        if suite.generated:  # the plugin's generated test asserts each eval's own entry
            source, needle = (root / "harness" / "_plugin_evals.py").read_text(encoding="utf-8"), "require_eval(name)"
        else:
            source, needle = (root / "evals" / f"test_{name}.py").read_text(encoding="utf-8"), f'SUITES["{name}"].required'
        assert needle in source or f'require_eval("{name}")' in source, f"the {name} eval does not assert SUITES[{name!r}]"
        assert "result.require(" not in source, f"the {name} eval asserts checks of its own beside the list"


def test_a_comparison_says_which_excluded_runs_were_errors():
    from harness.analysis.compare import format_cell

    rec = {"n": 4, "mean": 0.5, "low": 0.15, "high": 0.85, "rate": True, "excluded": 3, "errors": 1}
    assert format_cell(rec).endswith("n=4 (2 invalid, 1 ERROR excluded)")
    assert format_cell({**rec, "excluded": 1}).endswith("n=4 (1 ERROR excluded)")
