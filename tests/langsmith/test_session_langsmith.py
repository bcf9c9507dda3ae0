"""A session case's LangSmith example (`harness.langsmith.export.example_record`): the session and its recorded
prefix as inputs, redacted, and its probes as the reference outputs; one experiment per arm is the export's own rule."""

from __future__ import annotations

from dataclasses import replace

from harness.langsmith.export import example_record
from harness.suites.execute import find_case
from tests._sessions import CASE_ID, PROBES


def test_a_session_example_is_the_session_and_its_probes():
    case = find_case(CASE_ID)
    record = example_record("ds", case, case.id, case.kind)
    inputs, outputs = record["inputs"], record["outputs"]
    assert inputs["session"]["cut"] == len(case.conversation) == len(inputs["conversation"])
    assert inputs["session"]["cut_by"] == "index" and inputs["followups"] == [p["question"] for p in PROBES]
    assert [p["id"] for p in outputs["probes"]] == [p["id"] for p in PROBES]
    assert outputs["probes"][2]["expected"] == ["pg-16"] and outputs["probes"][2]["stale"] == ["mysql-8"]


def test_a_key_inside_a_recorded_tool_result_never_reaches_the_example():
    case = find_case(CASE_ID)
    leaked = {"role": "tool", "tool_call_id": "call_deps_1", "content": "export OPENAI_API_KEY=sk-live0123456789abcdef"}
    conversation = (*case.conversation[:3], leaked, *case.conversation[4:])
    record = example_record("ds", replace(case, conversation=conversation), case.id, case.kind)
    text = str(record["inputs"]["conversation"])
    assert "sk-live0123456789abcdef" not in text and "[REDACTED]" in text
