"""The report of an experiment directory: report.md and a self-contained report.html.

- first, the verdict: one line per arm, where it is worse or better than the baseline (per key check and per
  threshold, the paired difference, its interval, Holm-adjusted p and n, as the tables below print them), what is
  not significant or equal on every pair, and the INVALID and ERROR runs not counted, by eval;
- the setup (cost: at list prices, or "not priced" for a simulated run, never a 0.0 figure);
- what the figures cover: runs, PASS, FAIL, INVALID and ERROR per arm, threshold and eval, and the case kinds each
  figure is measured on (its "(N invalid excluded)" counts runs of those kinds only);
- per threshold, the arm table: each metric as mean [95 % interval] n, and the
  paired difference from the baseline with its interval and Holm-adjusted p (* when
  significant);
- pass@k and pass^k over trials;
- bar charts with error bars; token curves of each arm on the same case, one panel per arm (`arm_curves`);
  a heatmap of needle recovery over needle depth x number of summaries before the
  question; and, for the best and worst arms that write summaries, their summaries of a case where one
  passed and the other failed, side by side.

Arms are in the spec's order with the baseline first, thresholds in the spec's order.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import _deepagents_adapter as da
from harness.analysis.compare import (
    cells_frame,
    compare,
    coverage,
    covered_kinds,
    format_cell,
    format_diff,
    is_priced,
    pass_at_k,
    valid_only,
)
from harness.report._document import SIMULATED_NOTE, Document, skipped_note
from harness.report.arm_curves import add_arm_curves_section
from harness.report.boundary_report import add_boundary_section
from harness.report.cost_report import add_cost_section, success_vs_cost
from harness.report.estimate_report import add_estimate_section
from harness.report.evals_report import add_evals_section
from harness.report.facts_report import add_facts_section, judge_section
from harness.report.loops_report import add_loops_section
from harness.report.notsummary_report import add_notsummary_section
from harness.report.parent_report import add_parent_section
from harness.report.plots import (
    plot_needle_grid,
    save,
    served_over_http,
    source_label,
    subplots,
)
from harness.report.redo_report import add_redo_section
from harness.report.sessions_report import add_sessions_section
from harness.report.survives_report import EVAL as SURVIVES
from harness.report.survives_report import add_survives_section
from harness.report.upstream import add_upstream_section
from harness.report.versions_report import add_versions_section
from harness.rows import CellRow, ExperimentMeta
from harness.runs.results import (
    read_experiment,
    read_not_run,
    retries_line,
    row_events,
    row_outcome,
    torn_line_note,
)
from harness.scoring.scorers import FAIL, PASS
from harness.scoring.scorers.facts import CLIFF_THRESHOLD
from harness.trace.schema import load_trace

HEADLINE = [
    ("passed", "all checks"),
    ("needle_recovered", "needle recovered"),
    ("needle_via_history", "via read_file"),
    ("goal_preserved", "goal preserved"),
    ("clarification_requested", "asked to clarify"),
    ("premature_completion", "stopped early"),
]
MEASURES = [
    ("summary_events", "summaries"),
    ("agent_tokens", "agent tokens"),
    ("summarizer_tokens", "summarizer tokens"),
    ("peak_context", "peak context"),
    ("tokens_removed_per_event", "removed per summary"),
    ("summary_length", "summary chars"),
    ("cost_usd", "cost USD"),
]
STRATEGY_HEADLINE = [("passed", "task success"), ("goal_preserved", "goal preserved"), ("needle_recovered", "needle recovered")]
STRATEGY_MEASURES = [
    ("total_tokens", "tokens per task"),
    ("summarizer_tokens", "summarizer tokens"),
    ("peak_context", "peak context"),
    ("cost_usd", "cost USD"),  # every call of the case (`harness.scoring.cost`: the one rule; whole_cost_usd is the same)
    ("compaction_events", "compaction events"),
]
BAR_METRICS = ["passed", "needle_recovered", "goal_preserved", "clarification_requested", "agent_tokens", "summary_length"]


def load_experiment(path: str | Path) -> tuple[ExperimentMeta, list[CellRow], pd.DataFrame]:
    """An experiment directory's meta.json, its cells' current rows and their frame (`analysis.compare.cells_frame`).
    The rows are in cell-id order, not the order workers finished them in: the seeded bootstrap and permutation tests
    pair rows in frame order, so the same cells give the same report however the grid ran."""
    meta, rows = read_experiment(path)
    rows = sorted(rows, key=lambda r: str(r.get("cell_id")))
    return meta, rows, cells_frame(rows)


def write_experiment_report(path: Path) -> Path:
    """report.md (and report.html, charts) for the experiment directory ``path``: arms side by side with intervals and
    paired tests, per-kind sections, token curves; returns report.md."""
    meta, rows, frame = load_experiment(path)
    baseline = meta["baseline"]
    arms = list(dict.fromkeys([baseline, *(meta.get("arms") or meta["variants"]), *(str(r["arm"]) for r in rows)]))
    thresholds = list(dict.fromkeys([*meta["thresholds"], *sorted({str(r.get("threshold")) for r in rows})]))
    doc = Document(f"Experiment {meta['experiment']}")
    simulated = any(r.get("simulated") for r in rows)
    if simulated:
        doc.note(SIMULATED_NOTE)
    torn = torn_line_note(path / "cells.jsonl", rerun=True)
    if torn:  # a row cut mid-write is skipped by the reader: said here, never a silent drop
        doc.note(f"**Warning:** {torn}")
    skipped = skipped_note(list(meta.get("skipped") or []))
    if skipped:  # a grid without evals, offline: cases skipped before the plan
        doc.note(skipped)
    not_run = read_not_run(path)
    if not_run and (frame.empty or not meta.get("evals")):  # otherwise listed in the evals section's table
        reasons = Counter(str(r["not_run"]) for r in not_run)
        doc.note(
            f"**Not run ({len(not_run)} cell(s)), counted nowhere:** "
            + "; ".join(f"{why} ({n} cell(s))" for why, n in reasons.items())
        )
    spec = meta.get("spec", {})
    setup = [
        f"{spec.get('description') or 'no description'}",
        f"agent model: `{meta['model']}`; summarizer: `{meta.get('summary_model') or 'per arm / agent model'}`",
        *([f"agent assembly: `{meta['agent']}` (the user's own, every arm)"] if meta.get("agent") else []),
        f"arms: {', '.join(meta.get('arms') or meta['variants'])}; baseline: **{baseline}**",
        f"thresholds: {', '.join(meta['thresholds'])}; trials: {meta['trials']}; seed: {meta['seed']}",
        f"cells: {len(rows)} finished of {meta['planned_cells']} planned",
        "datasets: " + ", ".join(f"{k} ({v})" for k, v in meta["datasets"].items()),
        f"harness {meta['harness_version']}, commit {meta.get('git_commit') or 'unknown'}",
    ]
    if frame.empty:
        doc.bullets(setup)
        doc.text("No finished cells yet.")
        md, _ = doc.write(path)
        return md
    measured = compare(frame, baseline, list(dict.fromkeys(m for m, _ in HEADLINE + MEASURES + STRATEGY_MEASURES)))
    comparison, unmeasured = _measured_only(_in_order(measured, arms, thresholds))
    _verdict(doc, comparison, frame, baseline, arms, thresholds)
    doc.heading("Setup")
    doc.bullets([*setup, _cost_line(comparison, rows), *([retried] if (retried := retries_line(rows)) else [])])
    if meta.get("strategies"):
        _strategy_section(doc, path, meta, frame, comparison, thresholds)
    add_evals_section(doc, meta, rows, not_run, arms)
    add_versions_section(doc, meta, rows, arms)
    source = source_label(simulated, served_over_http(meta))
    add_cost_section(doc, path, rows, comparison, arms, source, chart=not meta.get("strategies"))
    doc.heading("What the figures cover")
    doc.text(
        "Every run is PASS, FAIL, INVALID (a validity score failed: nothing was compacted, the needle was still in "
        "view, too few summaries for a chain case...) or ERROR (a provider error after every retry: it measured nothing; "
        "`harness experiment run` runs it again on resume). Every rate, interval, test and chart below counts valid runs "
        "only (PASS + FAIL); invalid and errored runs are listed here with their reasons and never counted as successes. "
        "Sorted by arm (baseline first, then the spec's order), threshold (the spec's order) and eval."
    )
    doc.table(coverage(frame, arms, thresholds))
    doc.text(
        "Each figure is measured on the case kinds below; '(N invalid excluded)' beside a figure counts the INVALID "
        "(and ERROR) runs of those kinds only, the runs that figure would otherwise have counted."
    )
    doc.table(_figure_coverage(frame, comparison))
    if unmeasured:
        doc.text("Not shown, since no valid run has a value: " + "; ".join(unmeasured) + ".")
    add_upstream_section(doc, rows)
    doc.heading("Arms against the baseline")
    doc.text(
        "Each cell: mean [95 % interval] n over valid runs (Wilson for rates, bootstrap otherwise), and how many "
        "invalid runs of the kinds it covers were excluded. Differences are paired on the "
        "same case, threshold and trial: rates in percentage points with an exact McNemar test, other metrics with a "
        "sign-flip permutation test; p is Holm-adjusted across arms; * marks p < 0.05; 'no pair differs' when every "
        "pair is equal."
    )
    for threshold in _present(thresholds, comparison):
        part = comparison[comparison["threshold"] == threshold]
        doc.heading(f"Threshold {threshold}", level=3)
        doc.table(_wide(part, HEADLINE, format_cell))
        doc.table(_wide(part, HEADLINE, format_diff, suffix=" vs baseline"))
        doc.table(_wide(part, MEASURES, format_cell))
        doc.table(_wide(part, MEASURES, format_diff, suffix=" vs baseline"))
    pk = pass_at_k(frame)
    if not pk.empty:
        doc.heading("pass@k and pass^k over trials")
        doc.text(
            "Valid runs only. A case passes a trial when every check passes. pass@k: at least one of k trials passes; pass^k: all "
            "k pass (unbiased estimators over the trials run, averaged over cases)."
        )
        pk = _in_order(pk, arms, thresholds)
        shown = pk.assign(**{"pass@k": pk["pass@k"].map("{:.0%}".format), "pass^k": pk["pass^k"].map("{:.0%}".format)})
        doc.table(shown)
    doc.heading("Charts")
    bars = _bars(comparison)
    if bars is None:
        doc.text("No valid runs yet (every finished cell is INVALID or ERROR): nothing to chart.")
    else:
        doc.image(save(bars, path / "arm_bars.png"), "arm metrics with 95% intervals")
    add_arm_curves_section(doc, path, rows, meta, arms)
    heat = _heatmap(frame, "summaries", simulated, served_over_http(meta))
    if heat is not None:
        doc.text(
            "Needle recovery by needle depth (x) and number of summaries before the question (y), valid runs only; each "
            "square shows recovered/n over every threshold and trial; grey hatched squares had only invalid runs."
        )
        doc.image(save(heat, path / "needle_heatmap.png"), "needle recovery heatmap")
    grid = _heatmap(frame, "haystack_tokens", simulated, served_over_http(meta))
    if grid is not None:
        doc.text("Needle recovery by needle depth (x) and context length (y), Kamradt style, valid runs only.")
        doc.image(save(grid, path / "needle_depth_length.png"), "needle recovery by depth and context length")
    in_spec_order = sorted(  # workers finish cells in any order: the section follows the spec's arms and thresholds
        rows,
        key=lambda r: (
            arms.index(r["arm"]) if r["arm"] in arms else len(arms),
            thresholds.index(str(r.get("threshold"))) if str(r.get("threshold")) in thresholds else len(thresholds),
            str(r["case_id"]),
            int(r.get("trial") or 0),
        ),
    )
    add_facts_section(
        doc,
        in_spec_order,
        path,
        source_label(simulated, served_over_http(meta)),
        spec.get("cliff_threshold") or CLIFF_THRESHOLD,
    )
    add_sessions_section(doc, in_spec_order)
    add_parent_section(doc, in_spec_order)
    add_redo_section(doc, in_spec_order)
    survives = [r for r in in_spec_order if r.get("eval") == SURVIVES]  # its traces only: the audit reads them
    add_survives_section(doc, survives, [load_trace(path / r["trace"]) for r in survives])
    add_notsummary_section(doc, in_spec_order)
    add_loops_section(doc, in_spec_order)
    add_boundary_section(doc, in_spec_order)
    add_estimate_section(doc, in_spec_order)
    judge_section(doc, path)
    _best_worst(doc, path, rows, frame, arms)
    doc.heading("Every metric")
    if comparison.empty:  # every cell ERROR (an outage) or none finished: nothing measured, and no crash saying so
        doc.text("No metric has a value: no cell finished valid (see What the figures cover).")
    else:
        long = comparison.assign(value=comparison.apply(format_cell, axis=1), vs_baseline=comparison.apply(format_diff, axis=1))
        doc.table(long[["threshold", "metric", "arm", "value", "vs_baseline"]])
    md, _ = doc.write(path)
    return md


def _in_order(table: pd.DataFrame, arms: list[str], thresholds: list[str]) -> pd.DataFrame:
    """Rows by threshold (the spec's order), metric (as compared), then arm (baseline first, then the spec's order)."""
    rank_a = {a: i for i, a in enumerate(dict.fromkeys([*arms, *table["arm"]]))}
    rank_t = {t: i for i, t in enumerate(dict.fromkeys([*thresholds, *sorted(table["threshold"].unique())]))}
    keys = pd.DataFrame({"t": table["threshold"].map(rank_t), "a": table["arm"].map(rank_a)})
    if "metric" in table.columns:
        rank_m = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
        keys.insert(1, "m", table["metric"].map(rank_m))
    order = keys.sort_values(list(keys.columns), kind="stable").index
    return table.loc[order].reset_index(drop=True)


def _present(thresholds: list[str], table: pd.DataFrame) -> list[str]:
    return [t for t in thresholds if t in set(table["threshold"])]


def _measured_only(comparison: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Drop the metrics no valid run has a value for (cost of a simulated run, a goal rate with no goal cases): a
    figure of n=0 everywhere answers nothing. Returns the rest and what was dropped, with why."""
    n = comparison.groupby("metric", sort=False)["n"].sum()
    empty = [m for m in n.index if n[m] == 0]
    labels = dict(HEADLINE + MEASURES + STRATEGY_MEASURES)
    notes = [
        f"{labels.get(m, m)} ({'not priced: see Setup' if m == 'cost_usd' else 'not measured in any valid run'})" for m in empty
    ]
    return comparison[~comparison["metric"].isin(empty)].reset_index(drop=True), notes


