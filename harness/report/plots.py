"""Charts: token curves (what the model saw at each agent call, compaction marked), needle heatmaps.

Each curve is the approximate size of the agent's request (system prompt, tool schemas
and messages) at every agent call. A summarization shows as a drop drawn from
tokens_before (the size the request would have had) to tokens_after (what was sent),
marked with a triangle (at the size sent where the size before is unknown); the other compaction events get their own
markers; the dashed line is the summarization trigger, a dotted gold one the argument-truncation trigger where it differs. A summary
that left the request no smaller gets a hollow red triangle at its size after, and each compaction of a loop a black
star (the loops eval's readings, `harness.trace.loops`).

Figures are made without pyplot (`Chart`, a matplotlib Figure with an Agg canvas): no global state, no GUI
backend, so headless runs need no DISPLAY and writing a report leaves no figure open. In IPython a returned
chart shows as one PNG. Lines take cool colours and event markers warm ones (and black), so a marker never
wears the colour of a line; overlaid lines differ in colour, line style and width, so identical curves stay
visible, and the legend says which are identical. Charts are drawn at most as wide as report.html's page,
so their text shows at its size there.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

DPI = 110
PAGE_WIDTH_IN = 1200 / DPI  # report.html's page is 1200 px wide (_document.py): a chart this wide shows 1:1
# The panel grid's geometry in inches (`_panels_figure`): one panel row's height (its title and gap included), the
# margins: a line of the suptitle and the gap under it to the first panel title, the y label, the x label, and one
# row of the legend below.
PANEL_HEIGHT_IN, PANEL_GAP_IN = 2.1, 0.62
LEGEND_COLUMNS = 7
PANEL_TITLE_LINE_IN, PANEL_TITLE_IN, PANEL_LEFT_IN, PANEL_RIGHT_IN, PANEL_XLABEL_IN, PANEL_LEGEND_ROW_IN = (
    0.19,
    0.42,
    0.75,
    0.12,
    0.5,
    0.22,
)

# Event markers: a shape each, a black edge, and warm colours (or black) that no line uses.
MARKERS = {
    "summary": ("v", "#d62728"),  # red
    "mask": ("o", "#ff7f0e"),  # orange
    "trim": ("<", "#8c564b"),  # brown
    "evict": ("s", "#e377c2"),  # pink
    "truncate-args": ("D", "#e6ab02"),  # gold
    "overflow-recovery": ("X", "black"),
}
TRIGGER_COLOR, CLIP_TRIGGER_COLOR = MARKERS["summary"][1], MARKERS["truncate-args"][1]
TRIGGER, CLIP_TRIGGER, NEW_TURN, PROVIDER, NOT_SHRINKING, LOOP = (
    "summarization trigger",
    "argument-truncation trigger",
    "new user turn",
    "provider-reported input tokens",
    "summary that did not shrink the request",
    "compaction loop (in a row, no progress)",
)
CURVE = "token-curve"  # the gid of a curve's line (tests and callers find the curves among the other lines)
KEYS_OF_THE_CHART = (TRIGGER, CLIP_TRIGGER, NEW_TURN, PROVIDER, NOT_SHRINKING, LOOP)  # legend entries that are not curves
# Lines: cool colours; past six, evenly spaced on viridis up to its green (never its yellow).
LINE_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#7f7f7f", "#393b79")
LINE_CMAP, LINE_CMAP_END = "viridis", 0.78
# Solid, dashed, dotted, dash-dot-dot (the provider's line is dash-dot with dots, a style no curve takes).
LINE_STYLES: tuple[Any, ...] = ("-", (0, (5, 2)), (0, (1, 1.5)), (0, (7, 2, 1, 2, 1, 2)))
MAX_LEGEND_LINES = 40  # more overlaid lines than this are not named one by one (the title says so)
CURVE_KEYS = ("run_id", "arm", "case_id", "trial", "eval")  # one curve: one trace (a case runs under each eval of a run)
TOKEN_MODES = ("approx", "provider", "both")
_NOUNS = {"case_id": "case", "arm": "arm", "trial": "trial", "panel": "case", "kind": "kind"}


class Chart(Figure):
    """A matplotlib Figure made without pyplot. In IPython it shows as one PNG: through the inline backend's
    formatter when one is active, else through ``_repr_png_`` (no backend needed)."""

    grid_shape: tuple[int, int] = (0, 0)  # a panel grid's (panel rows, legend rows), for `_fix_grid_geometry`

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()


def subplots(
    nrows: int = 1,
    ncols: int = 1,
    *,
    figsize: tuple[float, float],
    layout: Literal["constrained", "compressed", "tight"] | None = None,
    **kwargs: Any,
):
    """``pyplot.subplots`` without pyplot: a `Chart` on an Agg canvas and its axes."""
    fig = Chart(figsize=figsize, layout=layout)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def served_over_http(meta: Mapping[str, Any]) -> bool:
    """The run's or grid's models were called at a base URL (``harness serve``, vLLM ...): meta.json's endpoints."""
    return any((e or {}).get("endpoint") for e in (meta.get("endpoints") or {}).values())


