"""Reports for a run directory (``harness run`` / ``pytest evals/``): report.md, report.html, token_curves.png.

The report leads with what a reader decides from: per eval (the registry entry each row ran as), PASS / FAIL / INVALID /
ERROR counts (ERROR: a provider error after every retry, with its cause), then the pass rate of each check over valid runs only, with its n and a Wilson
95 % interval and the invalid runs excluded (with their reasons); then the failed and
invalid cases, named; then the per-case table, the needle survival and depth x length
charts (valid runs only) and the token-curve chart. Simulated runs say so at the top. For an experiment
directory, `write_report` hands over to ``experiment_report``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
from matplotlib.ticker import MaxNLocator

from harness.analysis.compare import is_priced
from harness.report._document import SIMULATED_NOTE, Document, skipped_note
from harness.report.apart import Apart, draw_apart
from harness.report.boundary_report import add_boundary_section
from harness.report.cache_report import add_cache_section
from harness.report.estimate_report import add_estimate_section
from harness.report.facts_report import add_facts_section, judge_section
from harness.report.loops_report import add_loops_section
from harness.report.notsummary_report import add_notsummary_section
from harness.report.parent_report import add_parent_section
from harness.report.plots import (
    line_style,
    plot_needle_grid,
    plot_token_curves,
    save,
    served_over_http,
    source_label,
    subplots,
)
from harness.report.redo_report import add_redo_section
from harness.report.sessions_report import add_sessions_section
from harness.report.survives_report import add_survives_section
from harness.report.upstream import add_upstream_section
from harness.rows import NO_EVAL, ResultRow, RunMeta, eval_label, read_run_meta
from harness.runs.results import (
    LEGACY_VALIDITY_KEYS,
    VALID,
    error_causes,
    is_valid,
    read_rows,
    retries_line,
    row_events,
    row_outcome,
    torn_line_note,
)
from harness.scoring.scorers import ERROR, FAIL, INVALID, KNOWN_UPSTREAM, PASS
from harness.scoring.scorers.facts import CLIFF_THRESHOLD
from harness.stats import wilson
from harness.suites.registry import SUITES
from harness.trace.frames import calls_frame
from harness.trace.schema import load_trace


def write_report(path: str | Path, tokens: str | None = None) -> Path:
    """Write the report for a run or experiment directory; returns report.md's path. ``tokens`` (approx, provider,
    both) chooses the token curves' counts; by default both when a provider reported usage, else approx."""
    path = Path(path)
    if (path / "validity.json").exists():
        from harness.report.validity_report import render_validity

        return render_validity(path)
    if (path / "cells.jsonl").exists():
        from harness.report.experiment_report import write_experiment_report

        return write_experiment_report(path)
    return write_run_report(path, tokens)


def config_said(meta: RunMeta, rows: list[ResultRow]) -> str:
    """The run's config as its report and charts name it; with a session case, that its window is chosen per cut."""
    from harness.compaction.config import WINDOW_SAID

    return meta["config_label"] + (f"; {WINDOW_SAID}" if any(r["kind"] == "session" for r in rows) else "")