def _cost_line(comparison: pd.DataFrame, rows: list[CellRow]) -> str:
    if "cost_usd" in set(comparison["metric"]):
        from harness.scoring.cost import price_table

        return (
            f"cost: USD at list prices (datasets/model_prices.yaml, as of {price_table().get('as_of', '?')}), "
            "in the tables as 'cost USD'"
        )
    if rows and not any(is_priced(r) for r in rows):
        return "cost: not priced (simulated: the offline reference models bill nothing)"
    return "cost: not priced (no price for these models in datasets/model_prices.yaml)"


def _figure_coverage(frame: pd.DataFrame, comparison: pd.DataFrame) -> pd.DataFrame:
    labels = dict(HEADLINE + MEASURES + STRATEGY_MEASURES)
    every = covered_kinds(frame, "passed")
    out = []
    for metric in dict.fromkeys(comparison["metric"]):
        kinds = covered_kinds(frame, metric)
        out.append({"figure": labels.get(metric, metric), "metric": metric, "measured on": _kinds_text(kinds, every)})
    return pd.DataFrame(out)


def _kinds_text(kinds: list[str], every: list[str], short: bool = False) -> str:
    if kinds == every:
        return "every case" if short else f"every case ({', '.join(every)})"
    return ", ".join(kinds) + " cases"