def source_label(simulated: bool | None, served: bool = False) -> str:
    """What produced a chart's data, for its heading ('' for live models at their providers' own endpoints)."""
    if simulated:
        return "simulated: reference models served over HTTP" if served else "simulated: offline reference models"
    return "live models served over HTTP" if served else ""


def line_style(i: int, n: int) -> tuple[Any, Any, float]:
    """(colour, line style, width) of the ``i``-th of ``n`` overlaid lines: no two alike, earlier lines wider, so a
    later identical line leaves the earlier one showing at its edges."""
    if n <= len(LINE_COLORS):
        color: Any = LINE_COLORS[i]
    else:
        color = matplotlib.colormaps[LINE_CMAP](LINE_CMAP_END * i / (n - 1))
    width = 1.4 if n == 1 else 2.2 - 1.0 * i / (n - 1)
    return color, LINE_STYLES[i % len(LINE_STYLES)] if n > 1 else "-", width


def curve_points(frame: pd.DataFrame) -> tuple[tuple, tuple]:
    """The (x, y) points of one curve: agent step and tokens sent, a summary drawn as a drop from before to after."""
    xs: list = []
    ys: list = []
    for row in _agent_calls(frame).itertuples():
        if isinstance(row.event, str) and "summary" in row.event and pd.notna(row.tokens_before):  # type: ignore[arg-type]
            xs += [row.agent_step, row.agent_step]
            ys += [row.tokens_before, row.tokens_after]
        else:
            xs.append(row.agent_step)
            ys.append(row.approx_tokens)
    return tuple(xs), tuple(ys)


def _agent_calls(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["role"] == "agent"].sort_values("call_index")


def split_curves(frame: pd.DataFrame) -> list[tuple[dict, pd.DataFrame]]:
    """The curves in ``frame``, one per trace ({run_id, arm, case_id, trial}, its calls), in sorted order."""
    keys = [k for k in CURVE_KEYS if k in frame]
    if frame.empty:
        return []
    return [
        (dict(zip(keys, key if isinstance(key, tuple) else (key,))), part)
        for key, part in frame.groupby(keys, sort=True, dropna=False)
    ]


