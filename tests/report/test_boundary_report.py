"""The boundary eval's report section (issue 34): one line per boundary row, an orphan result and a lost system prompt
named with their upstream issue, a provider's refusal shown as the ERROR it is, nothing for other evals' rows."""

from __future__ import annotations

from typing import Any

from harness.report._document import Document
from harness.report.boundary_report import add_boundary_section, boundary_table
from harness.suites.eval_suite import DEER_FLOW_5454, LANGCHAIN_38352


def _row(case: str, outcome: str, passed: dict[str, bool], **extra: Any) -> dict[str, Any]:
    return {
        "eval": "boundary",
        "case_id": case,
        "arm": "forced-20@deepagents-summarization",
        "strategy": "deepagents-summarization",
        "trial": 0,
        "outcome": outcome,
        "passed": passed,
        "explanations": {
            "no_orphan_tool_results": "first: call 9, message 1 of 6, answering call_b",
            "system_prompt_kept": "gone",
        },
        "known_upstream": {},
        "error": None,
        **extra,
    }


ROWS = [
    _row("boundary-parallel", "PASS", {"cut_at_parallel_calls": True, "no_orphan_tool_results": True}),
    _row(
        "boundary-system",
        "KNOWN_UPSTREAM",
        {"no_orphan_tool_results": True, "system_prompt_kept": False},
        known_upstream={"system_prompt_kept": DEER_FLOW_5454},
    ),
    _row("boundary-parallel", "FAIL", {"no_orphan_tool_results": False}),
    _row(
        "boundary-parallel",
        "ERROR",
        {},
        error={"provider_error": {"message": "Error code: 400 - No tool call found for function call output with call_id c"}},
    ),
]


def test_each_boundary_row_says_what_the_cut_did_and_why():
    table = boundary_table([*ROWS, {**ROWS[0], "eval": "needle"}])
    assert list(table["outcome"]) == ["PASS", "KNOWN_UPSTREAM", "FAIL", "ERROR"]
    assert list(table["orphan tool results"]) == ["none", "none", "orphan result(s)", "-"]
    assert table["system prompt in state"][1] == f"lost ({DEER_FLOW_5454})"
    assert "call 9, message 1 of 6, answering call_b" in table["why"][2]
    assert table["why"][3].startswith("provider refused: Error code: 400 - No tool call found")


def test_the_section_names_both_causes_and_is_added_only_for_boundary_rows():
    doc = Document("r")
    assert add_boundary_section(doc, ROWS)
    assert "Message structure across the cut" in doc.markdown() and LANGCHAIN_38352 in doc.markdown()
    empty = Document("r")
    assert not add_boundary_section(empty, [{**ROWS[0], "eval": "needle"}]) and "across the cut" not in empty.markdown()