# What the verdict reads: the key checks (higher is better) and what they cost (lower is better).
VERDICT = [
    ("passed", "all checks", True),
    ("needle_recovered", "needle recovered", True),
    ("goal_preserved", "goal preserved", True),
    ("clarification_requested", "asked to clarify", False),
    ("premature_completion", "stopped early", False),
]


def _verdict(
    doc: Document, comparison: pd.DataFrame, frame: pd.DataFrame, baseline: str, arms: list[str], thresholds: list[str]
) -> None:
    """One line per arm: where it is worse or better than the baseline (significant after Holm), where it is not, and
    what was not counted; every figure is a record of ``comparison``, printed by ``format_diff`` as in the tables."""
    metrics = set(comparison["metric"])
    cost = ("cost_usd", "cost USD per task", False) if "cost_usd" in metrics else ("total_tokens", "tokens per task", False)
    read = [v for v in [*VERDICT, cost] if v[0] in metrics]
    every = covered_kinds(frame, "passed")
    doc.heading("Verdict")
    doc.text(
        f"Each arm against the baseline **{baseline}**, read from the tables below: paired on case, threshold and trial "
        "over valid runs, difference [95 % interval], Holm-adjusted p and the number of pairs; a difference is named "
        "when p < 0.05. Read: "
        + ", ".join(f"{label} ({_kinds_text(covered_kinds(frame, m), every, short=True)})" for m, label, _ in read)
        + "."
    )
    lines = []
    for arm in [a for a in arms if a in set(comparison["arm"])]:
        left_out = _not_counted(frame[frame["arm"] == arm])
        if arm == baseline:
            valid = int(frame[(frame["arm"] == arm)]["valid"].astype(bool).sum())
            lines.append(f"**{arm}** is the baseline: {valid} valid runs of {int((frame['arm'] == arm).sum())}; {left_out}.")
            continue
        worse: list[str] = []
        better: list[str] = []
        same: list[str] = []
        equal: list[str] = []
        unpaired: list[str] = []
        for metric, label, higher_is_better in read:
            recs = comparison[(comparison["arm"] == arm) & (comparison["metric"] == metric)].to_dict("records")
            for rec in recs:
                where = f" at {rec['threshold']}" if len(recs) > 1 else ""
                if rec["n_pairs"] == 0:
                    unpaired.append(f"{label}{where}")
                elif rec["n_differ"] == 0:
                    equal.append(f"{label}{where} (n={rec['n_pairs']})")
                elif rec["significant"]:
                    good = (rec["diff"] > 0) == higher_is_better
                    (better if good else worse).append(f"{label}{where} {format_diff(rec)}")
                else:
                    same.append(f"{label}{where} {format_diff(rec)}")
        parts = [] if worse or better else ["**No significant difference** from the baseline"]
        if worse:
            parts.append("**Worse** on " + "; ".join(worse))
        if better:
            parts.append("**Better** on " + "; ".join(better))
        if same:
            parts.append("Not significant: " + "; ".join(same))
        if equal:
            parts.append("Equal on every pair: " + ", ".join(equal))
        if unpaired:
            parts.append("Not comparable (no paired valid runs): " + ", ".join(unpaired))
        parts.append(left_out[0].upper() + left_out[1:])
        lines.append(f"**{arm}**: " + ". ".join(parts) + ".")
    doc.bullets(lines)


