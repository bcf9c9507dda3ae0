"""The prompt cache a compaction destroys, in the reports: per compaction the prefix it lost, the tokens it wrote to
the cache again and their dollars; per run the writes never read again (`harness.scoring.cache_use`).

- `add_cache_section` (run report, for the rows that ran as the ``cache`` eval): each case run's figures, each
  compaction's damage and whether the next call read the new prefix again, and a chart of every agent call's input
  split into read from the cache, written to it and neither, with the compactions marked.
- `add_cache_damage` (experiment report, in the Cost section): per arm, the compactions per task and what each cost the
  cache, so the cause of `none` being cheapest per PASS shows per compaction.

The figures are simulated from the recorded requests (approximate tokens; `harness.scoring.cache_use` says how); a
run served by `harness serve` or a provider also reported its own, which the per-call chart names as its source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.report.plots import save, subplots
from harness.rows import ResultRow
from harness.runs.results import row_outcome
from harness.scoring.cache_use import SERVED, cache_calls, compaction_damage
from harness.scoring.scorers.cache import OPENCODE_43249, STELLA_3690
from harness.trace.schema import Trace

EVAL = "cache"
CHART = "cache_use.png"
CALLS_FILE = "cache_calls.csv"  # every call's figures, beside the report
MAX_PANELS = 12
CAUSE = (
    "A compaction rewrites the head of the request, so the call it happens on writes the prompt cache anew and what "
    "the calls before it stored is never read again; a prefix that changes on every call (a timestamp or a counter in "
    f"the system prompt: [opencode#43249]({OPENCODE_43249}), [stella#3690]({STELLA_3690})) makes every call pay that."
)


def _usd(value: Any) -> str:
    return "n/a" if value is None else f"{value:.4g}"


def add_cache_section(doc: Document, rows: Sequence[ResultRow], traces: Sequence[Trace], run_dir: Path) -> None:
    """The run report's cache section, for the rows that ran as the cache eval (nothing when none did)."""
    picked = [(r, t) for r, t in zip(rows, traces, strict=True) if r.get("eval") == EVAL]
    if not picked:
        return
    doc.heading("Prompt cache across compactions")
    doc.text(
        CAUSE + " Figures simulated from the recorded requests (approximate tokens; Anthropic's policy: a breakpoint on "
        "the last message of each agent call); 'next call rereads': the next agent call read the "
        "compacted head (tools, system prompt, summary) from the cache, in the provider's figures where it reported "
        "them. USD at the agent model's cache-write price."
    )
    runs, events, per_call = [], [], []
    for row, trace in picked:
        calls = cache_calls(trace)
        per_call += [
            {
                "case": row["case_id"],
                "arm": row.get("arm"),
                "trial": row["trial"],
                "call": c.index,
                "role": c.role,
                "turn": c.turn,
                "compaction": c.compaction or "",
                "tokens": c.tokens,
                "shared_with_previous": c.shared,
                "read_simulated": c.read,
                "written_simulated": c.write,
                "never_read_again": c.unread,
                "read_served": c.served_read,
                "written_served": c.served_write,
                "input_served": c.served_input,
                "read_share": round(c.read_share, 4),
                "read_share_from": c.source,
            }
            for c in calls
        ]
        damage = compaction_damage(trace, calls)
        m = row["metrics"]
        agent = [c for c in calls if c.role == "agent"]
        served = any(c.source == SERVED for c in agent)
        runs.append(
            {
                "case": row["case_id"],
                "arm": row.get("arm"),
                "trial": row["trial"],
                "outcome": row_outcome(row)[0],
                "agent calls": len(agent),
                "compactions": len(damage),
                "prefix lost": m.get("cache_prefix_lost_tokens"),
                "rewritten": m.get("cache_rewritten_tokens"),
                "damage USD": _usd(m.get("cache_damage_usd")),
                "written": m.get("cache_written_tokens_sim"),
                "never read again": m.get("cache_unread_write_tokens"),
                "never read USD": _usd(m.get("cache_unread_write_usd")),
                "read share": f"{sum(c.read_share for c in agent) / len(agent):.0%}" if agent else "n/a",
                "read by": "served" if served else "simulated",
            }
        )
        for d in damage:
            events.append(
                {
                    "case": row["case_id"],
                    "arm": row.get("arm"),
                    "trial": row["trial"],
                    "call": d["call_index"],
                    "type": d["type"],
                    "prefix before": d["tokens_before"],
                    "shared": d["shared"],
                    "prefix lost": d["prefix_lost"],
                    "rewritten": d["rewritten"],
                    "USD": _usd(d["usd"]),
                    "next call rereads": "n/a" if d["rereads"] is None else ("yes" if d["rereads"] else "**no**"),
                }
            )
    doc.table(pd.DataFrame(runs))
    pd.DataFrame(per_call).to_csv(run_dir / CALLS_FILE, index=False)
    doc.text(
        f"Every call's figures (the prefix it shares with the previous call of its role, simulated and served reads and "
        f"writes, the writes never read again): `{CALLS_FILE}` beside this report."
    )
    if events:
        doc.text(
            "Each compaction (call: the index in the trace of the agent call it happened on; tokens approximate, simulated):"
        )
        doc.table(pd.DataFrame(events))
    doc.image(save(cache_chart(picked), run_dir / CHART), "prompt cache per agent call, compactions marked")