def draw_curve(
    ax,  # noqa: ANN001
    frame: pd.DataFrame,
    *,
    label: str | None = None,
    color=None,  # noqa: ANN001
    linestyle: Any = "-",
    linewidth: float = 1.4,
    show_trigger: bool = True,
    show_provider: bool = False,
    show_turns: bool = True,
) -> bool:
    """Draw one run's curve (agent calls of one case) on ``ax``: deepagents' approximate count (what its trigger
    compares), and with ``show_provider`` the provider-reported input tokens of the same calls beside it. Returns
    whether there was anything to draw."""
    agent = _agent_calls(frame)
    if agent.empty:
        return False
    color = color if color is not None else LINE_COLORS[0]
    xs, ys = curve_points(frame)
    ax.plot(xs, ys, lw=linewidth, ls=linestyle, color=color, label=label, gid=CURVE)
    for kind, (marker, mcolor) in MARKERS.items():
        hits = agent[agent["event"].fillna("").str.contains(kind, regex=False)]
        if hits.empty:
            continue
        y = hits["approx_tokens"]
        if kind == "summary":  # at the size before it; where that is unknown (`Recorder`), at the size sent
            y = pd.to_numeric(hits["tokens_before"], errors="coerce").fillna(y)
        ax.scatter(
            hits["agent_step"], y, marker=marker, s=34, color=mcolor, edgecolors="black", linewidths=0.5, zorder=3, label=kind
        )
    _mark_loops(ax, agent)
    if show_turns:
        for step in agent.groupby("turn")["agent_step"].min().iloc[1:]:
            ax.axvline(step - 0.5, color="grey", lw=0.8, ls=":", label=NEW_TURN)
    provider = agent.dropna(subset=["provider_input_tokens"]) if "provider_input_tokens" in agent else agent.iloc[0:0]
    if show_provider and not provider.empty:
        ax.plot(
            provider["agent_step"],
            provider["provider_input_tokens"],
            lw=1.0,
            ls="-.",
            marker=".",
            ms=3,
            color=color,
            alpha=0.75,
            label=PROVIDER,
        )
    trigger = agent["trigger_tokens"].dropna()
    if show_trigger and not trigger.empty:
        ax.axhline(float(trigger.iloc[0]), color=TRIGGER_COLOR, lw=0.8, ls="--", alpha=0.6, label=TRIGGER)
    clip = agent["truncation_trigger_tokens"].dropna() if "truncation_trigger_tokens" in agent else pd.Series(dtype=float)
    if show_trigger and not clip.empty and (trigger.empty or float(clip.iloc[0]) != float(trigger.iloc[0])):
        ax.axhline(float(clip.iloc[0]), color=CLIP_TRIGGER_COLOR, lw=0.9, ls=":", alpha=0.9, label=CLIP_TRIGGER)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return True


def _mark_loops(ax, agent: pd.DataFrame) -> None:  # noqa: ANN001
    """A hollow red triangle on a summary whose request was no smaller after it, a black star on each compaction of a
    loop (the loops eval's readings, `harness.trace.loops`)."""
    known = agent.dropna(subset=["tokens_before", "tokens_after"])
    grew = known[known["tokens_after"] >= known["tokens_before"]]
    if not grew.empty:
        ax.scatter(
            grew["agent_step"], grew["tokens_after"], marker="^", s=70, facecolors="none", edgecolors=TRIGGER_COLOR,
            linewidths=1.4, zorder=4, label=NOT_SHRINKING,
        )  # fmt: skip
    looped = agent[agent["loop"].fillna(False).astype(bool)] if "loop" in agent else agent.iloc[0:0]
    if not looped.empty:
        ax.scatter(looped["agent_step"], looped["approx_tokens"], marker="*", s=90, color="black", zorder=4, label=LOOP)


def overlay_curves(
    ax,  # noqa: ANN001
    groups: Sequence[tuple[str, pd.DataFrame]],
    *,
    show_provider: bool = False,
    legend: bool = True,
) -> list[str]:
    """Every group of ``groups`` (label, calls) on one axes, each its own colour, line style and width (a group's
    several traces, e.g. trials, share them). A group whose curves are identical to an earlier group's is labelled
    "(same curve as ...)". With ``legend``, one entry per label beside the axes. Returns the labels as drawn."""
    signatures: dict[tuple, str] = {}
    shown = []
    several = sum(len(split_curves(frame)) for _, frame in groups) > 1
    for i, (label, frame) in enumerate(groups):
        color, style, width = line_style(i, len(groups))
        curves = split_curves(frame)
        signature = tuple(curve_points(part) for _, part in curves)
        first = signatures.setdefault(signature, label)
        text = label if first == label or not curves else f"{label} (same curve as {first})"
        shown.append(text)
        for j, (_, part) in enumerate(curves):
            draw_curve(
                ax,
                part,
                label=text if j == 0 else None,
                color=color,
                linestyle=style,
                linewidth=width,
                show_provider=show_provider,
                show_turns=not several,
            )
    if legend:
        outside_legend(ax, legend_handles([ax]))
    return shown