def _not_counted(rows: pd.DataFrame) -> str:
    """'not counted: chain 8 INVALID (chain_length_reached 8), goal 1 ERROR (timeout 1)', or 'nothing left out'."""
    bad = rows[~rows["valid"].astype(bool)]
    if bad.empty:
        return "no run left out (0 INVALID, 0 ERROR)"
    parts = []
    for eval_name, runs in bad.groupby("eval", sort=True):
        for outcome, column in (("INVALID", "invalid_reasons"), ("ERROR", "error_cause")):
            mine = runs[runs["outcome"] == outcome]
            if mine.empty:
                continue
            reasons = pd.Series([k for r in mine[column] for k in str(r).split(",") if k]).value_counts()
            why = ", ".join(f"{k} {n}" for k, n in reasons.items())
            parts.append(f"{eval_name} {len(mine)} {outcome}" + (f" ({why})" if why else ""))
    return "not counted: " + "; ".join(parts)


def _strategy_section(
    doc: Document, path: Path, meta: ExperimentMeta, frame: pd.DataFrame, comparison: pd.DataFrame, thresholds: list[str]
) -> None:
    """One row per strategy: success, goal, needle, tokens, peak context, cost, compaction events, where a lost fact
    comes back from; the difference from the baseline arm; and a cost-vs-success chart."""
    from harness.compaction.strategies.registry import INFO

    strategies = meta["strategies"]
    doc.heading("Strategies side by side")
    doc.text(
        "Each cell: mean [95 % interval] n over valid runs; 'vs baseline' is paired on case, threshold and trial "
        f"(baseline **{meta['baseline']}**). Tokens are approximate input tokens per task (agent and summarizer). "
        "`none` is the control arm: nothing is compacted by design, so its runs are valid without a compaction and "
        "show what the task achieves and costs with the whole history in view. Where the recovery path is 'none', "
        "a fact compacted away cannot come back: a needle answered there was kept by the summary or still in view."
    )
    shown = [(m, label) for m, label in STRATEGY_HEADLINE + STRATEGY_MEASURES if m in set(comparison["metric"])]
    ordered = [a for a in dict.fromkeys(comparison["arm"]) if a in strategies]
    for threshold in _present(thresholds, comparison):
        part = comparison[comparison["threshold"] == threshold]
        rows = []
        for arm in ordered:
            strategy = strategies[arm]
            mine = part[part["arm"] == arm]
            if mine.empty:
                continue
            cells = {m: mine[mine["metric"] == m].to_dict("records") for m, _ in shown}
            row = {"arm": arm, "strategy": strategy, "recovery path": INFO[_strategy_name(strategy)].recovery}
            for metric, label in shown:
                row[label] = format_cell(cells[metric][0]) if cells[metric] else "-"
            row["task success vs baseline"] = format_diff(cells["passed"][0]) if cells.get("passed") else "-"
            rows.append(row)
        if len(frame["threshold"].unique()) > 1:
            doc.heading(f"Threshold {threshold}", level=3)
        doc.table(pd.DataFrame(rows))
        source = source_label(any(frame["simulated"].fillna(False)), served_over_http(meta))
        fig = success_vs_cost(part, [a for a in ordered if a in strategies], source)
        if fig is not None:
            name = f"strategy_cost_success{'' if len(frame['threshold'].unique()) == 1 else '_' + _slug(threshold)}.png"
            doc.image(save(fig, path / name), f"cost vs task success per strategy, threshold {threshold}")
    left_out = meta.get("not_applicable") or []
    if left_out:
        doc.text(
            f"{len(left_out)} (arm, case) pair(s) were not run because the case's eval does not apply to the strategy "
            f"(never counted): " + "; ".join(sorted({f"{x['arm']}: {x['reason']}" for x in left_out})[:6])
        )