def write_run_report(run_dir: Path, tokens: str | None = None) -> Path:
    meta = read_run_meta(run_dir)
    rows = read_rows(run_dir / "results.jsonl") if (run_dir / "results.jsonl").exists() else []
    traces = [load_trace(run_dir / r["trace"]) for r in rows]
    simulated = any(r["simulated"] for r in rows)
    frame = calls_frame(traces, rows)
    tokens = tokens or ("both" if frame["provider_input_tokens"].notna().any() else "approx")
    charts, drawn, drawing = _token_curves(frame, rows, traces, meta, run_dir, simulated, tokens)
    with drawing:  # the token curves, drawn beside the document: waited for at the end (reaped if it raises)
        doc = Document(f"Run {meta['run_id']}")
        if simulated:
            served = " (served over HTTP by `harness serve`)" if served_over_http(meta) else ""
            doc.note(SIMULATED_NOTE.replace("offline reference models", f"reference models{served}"))
        endpoints = meta.get("endpoints") or {}
        doc.bullets(
            [
                f"config: {config_said(meta, rows)}",
                f"agent model: `{meta['agent_model']}`; summarizer: `{meta['summary_model']}`",
                *([f"agent assembly: `{meta['agent']}` (the user's own)"] if meta.get("agent") else []),
                *[
                    f"{role} endpoint: {e.get('endpoint', 'provider default')}, settings {json.dumps(e.get('settings', {}))}"
                    for role, e in endpoints.items()
                ],
                *([retried] if (retried := retries_line(rows)) else []),
                f"cases: {len(rows)} ({meta['trials']} trial(s), seed {meta['seed']}); datasets: "
                + ", ".join(f"{k} ({v})" for k, v in meta["datasets"].items()),
                f"fixed per-call overhead: {meta['fixed_overhead_tokens']} tokens; harness {meta['harness_version']}, commit {meta.get('git_commit') or 'unknown'}",
                f"command: `{meta['command']}`",
                f"wall time: {meta.get('wall_time_s', 'unfinished')} s",
                *([_cost_line(rows)] if rows else []),
            ]
        )
        for w in meta.get("warnings", []):
            doc.note(f"**Warning:** {w}")
        if meta.get("stopped"):  # an outage stop (harness/runs/outage.py): why, and what was left out
            doc.note(f"**Stopped early:** {meta['stopped']['reason']}. {meta['stopped']['rerun']}")
        torn = torn_line_note(run_dir / "results.jsonl")
        if torn:  # a row cut mid-write is skipped by the reader: said here, never a silent drop
            doc.note(f"**Warning:** {torn}")
        skipped = skipped_note(list(meta.get("skipped") or []))
        if skipped:
            doc.note(skipped)
        if rows:
            _pass_rates(doc, rows)
            _problem_cases(doc, rows)
            add_upstream_section(doc, rows)
            add_parent_section(doc, rows)
        judge_section(doc, run_dir)
        if rows:
            doc.heading("Cases")
            doc.table(_case_table(rows))
        survival = _survival(rows, run_dir, source_label(simulated, served_over_http(meta)))
        if survival is not None:
            table, figure = survival
            doc.heading("Needle survival across summaries")
            doc.text(
                "Needle and chain cases by the number of summaries before the question and the needle's depth: how often "
                "the answer came back (recovered, from context or history) and how often a summary still quoted it."
            )
            doc.table(table)
            doc.image(figure, "needle survival by number of summaries")
        add_facts_section(
            doc, rows, run_dir, source_label(simulated, served_over_http(meta)), meta.get("cliff_threshold") or CLIFF_THRESHOLD
        )
        add_sessions_section(doc, rows)
        add_redo_section(doc, rows)
        add_survives_section(doc, rows, traces)
        add_notsummary_section(doc, rows)
        add_loops_section(doc, rows)
        add_cache_section(doc, rows, traces, run_dir)
        add_boundary_section(doc, rows)
        add_estimate_section(doc, rows)
        grid = _depth_length(rows, run_dir, simulated, served_over_http(meta))
        if grid is not None:
            doc.heading("Needle recovery by depth and context length")
            doc.text(
                "Kamradt-style grid: each square is one depth x haystack length, coloured by the share of valid runs that "
                "returned the needle (k/n); grey hatched squares had only invalid runs, '+m inv.' counts invalid runs left out."
            )
            doc.image(grid, "needle recovery by depth and context length")
        if charts:
            doc.heading("Token curves")
            doc.text(
                "Each panel: approximate tokens sent to the agent model at every agent call (the count deepagents' trigger "
                "compares). Red triangles and vertical drops: summarization (tokens before -> after); other compaction events "
                "have their own markers, named in the legend; red dashed line: the trigger; dotted grey line: a new user turn"
                + ("; dash-dot line: the input tokens the provider reported for the same calls." if tokens != "approx" else ".")
            )
            doc.text(drawn)
            for path, alt in charts:
                doc.image(path, alt)
    md, _ = doc.write(run_dir)
    return md


