"""The experiment report's token curves per arm: one panel per arm on the same case, so a looping arm squeezes no other.

The largest needle and the largest goal case at the first threshold, trial 0, each a block of small multiples: one
panel per arm in the spec's order (baseline first), the y axis shared within the block so sizes compare, each panel's
x axis its own run's agent calls (sliding-window compacting 98 times in a loop on the redo case once drew its stars
along the whole axis of one overlaid chart and pressed every other arm into its first five calls). Each panel is
titled with its arm, the arm's outcomes on that case at that threshold over its trials, its number of agent calls, and
the arm whose curve it repeats, if any. The markers, trigger lines and legend are `plots.draw_curve`'s. Past
`ARMS_PER_CHART` arms the chart continues in numbered files (`arm_token_curves-2.png` ...), which the report names.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg

from harness.report._document import Document
from harness.report.evals_report import outcome_text
from harness.report.plots import (
    DPI,
    LINE_COLORS,
    PAGE_WIDTH_IN,
    Chart,
    curve_points,
    draw_curve,
    legend_handles,
    save,
    served_over_http,
    source_label,
)
from harness.rows import CellRow, ExperimentMeta
from harness.runs.results import row_outcome
from harness.trace.frames import calls_frame
from harness.trace.schema import load_trace

ARMS_PER_CHART = 12  # 3 rows of 4 panels per case; more arms continue in arm_token_curves-2.png, -3 ...
COLUMNS = 4  # at most, so a panel stays about 270 px wide on report.html's 1200 px page
CURVE_LABEL = "tokens in request (approx.)"
# Geometry in inches: the suptitle's lines, a block's heading, a panel title's line, a panel's axes, below a panel its
# tick labels and x label, the left margin (the y label), the right margin, one legend row; the legend's columns (five
# of its longest entries fit the page) and the space between panels in a row.
SUPTITLE_LINE_IN, HEADING_IN, TITLE_LINE_IN, AXES_IN, XLABEL_IN = 0.2, 0.3, 0.15, 1.55, 0.42
LEFT_IN, RIGHT_IN, LEGEND_ROW_IN, LEGEND_COLUMNS, WSPACE = 0.8, 0.15, 0.2, 5, 0.08
TITLE_SIZE = 7.5


@dataclass(frozen=True)
class Panel:
    arm: str
    title: str  # wrapped to the panel's width
    calls: pd.DataFrame  # `calls_frame` of the arm's trial-0 trace


@dataclass(frozen=True)
class Block:
    heading: str  # the case, threshold and trial the block's panels share
    panels: list[Panel]
    ylim: tuple[float, float] | None = None  # the case's y range over every part (a block split over charts)


def case_blocks(path: Path, rows: Sequence[CellRow], meta: ExperimentMeta, arms: Sequence[str]) -> tuple[list[Block], list[str]]:
    """The blocks to draw (the largest needle and goal case at the first threshold, by trial 0's agent calls) and, for
    the report, one note per case on the arms with no trial-0 run of it (not drawn)."""
    first = meta["thresholds"][0]
    blocks, notes = [], []
    for kind in ("needle", "goal"):
        at = [r for r in rows if r["kind"] == kind and r.get("threshold") == first]
        zero = [r for r in at if r["trial"] == 0]
        if not zero:
            continue
        case = max(zero, key=lambda r: (r["calls"]["agent"], r["case_id"]))["case_id"]
        drawn = {str(r["arm"]): r for r in zero if r["case_id"] == case}
        order = [a for a in arms if a in drawn] + sorted(set(drawn) - set(arms))
        ran = {a for a in arms if any(r["arm"] == a for r in rows)}
        missing = [a for a in arms if a in ran and a not in drawn]
        if missing:
            notes.append(f"`{case}` has no trial-0 run at {first} under " + ", ".join(f"`{a}`" for a in missing) + " (no panel).")
        panels: list[Panel] = []
        seen: dict[tuple, str] = {}
        for arm in order:
            calls = calls_frame([load_trace(path / drawn[arm]["trace"])])
            outcomes = [row_outcome(r)[0] for r in at if r["case_id"] == case and str(r["arm"]) == arm]
            said = outcome_text(outcomes, [])
            if len(outcomes) > 1:
                said = f"trial 0 {row_outcome(drawn[arm])[0]} (trials: {said})"
            n = int((calls["role"] == "agent").sum()) if not calls.empty else 0
            line = f"{said} · {n} agent call{'s' if n != 1 else ''}"
            points = curve_points(calls) if n else None
            if points is not None and points in seen:
                line += f" · same curve as {seen[points]}"
            elif points is not None:
                seen[points] = arm
            panels.append(Panel(arm, _wrap_title(f"{arm}\n{line}", len(order)), calls))
        blocks.append(Block(f"{case} ({kind}) at {first}, trial 0", panels))
    return blocks, notes


def _wrap_title(text: str, arms: int) -> str:
    """``text`` wrapped to the width of one of ``arms`` panels (about 0.55 em per character)."""
    cols = grid(min(arms, ARMS_PER_CHART))[1]
    width = max(24, int((PAGE_WIDTH_IN - LEFT_IN - RIGHT_IN) / cols * 72 / (0.55 * TITLE_SIZE)) - 2)
    return "\n".join(textwrap.fill(line, width) for line in text.splitlines())


def grid(n: int) -> tuple[int, int]:
    """(rows, columns) for ``n`` panels: at most `COLUMNS` to a row, the rows as evenly filled as they can be (5 arms:
    3 + 2, 9 arms: 3 x 3, 10 arms: 4 + 4 + 2)."""
    rows = math.ceil(n / min(n, COLUMNS))
    return rows, math.ceil(n / rows)


def _y_range(panels: Sequence[Panel]) -> tuple[float, float] | None:
    """The y limits that show every panel's curve and trigger lines (5 % margins, as matplotlib's own), so the parts
    of a case split over several charts share one scale."""
    values = []
    for panel in panels:
        agent = panel.calls[panel.calls["role"] == "agent"] if not panel.calls.empty else panel.calls
        for column in ("approx_tokens", "tokens_before", "tokens_after", "trigger_tokens", "truncation_trigger_tokens"):
            if column in agent:
                values += [float(v) for v in pd.to_numeric(agent[column], errors="coerce").dropna()]
    if not values:
        return None
    low, high = min(values), max(values)
    pad = 0.05 * (high - low) or 1.0
    return low - pad, high + pad


def plot_arm_panels(blocks: Sequence[Block], title: str) -> Chart:
    """One figure: each block a heading over a grid of its panels (`grid`), the y axis shared within the block, the
    x axis each panel's own; one legend below for every block. Sized by fixed margins in inches (no layout engine),
    so the same blocks give the same PNG."""
    fig = Chart(figsize=(PAGE_WIDTH_IN, 1.0))  # its height once the legend's rows are known (`_place`)
    FigureCanvasAgg(fig)
    places = []  # (a block's heading and its top, its grid, the grid's top and bottom (inches below the figure's top), its axes)
    below = SUPTITLE_LINE_IN * (title.count("\n") + 1) + 0.15  # the top of the next block, inches below the figure's top
    drawn = []
    for block in blocks:
        rows, cols = grid(len(block.panels))
        titles = TITLE_LINE_IN * max(p.title.count("\n") + 1 for p in block.panels) + 0.06
        block_height = HEADING_IN + rows * (titles + AXES_IN + XLABEL_IN)
        heading = fig.text(LEFT_IN / PAGE_WIDTH_IN, 0, block.heading, fontsize=9, va="top", weight="bold")
        spec = fig.add_gridspec(
            rows,
            cols,
            left=LEFT_IN / PAGE_WIDTH_IN,
            right=1 - RIGHT_IN / PAGE_WIDTH_IN,
            hspace=(XLABEL_IN + titles) / AXES_IN,  # between rows: the x labels above, the titles below
            wspace=WSPACE,
        )
        axes = list(spec.subplots(sharey=True, squeeze=False).flat)
        places.append((heading, below + 0.08, spec, below + HEADING_IN + titles, below + block_height - XLABEL_IN, axes))
        for ax, panel in zip(axes, block.panels):
            if not draw_curve(ax, panel.calls, label=CURVE_LABEL, color=LINE_COLORS[0]):
                ax.text(0.5, 0.5, "no agent calls recorded", ha="center", va="center", fontsize=7, transform=ax.transAxes)
            ax.set_title(panel.title, fontsize=TITLE_SIZE)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.25)
        n = len(block.panels)
        for ax in axes[n:]:
            ax.set_visible(False)
        for ax in axes[:n:cols]:
            ax.set_ylabel("tokens in request", fontsize=8)
        for ax in axes[max(0, n - cols) : n]:
            ax.set_xlabel("agent call", fontsize=8)
        if block.ylim is not None:
            axes[0].set_ylim(block.ylim)  # shared: sets every panel of the block
        drawn += axes[:n]
        below += block_height
    handles = legend_handles(drawn)
    height = below + LEGEND_ROW_IN * math.ceil(len(handles) / LEGEND_COLUMNS) + 0.15
    fig.set_size_inches(PAGE_WIDTH_IN, height)
    for heading, heading_at, spec, top, bottom, axes in places:
        heading.set_y(1 - heading_at / height)
        spec.update(top=1 - top / height, bottom=1 - bottom / height)
        for i, ax in enumerate(axes):  # `update` moves the axes of pyplot's figures only
            ax.set_position(spec[divmod(i, spec.ncols)].get_position(fig))
    if handles:
        fig.legend(
            handles.values(),
            handles.keys(),
            loc="lower center",
            bbox_to_anchor=(0.5, 0.05 / height),
            ncols=min(len(handles), LEGEND_COLUMNS),
            fontsize=8,
            frameon=False,
        )
    fig.suptitle(title, fontsize=10, y=1 - 0.08 / height, va="top")
    return fig


def add_arm_curves_section(
    doc: Document, path: Path, rows: Sequence[CellRow], meta: ExperimentMeta, arms: Sequence[str]
) -> list[Path]:
    """Draw ``arm_token_curves.png`` (and, past `ARMS_PER_CHART` arms, ``arm_token_curves-2.png`` ...) into the
    experiment directory ``path`` and add them to ``doc`` with a sentence on what is drawn and where. Returns the files."""
    for stale in path.glob("arm_token_curves-*.png"):
        stale.unlink()
    blocks, notes = case_blocks(path, rows, meta, arms)
    if not blocks:
        (path / "arm_token_curves.png").unlink(missing_ok=True)
        return []
    order = list(dict.fromkeys(p.arm for b in blocks for p in b.panels))
    parts = [order[i : i + ARMS_PER_CHART] for i in range(0, len(order), ARMS_PER_CHART)]
    source = source_label(any(r.get("simulated") for r in rows), served_over_http(meta))
    files = []
    for k, part in enumerate(parts, 1):
        name = "arm_token_curves.png" if k == 1 else f"arm_token_curves-{k}.png"
        chunk = [
            Block(b.heading, [p for p in b.panels if p.arm in part], _y_range(b.panels) if len(parts) > 1 else None)
            for b in blocks
        ]
        title = "Token curves per arm (same case, same threshold)" + (f", part {k} of {len(parts)}" if len(parts) > 1 else "")
        fig = plot_arm_panels([b for b in chunk if b.panels], title + (f"\n{source}" if source else ""))
        files.append(save(fig, path / name, dpi=DPI))
    text = (
        "One panel per arm (the spec's order, baseline first) on the largest needle and goal case at the first threshold, "
        "trial 0: the y axis is shared within a case, so sizes compare; each panel's x axis spans its own run's agent "
        "calls, so an arm that loops for many calls squeezes no other. Each title gives the arm's outcomes on that case "
        "at that threshold over its trials and its number of agent calls. A summary shows as a drop from the size the "
        "request would have had to what was sent; the other compaction events have their own markers, named in the legend."
    )
    if len(parts) > 1:
        where = []
        for k, (part, f) in enumerate(zip(parts, files)):
            first, last = ARMS_PER_CHART * k + 1, ARMS_PER_CHART * k + len(part)
            span = f"arms {first}-{last}" if last > first else f"arm {first}"
            where.append(f"{span} ({', '.join(part)}) in `{f.name}`")
        text += f" {len(order)} arms, {ARMS_PER_CHART} to a chart: " + "; ".join(where) + "."
    doc.text(" ".join([text, *notes]))
    for k, f in enumerate(files, 1):
        doc.image(f, "token curves per arm" + (f", part {k} of {len(files)}" if len(files) > 1 else ""))
    return files
