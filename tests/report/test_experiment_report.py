"""The experiment report answers the question first: a verdict per arm (from the same comparison as the tables), a
sorted coverage table, '(N invalid excluded)' only beside figures those runs would have counted, best/worst summaries
only from arms that write summaries, and no cost figures for simulated runs."""

import json
import re

import pandas as pd
import pytest

from harness.analysis.compare import cells_frame, compare, coverage, format_cell, format_diff
from harness.report import experiment_report as er
from harness.report._document import Document
from harness.scoring.scorers import ERROR, FAIL, INVALID, PASS
from tests._rows import full_row

pytestmark = pytest.mark.slow

THRESHOLDS = ["25%", "15%"]  # the spec's order, deliberately not sorted
ARMS = ["lossy", "base", "same", "masky"]  # baseline "base" is not first in the spec
NEEDLES = [f"needle-{i}" for i in range(10)]


def _row(arm, threshold, case, kind, outcome, *, recovered=None, goal=None, summaries=2, keys=(), tokens=1000):
    return full_row(
        **{
            "cell_id": f"{arm}|{threshold}|{case}|0",
            "arm": arm,
            "threshold": threshold,
            "case_id": case,
            "kind": kind,
            "eval": kind,
            "trial": 0,
            "outcome": outcome,
            "outcome_keys": list(keys),
            "passed": {},
            "simulated": True,
            "agent_model": "reference-agent",
            "summary_model": "reference-summarizer",
            "metrics": {
                "needle_recovered": recovered,
                "goal_preserved": goal,
                "clarification_requested": False,
                "summary_events": summaries,
                "total_tokens": tokens,
                "agent_tokens": tokens,
                "cost_usd": 0.0,  # the reference models' list price: not a cost
                "summaries_before_question": summaries if kind == "needle" else None,
            },
            "case": {"needle_depth": (int(case[-1]) % 3) / 2 if kind == "needle" else None, "haystack_tokens": None},
            "events": {"summary": summaries},
            "explanations": {"needle_correct": "expected 'X'; the agent replied 'I don't know'"},
            "calls": {"agent": 10},
            "trace": f"traces/{arm}.{case}.t0.json",
        }
    )


def _rows():
    rows = []
    for threshold in THRESHOLDS:
        for case in NEEDLES:
            rows.append(_row("base", threshold, case, "needle", PASS, recovered=True))
            rows.append(_row("same", threshold, case, "needle", PASS, recovered=True))
            rows.append(_row("masky", threshold, case, "needle", PASS, recovered=True, summaries=0, tokens=900))
            # lossy loses every needle, but only at 15 %: where it lost is part of the answer
            lost = threshold == "15%"
            rows.append(
                _row(
                    "lossy",
                    threshold,
                    case,
                    "needle",
                    FAIL if lost else PASS,
                    recovered=not lost,
                    keys=["needle_correct"] if lost else [],
                )
            )
        for case in ("goal-a", "goal-b", "goal-c"):
            for arm in ("base", "same", "masky"):
                if arm != "masky" and (threshold, case) == ("25%", "goal-a"):  # masky, without summaries, passes most
                    rows.append(_row(arm, threshold, case, "goal", FAIL, goal=False, keys=["goal_preserved"]))
                    continue
                rows.append(_row(arm, threshold, case, "goal", PASS, goal=True, summaries=0 if arm == "masky" else 2))
        rows.append(_row("lossy", threshold, "goal-a", "goal", PASS, goal=True))
        rows.append(_row("lossy", threshold, "goal-b", "goal", PASS, goal=True))
        rows.append(_row("lossy", threshold, "goal-c", "goal", ERROR, keys=["timeout"]))  # a goal case: not a needle figure
        for case in ("chain-a", "chain-b", "chain-c"):  # the needle cases of the chain eval: INVALID for lossy only
            for arm in ("base", "same", "masky"):
                rows.append(_row(arm, threshold, case, "chain", PASS, recovered=True, summaries=0 if arm == "masky" else 2))
            rows.append(_row("lossy", threshold, case, "chain", INVALID, recovered=True, keys=["chain_length_reached"]))
    return rows


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("experiment")
    rows = _rows()
    (tmp_path / "cells.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = {
        "experiment": "synthetic",
        "baseline": "base",
        "arms": ARMS,
        "variants": ARMS,
        "model": "reference",
        "summary_model": None,
        "thresholds": THRESHOLDS,
        "trials": 1,
        "seed": 0,
        "planned_cells": len(rows),
        "datasets": {"needle.jsonl": "x"},
        "harness_version": "test",
        "git_commit": None,
        "spec": {"description": "synthetic"},
    }
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(er, "add_arm_curves_section", lambda *a: [])  # needs trace files; not what these tests are about
        patch.setattr(er, "_last_summary", lambda path, row: f"summary of {row['arm']}")
        report = er.write_experiment_report(tmp_path).read_text()
    frame = cells_frame(rows)
    return report, frame, compare(frame, "base", [m for m, _ in er.HEADLINE + er.MEASURES + er.STRATEGY_MEASURES])


