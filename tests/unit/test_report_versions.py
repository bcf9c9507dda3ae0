"""The experiment report's Versions section (`harness.report.versions_report`): what each arm recorded and which
paired cells changed from the baseline."""

from __future__ import annotations

from harness.report._document import Document
from harness.report.versions_report import add_versions_section, changed_cells, recorded_versions

BASE, OLD = "deepagents==0.7.32", "deepagents==0.7.6"


def _row(arm: str, case: str = "c", trial: int = 0, outcome: str = "PASS", calls: int = 9, peak: int = 100) -> dict:
    return {
        "arm": arm,
        "case_id": case,
        "threshold": "25%",
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": [] if outcome == "PASS" else ["needle_correct"],
        "calls": {"agent": calls},
        "events": {"summary": 2},
        "tokens": {"peak_context": peak},
        "packages": {"deepagents": arm.split("==")[1], "langchain": "1.4.7"},
    }


def test_the_recorded_versions_are_one_line_per_arm():
    table = recorded_versions([_row(BASE), _row(OLD), _row(OLD, trial=1)], [BASE, OLD])
    assert table.to_dict("records") == [
        {"arm": BASE, "deepagents": "0.7.32", "langchain": "1.4.7"},
        {"arm": OLD, "deepagents": "0.7.6", "langchain": "1.4.7"},
    ]


def test_only_paired_cells_that_differ_are_listed_with_baseline_then_arm():
    rows = [_row(BASE), _row(OLD), _row(BASE, "d"), _row(OLD, "d", outcome="FAIL", peak=120), _row(OLD, "unpaired", calls=1)]
    (changed,) = changed_cells(rows, BASE).to_dict("records")
    assert changed == {
        "arm": OLD,
        "case": "d",
        "threshold": "25%",
        "trial": 0,
        "outcome": "PASS -> FAIL (needle_correct)",
        "agent calls": "",
        "summaries": "",
        "peak context": "100 -> 120",
    }
    assert changed_cells([_row(BASE), _row(OLD)], BASE).empty


def test_the_section_appears_only_with_a_versions_axis():
    doc = Document("x")
    add_versions_section(doc, {"baseline": BASE}, [_row(BASE)], [BASE])
    assert "Versions" not in doc.markdown()
    add_versions_section(
        doc, {"baseline": BASE, "versions": {OLD: {"deepagents": "0.7.6"}}}, [_row(BASE), _row(OLD)], [BASE, OLD]
    )
    assert "## Versions" in doc.markdown() and "No paired cell" in doc.markdown()