def cache_chart(picked: Sequence[tuple[ResultRow, Trace]]):  # noqa: ANN201
    """One panel per case run (the first `MAX_PANELS`): each agent call's input as read from the cache, written to it
    and neither (simulated), a red line at each compaction."""
    shown = list(picked)[:MAX_PANELS]
    fig, axes = subplots(len(shown), 1, figsize=(8, 2.2 * len(shown) + 0.6), squeeze=False)
    for ax, (row, trace) in zip(axes[:, 0], shown, strict=True):
        agent = [c for c in cache_calls(trace) if c.role == "agent"]
        x = list(range(len(agent)))
        read = [c.read for c in agent]
        write = [c.write for c in agent]
        rest = [c.tokens - c.read - c.write for c in agent]
        ax.bar(x, read, color="#4c9a2a", label="read from the cache")
        ax.bar(x, write, bottom=read, color="#d62728", label="written to the cache")
        ax.bar(x, rest, bottom=[a + b for a, b in zip(read, write, strict=True)], color="#bbbbbb", label="neither")
        for k, c in enumerate(agent):
            if c.compaction is not None:
                ax.axvline(k - 0.5, color="red", linestyle="--", linewidth=1)
        ax.set_title(f"{row['case_id']} [{row.get('arm')}] trial {row['trial']}: {row_outcome(row)[0]}", fontsize=9)
        ax.set_ylim(0, 1.15 * max((c.tokens for c in agent), default=1))
        ax.set_ylabel("tokens")
    axes[-1, 0].set_xlabel("agent call (dashed red: a compaction at that call)")
    axes[0, 0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Prompt cache per agent call (simulated from the recorded requests, approximate tokens)", fontsize=10)
    fig.tight_layout()
    return fig


def _sum(group: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """The group's total of metric ``key``; None when any row lacks it (an older row: unknown, never a partial sum)."""
    values = [(r.get("metrics") or {}).get(key) for r in group]
    return None if any(v is None for v in values) else float(sum(float(v) for v in values if v is not None))


def _over(value: float | None, n: float | None) -> float | None:
    return None if value is None or not n else value / n


def damage_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Per arm and threshold: runs, compactions per task, per compaction the prefix lost, the tokens rewritten and
    their USD, and per task the writes never read again (tokens, USD). Rows without the figures (older ones) count
    as unknown: the arm's figure is n/a, never a partial mean."""
    out = []
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((str(row.get("arm")), str(row.get("threshold") or "-")), []).append(row)
    for (arm, threshold), group in groups.items():
        compactions = _sum(group, "cache_compactions")
        out.append(
            {
                "arm": arm,
                "threshold": threshold,
                "runs": len(group),
                "compactions per task": _over(compactions, len(group)),
                "prefix lost per compaction": _over(_sum(group, "cache_prefix_lost_tokens"), compactions),
                "rewritten per compaction": _over(_sum(group, "cache_rewritten_tokens"), compactions),
                "USD per compaction": _over(_sum(group, "cache_damage_usd"), compactions),
                "never read again per task": _over(_sum(group, "cache_unread_write_tokens"), len(group)),
                "never read USD per task": _over(_sum(group, "cache_unread_write_usd"), len(group)),
            }
        )
    return pd.DataFrame(out)


def add_cache_damage(doc: Document, rows: Sequence[ResultRow], order: list[str]) -> None:
    """The experiment report's cache-damage table (in the Cost section), arms in ``order``."""
    table = damage_table(rows)
    if table.empty:
        return
    rank = {a: i for i, a in enumerate(dict.fromkeys([*order, *table["arm"]]))}
    table = table.assign(_r=table["arm"].map(rank)).sort_values(["_r", "threshold"], kind="stable").drop(columns="_r")
    doc.text(
        "Cache damage per compaction (simulated from the recorded requests, approximate tokens; USD at the agent model's "
        "cache-write price): the prefix of the call before that a compaction no longer shares, the tokens it writes to "
        "the cache again, and per task the writes no later call read. " + CAUSE
    )

    def fmt(v: Any, usd: bool = False) -> str:
        if v is None or v != v:  # None or NaN: unknown
            return "n/a"
        return f"{v:.4g}" if usd else f"{v:,.0f}" if v >= 10 else f"{v:.1f}"

    shown = table.assign(
        **{c: table[c].map(lambda v, u="USD" in c: fmt(v, u)) for c in table.columns if c not in ("arm", "threshold", "runs")}
    )
    doc.table(shown)