def outside_legend(ax, handles: Mapping[str, Any], ncols: int = 1) -> None:  # noqa: ANN001
    """The legend beside ``ax``, on the right, where it covers no line."""
    ax.legend(
        list(handles.values()),
        list(handles),
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=7,
        frameon=False,
        ncols=ncols,
    )


def plot_token_curves(
    frame: pd.DataFrame,
    *,
    by: str = "case_id",
    overlay: bool = False,
    title: str | None = None,
    simulated: bool | None = None,
    served: bool = False,
    tokens: str = "approx",
    columns: int = 4,
) -> Chart:
    """Tokens over agent calls for every group of ``by`` in ``frame`` (a `calls_frame`); nothing is left out.

    ``overlay=True`` draws every group on one axis (compare configs or cases), each in its own colour and line
    style, the legend beside the axes; otherwise one panel per group, ``columns`` to a row, the figure growing
    with the groups, and the runs of a group that differ in arm, trial, eval or run overlaid in its panel (one colour
    and style per trial, the same in every panel). The heading gives the number of groups and runs drawn and,
    with ``simulated`` / ``served``, where the models ran. ``tokens``: ``approx`` (deepagents' count, what the
    trigger compares), ``both`` (plus the provider's reported usage where there is some) or ``provider`` (the same
    two lines: the approximation is kept, since the summaries' before and after are only known in it).
    """
    if tokens not in TOKEN_MODES:
        raise ValueError(f"tokens={tokens!r}: choose one of {', '.join(TOKEN_MODES)}")
    provider = tokens in ("provider", "both")
    groups = [(str(name), part) for name, part in frame.groupby(by, sort=True, dropna=False)] if not frame.empty else []
    heading = title or "Tokens sent to the model at each agent call"
    source = source_label(simulated, served)
    if not groups:
        fig, ax = subplots(figsize=(6, 3), layout="constrained")
        ax.text(0.5, 0.5, "no calls recorded", ha="center", va="center")
        ax.set_axis_off()
        fig.suptitle(heading + (f" ({source})" if source else ""), fontsize=10)
        return fig
    runs = len(split_curves(frame))
    noun = _NOUNS.get(by, by)
    count = f"{len(groups)} {noun}{'s' if len(groups) != 1 else ''}, {runs} run{'s' if runs != 1 else ''}, all drawn"
    if overlay:
        fig = _overlay_figure(groups, provider, count)
    else:
        fig = _panels_figure(frame, groups, by, provider, columns)
    suptitle = _wrap(f"{heading}\n{count}{'; ' + source if source else ''}", fig, 10)
    if overlay:
        fig.suptitle(suptitle, fontsize=10)
    else:  # the grid's top margin holds the title's lines
        _fix_grid_geometry(fig, title_lines=suptitle.count("\n") + 1)
        fig.suptitle(suptitle, fontsize=10, y=1 - 0.08 / fig.get_figheight(), va="top")
    return fig


def _overlay_figure(groups: list[tuple[str, pd.DataFrame]], provider: bool, count: str) -> Chart:
    named = len(groups) <= MAX_LEGEND_LINES
    entries = (len(groups) if named else 0) + len(MARKERS) + 1
    ncols = max(1, math.ceil(entries / 26))
    fig, ax = subplots(figsize=(PAGE_WIDTH_IN, max(4.5, 0.16 * math.ceil(entries / ncols) + 1.4)), layout="constrained")
    overlay_curves(ax, groups, show_provider=provider, legend=False)
    ax.set_xlabel("agent call")
    ax.set_ylabel("tokens in request (approx.)")
    ax.grid(alpha=0.3)
    handles = legend_handles([ax])
    if not named:
        handles = {k: h for k, h in handles.items() if k in MARKERS or k in KEYS_OF_THE_CHART}
        ax.set_title(f"{len(groups)} lines, too many to name: draw one panel per group to tell them apart", fontsize=8)
    outside_legend(ax, handles, ncols)
    return fig


