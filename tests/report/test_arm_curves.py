"""The experiment report's token curves per arm: one panel per arm, so an arm that loops squeezes no other.

Found on the redo eval's case (datasets/experiments/nightly-wild.yaml): sliding-window compacted 98 times in a loop,
and on the one overlaid chart its stars ran along the whole x axis and pressed the six other arms into its first five
calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.report import arm_curves, plots
from harness.report._document import Document
from harness.scoring.scorers import FAIL, PASS
from tests._rows import full_cell
from tests._traces import Conversation

LOOP_CALLS = 24  # the looping arm's agent calls; the others make 4


def _trace(case: str, loop: bool):  # noqa: ANN202
    """A goal case: a first read and an answer, or (``loop``) a first read, then a summary and the same read again
    over and over: compactions in a row without progress (`harness.trace.loops`)."""
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[("read_file", {"file_path": "/l0.md"}, "ledger " * 300)])
    for k in range(LOOP_CALLS - 2 if loop else 2):
        if loop:
            conv.summarize(f"Summary {k}. " + "padding " * 600)
        conv.agent(tools=[("read_file", {"file_path": "/l0.md" if loop else f"/l{k + 1}.md"}, "ledger " * 300)])
    conv.answer("TASK COMPLETE")
    return conv.trace(case_id=case, kind="goal")


ARMS = ["base", "loopy", "twin"]  # spec's order, not sorted: "twin" makes the same curve as "base"


@pytest.fixture
def experiment(tmp_path: Path):  # noqa: ANN201
    """An experiment directory with the traces of one goal case under three arms (two trials each), "loopy" looping."""
    rows = []
    for arm in ARMS:
        for trial in (0, 1):
            trace = _trace("goal-x", loop=arm == "loopy")
            name = f"traces/{arm}.t{trial}.json.gz"
            trace.save(tmp_path / name)
            outcome = FAIL if arm == "loopy" or (arm == "twin" and trial == 1) else PASS
            calls = len(trace.agent_calls())
            rows.append(
                full_cell(
                    f"{arm}|20%|goal-x|{trial}", arm=arm, case_id="goal-x", kind="goal", trial=trial, outcome=outcome,
                    calls={"agent": calls}, trace=name,
                )
            )  # fmt: skip
    short = _trace("goal-y", loop=False)  # a smaller case: the chart draws goal-x, which "masky" did not run
    short.save(tmp_path / "traces/masky.json.gz")
    rows.append(
        full_cell(
            "masky|20%|goal-y|0", arm="masky", case_id="goal-y", kind="goal", calls={"agent": 1}, trace="traces/masky.json.gz"
        )
    )
    meta = {"thresholds": ["20%"], "arms": [*ARMS, "masky"], "baseline": "base"}
    return tmp_path, rows, meta


def test_each_arm_has_its_own_panel_and_x_extent_so_a_looping_arm_squeezes_no_other(experiment):
    path, rows, meta = experiment
    blocks, notes = arm_curves.case_blocks(path, rows, meta, [*ARMS, "masky"])
    fig = arm_curves.plot_arm_panels(blocks, "Token curves per arm")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 3  # one axes per arm (the overlaid chart: one for all)
    assert notes == ["`goal-x` has no trial-0 run at 20% under `masky` (no panel)."]  # said, not dropped
    titles = [ax.get_title().replace("\n", " ") for ax in panels]
    assert titles[0] == "base trial 0 PASS (trials: PASS 2/2) · 4 agent calls"
    assert titles[1] == f"loopy trial 0 FAIL (trials: FAIL 2/2) · {LOOP_CALLS} agent calls"
    assert titles[2] == "twin trial 0 PASS (trials: PASS 1/2, FAIL 1/2) · 4 agent calls · same curve as base"
    base, loopy, twin = (ax.get_xlim() for ax in panels)
    assert base[1] < 5 and twin[1] < 5  # its own calls, not the looping arm's
    assert LOOP_CALLS <= loopy[1] < LOOP_CALLS + 2
    assert len({ax.get_ylim() for ax in panels}) == 1  # the y axis shared: sizes compare
    labels = {t.get_text() for t in fig.legends[0].texts}
    assert {plots.LOOP, "summary", arm_curves.CURVE_LABEL} <= labels  # the markers still named in the legend
    assert "goal-x (goal) at 20%, trial 0" in [t.get_text() for t in fig.texts]


def test_past_the_arms_of_one_chart_the_panels_continue_in_numbered_files_the_report_names(experiment, monkeypatch):
    path, rows, meta = experiment
    (path / "arm_token_curves-3.png").write_bytes(b"stale")  # from an earlier report with more arms
    monkeypatch.setattr(arm_curves, "ARMS_PER_CHART", 2)
    doc = Document("x")
    files = arm_curves.add_arm_curves_section(doc, path, rows, meta, [*ARMS, "never-ran"])
    assert [f.name for f in files] == ["arm_token_curves.png", "arm_token_curves-2.png"]
    assert not (path / "arm_token_curves-3.png").exists()
    text = doc.markdown()
    assert "arms 1-2 (base, loopy) in `arm_token_curves.png`; arm 3 (twin) in `arm_token_curves-2.png`" in text
    first = files[0].read_bytes()
    arm_curves.add_arm_curves_section(Document("x"), path, rows, meta, ARMS)
    assert files[0].read_bytes() == first  # same inputs, same PNG
