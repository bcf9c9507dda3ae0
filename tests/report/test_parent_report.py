"""The run and experiment reports' "A subagent and its parent" section, from the parent eval's rows."""

from harness.report._document import Document
from harness.report.parent_report import add_parent_section, parent_table


def row(outcome="PASS", arm="forced-20@hybrid", **passed):
    checks = {"parent_compacted_at_task": True, "task_result_kept": True, "subagent_window_respected": True, **passed}
    return {
        "eval": "parent",
        "case_id": "parent-8x8",
        "arm": arm,
        "strategy": "hybrid",
        "trial": 0,
        "outcome": outcome,
        "passed": checks,
        "scores": {"subagent_peak_share": 1.186 if not checks["subagent_window_respected"] else 0.427},
    }


def test_one_line_per_case_and_arm_says_each_check_and_the_subagents_peak_share():
    table = parent_table([row(), row("FAIL", arm="forced-20@langchain-summarization", subagent_window_respected=False)])
    assert table.to_dict("records") == [
        {
            "case": "parent-8x8",
            "arm": "forced-20@hybrid",
            "trial": 0,
            "outcome": "PASS",
            "parent compacted as the report arrived": "yes",
            "report kept with its call": "yes",
            "subagent's largest request / its window": "43%",
            "subagent within its window": "yes",
        },
        {
            "case": "parent-8x8",
            "arm": "forced-20@langchain-summarization",
            "trial": 0,
            "outcome": "FAIL",
            "parent compacted as the report arrived": "yes",
            "report kept with its call": "yes",
            "subagent's largest request / its window": "119%",
            "subagent within its window": "**no**",
        },
    ]


def test_error_rows_are_left_out_and_said_so_other_evals_rows_are_not_shown():
    doc = Document("run")
    other = {**row(), "eval": "subagent"}
    add_parent_section(doc, [row(), row("ERROR"), other])
    text = doc.markdown()
    assert "## A subagent and its parent" in text
    assert "deepagents/issues/802" in text and "langchain/issues/38352" in text
    assert "1 case(s) ended in ERROR (a provider error) and measured nothing: left out." in text
    assert text.count("parent-8x8") == 1


def test_no_section_without_parent_rows():
    doc = Document("run")
    add_parent_section(doc, [{**row(), "eval": "subagent"}])
    assert "A subagent and its parent" not in doc.markdown()