def _strategy_name(strategy: str) -> str:
    return "custom" if ":" in strategy else strategy


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)


def _wide(part: pd.DataFrame, metrics: list[tuple[str, str]], fmt, suffix: str = "") -> pd.DataFrame:  # noqa: ANN001
    table: dict[tuple[Any, Any], dict[str, Any]] = {}
    for rec in part.to_dict("records"):
        label = dict(metrics).get(rec["metric"])
        if label is None:
            continue
        table.setdefault(rec["arm"], {"arm": rec["arm"] + (" (baseline)" if rec["baseline"] else "")})[label + suffix] = fmt(rec)
    return pd.DataFrame(list(table.values()))


def _bars(comparison: pd.DataFrame):  # noqa: ANN202
    metrics = [m for m in BAR_METRICS if m in set(comparison["metric"]) and comparison[comparison["metric"] == m]["n"].sum() > 0]
    if not metrics:
        return None
    fig, axes = subplots(1, len(metrics), figsize=(3.3 * len(metrics), 3.6), squeeze=False)
    thresholds = sorted(comparison["threshold"].unique())
    for ax, metric in zip(axes[0], metrics):
        sub = comparison[comparison["metric"] == metric]
        arms = list(dict.fromkeys(sub["arm"]))
        width = 0.8 / len(thresholds)
        for j, threshold in enumerate(thresholds):
            rows = sub[sub["threshold"] == threshold].set_index("arm").reindex(arms)
            x = np.arange(len(arms)) + j * width
            means = rows["mean"].to_numpy(dtype=float)
            err = np.vstack([means - rows["low"].to_numpy(dtype=float), rows["high"].to_numpy(dtype=float) - means])
            ax.bar(x, means, width, yerr=np.clip(np.nan_to_num(err), 0, None), capsize=3, label=threshold)
        ax.set_xticks(np.arange(len(arms)) + width * (len(thresholds) - 1) / 2)
        ax.set_xticklabels(arms, rotation=35, ha="right", fontsize=8)
        ax.set_title(metric.replace("_", " "), fontsize=9)
        if sub["rate"].iloc[0]:
            ax.set_ylim(0, 1.05)
    axes[0][0].legend(title="threshold", fontsize=7, title_fontsize=7)
    fig.suptitle("Per-arm means with 95 % intervals", fontsize=10)
    fig.tight_layout()
    return fig


