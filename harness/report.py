"""Reports for a run directory (``harness run`` / ``pytest evals/``): report.md, report.html, token_curves.png.

The report leads with what a reader decides from: per eval kind, the pass rate of each
hard score with its n and a Wilson 95 % interval; then the cases that were invalid
(nothing summarized, needle still in view) or errored, named; then the per-case table
and the token-curve chart. Simulated runs say so at the top. For an experiment
directory, `write_report` hands over to ``experiment_report``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness._document import Document
from harness.frames import calls_frame
from harness.plots import plot_token_curves, save
from harness.results import read_rows
from harness.stats import wilson
from harness.trace import load_trace

VALIDITY_KEYS = ("run_completed", "compressed", "needle_summarized_away")
SIMULATED_NOTE = (
    "**Simulated.** These results come from the harness's offline reference models driving the real deepagents "
    "middleware. They test the pipeline, the scorers and the statistics; conclusions about prompts or models need "
    "a live run (`--model provider:name`)."
)


def write_report(path: str | Path) -> Path:
    """Write the report for a run or experiment directory; returns report.md's path."""
    path = Path(path)
    if (path / "validity.json").exists():
        from harness.validity import render_validity

        return render_validity(path)
    if (path / "cells.jsonl").exists():
        from harness.experiment_report import write_experiment_report

        return write_experiment_report(path)
    return write_run_report(path)


def write_run_report(run_dir: Path) -> Path:
    meta = json.loads((run_dir / "meta.json").read_text(encoding="utf-8"))
    rows = read_rows(run_dir / "results.jsonl") if (run_dir / "results.jsonl").exists() else []
    traces = [load_trace(run_dir / r["trace"]) for r in rows]
    simulated = any(r["simulated"] for r in rows)
    frame = calls_frame(traces)
    chart = None
    if not frame.empty:
        frame["panel"] = frame["case_id"] + (" t" + frame["trial"].astype(str) if frame["trial"].nunique() > 1 else "")
        fig = plot_token_curves(frame, by="panel", simulated=simulated, title=f"Tokens per agent call: {meta['config_label']}")
        chart = save(fig, run_dir / "token_curves.png")
    doc = Document(f"Run {meta['run_id']}")
    if simulated:
        doc.note(SIMULATED_NOTE)
    doc.bullets([
        f"config: {meta['config_label']}",
        f"agent model: `{meta['agent_model']}`; summarizer: `{meta['summary_model']}`",
        f"cases: {len(rows)} ({meta['trials']} trial(s), seed {meta['seed']}); datasets: "
        + ", ".join(f"{k} ({v})" for k, v in meta["datasets"].items()),
        f"fixed per-call overhead: {meta['fixed_overhead_tokens']} tokens; harness {meta['harness_version']}, commit {meta.get('git_commit') or 'unknown'}",
        f"command: `{meta['command']}`",
        f"wall time: {meta.get('wall_time_s', 'unfinished')} s",
    ])
    for w in meta.get("warnings", []):
        doc.note(f"**Warning:** {w}")
    if rows:
        _pass_rates(doc, rows)
        _problem_cases(doc, rows)
        doc.heading("Cases")
        doc.table(_case_table(rows))
    survival = _survival(rows, run_dir)
    if survival is not None:
        table, figure = survival
        doc.heading("Needle survival across summaries")
        doc.text("Needle and chain cases by the number of summaries before the question and the needle's depth: how often "
                 "the answer came back (recovered, from context or history) and how often a summary still quoted it.")
        doc.table(table)
        doc.image(figure, "needle survival by number of summaries")
    if chart:
        doc.heading("Token curves")
        doc.text("Each panel: approximate tokens sent to the agent model at every agent call. Red triangles and vertical drops: "
                 "summarization (tokens before -> after); dashed line: the trigger; dotted line: a new user turn.")
        doc.image(chart, "token curves")
    md, _ = doc.write(run_dir)
    return md