def _section(report: str, heading: str) -> str:
    start = report.index(f"\n## {heading}\n")
    end = report.find("\n## ", start + 1)
    return report[start : end if end > 0 else None]


def _verdict_line(report: str, arm: str) -> str:
    return next(line for line in _section(report, "Verdict").splitlines() if line.startswith(f"- **{arm}**"))


def _tables(text: str) -> list[list[dict[str, str]]]:
    """The Markdown tables in ``text``, each as a list of {header: cell}."""
    tables, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif block:
            tables.append([dict(zip(block[0], cells)) for cells in block[2:]])
            block = []
    return tables


def _row_of(table: list[dict[str, str]], arm: str) -> dict[str, str]:
    return next(row for row in table if row["arm"] == arm)


def test_the_verdict_comes_first_and_its_figures_are_the_tables(experiment):
    report, _, comparison = experiment
    headings = re.findall(r"^## (.+)$", report, flags=re.M)
    assert headings[0] == "Verdict"
    labels = {m: label for m, label, _ in er.VERDICT}
    lossy = _verdict_line(report, "lossy")
    significant = comparison[(comparison["arm"] == "lossy") & comparison["significant"] & comparison["metric"].isin(labels)]
    assert not significant.empty  # the data are built so that lossy loses somewhere
    for rec in significant.to_dict("records"):
        shown = f"{labels[rec['metric']]} at {rec['threshold']} {format_diff(rec)}"
        assert shown in lossy.split("**Worse** on ")[1]
        detail = _section(report, "Arms against the baseline").split(f"### Threshold {rec['threshold']}")[1]
        diffs = _tables(detail)[1]  # the headline differences
        assert _row_of(diffs, "lossy")[f"{labels[rec['metric']]} vs baseline"] == format_diff(rec)
    # the thresholds where it did not lose are named too, with their n
    for rec in comparison[(comparison["arm"] == "lossy") & ~comparison["significant"]].to_dict("records"):
        if rec["metric"] in labels and rec["n_pairs"]:
            where = f"{labels[rec['metric']]} at {rec['threshold']}"
            assert f"{where} (n={rec['n_pairs']})" in lossy or f"{where} {format_diff(rec)}" in lossy
    # an arm equal to the baseline says so, with n, and claims no difference
    same = _verdict_line(report, "same")
    assert "**No significant difference** from the baseline" in same and "Worse" not in same
    for rec in comparison[(comparison["arm"] == "same") & comparison["metric"].isin(labels)].to_dict("records"):
        assert f"{labels[rec['metric']]} at {rec['threshold']} (n={rec['n_pairs']})" in same.split("Equal on every pair: ")[1]
    # INVALID and ERROR runs are named, by eval, with their reasons
    assert "chain 6 INVALID (chain_length_reached 6)" in lossy and "goal 2 ERROR (timeout 2)" in lossy


def test_the_coverage_table_is_sorted_baseline_first_then_spec_order_threshold_and_eval(experiment):
    report, frame, _ = experiment
    table = coverage(frame, ["base", *ARMS], THRESHOLDS)
    expected = [(a, t, e) for a in ["base", "lossy", "same", "masky"] for t in THRESHOLDS for e in ("chain", "goal", "needle")]
    assert list(zip(table["arm"], table["threshold"], table["eval"])) == expected
    shown = [
        tuple(cell.strip() for cell in line.split("|")[1:4])
        for line in _section(report, "What the figures cover").splitlines()
        if re.match(r"\| (base|lossy|same|masky)\s", line)
    ]
    assert shown == expected


def test_invalid_runs_are_noted_only_beside_figures_they_would_have_counted(experiment):
    report, _, comparison = experiment
    recs = comparison[comparison["arm"] == "lossy"].set_index(["threshold", "metric"])
    for threshold in THRESHOLDS:
        # 3 chain cases INVALID (needle cases) and 1 goal case ERROR per threshold
        assert format_cell(recs.loc[(threshold, "passed")]).endswith("(3 invalid, 1 ERROR excluded)")
        assert format_cell(recs.loc[(threshold, "needle_recovered")]).endswith("(3 invalid excluded)")
        assert format_cell(recs.loc[(threshold, "goal_preserved")]).endswith("(1 ERROR excluded)")
        assert format_cell(recs.loc[(threshold, "total_tokens")]).endswith("(3 invalid, 1 ERROR excluded)")
    for threshold in THRESHOLDS:
        detail = _section(report, "Arms against the baseline").split(f"### Threshold {threshold}")[1]
        cells = _row_of(_tables(detail)[0], "lossy")
        assert cells["goal preserved"].endswith("n=2 (1 ERROR excluded)")  # the chain cases are no goal figure's
        assert cells["needle recovered"].endswith("(3 invalid excluded)")  # the goal case is no needle figure's
    covers = _section(report, "What the figures cover")
    assert re.search(r"\| needle recovered\s+\| needle_recovered\s+\| chain, needle cases", covers)
    assert re.search(r"\| goal preserved\s+\| goal_preserved\s+\| goal cases", covers)


