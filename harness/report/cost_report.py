"""The whole cost in an experiment report: the strategy x cost table, tokens by role, and success vs cost.

Figures come from `harness.analysis.cost_table` (every run counted, unknown shown as n/a, never as 0); dollars are
at `datasets/model_prices.yaml`, and where a reference model played a part they are labelled simulated, with the
list model each role was priced as. The chart has one point per arm: task success (Wilson interval, valid runs)
against its cost per task (bootstrap interval): the whole cost in USD when every arm has one, else the list-price
cost, else tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd

from harness.analysis.cost_table import role_table, simulated_prices, strategy_cost_table
from harness.report._document import Document
from harness.report.cache_report import add_cache_damage
from harness.report.plots import save, subplots
from harness.rows import ResultRow
from harness.scoring.cost import KINDS, price_table

X_METRICS = (
    ("whole_cost_usd", "whole cost per task, USD (every call, cache and compaction passes)"),
    ("cost_usd", "cost per task, USD"),
    ("total_tokens", "approximate input tokens per task (agent + summarizer)"),
)
JUDGE_FILE = "judge.json"
UNPRICED_COLUMNS = ("arm", "threshold", "runs", "PASS", "tokens sent per task", "counted by", "vs none", "pairs")


def fmt(value: Any, kind: str = "tokens") -> str:
    """A table figure: n/a for unknown, tokens as whole numbers, dollars to 4 significant digits, ratios to 2 places."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if kind == "usd":
        return f"{value:.4g}"
    if kind in ("ratio", "share"):
        return f"{value:.2f}" if kind == "ratio" else f"{value:.0%}"
    return f"{value:,.0f}"


def price_note(rows: Sequence[ResultRow]) -> str:
    """Where the dollars come from: list prices and their date, and for simulated runs the list model each reference
    model was priced as."""
    as_of = price_table().get("as_of", "?")
    borrowed = simulated_prices(rows)
    if borrowed:
        named = ", ".join(f"{role} as `{model}`" for role, model in sorted(borrowed.items()))
        return (
            f"**Simulated** dollars: the reference models bill nothing, so each is priced at a list model's price "
            f"(datasets/model_prices.yaml `simulated_as`, as of {as_of}): {named}. Tokens are what the reference models "
            "reported (through `harness serve`: its simulated prompt cache) or n/a when they reported none (in process)."
        )
    return f"Dollars at list prices (datasets/model_prices.yaml, as of {as_of}); a model without a price shows n/a."


def add_cost_section(
    doc: Document, path: Path, rows: Sequence[ResultRow], comparison: pd.DataFrame, arms: list[str], source: str, chart: bool
) -> None:
    """The Cost section: the strategy x cost table, tokens by role, the judge's tokens when judge.json is there, and
    (``chart``) the success-vs-cost chart per threshold."""
    doc.heading("Cost")
    doc.text(
        "Every run counts (PASS, FAIL, INVALID and ERROR cost what their calls cost); per-task figures are means over "
        "the runs. 'vs none': tokens sent with the arm over the `none` arm's on the same case, threshold and trial "
        "(mean of the ratios, with the pairs; both counted the same way). 'USD per PASS': every run's dollars over the "
        "PASS count. n/a: a figure some run did not report (a missing cache field is unknown, not zero) or a model with "
        "no price. " + price_note(rows)
    )
    summary = strategy_cost_table(rows)
    if summary.empty:
        doc.text("No runs: nothing to cost.")
        return
    summary = _ordered(summary, arms)
    columns: dict[str, Any] = {
        "tokens sent per task": summary["tokens sent per task"].map(fmt),
        "vs none": summary["vs none"].map(lambda v: fmt(v, "ratio")),
        "USD per task": summary["USD per task"].map(lambda v: fmt(v, "usd")),
        "cache read share": summary["cache read share"].map(lambda v: fmt(v, "share")),
        "USD per PASS": [f"{fmt(v, 'usd')} (n={p})" for v, p in zip(summary["USD per PASS"], summary["PASS"], strict=True)],
    }
    shown = summary.assign(**columns)
    if summary["pairs"].isna().all():
        shown = shown.drop(columns=["vs none", "pairs"])
    if not reported(rows):
        doc.text(
            "No model call reported usage (the in-process reference models report none): tokens sent are the harness's "
            "approximate count, and there are no cache, role or dollar figures. Run through `harness serve` "
            "(`--model anthropic:reference-agent --base-url ...`) for simulated ones."
        )
        doc.table(shown[[c for c in shown.columns if c in UNPRICED_COLUMNS]])
        _chart(doc, path, comparison, arms, source, chart)
        return
    doc.table(shown)
    roles = _ordered(role_table(rows), arms)
    doc.text(
        "Tokens per task by role (agent: the parent's calls; subagent: the calls made inside its subagents, through the "
        "task tool; tool: the calls a tool made to a model itself; compaction: a provider's server-side summary passes, "
        "billed apart)."
    )
    figures: dict[str, Any] = {k: roles[k].map(lambda v, k=k: fmt(v, "usd" if k == "usd" else "tokens")) for k in (*KINDS, "usd")}
    calls = roles["calls"].map(lambda v: "" if v is None or v != v else f"{v:.1f}")  # v != v: NaN, the total row
    doc.table(roles.assign(calls=calls, **figures))
    judge = _judge_line(path)
    if judge:
        doc.text(judge)
    add_cache_damage(doc, rows, arms)
    _chart(doc, path, comparison, arms, source, chart)