def _survival(rows: list[dict], run_dir: Path):  # noqa: ANN202
    """(table, chart path) of needle recovery by summaries before the question x depth, or None."""
    import matplotlib.pyplot as plt

    points = [(r["metrics"].get("summaries_before_question"), (r.get("case") or {}).get("needle_depth"),
               r["scores"].get("needle_correct"), r["scores"].get("needle_in_summary"))
              for r in rows if r.get("metrics", {}).get("summaries_before_question") is not None and "needle_correct" in r["scores"]]
    if not points:
        return None
    frame = pd.DataFrame(points, columns=["summaries", "depth", "recovered", "in_summary"])
    grouped = frame.groupby(["summaries", "depth"], dropna=False).agg(n=("recovered", "size"), recovered=("recovered", "mean"),
                                                                      in_summary=("in_summary", "mean")).reset_index()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for depth, part in grouped.groupby("depth", dropna=False):
        ax.plot(part["summaries"], part["recovered"], marker="o", label=f"recovered, depth {depth:g}")
        ax.plot(part["summaries"], part["in_summary"], marker="x", ls="--", label=f"quoted in a summary, depth {depth:g}")
    ax.set_xlabel("summaries before the question")
    ax.set_ylabel("share of cases")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    path = save(fig, run_dir / "needle_survival.png")
    table = grouped.assign(recovered=grouped["recovered"].map("{:.0%}".format), in_summary=grouped["in_summary"].map("{:.0%}".format))
    return table.rename(columns={"in_summary": "quoted in a summary"}), path


def _pass_rates(doc: Document, rows: list[dict]) -> None:
    doc.heading("Pass rates")
    doc.text("Rates are over cases x trials, with a Wilson 95 % interval.")
    groups = sorted({(r["kind"], r["variant"]) for r in rows})
    for kind, variant in groups:
        subset = [r for r in rows if r["kind"] == kind and r["variant"] == variant]
        keys = list(dict.fromkeys(k for r in subset for k in r["passed"]))
        table = []
        for key in keys:
            vals = [r["passed"][key] for r in subset if key in r["passed"]]
            rate = wilson(sum(vals), len(vals))
            table.append({"score": key, "pass rate": f"{rate.value:.0%}", "95% interval": f"[{rate.low:.0%}, {rate.high:.0%}]", "n": rate.n})
        label = kind if len({v for _, v in groups}) == 1 else f"{kind}, {variant}"
        doc.heading(f"{label} ({len(subset)} runs)", level=3)
        doc.table(pd.DataFrame(table))
        soft = [k for k in dict.fromkeys(k for r in subset for k in r["scores"]) if k not in keys]
        if soft:
            means = []
            for k in soft:
                values = pd.Series([r["scores"][k] for r in subset if r["scores"].get(k) is not None], dtype=float)
                means.append({"measure": k, "mean": round(values.mean(), 3), "n": len(values)})
            doc.table(pd.DataFrame(means))


def _problem_cases(doc: Document, rows: list[dict]) -> None:
    bad = [r for r in rows if not all(r["passed"].values())]
    if not bad:
        doc.text("Every case passed every hard check.")
        return
    doc.heading("Failed or invalid cases")
    items = []
    for r in bad:
        failed = [k for k, ok in r["passed"].items() if not ok]
        label = "INVALID" if any(k in VALIDITY_KEYS for k in failed) else "FAILED"
        items.append(f"**{r['case_id']}** (trial {r['trial']}) {label}: " + "; ".join(f"`{k}`: {r['explanations'][k]}" for k in failed))
    doc.bullets(items)


def _case_table(rows: list[dict]) -> pd.DataFrame:
    table = []
    for r in rows:
        failed = [k for k, ok in r["passed"].items() if not ok]
        table.append({
            "case": r["case_id"], "trial": r["trial"], "result": "pass" if not failed else "fail: " + ", ".join(failed),
            "summaries": r["events"]["summarization"], "agent calls": r["calls"]["agent"],
            "peak tokens": r["tokens"]["peak_context"], "agent input tokens": r["tokens"]["agent_input"],
            "summarizer input tokens": r["tokens"]["summarizer_input"], "wall s": r["wall_time_s"],
        })
    return pd.DataFrame(table)
