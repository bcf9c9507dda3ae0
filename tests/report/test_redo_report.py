"""The redo eval's report section (`harness.report.redo_report`): one line per redo row from its scores, ERROR rows and
other evals' rows left out, the cause named by its upstream issues, nothing added when no row ran as the eval."""

from __future__ import annotations

from typing import Any

from harness.report._document import Document
from harness.report.redo_report import add_redo_section, redo_table


def _row(outcome: str, *, eval_name: str = "redo", **scores: Any) -> dict[str, Any]:
    return {
        "case_id": "redo-docs-06-cut-04",
        "eval": eval_name,
        "arm": "forced-20",
        "trial": 0,
        "outcome": outcome,
        "events": {"summary": 2, "mask": 0, "trim": 1},
        "scores": scores,
    }


ROWS = [
    _row("PASS", redo_repeats=0, redo_repeats_max=0, redo_rounds_to_progress=1, redo_no_progress=0, intent_agreement=1.0),
    _row("FAIL", redo_repeats=3, redo_repeats_max=3, redo_rounds_to_progress=None, redo_no_progress=1, intent_agreement=0.0),
    _row("ERROR", redo_repeats=9),
    _row("PASS", eval_name="goal", redo_repeats=5),
]


def test_one_line_per_redo_row_with_its_figures_error_and_other_evals_left_out():
    table = redo_table(ROWS)
    assert list(table["outcome"]) == ["PASS", "FAIL"]
    assert list(table["repeats"]) == [0, 3] and list(table["compactions"]) == [3, 3]
    assert list(table["rounds to progress"]) == [1, "-"]  # unknown is shown as unknown, never 0
    assert list(table["intent agreement"]) == [1.0, 0.0]


def test_the_section_names_the_cause_by_its_upstream_issues_and_is_absent_without_redo_rows():
    doc = Document("run")
    assert add_redo_section(doc, ROWS)
    text = doc.markdown()
    assert "Work redone after compaction" in text
    assert "https://github.com/anomalyco/opencode/issues/50816" in text and "CooperBench/issues/54" in text
    empty = Document("run")
    assert not add_redo_section(empty, ROWS[2:]) and "Work redone" not in empty.markdown()