def test_simulated_runs_show_no_cost_figures(experiment):
    report, _, comparison = experiment
    assert "- cost: not priced (simulated" in report
    assert "cost_usd" not in report and "$" not in report
    headers = {h for table in _tables(report) for h in (table[0] if table else {})}
    assert not [h for h in headers if "cost" in h.lower() or "usd" in h.lower()]  # no cost column, no '0 [0, 0]'
    assert "tokens per task" in _section(report, "Verdict")  # what an unpriced arm costs, instead
    assert comparison[comparison["metric"] == "cost_usd"]["n"].sum() == 0  # the frame drops the 0.0 of a simulated run


def test_best_and_worst_are_arms_that_write_summaries(experiment):
    report, _, _ = experiment
    section = _section(report, "Best and worst arm on the same case")
    # masky passes everything but writes no summary: it is never the 'best' side
    assert "**base** (pass rate" in section and "**lossy**" in section and "masky: last summary" not in section
    assert "base: last summary" in section and "(masky wrote no summary)" in section


def test_best_and_worst_says_so_in_one_line_when_no_pair_exists(tmp_path):
    rows = [_row("base", "20%", c, "needle", PASS, recovered=True) for c in NEEDLES[:3]]
    rows += [_row("masky", "20%", c, "needle", FAIL, recovered=False, summaries=0, keys=["needle_correct"]) for c in NEEDLES[:3]]
    doc = Document("x")
    er._best_worst(doc, tmp_path, rows, cells_frame(rows), ["base", "masky"])
    assert [kind for kind, _ in doc.blocks] == ["heading", "text"]
    assert (
        doc.blocks[1][1].startswith("No side-by-side summaries: fewer than two arms")
        and "masky wrote no summary" in doc.blocks[1][1]
    )


def test_a_difference_where_no_pair_differs_is_said_plainly():
    frame = cells_frame(
        [
            _row(arm, "20%", c, "needle", PASS, recovered=True, tokens=1000 + i)
            for arm in ("a", "b")
            for i, c in enumerate(NEEDLES)
        ]
    )
    recs = compare(frame, "a", ["passed", "total_tokens"]).set_index(["arm", "metric"])
    assert format_diff(recs.loc[("b", "passed")]) == "no pair differs (n=10)"
    assert recs.loc[("b", "passed"), "n_differ"] == 0 and "p=" not in format_diff(recs.loc[("b", "total_tokens")])


def test_report_html_images_fit_the_page_width_without_distortion(tmp_path):
    """A chart wider than the page shrinks to it (aspect kept); a small one is not blown up (and blurred) to fill it."""
    import matplotlib.pyplot as plt

    from harness.report.plots import save

    fig, _ = plt.subplots(figsize=(12, 3))
    doc = Document("x")
    doc.image(save(fig, tmp_path / "wide.png"), "a wide chart")
    doc.table(pd.DataFrame([{"a": 1}]))
    page = doc.html()
    style = re.search(r"\bimg \{([^}]*)\}", page).group(1)
    assert "max-width: 100%" in style and "height: auto" in style and "max-height" not in style
    assert not re.search(r"(?<!max-)width: 100%", style)
    img = re.search(r"<img [^>]*>", page).group(0)
    assert "width=" not in img and "height=" not in img  # no fixed box to squash the image into
    assert "<div class='wide'><table" in page


def test_a_real_grid_shows_the_summaries_of_summarizing_arms_only(tmp_path):
    """Real cells and traces: observation-masking passes every needle but writes no summary; the side-by-side pair is
    deepagents' summarization against LangChain's, each with its own last summary."""
    from harness.runs.grid import run_experiment
    from harness.runs.spec import load_spec

    spec = tmp_path / "s.yaml"
    spec.write_text(
        "name: s\nvariants: [deepagents-default]\n"
        "strategies: [observation-masking, deepagents-summarization, langchain-summarization]\n"
        "baseline: deepagents-summarization\nthresholds: [20%]\n"
        "scenarios:\n  cases: [needle-h24k-d000, needle-h32k-d050]\ntrials: 1\nseed: 0\n"
    )
    run = run_experiment(load_spec(spec), out_dir=tmp_path / "out", workers=1, progress=lambda _: None)
    section = _section(er.write_experiment_report(run.path).read_text(), "Best and worst arm on the same case")
    assert "**deepagents-summarization** (pass rate" in section and "**langchain-summarization**" in section
    assert "observation-masking: last summary" not in section and "(no summary)" not in section
    assert "(observation-masking wrote no summary)" in section


