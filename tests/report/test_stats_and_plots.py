import math

from harness.report.plots import plot_token_curves
from harness.stats import wilson
from harness.trace.frames import calls_frame


def test_wilson_interval_matches_known_values():
    rate = wilson(8, 10)
    assert math.isclose(rate.low, 0.4902, abs_tol=1e-3) and math.isclose(rate.high, 0.9433, abs_tol=1e-3)
    assert math.isclose(wilson(10, 10).high, 1.0) and wilson(0, 10).low == 0.0
    assert str(wilson(0, 0)) == "n=0"


def test_token_curve_marks_every_summarization(needle_trace):
    frame = calls_frame([needle_trace])
    fig = plot_token_curves(frame, overlay=True)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "summary" in labels
    markers = [c for c in ax.collections if c.get_label() == "summary"]
    assert len(markers[0].get_offsets()) == len(needle_trace.events_of("summary"))
    ys = ax.lines[0].get_ydata()
    assert max(ys) >= needle_trace.events_of("summary")[0]["tokens_before"]


def test_small_multiples_one_panel_per_case(needle_trace, goal_trace):
    fig = plot_token_curves(calls_frame([needle_trace, goal_trace]), simulated=True)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == sorted([needle_trace.case_id, goal_trace.case_id])
    assert "simulated" in fig._suptitle.get_text()
