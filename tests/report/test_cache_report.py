"""The cache sections of the reports (`harness.report.cache_report`): the experiment report's damage per compaction per
arm from the rows' metrics (unknown shown as n/a, never a partial mean), and the run report's section for the rows that
ran as the cache eval (no agent runs: a hand-built trace)."""

from __future__ import annotations

import pandas as pd

from harness.report._document import Document
from harness.report.cache_report import add_cache_damage, add_cache_section, damage_table
from harness.runs.results import result_row
from harness.scoring.scorers.cache import cache_scores
from tests.scoring.test_cache_use import _scenario, run


def _row(arm: str, **metrics: float | None) -> dict:
    return {"arm": arm, "threshold": "20%", "metrics": metrics}


FULL = {
    "cache_compactions": 2,
    "cache_prefix_lost_tokens": 1000,
    "cache_rewritten_tokens": 600,
    "cache_damage_usd": 0.02,
    "cache_unread_write_tokens": 300,
    "cache_unread_write_usd": 0.001,
}


def test_the_damage_is_per_compaction_and_the_unread_writes_per_task():
    rows = [_row("sum", **FULL), _row("sum", **{**FULL, "cache_compactions": 0, "cache_prefix_lost_tokens": 0})]
    (line,) = damage_table(rows).to_dict("records")
    assert line["runs"] == 2 and line["compactions per task"] == 1.0
    assert line["prefix lost per compaction"] == 500.0  # 1,000 lost over 2 compactions (the second run had none)
    assert line["rewritten per compaction"] == 600.0 and line["USD per compaction"] == 0.02
    assert line["never read again per task"] == 300.0


def test_a_row_without_the_figures_makes_the_arm_unknown_not_a_partial_mean():
    rows = [_row("sum", **FULL), _row("sum")]  # an older row: no cache metrics
    (line,) = damage_table(rows).to_dict("records")
    assert line["compactions per task"] is None and line["never read again per task"] is None
    (none,) = damage_table([_row("none", **{**FULL, "cache_compactions": 0})]).to_dict("records")
    assert none["prefix lost per compaction"] is None  # no compaction: nothing per compaction, not a division by zero
    doc = Document("x")
    add_cache_damage(doc, rows, ["sum"])
    (table,) = [v for k, v in doc.blocks if k == "table"]
    assert table.iloc[0]["compactions per task"] == "n/a"


def test_the_run_report_section_shows_each_compaction_for_the_cache_eval_rows_only(tmp_path):
    trace = run(stamp=True).trace(kind="goal")
    scores = cache_scores(trace, _scenario())
    row = result_row(trace, scores, trace_file="t.json.gz", eval_name="cache")
    doc = Document("x")
    add_cache_section(doc, [{**row, "eval": "needle"}], [trace], tmp_path)  # another eval's row: no section
    assert not doc.blocks
    add_cache_section(doc, [row], [trace], tmp_path)
    text = doc.markdown()
    assert "Prompt cache across compactions" in text and "opencode/issues/43249" in text
    runs, events = [v for k, v in doc.blocks if k == "table"]
    assert runs.iloc[0]["outcome"] == "FAIL" and runs.iloc[0]["compactions"] == 1
    assert list(events["next call rereads"]) == ["**no**"]
    assert (tmp_path / "cache_use.png").exists()
    calls = pd.read_csv(tmp_path / "cache_calls.csv")
    assert len(calls) == len(trace.calls) and set(calls["read_share_from"]) == {"simulated"}
    assert (calls[calls["role"] == "agent"]["shared_with_previous"] == 0).all()  # the stamped prompt: nothing shared
