"""The notsummary and loops sections: one line per row scored with their check, the finding and the upstream links;
nothing for rows that were not."""

from __future__ import annotations

from harness.report._document import Document
from harness.report.loops_report import EVIDENCE as LOOPS_EVIDENCE
from harness.report.loops_report import add_loops_section, loops_table
from harness.report.notsummary_report import EVIDENCE, add_notsummary_section, notsummary_table

BAD = {
    "case_id": "goal-ledgers-12",
    "arm": "forced-20",
    "trial": 0,
    "outcome": "FAIL",
    "passed": {"summary_is_summary": False, "goal_no_clarification": False, "goal_all_steps_done": False},
    "explanations": {"summary_is_summary": "1 of 1 summaries are not summaries: call 14: canned: LangChain's own sentence"},
}
GREW = {
    "case_id": "goal-ledgers-12",
    "arm": "forced-20",
    "trial": 1,
    "outcome": "FAIL",
    "passed": {"compaction_shrinks": False, "no_compaction_loop": True},
    "scores": {"compaction_ratio_max": 1.22, "compactions_without_progress": 1},
    "events": {"summary": 8, "evict": 2},
    "explanations": {"compaction_shrinks": "8 compaction(s) did not shrink the request"},
}
OTHER = {"case_id": "needle-h24k-d000", "arm": "forced-20", "trial": 0, "outcome": "PASS", "passed": {"needle_correct": True}}


def test_the_notsummary_table_has_a_line_per_scored_row_with_the_shape_and_the_goal():
    table = notsummary_table([BAD, OTHER])
    assert table.to_dict("records") == [
        {
            "case": "goal-ledgers-12",
            "arm": "forced-20",
            "trial": 0,
            "outcome": "FAIL",
            "every summary a summary": "no",
            "found": BAD["explanations"]["summary_is_summary"],
            "goal kept": "no",
        }
    ]


def test_the_loops_table_counts_compactions_and_shows_the_ratio_and_the_run():
    (line,) = loops_table([GREW, OTHER]).to_dict("records")
    assert (line["compactions"], line["largest after/before"], line["longest run without progress"]) == (8, 1.22, 1)
    assert line["shrinks below the trigger"] == "no" and line["finding"].startswith("8 compaction(s)")


def test_the_sections_name_the_upstream_evidence_and_are_absent_without_rows():
    doc = Document("r")
    add_notsummary_section(doc, [BAD])
    add_loops_section(doc, [GREW])
    text = doc.markdown()
    assert all(url in text for url in (*EVIDENCE, *LOOPS_EVIDENCE))
    empty = Document("r")
    add_notsummary_section(empty, [OTHER])
    add_loops_section(empty, [OTHER])
    assert "notsummary" not in empty.markdown() and "loops" not in empty.markdown()