PANELS_PER_CHART = 40  # token_curves.png holds this many panels; more continue in token_curves-2.png, -3 ...


def _token_curves(
    frame: pd.DataFrame, rows: list[ResultRow], traces: list, meta: RunMeta, run_dir: Path, simulated: bool, tokens: str
) -> tuple[list[tuple[Path, str]], str, Apart]:
    """Every case run's token curve (``frame``: the run's calls, with the eval each ran as), one panel per case (and
    arm, and eval when one case ran under several), the trials of a case overlaid in its panel; past
    `PANELS_PER_CHART` panels the chart continues in numbered files. Returns the (chart, alt text) list, a sentence
    saying what is drawn and where, and the charts being drawn (`draw_apart`: wait before the files are read)."""
    for stale in run_dir.glob("token_curves-*.png"):
        stale.unlink()
    if frame.empty:
        return [], "", Apart(lambda: None)
    several_arms = frame["arm"].nunique(dropna=False) > 1
    several_evals = frame.groupby(["case_id", "arm"], dropna=False)["eval"].nunique().max() > 1
    frame = frame.assign(
        panel=frame["case_id"]
        + (" [" + frame["arm"].astype(str) + "]" if several_arms else "")
        + (" (" + frame["eval"].astype(str) + ")" if several_evals else "")
    )
    panels = sorted(frame["panel"].unique())
    parts = [panels[i : i + PANELS_PER_CHART] for i in range(0, len(panels), PANELS_PER_CHART)]
    served = served_over_http(meta)
    charts: list[tuple[Path, str]] = []
    draws = []
    for k, part in enumerate(parts, 1):
        title = f"Tokens per agent call: {config_said(meta, rows)}" + (f", part {k} of {len(parts)}" if len(parts) > 1 else "")
        name = "token_curves.png" if k == 1 else f"token_curves-{k}.png"

        def draw(part: list[str] = part, title: str = title, name: str = name) -> Path:
            fig = plot_token_curves(
                frame[frame["panel"].isin(part)], by="panel", simulated=simulated, served=served, title=title, tokens=tokens
            )
            return save(fig, run_dir / name)

        first = (k - 1) * PANELS_PER_CHART + 1
        alt = "token curves" + (f", panels {first}-{first + len(part) - 1} of {len(panels)}" if len(parts) > 1 else "")
        draws.append(draw)
        charts.append((run_dir / name, alt))
    trials = frame["trial"].nunique() > 1
    runs = frame.groupby(["run_id", "arm", "case_id", "trial", "eval"], dropna=False).ngroups
    text = (
        f"Every case run with a recorded call is drawn: {runs} run(s) in {len(panels)} panel(s), one per case"
        + (" and arm" if several_arms else "")
        + (" and eval" if several_evals else "")
        + ("; the trials of a case overlaid in its panel, one colour and line style per trial" if trials else "")
        + "."
    )
    if len(parts) > 1:
        text += " The chart continues over " + ", ".join(f"`{p.name}`" for p, _ in charts) + f" ({PANELS_PER_CHART} panels each)."
    missing = [f"`{r['case_id']}` trial {r['trial']}" for r, t in zip(rows, traces) if not t.calls]
    if missing:
        text += f" {len(missing)} case run(s) recorded no model call and have no curve: " + ", ".join(missing) + "."
    # the largest charts, drawn in one child beside the rest of the report (one, however many parts: a child per part
    # would copy the parent, traces and all, once per part)
    return charts, text, draw_apart(lambda: [draw() for draw in draws])