def _panels_figure(frame: pd.DataFrame, groups: list[tuple[str, pd.DataFrame]], by: str, provider: bool, columns: int) -> Chart:
    inner = [
        k for k in CURVE_KEYS if k in frame and k != by and (frame.groupby(by, dropna=False)[k].nunique(dropna=False) > 1).any()
    ]
    labels = sorted({_curve_label(key, inner) for _, part in groups for key, _ in split_curves(part)})
    cols = max(1, min(columns, len(groups)))
    rows = math.ceil(len(groups) / cols)
    fig, grid = subplots(rows, cols, figsize=(PAGE_WIDTH_IN, PANEL_HEIGHT_IN * rows), squeeze=False, sharey=True)
    axes = list(grid.flat)
    for ax, (name, part) in zip(axes, groups):
        curves = split_curves(part)
        drawn = []
        for j, (key, sub) in enumerate(curves):
            label = _curve_label(key, inner)
            color, style, width = line_style(labels.index(label), len(labels))
            if draw_curve(
                ax,
                sub,
                label=label or None,
                color=color,
                linestyle=style,
                linewidth=width,
                show_provider=provider,
                show_turns=j == 0,
            ):
                drawn.append(curve_points(sub))
        if not drawn:
            ax.text(0.5, 0.5, "no agent calls recorded", ha="center", va="center", fontsize=7, transform=ax.transAxes)
        distinct = len(set(drawn))
        same = (
            f" ({len(drawn)} runs, {'identical' if distinct == 1 else f'{distinct} distinct'})" if distinct < len(drawn) else ""
        )
        ax.set_title(name + same, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.25)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes[len(groups) :]:
        ax.set_visible(False)
    for ax in grid[:, 0]:
        ax.set_ylabel("tokens in request", fontsize=8)
    for ax in axes[max(0, len(groups) - cols) : len(groups)]:
        ax.set_xlabel("agent call", fontsize=8)
    handles = legend_handles(axes)
    fig.grid_shape = (rows, math.ceil(len(handles) / LEGEND_COLUMNS))
    if handles:
        fig.legend(
            handles.values(),
            handles.keys(),
            loc="lower center",
            bbox_to_anchor=(0.5, 0),
            ncols=min(len(handles), LEGEND_COLUMNS),
            fontsize=8,
            frameon=False,
        )
    return fig


def _fix_grid_geometry(fig: Chart, title_lines: int) -> None:
    """Size and place a panel grid (`_panels_figure`) by fixed margins in inches: ``title_lines`` of suptitle above;
    the x labels and the legend's rows below. Not the constrained layout engine: it measured every tick label of
    every panel to find the same margins, a third of the chart's time with 20 panels (docs/performance.md, "Where the
    time goes")."""
    rows, legend_rows = fig.grid_shape
    top = PANEL_TITLE_LINE_IN * title_lines + PANEL_TITLE_IN
    bottom = PANEL_XLABEL_IN + PANEL_LEGEND_ROW_IN * legend_rows
    height = PANEL_HEIGHT_IN * rows + top + bottom
    fig.set_size_inches(PAGE_WIDTH_IN, height)
    fig.subplots_adjust(
        left=PANEL_LEFT_IN / PAGE_WIDTH_IN,
        right=1 - PANEL_RIGHT_IN / PAGE_WIDTH_IN,
        top=1 - top / height,
        bottom=bottom / height,
        hspace=PANEL_GAP_IN / (PANEL_HEIGHT_IN - PANEL_GAP_IN),
        wspace=0.06,
    )


def _curve_label(key: dict, inner: list[str]) -> str:
    return ", ".join(f"{k.removesuffix('_id')} {key.get(k)}" for k in inner)


def _wrap(text: str, fig: Figure, fontsize: float) -> str:
    """``text`` wrapped to the figure's width (about 0.55 em per character)."""
    width = max(20, int(fig.get_figwidth() * 72 / (0.55 * fontsize)))
    return "\n".join(textwrap.fill(line, width) for line in text.splitlines())


def legend_handles(axes) -> dict:  # noqa: ANN001
    """One legend entry per label across ``axes`` (every curve repeats the event markers): the lines first, then
    the events in `MARKERS` order."""
    handles: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    events = [k for k in [*MARKERS, *KEYS_OF_THE_CHART] if k in handles]
    return {**{k: h for k, h in handles.items() if k not in events}, **{k: handles[k] for k in events}}


