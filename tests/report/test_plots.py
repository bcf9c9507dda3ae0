"""Charts draw everything they claim, say what they drew, and keep lines, events and sources apart.

Found in issue 16: token_curves.png drew 30 of 38 cases and said nothing of the 8 left out (the longest haystacks);
the overlaid chart repeated a 10-colour cycle; event markers wore the arm lines' colours; arms with identical curves
hid one another; call axes had ticks at 2.5; a run served over HTTP was labelled "offline".
"""

from __future__ import annotations

import json
from dataclasses import replace

import matplotlib.colors as mcolors
import pandas as pd
import pytest
from matplotlib.ticker import MaxNLocator

from harness.report import plots
from harness.report.plots import MARKERS, plot_needle_grid, plot_token_curves
from harness.report.run_report import write_run_report
from harness.runs.run import RunSink
from harness.scoring.scorers import score_case
from harness.trace.frames import calls_frame

pytestmark = pytest.mark.slow


def _cases(trace, n: int) -> pd.DataFrame:
    """``n`` cases with ``trace``'s calls, named c00, c01 ..."""
    one = calls_frame([trace])
    return pd.concat([one.assign(case_id=f"c{i:02d}") for i in range(n)], ignore_index=True)


def _curves(ax) -> list:  # noqa: ANN001
    return [line for line in ax.lines if line.get_gid() == plots.CURVE]


def test_one_panel_per_case_for_every_case_and_the_heading_says_how_many(needle_trace):
    fig = plot_token_curves(_cases(needle_trace, 38), simulated=True)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == [f"c{i:02d}" for i in range(38)]  # 30 before: 8 dropped silently
    assert all(len(_curves(ax)) == 1 for ax in panels)
    assert "38 cases, 38 runs, all drawn" in fig._suptitle.get_text().replace(chr(10), " ")


def test_the_overlaid_chart_draws_every_case_in_distinct_styles_with_a_legend_that_names_them(needle_trace):
    fig = plot_token_curves(_cases(needle_trace, 38), overlay=True)
    (ax,) = fig.axes
    lines = _curves(ax)
    assert len(lines) == 38 and "38 cases, 38 runs, all drawn" in fig._suptitle.get_text().replace(chr(10), " ")
    styles = {(mcolors.to_hex(line.get_color()), str(line.get_linestyle())) for line in lines}
    assert len(styles) == 38  # no silent repeat of a 10-colour cycle
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:2] == ["c00", "c01 (same curve as c00)"] and len([t for t in legend if t.startswith("c")]) == 38
    assert ax.get_legend().get_bbox_to_anchor().x0 >= ax.get_window_extent().x1  # beside the axes, not over the lines


def test_too_many_overlaid_lines_are_not_named_and_the_chart_says_so(needle_trace):
    fig = plot_token_curves(_cases(needle_trace, plots.MAX_LEGEND_LINES + 1), overlay=True)
    (ax,) = fig.axes
    assert len(_curves(ax)) == plots.MAX_LEGEND_LINES + 1
    assert "too many to name" in ax.get_title() and "summary" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_agent_call_axes_have_integer_ticks(needle_trace, goal_trace):
    calls = calls_frame([needle_trace, goal_trace])
    short = calls[calls["agent_step"] <= 3]  # three calls: matplotlib's default ticks would be 1.0, 1.5, 2.0 ...
    for fig in (plot_token_curves(calls), plot_token_curves(short), plot_token_curves(short, overlay=True)):
        fig.canvas.draw()
        for ax in fig.axes:
            assert isinstance(ax.xaxis.get_major_locator(), MaxNLocator)
            ticks = ax.get_xticks()
            assert len(ticks) and all(float(t).is_integer() for t in ticks), ticks


def test_event_markers_never_wear_a_line_colour(needle_trace, goal_trace):
    frame = pd.concat([calls_frame([needle_trace]).assign(arm=f"arm{i}") for i in range(8)] + [calls_frame([goal_trace])])
    fig = plot_token_curves(frame, by="arm", overlay=True)
    (ax,) = fig.axes
    line_colours = {mcolors.to_hex(line.get_color()) for line in _curves(ax)}
    marker_colours = {mcolors.to_hex(c) for coll in ax.collections for c in coll.get_facecolors()}
    assert marker_colours and len(line_colours) == 9
    assert not marker_colours & line_colours
    # and by construction, for any number of lines
    events = {mcolors.to_hex(colour) for _, colour in MARKERS.values()}
    for n in (1, 3, 6, 7, 20, 60):
        assert not events & {mcolors.to_hex(plots.line_style(i, n)[0]) for i in range(n)}