def _heatmap(frame: pd.DataFrame, y: str, simulated: bool, served: bool):  # noqa: ANN202
    """Needle recovery over depth x ``y`` (summaries before the question, or haystack tokens), one panel per arm."""
    needles = frame[frame["kind"].isin(["needle", "chain"]) & frame["needle_depth"].notna()]
    if y == "summaries":
        needles = needles[needles["summaries_before_question"].notna()]
        needles = needles.assign(summaries=needles["summaries_before_question"].clip(upper=8).astype(int))
        if needles.empty:
            return None
        return plot_needle_grid(
            needles,
            x="needle_depth",
            y="summaries",
            panel="arm",
            y_label="summaries before question (8 = 8+)",
            title="Needle recovered by depth and number of summaries (valid runs only; hatched: only invalid runs; white: no runs)",
            simulated=simulated,
            served=served,
            y_format=lambda v: f"{v:g}",
        )
    needles = needles[needles["haystack_tokens"].notna()]
    if needles.empty or needles["haystack_tokens"].nunique() < 2:
        return None
    return plot_needle_grid(
        needles,
        x="needle_depth",
        y="haystack_tokens",
        panel="arm",
        y_label="haystack (tokens)",
        title="Needle recovered by depth and context length (valid runs only; hatched: only invalid runs; white: no runs)",
        simulated=simulated,
        served=served,
        y_format=lambda v: f"{v / 1000:g}k",
    )