def _survival(rows: list[ResultRow], run_dir: Path, source: str):  # noqa: ANN202
    """(table, chart path) of needle recovery by summaries before the question x depth over valid runs, or None."""
    points = [
        (
            r["metrics"].get("summaries_before_question"),
            (r.get("case") or {}).get("needle_depth"),
            r["scores"].get("needle_correct"),
            r["scores"].get("needle_in_summary"),
            is_valid(r),
        )
        for r in rows
        if r.get("metrics", {}).get("summaries_before_question") is not None and "needle_correct" in r["scores"]
    ]
    if not points:
        return None
    frame = pd.DataFrame(points, columns=["summaries", "depth", "recovered", "in_summary", "valid"])
    excluded = frame[~frame["valid"]].groupby(["summaries", "depth"], dropna=False).size().rename("invalid (excluded)")
    valid = frame[frame["valid"]]
    grouped = valid.groupby(["summaries", "depth"], dropna=False).agg(
        n=("recovered", "size"), recovered=("recovered", "mean"), in_summary=("in_summary", "mean")
    )
    grouped = grouped.join(excluded, how="outer").fillna({"n": 0, "invalid (excluded)": 0}).reset_index()
    grouped[["n", "invalid (excluded)"]] = grouped[["n", "invalid (excluded)"]].astype(int)
    fig, ax = subplots(figsize=(7, 3.6))
    depths = list(grouped[grouped["n"] > 0].groupby("depth", dropna=False))
    for i, (depth, part) in enumerate(depths):
        # one colour per depth; earlier depths drawn wider and with larger markers, so equal lines stay visible
        color, _, width = line_style(i, len(depths))
        size = 9 - 4 * i / max(1, len(depths) - 1)
        ax.plot(
            part["summaries"], part["recovered"], marker="o", ms=size, lw=width, color=color, label=f"recovered, depth {depth:g}"
        )
        ax.plot(
            part["summaries"],
            part["in_summary"],
            marker="x",
            ms=size,
            lw=width,
            ls="--",
            color=color,
            label=f"quoted in a summary, depth {depth:g}",
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("summaries before the question")
    ax.set_ylabel("share of valid runs")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=7, frameon=False)
    ax.set_title(
        f"valid runs only ({int(grouped['n'].sum())}); {int(grouped['invalid (excluded)'].sum())} invalid excluded"
        + (f"\n{source}" if source else ""),
        fontsize=8,
    )
    fig.tight_layout()
    path = save(fig, run_dir / "needle_survival.png")
    pct = lambda v: "-" if pd.isna(v) else f"{v:.0%}"  # noqa: E731
    table = grouped.assign(recovered=grouped["recovered"].map(pct), in_summary=grouped["in_summary"].map(pct))
    return table.rename(columns={"in_summary": "quoted in a summary", "n": "n (valid)"}), path


def needle_grid_frame(rows: list[ResultRow]) -> pd.DataFrame:
    """One row per needle/chain case run: depth, haystack tokens, recovered, valid, arm."""
    points = [
        {
            "needle_depth": (r.get("case") or {}).get("needle_depth"),
            "haystack_tokens": (r.get("case") or {}).get("haystack_tokens"),
            "needle_recovered": bool(r["scores"]["needle_correct"]),
            "valid": is_valid(r),
            "arm": r.get("arm"),
        }
        for r in rows
        if r["kind"] in ("needle", "chain") and "needle_correct" in r["scores"]
    ]
    frame = pd.DataFrame(points)
    return frame.dropna(subset=["needle_depth", "haystack_tokens"]) if not frame.empty else frame


def _depth_length(rows: list[ResultRow], run_dir: Path, simulated: bool, served: bool) -> Path | None:
    frame = needle_grid_frame(rows)
    if frame.empty or frame["haystack_tokens"].nunique() < 2 and frame["needle_depth"].nunique() < 2:
        return None
    fig = plot_needle_grid(
        frame,
        x="needle_depth",
        y="haystack_tokens",
        y_label="haystack (tokens)",
        simulated=simulated,
        served=served,
        y_format=lambda v: f"{v / 1000:g}k",
        title="Needle recovered by depth x context length (valid runs only; hatched: only invalid runs)",
    )
    return save(fig, run_dir / "needle_depth_length.png")


