"""report.md and token_curves.png for a run directory.

The report leads with what a reader decides from: per eval kind, the pass rate of each
hard score with its n and a Wilson 95 % interval; then the cases that were invalid
(nothing summarized, needle still in view) or errored, named; then the per-case table
and the token-curve chart. Simulated runs say so at the top.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness.frames import calls_frame
from harness.plots import plot_token_curves, save
from harness.results import read_rows
from harness.stats import wilson
from harness.trace import load_trace

VALIDITY_KEYS = ("run_completed", "compressed", "needle_summarized_away")


def write_report(run_dir: str | Path) -> Path:
    run_dir = Path(run_dir)
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
    lines = [f"# Run {meta['run_id']}", ""]
    if simulated:
        lines += ["> **Simulated.** These results come from the harness's offline reference models driving the real",
                  "> deepagents middleware. They test the pipeline, the scorers and the statistics; conclusions about",
                  "> prompts or models need a live run (`--model provider:name`).", ""]
    lines += [
        f"- config: {meta['config_label']}",
        f"- agent model: `{meta['agent_model']}`; summarizer: `{meta['summary_model']}`",
        f"- cases: {len(rows)} ({meta['trials']} trial(s), seed {meta['seed']}); datasets: "
        + ", ".join(f"{k} ({v})" for k, v in meta["datasets"].items()),
        f"- fixed per-call overhead: {meta['fixed_overhead_tokens']} tokens; harness {meta['harness_version']}, commit {meta.get('git_commit') or 'unknown'}",
        f"- command: `{meta['command']}`",
        f"- wall time: {meta.get('wall_time_s', 'unfinished')} s",
        "",
    ]
    for w in meta.get("warnings", []):
        lines += [f"> **Warning:** {w}", ""]
    if rows:
        lines += _summary_tables(rows)
        lines += _problem_cases(rows)
        lines += ["## Cases", "", _case_table(rows).to_markdown(index=False), ""]
    if chart:
        lines += ["## Token curves", "", "Each panel: approximate tokens sent to the agent model at every agent call. "
                  "Red triangles and vertical drops: summarization (tokens before -> after); dashed line: the trigger; "
                  "dotted line: a new user turn.", "", f"![token curves]({chart.name})", ""]
    out = run_dir / "report.md"
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def _summary_tables(rows: list[dict]) -> list[str]:
    out = ["## Pass rates", "", "Rates are over cases x trials, with a Wilson 95 % interval.", ""]
    for kind in sorted({r["kind"] for r in rows}):
        subset = [r for r in rows if r["kind"] == kind]
        keys = list(dict.fromkeys(k for r in subset for k in r["passed"]))
        table = []
        for key in keys:
            vals = [r["passed"][key] for r in subset if key in r["passed"]]
            rate = wilson(sum(vals), len(vals))
            table.append({"score": key, "pass rate": f"{rate.value:.0%}", "95% interval": f"[{rate.low:.0%}, {rate.high:.0%}]", "n": rate.n})
        soft = [k for k in dict.fromkeys(k for r in subset for k in r["scores"]) if k not in keys]
        out += [f"### {kind} ({len(subset)} runs)", "", pd.DataFrame(table).to_markdown(index=False), ""]
        if soft:
            means = [{"measure": k, "mean": round(pd.Series([r["scores"][k] for r in subset if r["scores"].get(k) is not None], dtype=float).mean(), 3), "n": sum(1 for r in subset if r["scores"].get(k) is not None)} for k in soft]
            out += [pd.DataFrame(means).to_markdown(index=False), ""]
    return out


def _problem_cases(rows: list[dict]) -> list[str]:
    bad = [r for r in rows if not all(r["passed"].values())]
    if not bad:
        return ["Every case passed every hard check.", ""]
    out = ["## Failed or invalid cases", ""]
    for r in bad:
        failed = [k for k, ok in r["passed"].items() if not ok]
        label = "INVALID" if any(k in VALIDITY_KEYS for k in failed) else "FAILED"
        out.append(f"- **{r['case_id']}** (trial {r['trial']}) {label}: " + "; ".join(f"`{k}`: {r['explanations'][k]}" for k in failed))
    return [*out, ""]


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
