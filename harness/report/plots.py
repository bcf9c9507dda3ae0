"""Token-over-turn charts: what the model saw at each agent call, compaction marked.

Each curve is the approximate size of the agent's request (system prompt, tool schemas
and messages) at every agent call. A summarization shows as a drop drawn from
tokens_before (the size the request would have had) to tokens_after (what was sent),
marked with a triangle; evictions and argument truncations get their own markers; the
dashed line is the summarization trigger, a dotted orange one the argument-truncation
trigger where it differs.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

MARKERS = {
    "summary": ("v", "tab:red"),
    "mask": ("o", "tab:green"),
    "trim": ("<", "tab:brown"),
    "evict": ("s", "tab:purple"),
    "truncate-args": ("D", "tab:orange"),
    "overflow-recovery": ("X", "black"),
}


TOKEN_MODES = ("approx", "provider", "both")


def draw_curve(
    ax,
    frame: pd.DataFrame,
    *,
    label: str | None = None,
    color=None,
    show_trigger: bool = True,  # noqa: ANN001
    show_provider: bool = False,
) -> None:
    """Draw one run's curve (agent calls of one case) on ``ax``: deepagents' approximate count (what its trigger
    compares), and with ``show_provider`` the provider-reported input tokens of the same calls beside it."""
    agent = frame[frame["role"] == "agent"].sort_values("call_index")
    if agent.empty:
        return
    xs, ys = [], []
    for row in agent.itertuples():
        if isinstance(row.event, str) and "summary" in row.event and pd.notna(row.tokens_before):  # type: ignore[arg-type]
            xs += [row.agent_step, row.agent_step]
            ys += [row.tokens_before, row.tokens_after]
        else:
            xs.append(row.agent_step)
            ys.append(row.approx_tokens)
    (line,) = ax.plot(xs, ys, lw=1.4, color=color, label=label)
    for kind, (marker, mcolor) in MARKERS.items():
        hits = agent[agent["event"].fillna("").str.contains(kind)]
        if hits.empty:
            continue
        y = hits["tokens_before"] if kind == "summary" else hits["approx_tokens"]
        ax.scatter(hits["agent_step"], y, marker=marker, s=36, color=mcolor, zorder=3, label=kind.replace("_", " "))
    turns = agent.groupby("turn")["agent_step"].min()
    for step in turns.iloc[1:]:
        ax.axvline(step - 0.5, color="grey", lw=0.8, ls=":")
    provider = agent.dropna(subset=["provider_input_tokens"]) if "provider_input_tokens" in agent else agent.iloc[0:0]
    if show_provider and not provider.empty:
        ax.plot(
            provider["agent_step"],
            provider["provider_input_tokens"],
            lw=1.0,
            ls="-.",
            marker=".",
            ms=3,
            color=line.get_color(),
            alpha=0.75,
            label="provider-reported input tokens",
        )
    trigger = agent["trigger_tokens"].dropna()
    if show_trigger and not trigger.empty:
        ax.axhline(float(trigger.iloc[0]), color=line.get_color() if color else "tab:red", lw=0.8, ls="--", alpha=0.7)
    clip = agent["truncation_trigger_tokens"].dropna() if "truncation_trigger_tokens" in agent else pd.Series(dtype=float)
    if show_trigger and not clip.empty and (trigger.empty or float(clip.iloc[0]) != float(trigger.iloc[0])):
        ax.axhline(float(clip.iloc[0]), color=line.get_color() if color else "tab:orange", lw=0.8, ls=":", alpha=0.8)


def plot_token_curves(
    frame: pd.DataFrame,
    *,
    by: str = "case_id",
    overlay: bool = False,
    max_panels: int = 30,
    title: str | None = None,
    simulated: bool | None = None,
    tokens: str = "approx",
):
    """Tokens over agent calls for every group in ``frame`` (a `calls_frame`).

    ``overlay=True`` draws all groups on one axis (compare configs or trials);
    otherwise one small panel per group. ``tokens``: ``approx`` (deepagents' count, what the
    trigger compares), ``both`` (plus the provider's reported usage where there is some) or
    ``provider`` (the same two lines: the approximation is kept, since the summaries' before
    and after are only known in it). Returns the matplotlib Figure.
    """
    if tokens not in TOKEN_MODES:
        raise ValueError(f"tokens={tokens!r}: choose one of {', '.join(TOKEN_MODES)}")
    provider = tokens in ("provider", "both")
    groups = list(frame.groupby(by, sort=True))[:max_panels]
    if not groups:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.text(0.5, 0.5, "no calls recorded", ha="center", va="center")
        return fig
    if overlay:
        fig, ax = plt.subplots(figsize=(10, 5))
        for name, grp in groups:
            draw_curve(ax, grp, label=str(name), color=None, show_provider=provider)
        dedupe_legend(ax)
        _label(ax)
        axes = [ax]
    else:
        cols = min(5, len(groups))
        rows = math.ceil(len(groups) / cols)
        fig, grid = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.5 * rows), squeeze=False, sharey=True)
        axes = list(grid.flat)
        for ax, (name, grp) in zip(axes, groups):
            draw_curve(ax, grp, show_provider=provider)
            ax.set_title(str(name), fontsize=8)
            ax.tick_params(labelsize=7)
        for ax in axes[len(groups) :]:
            ax.set_visible(False)
        for ax in grid[:, 0]:
            ax.set_ylabel("tokens in request", fontsize=8)
        for ax in grid[-1, :]:
            ax.set_xlabel("agent call", fontsize=8)
        handles = legend_handles(axes)
        if handles:
            fig.legend(handles.values(), handles.keys(), loc="upper right", fontsize=8, frameon=False)
    heading = title or "Tokens sent to the model at each agent call"
    if simulated:
        heading += " (simulated: offline reference models)"
    fig.suptitle(heading, fontsize=11)
    fig.tight_layout()
    return fig


def _label(ax) -> None:  # noqa: ANN001
    ax.set_xlabel("agent call")
    ax.set_ylabel("tokens in request (approx.)")
    ax.grid(alpha=0.3)


def legend_handles(axes) -> dict:  # noqa: ANN001
    """One legend entry per label across ``axes`` (every curve repeats the event markers)."""
    handles: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    return handles


def dedupe_legend(ax, fontsize: int = 8) -> None:  # noqa: ANN001
    handles = legend_handles([ax])
    ax.legend(handles.values(), handles.keys(), fontsize=fontsize, frameon=False)


def save(fig, path: str | Path, dpi: int = 110) -> Path:  # noqa: ANN001
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
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
    y_format=None,
):  # noqa: ANN001
    """Kamradt-style heatmap of ``value`` over ``x`` by ``y``, one panel per ``panel`` value.

    ``frame`` has one row per case run with ``x``, ``y``, ``value`` and ``valid`` (the run
    tested what it claims). Colour and the "k/n" label count valid runs only. A square
    whose runs were all invalid is grey and hatched with "INVALID m"; a square with some
    invalid runs says "+m inv." under its k/n. Nothing invalid is ever drawn as a success.
    """
    import numpy as np
    from matplotlib.patches import Rectangle

    panels = list(dict.fromkeys(frame[panel])) if panel else [None]
    xs = sorted(frame[x].dropna().unique())
    ys = sorted(frame[y].dropna().unique())
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(max(4.2, 0.8 * len(xs) + 2.2) * len(panels), max(3.2, 0.55 * len(ys) + 2.0)),
        squeeze=False,
        layout="constrained",
    )
    cmap = plt.get_cmap("RdYlGn").with_extremes(bad="white")
    for ax, name in zip(axes[0], panels):
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
    axes[0][0].set_ylabel(y_label, fontsize=8)
    bar = fig.colorbar(image, ax=list(axes[0]), fraction=0.04, pad=0.02)
    bar.set_label("share recovered (valid runs)", fontsize=7)
    bar.ax.tick_params(labelsize=7)
    suffix = "\nSIMULATED: offline reference models" if simulated else ""
    fig.suptitle(
        (title or f"{value.replace('_', ' ')} (valid runs only; hatched: only invalid runs; white: no runs)") + suffix, fontsize=9
    )
    return fig