def save(fig: Figure, path: str | Path, dpi: int = DPI) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    if getattr(fig.canvas, "manager", None) is not None:  # a figure made with pyplot: release it
        import matplotlib.pyplot as plt

        plt.close(fig)
    return path


def plot_needle_grid(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    panel: str | None = None,
    value: str = "needle_recovered",
    x_label: str = "needle depth",
    y_label: str = "",
    title: str = "",
    simulated: bool = False,
    served: bool = False,
    y_format=None,  # noqa: ANN001
) -> Chart:
    """Kamradt-style heatmap of ``value`` over ``x`` by ``y``, one panel per ``panel`` value.

    ``frame`` has one row per case run with ``x``, ``y``, ``value`` and ``valid`` (the run
    tested what it claims). Colour and the "k/n" label count valid runs only. A square
    whose runs were all invalid is grey and hatched with "INVALID m"; a square with some
    invalid runs says "+m inv." under its k/n. Nothing invalid is ever drawn as a success.
    Panels wrap into rows that fit report.html's page width, so the squares' labels stay legible there.
    """
    import numpy as np
    from matplotlib.patches import Rectangle

    panels = list(dict.fromkeys(frame[panel])) if panel else [None]
    xs = sorted(frame[x].dropna().unique())
    ys = sorted(frame[y].dropna().unique())
    panel_w, panel_h = max(2.6, 0.6 + 0.5 * len(xs)), max(2.2, 0.9 + 0.34 * len(ys))
    cols = max(1, min(len(panels), int((PAGE_WIDTH_IN - 0.9) // panel_w)))
    rows = math.ceil(len(panels) / cols)
    fig, axes = subplots(
        rows,
        cols,
        figsize=(min(PAGE_WIDTH_IN, max(4.2, cols * panel_w + 0.9)), rows * panel_h + 1.0),
        squeeze=False,
        layout="constrained",
    )
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="white")
    flat = list(axes.flat)
    image = None
    for ax, name in zip(flat, panels):
        sub = frame if name is None else frame[frame[panel] == name]
        grid = np.full((len(ys), len(xs)), np.nan)
        marks = []
        for i, yv in enumerate(ys):
            for j, xv in enumerate(xs):
                cell = sub[(sub[y] == yv) & (sub[x] == xv)]
                if cell.empty:
                    continue
                valid = cell[cell["valid"].astype(bool)][value].dropna()
                invalid = int((~cell["valid"].astype(bool)).sum())
                if len(valid):
                    grid[i, j] = valid.astype(float).mean()
                    text = f"{int(valid.astype(bool).sum())}/{len(valid)}" + (f"\n+{invalid} inv." if invalid else "")
                    marks.append((j, i, text, False))
                elif invalid:
                    marks.append((j, i, f"INVALID\n{invalid}", True))
        image = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=1, cmap=cmap, origin="lower", aspect="auto")
        for j, i, text, hatched in marks:
            if hatched:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85", edgecolor="0.45", hatch="///", lw=0))
            box = {"facecolor": "white", "alpha": 0.8, "lw": 0, "pad": 1.5} if hatched else None
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="0.2" if hatched else "black", bbox=box)
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([f"{v:g}" for v in xs], fontsize=7)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels([y_format(v) if y_format else f"{v:g}" for v in ys], fontsize=7)
        ax.set_xlabel(x_label, fontsize=8)
        if name is not None:
            ax.set_title(str(name), fontsize=9)
    for ax in flat[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(y_label, fontsize=8)
    bar = fig.colorbar(image, ax=flat[: len(panels)], fraction=0.04, pad=0.02)
    bar.set_label("share recovered (valid runs)", fontsize=7)
    bar.ax.tick_params(labelsize=7)
    source = source_label(simulated, served)
    heading = title or f"{value.replace('_', ' ')} (valid runs only; hatched: only invalid runs; white: no runs)"
    fig.suptitle(_wrap(heading, fig, 9) + (f"\n{source.replace('simulated', 'SIMULATED', 1)}" if source else ""), fontsize=9)
    return fig