def _best_worst(doc: Document, path: Path, rows: list[CellRow], frame: pd.DataFrame, arms: list[str]) -> None:
    """The best and worst arm that write summaries (by pass rate over valid runs; ties in the spec's order), side by
    side on a case one passed and the other failed with a summary on both sides; one line saying why when none."""
    doc.heading("Best and worst arm on the same case")
    summarizing = [a for a in arms if any(row_events(r).get("summary", 0) for r in rows if r["arm"] == a)]
    without = [a for a in arms if a not in summarizing and a in set(frame["arm"])]
    skipped = f" ({', '.join(without)} wrote no summary)" if without else ""
    rates = valid_only(frame[frame["arm"].isin(summarizing)]).groupby("arm")["passed"].mean().dropna()
    if len(rates) < 2:
        doc.text(f"No side-by-side summaries: fewer than two arms have valid runs with summaries{skipped}.")
        return
    ranked = sorted(rates.index, key=lambda a: (-rates[a], arms.index(a)))
    best, worst = ranked[0], ranked[-1]
    if math.isclose(rates[best], rates[worst]):
        doc.text(f"No side-by-side summaries: every arm with summaries passed {rates[best]:.0%} of its valid runs{skipped}.")
        return
    by_unit = {(r["arm"], r["case_id"], r.get("threshold"), r["trial"]): r for r in rows}
    for r in rows:
        if r["arm"] != best or row_outcome(r)[0] != PASS or not row_events(r).get("summary", 0):
            continue
        other = by_unit.get((worst, r["case_id"], r.get("threshold"), r["trial"]))
        if other is None or row_outcome(other)[0] != FAIL or not row_events(other).get("summary", 0):
            continue
        failed = row_outcome(other)[1]
        doc.text(
            f"**{best}** (pass rate {rates[best]:.0%}) passed `{r['case_id']}` at {r.get('threshold')}, trial {r['trial']}; "
            f"**{worst}** ({rates[worst]:.0%}) failed it: "
            + "; ".join(f"`{k}`: {other['explanations'][k]}" for k in failed)
            + f". Arms with summaries only{skipped}."
        )
        doc.side_by_side(f"{best}: last summary", _last_summary(path, r), f"{worst}: last summary", _last_summary(path, other))
        return
    doc.text(
        f"No side-by-side summaries: no case that **{best}** passed and **{worst}** failed with a summary on both sides{skipped}."
    )


def _last_summary(path: Path, row: CellRow) -> str:
    trace = load_trace(path / row["trace"])
    events = trace.events_of("summary")
    if not events:
        return "(no summary)"
    return da.summary_body(trace.message_text(events[-1]["summary_key"]))