def test_arms_with_identical_curves_stay_distinguishable_and_are_named_identical(needle_trace):
    frame = pd.concat([calls_frame([needle_trace]).assign(arm=arm) for arm in ("base", "copy")])
    (ax,) = plot_token_curves(frame, by="arm", overlay=True).axes
    base, copy = _curves(ax)
    assert list(base.get_ydata()) == list(copy.get_ydata())
    assert base.get_color() != copy.get_color() and base.get_linestyle() != copy.get_linestyle()
    assert base.get_linewidth() > copy.get_linewidth()  # the one drawn first shows around the one on top
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["base", "copy (same curve as base)"]


@pytest.mark.parametrize(
    ("simulated", "served", "said"),
    [
        (True, False, "simulated: offline reference models"),
        (True, True, "simulated: reference models served over HTTP"),
        (False, True, "live models served over HTTP"),
    ],
)
def test_the_heading_says_where_the_models_ran(needle_trace, simulated, served, said):
    fig = plot_token_curves(calls_frame([needle_trace]), simulated=simulated, served=served)
    assert said in fig._suptitle.get_text().replace(chr(10), " ")
    grid = pd.DataFrame([{"needle_depth": 0.0, "haystack_tokens": 8000, "needle_recovered": True, "valid": True}])
    heat = plot_needle_grid(grid, x="needle_depth", y="haystack_tokens", simulated=simulated, served=served)
    assert said.replace("simulated", "SIMULATED") in heat._suptitle.get_text().replace(chr(10), " ")


def test_heatmap_panels_wrap_to_the_report_page_width():
    frame = pd.DataFrame(
        [
            {"arm": f"arm-{a}", "needle_depth": d, "summaries": s, "needle_recovered": True, "valid": True}
            for a in range(6)
            for d in (0.0, 0.1, 0.25, 0.4, 0.5)
            for s in range(9)
        ]
    )
    fig = plot_needle_grid(frame, x="needle_depth", y="summaries", panel="arm")
    assert fig.get_figwidth() <= plots.PAGE_WIDTH_IN  # 37 in wide before: its labels shrank to 2 pt at page width
    panels = [ax for ax in fig.axes if ax.get_title().startswith("arm-")]
    assert len(panels) == 6 and len({round(ax.get_position().y0, 2) for ax in panels}) == 2  # two rows of three


# -- the run report's token curves ----------------------------------------------------------------
@pytest.fixture
def run_dir(tmp_path, scenarios, config, models, needle_trace, goal_trace):
    """A run of two cases, two trials each (the needle case's second trial with another summarizer seed)."""
    from harness.agent.models import choose_models
    from harness.agent.runner import run_case

    needle, goal = scenarios[needle_trace.case_id], scenarios[goal_trace.case_id]
    other = run_case(needle, config, choose_models(None, None, window=config.window, seed=5), trial=1, seed=5)
    sink = RunSink([needle, goal], config, seed=0, trials=2, out_dir=tmp_path, progress=lambda _: None)
    for trace, case in [(needle_trace, needle), (other, needle), (goal_trace, goal), (replace(goal_trace, trial=1), goal)]:
        sink.record(trace, score_case(trace, case), case)
    sink.finish()
    return sink.run.path


def _charts(monkeypatch) -> list:
    drawn: list = []
    real = plots.plot_token_curves

    def spy(*args, **kwargs):
        fig = real(*args, **kwargs)
        drawn.append(fig)
        return fig

    monkeypatch.setattr("harness.report.run_report.plot_token_curves", spy)
    # drawn here, not in a forked child whose figures this process never sees: where the report forks depends on the
    # threads other tests left running (`harness._fork.can_fork`); the forked path is tests/report/test_draw_apart.py's
    monkeypatch.setattr("harness.report.apart.can_fork", lambda: False)
    return drawn


def test_the_run_report_draws_every_case_with_its_trials_overlaid(run_dir, monkeypatch, needle_trace, goal_trace):
    drawn = _charts(monkeypatch)
    report = write_run_report(run_dir).read_text()
    (fig,) = drawn
    panels = {ax.get_title(): ax for ax in fig.axes if ax.get_visible()}
    assert set(panels) == {needle_trace.case_id, f"{goal_trace.case_id} (2 runs, identical)"}
    assert all(len(_curves(ax)) == 2 for ax in panels.values())
    assert {t.get_text() for t in fig.legends[0].get_texts()} >= {"trial 0", "trial 1", "summary"}
    assert "4 run(s) in 2 panel(s), one per case; the trials of a case overlaid in its panel" in report
    assert "simulated: offline reference models" in fig._suptitle.get_text().replace(chr(10), " ")


def test_a_run_served_over_http_says_so_in_its_charts(run_dir, monkeypatch):
    meta = json.loads((run_dir / "meta.json").read_text())
    meta["endpoints"] = {"agent": {"endpoint": "http://127.0.0.1:8765/v1", "settings": {}}}
    (run_dir / "meta.json").write_text(json.dumps(meta))
    drawn = _charts(monkeypatch)
    write_run_report(run_dir)
    assert "simulated: reference models served over HTTP" in drawn[0]._suptitle.get_text().replace(chr(10), " ")