def _cost_line(rows: list[ResultRow]) -> str:
    """What the run cost at list prices, or why it has no cost (simulated runs bill nothing: never a 0.0 figure)."""
    if not any(is_priced(r) for r in rows):
        return "cost: not priced (simulated: the offline reference models bill nothing)"
    from harness.scoring.cost import price_table

    costs = [r.get("metrics", {}).get("cost_usd") if is_priced(r) else None for r in rows]
    priced = [c for c in costs if c is not None]
    return (
        f"cost at list prices (datasets/model_prices.yaml, as of {price_table().get('as_of', '?')}): "
        + (
            f"${sum(priced):.4f} for {len(priced)} case run(s), ${sum(priced) / len(priced):.4f} per case"
            if priced
            else "n/a: no price for these models"
        )
        + (f"; {len(costs) - len(priced)} case run(s) without a price" if priced and len(priced) < len(costs) else "")
    )


def _injects_faults(eval_name: str) -> bool:
    """Every run of this eval has a fault injected (the faults eval): FAIL is the fault detected, what it expects."""
    suite = SUITES.get(eval_name)
    return suite is not None and suite.injects_faults


def _pass_rates(doc: Document, rows: list[ResultRow]) -> None:
    doc.heading("Pass rates")
    doc.text(
        "Each case run is PASS, FAIL or INVALID (a validity score failed: the run did not test what it claims, e.g. "
        "nothing was compacted or the needle was still in view). Rates are over valid runs only (PASS + FAIL), "
        "with a Wilson 95 % interval; invalid runs are counted beside them with their reasons, never as passes."
    )
    if any(eval_label(r).endswith(NO_EVAL) for r in rows):  # `harness run` without --kind: where a newcomer meets it
        doc.text(
            f'"<kind> {NO_EVAL}": the cases ran under the run\'s configuration with the default scorers, not as the eval '
            "of their kind (`harness run --kind KIND` or `pytest evals/ -m KIND` runs them as it, with its preset and checks)."
        )
    groups = sorted({(eval_label(r), r["arm"]) for r in rows})
    for eval_name, arm in groups:
        subset = [r for r in rows if eval_label(r) == eval_name and r["arm"] == arm]
        outcomes = [row_outcome(r) for r in subset]
        valid = [r for r, (o, _) in zip(subset, outcomes) if o in VALID]
        reasons = Counter(k for o, keys in outcomes if o == INVALID for k in keys)
        label = eval_name if len({a for _, a in groups}) == 1 else f"{eval_name}, {arm}"
        doc.heading(f"{label} ({len(subset)} runs)", level=3)
        counts = Counter(o for o, _ in outcomes)
        excluded = (
            f"; excluded as INVALID: {counts[INVALID]} ({', '.join(f'{k}: {n}' for k, n in reasons.items())})"
            if counts[INVALID]
            else ""
        )
        if counts[ERROR]:
            causes = ", ".join(f"{cause}: {n}" for cause, n in error_causes(subset).most_common())
            excluded += f"; excluded as ERROR (provider error after every retry): {counts[ERROR]} ({causes})"
        doc.text(
            f"{counts[PASS]} PASS, {counts[FAIL]} FAIL, {counts[INVALID]} INVALID, {counts[ERROR]} ERROR"
            + (f", {counts[KNOWN_UPSTREAM]} KNOWN_UPSTREAM" if counts[KNOWN_UPSTREAM] else "")
            + f": rates over the {len(valid)} valid runs{excluded}"
            + (
                "; KNOWN_UPSTREAM runs (listed under Known upstream failures) count in no rate."
                if counts[KNOWN_UPSTREAM]
                else "."
            )
        )
        if _injects_faults(eval_name):
            detected = wilson(counts[FAIL], len(valid))
            doc.text(
                f"Every run of this eval has a fault injected, so **FAIL is what it expects**: the fault was detected by "
                f"its checks. A PASS is a fault that went unnoticed. Detected: {counts[FAIL]} of {len(valid)} valid runs "
                f"({_pct(detected.value)}, 95 % interval {_interval(detected)}); missed: {counts[PASS]}."
            )
            continue
        validity = set(subset[0].get("validity", LEGACY_VALIDITY_KEYS))
        keys = [k for k in dict.fromkeys(k for r in subset for k in r["passed"]) if k not in validity]
        all_checks = wilson(counts[PASS], len(valid))
        table = [
            {"score": "all checks", "pass rate": _pct(all_checks.value), "95% interval": _interval(all_checks), "n": all_checks.n}
        ]
        for key in keys:
            vals = [r["passed"][key] for r in valid if key in r["passed"]]
            rate = wilson(sum(vals), len(vals))
            table.append({"score": key, "pass rate": _pct(rate.value), "95% interval": _interval(rate), "n": rate.n})
        doc.table(pd.DataFrame(table))
        soft = [k for k in dict.fromkeys(k for r in subset for k in r["scores"]) if all(k not in r["passed"] for r in subset)]
        if soft and valid:
            means = []
            for k in soft:
                values = pd.Series([r["scores"][k] for r in valid if r["scores"].get(k) is not None], dtype=float)
                means.append(
                    {"measure (valid runs)": k, "mean": round(values.mean(), 3) if len(values) else None, "n": len(values)}
                )
            doc.table(pd.DataFrame(means))