def test_an_experiment_whose_every_cell_errored_still_gets_a_report(tmp_path, monkeypatch):
    """An outage: every cell ERROR. The report says what happened instead of crashing (found by the secrets test)."""
    rows = [
        _row(arm, "20%", case, "needle", ERROR, keys=["agent: HTTP 401 AuthenticationError"])
        for arm in ARMS
        for case in NEEDLES[:2]
    ]
    (tmp_path / "cells.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = {"experiment": "down", "baseline": "base", "arms": ARMS, "thresholds": ["20%"], "trials": 1, "seed": 0}
    extra = {
        "model": "reference",
        "planned_cells": len(rows),
        "spec": {},
        "datasets": {},
        "harness_version": "t",
        "git_commit": None,
    }
    (tmp_path / "meta.json").write_text(json.dumps({**meta, **extra}))
    monkeypatch.setattr(er, "add_arm_curves_section", lambda *a: [])
    report = er.write_experiment_report(tmp_path).read_text()
    assert "No metric has a value" in report and "ERROR" in report


def test_runs_of_no_eval_are_named_by_their_kind_in_the_report_never_as_the_eval():
    """A run that named no eval (``eval`` null) is "<kind> cases, no eval" (`harness.rows.eval_label`) in the
    not-counted line and is left out of the eval of its kind in the evals section: never passed off as that eval."""
    from harness.report.evals_report import eval_comparison

    ad_hoc = {**_row("base", "25%", "goal-2", "goal", ERROR, keys=("timeout",)), "eval": None}
    failed = {**_row("base", "25%", "goal-3", "goal", FAIL), "eval": None}
    rows = [_row("base", "25%", "goal-1", "goal", INVALID, keys=("not_compacted",), goal=True), ad_hoc, failed]
    rows.append(_row("base", "25%", "goal-4", "goal", PASS, goal=True))
    line = er._not_counted(cells_frame(rows))
    assert line == "not counted: goal 1 INVALID (not_compacted 1); goal cases, no eval 1 ERROR (timeout 1)", line
    table = eval_comparison(rows, "base", ["base"], ["goal"])
    assert table["pass rate"].tolist() == [
        "100% [21%, 100%] n=1 (1 invalid excluded)"
    ]  # the ad-hoc FAIL and ERROR: not the goal eval's


def test_a_live_experiments_setup_says_its_provider_retries_in_one_line(tmp_path, monkeypatch):
    """The SDKs' retries of a live grid (`harness.agent.sdk_retries`), from its cells' metrics: total, cells hit,
    backoff and the failed model calls, beside the other live-run facts (Setup); an offline grid has no such line."""
    rows = []
    for arm, case, retries, failed in (("base", "needle-0", 2, 0), ("base", "needle-1", 0, 1), ("same", "needle-0", 0, 0)):
        row = _row(arm, "20%", case, "needle", PASS, recovered=True)
        row["metrics"].update(
            provider_retries=retries, provider_retry_backoff_s=0.4 if retries else 0.0, failed_model_calls=failed
        )
        rows.append(row)
    rows.append(_row("same", "20%", "needle-1", "needle", PASS, recovered=True))  # no count: written before they were counted
    (tmp_path / "cells.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = {"experiment": "live", "baseline": "base", "arms": ["base", "same"], "thresholds": ["20%"], "trials": 1, "seed": 0}
    extra = {"model": "openai:x", "planned_cells": 4, "spec": {}, "datasets": {}, "harness_version": "t", "git_commit": None}
    (tmp_path / "meta.json").write_text(json.dumps({**meta, **extra}))
    monkeypatch.setattr(er, "add_arm_curves_section", lambda *a: [])
    monkeypatch.setattr(er, "_last_summary", lambda path, row: "a summary")
    setup = _section(er.write_experiment_report(tmp_path).read_text(), "Setup")
    assert (
        "- provider SDK retries: 2 in 1 of 3 cases, 0.4 s of backoff; 1 failed model call in 1 case, re-sent or ended the "
        "case (1 case without a count)\n" in setup
    ), setup


def test_an_offline_experiment_has_no_retries_line(experiment):
    report, _, _ = experiment
    assert "provider SDK retries" not in report and "- cost:" in _section(report, "Setup")