def test_past_the_panels_of_one_chart_the_curves_continue_in_numbered_files_the_report_lists(run_dir, monkeypatch):
    (run_dir / "token_curves-3.png").write_bytes(b"stale")  # from an earlier, longer report
    monkeypatch.setattr("harness.report.run_report.PANELS_PER_CHART", 1)
    report = write_run_report(run_dir).read_text()
    assert (run_dir / "token_curves.png").exists() and (run_dir / "token_curves-2.png").exists()
    assert not (run_dir / "token_curves-3.png").exists()
    assert "continues over `token_curves.png`, `token_curves-2.png`" in report
    assert "(token_curves.png)" in report and "(token_curves-2.png)" in report


def test_a_summary_that_grew_the_request_and_a_loop_are_marked_on_the_curve():
    """The loops eval's readings (`harness.trace.loops`) drawn where they happened: a hollow red triangle on a summary
    whose request was no smaller after it, a black star on each compaction of a loop; neither on a healthy curve."""
    from tests._traces import Conversation

    def run(first: str, repeat: bool):  # a first summary, then two more, each followed by the same read (repeat) or a new one
        conv = Conversation()
        conv.user("Audit the ledgers.")
        conv.agent(tools=[("read_file", {"file_path": "/l0.md"}, "ledger " * 300)])
        for k, summary in enumerate([first, "Summary 2.", "Summary 3."]):
            conv.summarize(summary)
            conv.agent(tools=[("read_file", {"file_path": "/l0.md" if repeat else f"/l{k + 1}.md"}, "ledger " * 300)])
        conv.answer("TASK COMPLETE")
        return conv.trace(kind="goal")

    def labels(trace) -> set[str]:  # noqa: ANN001
        fig = plot_token_curves(calls_frame([trace]), simulated=True)
        return {label for ax in fig.axes for label in ax.get_legend_handles_labels()[1]}

    assert {plots.NOT_SHRINKING, plots.LOOP} <= labels(run("padding " * 3000, repeat=True))
    assert not {plots.NOT_SHRINKING, plots.LOOP} & labels(run("Ledger 0 was read.", repeat=False))


def test_a_summary_whose_size_before_is_unknown_keeps_its_marker_at_the_size_sent():
    """The recorder cannot know the size before a summary LangChain's middleware made before the first request (a
    replayed case's cut: the redo eval's langchain-summarization arm); its triangle was drawn at that unknown size,
    NaN, and vanished from the chart while the legend still named it."""
    from tests._traces import Conversation

    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[("read_file", {"file_path": "/l0.md"}, "ledger " * 300)])
    conv.summarize("Ledger 0 was read.")
    conv.answer("TASK COMPLETE")
    frame = calls_frame([conv.trace(kind="goal")])
    summary = frame["event"].fillna("").str.contains("summary")
    frame.loc[summary, "tokens_before"] = None
    (ax,) = [ax for ax in plot_token_curves(frame).axes if ax.get_visible()]
    (marks,) = [c for c in ax.collections if c.get_label() == "summary"]
    assert marks.get_offsets().tolist() == [
        [float(frame.loc[summary, "agent_step"].iloc[0]), float(frame.loc[summary, "approx_tokens"].iloc[0])]
    ]


def test_one_case_run_under_two_evals_counts_as_two_runs_in_the_heading(needle_trace):
    """A run of several evals runs a case under each (goal-ledgers-12 as goal and as loops): two traces, two panels in
    the run report; the heading said "2 cases, 1 run" while the report's text said 2 runs."""
    one = calls_frame([needle_trace])
    frame = pd.concat([one.assign(eval="goal", panel="c (goal)"), one.assign(eval="loops", panel="c (loops)")])
    fig = plot_token_curves(frame, by="panel")
    assert "2 cases, 2 runs, all drawn" in fig._suptitle.get_text().replace(chr(10), " ")
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["c (goal)", "c (loops)"]


def test_the_api_s_calls_frame_keeps_a_case_run_under_two_evals_as_two_curves(needle_trace):
    """`EvalRun.calls()` is `calls_frame(traces, rows)`: with the rows, each trace's calls carry what the case ran as,
    so `harness.plot_token_curves(run.calls())` draws a case run as goal and as loops as two curves; without, they
    were one curve of twice the calls."""
    from harness.report.plots import split_curves

    rows = [{"eval": "goal", "kind": "goal"}, {"eval": "loops", "kind": "goal"}]
    frame = calls_frame([needle_trace, needle_trace], rows)
    assert sorted(frame["eval"].unique()) == ["goal", "loops"]
    curves = split_curves(frame)
    assert len(curves) == 2 and all(len(part) == len(needle_trace.calls) for _, part in curves)
    assert "eval" not in calls_frame([needle_trace]).columns  # without rows: no column, as before