def _pct(value: float) -> str:
    return "n/a" if value != value else f"{value:.0%}"  # NaN when n = 0


def _interval(rate) -> str:  # noqa: ANN001
    return "-" if not rate.n else f"[{rate.low:.0%}, {rate.high:.0%}]"


def _problem_cases(doc: Document, rows: list[ResultRow]) -> None:
    outcomes = [(r, *row_outcome(r)) for r in rows]
    detected = [r for r, o, _ in outcomes if o == FAIL and _injects_faults(eval_label(r))]
    bad = [
        (r, o, keys)
        for r, o, keys in outcomes
        if (o == PASS and _injects_faults(eval_label(r)))
        or (o not in (PASS, KNOWN_UPSTREAM) and not (o == FAIL and _injects_faults(eval_label(r))))
    ]
    if detected:
        evals = ", ".join(sorted({eval_label(r) for r in detected}))
        doc.text(f"{len(detected)} runs of {evals} FAILED as that eval expects: each had a fault injected and it was detected.")
    if not bad:
        doc.text("Every case passed every check." if not detected else "No other case failed, was invalid or errored.")
        return
    doc.heading("Failed, invalid or errored cases (and faults that went unnoticed)")
    several = len({r["arm"] for r in rows}) > 1

    def why(r: ResultRow, o: str, keys: list[str]) -> str:
        if o == PASS:
            return "the injected fault was not detected by any check"
        if o == ERROR:
            err = r.get("error") or {}
            return f"{', '.join(keys)}: {err.get('message', '')[:300]}"
        return "; ".join(f"`{k}`: {r['explanations'].get(k, '')}" for k in keys)

    doc.bullets(
        [
            f"**{r['case_id']}**" + (f" [{r['arm']}]" if several else "") + f" (trial {r['trial']}) {o}: " + why(r, o, keys)
            for r, o, keys in bad
        ]
    )


def _case_table(rows: list[ResultRow]) -> pd.DataFrame:
    table = []
    several = len({r["arm"] for r in rows}) > 1
    for r in rows:
        result, keys = row_outcome(r)
        if _injects_faults(eval_label(r)):
            result = {FAIL: "FAIL (fault detected, as expected)", PASS: "PASS (fault missed)"}.get(result, result)
        table.append(
            {
                "case": r["case_id"],
                **({"arm": r["arm"]} if several else {}),
                "trial": r["trial"],
                "result": result + (": " + ", ".join(keys) if keys else ""),
                "summaries": row_events(r).get("summary", 0),
                "agent calls": r["calls"]["agent"],
                "peak tokens": r["tokens"]["peak_context"],
                "agent input tokens": r["tokens"]["agent_input"],
                "summarizer input tokens": r["tokens"]["summarizer_input"],
                **({"provider input tokens": r["tokens"].get("provider_input")} if r["tokens"].get("provider_input") else {}),
                **(
                    {"cost $": r["metrics"]["cost_usd"]}
                    if is_priced(r) and r.get("metrics", {}).get("cost_usd") is not None
                    else {}
                ),
                "wall s": r["wall_time_s"],
            }
        )
    return pd.DataFrame(table)