def reported(rows: Sequence[ResultRow]) -> bool:
    """Whether any run's models reported usage (a served or live run; never the in-process reference models)."""
    return any("cost" in r and r["cost"]["sent"]["source"] == "provider" for r in rows)


def _chart(doc: Document, path: Path, comparison: pd.DataFrame, arms: list[str], source: str, chart: bool) -> None:
    if not chart:
        return
    for threshold in dict.fromkeys(comparison["threshold"]) if not comparison.empty else []:
        fig = success_vs_cost(comparison[comparison["threshold"] == threshold], arms, source)
        if fig is not None:
            doc.image(save(fig, path / f"success_vs_cost_{_slug(str(threshold))}.png"), f"task success vs cost at {threshold}")


def _ordered(frame: pd.DataFrame, arms: list[str]) -> pd.DataFrame:
    rank = {a: i for i, a in enumerate(dict.fromkeys([*arms, *frame["arm"]]))}
    return frame.assign(_r=frame["arm"].map(rank)).sort_values(["_r", "threshold"], kind="stable").drop(columns="_r")


def _judge_line(path: Path) -> str | None:
    """The judge's tokens and dollars from judge.json (per run: the judge grades answers, not cases)."""
    import json

    file = path / JUDGE_FILE
    if not file.exists():
        return None
    usage = json.loads(file.read_text(encoding="utf-8")).get("usage") or {}
    return (
        f"Judge (judge.json, the whole run): {usage.get('judgements', 0)} judgements, "
        f"{fmt(usage.get('input_tokens'))} input and {fmt(usage.get('output_tokens'))} output tokens, "
        f"USD {fmt(usage.get('cost_usd'), 'usd')}; not in the per-task figures above."
    )


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text)


def x_metric(part: pd.DataFrame, arms: list[str]) -> tuple[str, str] | None:
    """The cost axis: the first of `X_METRICS` every arm with a success figure has a positive mean for."""
    ys = part[part["metric"] == "passed"].set_index("arm")
    present = [a for a in arms if _positive(ys, a, "n")]
    for metric, label in X_METRICS:
        xs = part[part["metric"] == metric].set_index("arm")
        if present and all(_positive(xs, a, "n") and _positive(xs, a, "mean") for a in present):
            return metric, label
    return None


def _positive(frame: pd.DataFrame, arm: str, column: str) -> bool:
    """``frame.loc[arm, column]`` is there and above 0 (NaN is not)."""
    return arm in frame.index and float(frame.loc[arm, column]) > 0  # type: ignore[arg-type]


def success_vs_cost(part: pd.DataFrame, arms: list[str], source: str):  # noqa: ANN201
    """One point per arm at one threshold: x its cost per task (`x_metric`), y task success, each with its 95 %
    interval; None when no arm has both."""
    choice = x_metric(part, arms)
    if choice is None:
        return None
    metric, label = choice
    xs = part[part["metric"] == metric].set_index("arm")
    ys = part[part["metric"] == "passed"].set_index("arm")
    shown = [a for a in arms if a in xs.index and _positive(ys, a, "n")]
    fig, ax = subplots(figsize=(7, 4.5))
    for i, arm in enumerate(shown):
        x, y = xs.loc[arm], ys.loc[arm]

        def span(rec, scale=1.0):  # noqa: ANN001, ANN202 - interval arms, never negative (rounding at 0 % or 100 %)
            return [[max(0.0, (rec["mean"] - rec["low"]) * scale)], [max(0.0, (rec["high"] - rec["mean"]) * scale)]]

        ax.errorbar(
            x["mean"],
            y["mean"] * 100,
            xerr=span(x),
            yerr=span(y, 100),
            fmt="osD^vP*X"[i % 8],  # points can coincide: each arm has its own marker, named in the legend
            color=matplotlib.colormaps["tab10"](i % 10),
            capsize=3,
            markersize=7,
            alpha=0.85,
            label=f"{arm} (n={y['n']:.0f})",
        )
    simulated = source.startswith("simulated") and metric != "total_tokens"
    ax.set_xlabel(label + (" (simulated prices)" if simulated else ""))
    ax.set_ylabel("task success, % of valid runs")
    ax.set_ylim(-5, 105)
    ax.set_title("Success vs cost per arm" + (f" ({source})" if source else ""))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig
