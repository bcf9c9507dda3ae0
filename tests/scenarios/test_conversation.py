"""A case that starts from a recorded conversation (OpenAI-format JSONL): loaded, checked line by line, marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness.errors import DatasetError
from harness.scenarios.conversation import load_conversation, recorded_probe_row, system_text, to_messages
from harness.scenarios.schema import DATASETS_DIR, _scenario, validate_row

CALL = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "x"}'}}


def _write(tmp_path: Path, messages: list) -> Path:
    path = tmp_path / "conv.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def test_a_recorded_conversation_becomes_langchain_messages_and_system_text(tmp_path):
    records = load_conversation(
        _write(
            tmp_path,
            [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": None, "tool_calls": [CALL]},
                {"role": "tool", "tool_call_id": "c1", "content": "result"},
            ],
        )
    )
    messages = to_messages(records)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, ToolMessage]
    assert messages[1].tool_calls[0]["name"] == "lookup" and messages[1].tool_calls[0]["args"] == {"q": "x"}
    assert system_text(records) == "be brief"


@pytest.mark.parametrize(
    ("messages", "line", "field", "words"),
    [
        (["x"], 1, None, "JSON object"),
        ([{"role": "robot", "content": "x"}], 1, "role", "expected one of"),
        ([{"role": "user", "content": 3}], 1, "content", "string or a list"),
        ([{"role": "user", "content": " "}], 1, "content", "needs text"),
        ([{"role": "assistant", "content": ""}], 1, "content", "text or tool calls"),
        ([{"role": "assistant", "tool_calls": [{"id": "c1"}]}], 1, "tool_calls[0]", '"function"'),
        (
            [{"role": "assistant", "tool_calls": [dict(CALL, function={"name": "f", "arguments": "{x"})]}],
            1,
            "tool_calls[0].function.arguments",
            "not valid JSON",
        ),
        ([{"role": "tool", "tool_call_id": "zz", "content": "r"}], 1, "tool_call_id", "answers no earlier tool call"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": [CALL]}], None, "tool_calls", "never answered"),
    ],
)
def test_a_bad_recorded_message_is_refused_naming_its_line_and_field(tmp_path, messages, line, field, words):
    with pytest.raises(DatasetError) as info:
        load_conversation(_write(tmp_path, messages))
    assert (info.value.row, info.value.field) == (line, field)
    assert words in str(info.value) and "conv.jsonl" in str(info.value)


def test_a_row_naming_a_missing_or_bad_conversation_is_refused_as_that_row(tmp_path):
    row = recorded_probe_row("conversations/billing-migration.jsonl", DATASETS_DIR, 7)
    data = tmp_path / "d.jsonl"
    with pytest.raises(DatasetError) as info:
        validate_row(row, str(data), 4)  # relative to the dataset file: tmp_path has no conversations/
    assert (info.value.row, info.value.field) == (4, "conversation") and "no such conversation file" in str(info.value)
    (tmp_path / "conversations").mkdir()
    _write(tmp_path / "conversations", [{"role": "user", "content": "only this"}]).rename(
        tmp_path / "conversations" / "billing-migration.jsonl"
    )
    with pytest.raises(DatasetError) as info:
        validate_row(row, str(data), 4)
    assert info.value.field == "facts[0].message" and "index of a recorded message (0..0)" in str(info.value)


def test_the_shipped_recording_is_marked_with_every_typed_fact_and_their_updates():
    row = recorded_probe_row("conversations/billing-migration.jsonl", DATASETS_DIR, 7)
    validate_row(row, str(DATASETS_DIR / "recorded.jsonl"), 1)
    scenario = _scenario(row, str(DATASETS_DIR / "recorded.jsonl"))
    assert {f.type for f in scenario.facts} == {"constraint", "fact", "decision", "preference", "rule", "goal_state"}
    db = scenario.fact("m4-0")
    assert [(f.value, f.message) for f in scenario.chain(db)] == [("mysql-8", 4), ("pg-16", 7)]
    assert [q.probe for q in scenario.questions].count("decision") == 1
    assert [q.probe for q in scenario.questions].count("continuation") == 1
    assert scenario.agent_system_prompt().startswith("You are the platform team's migration assistant")
    shipped = json.loads((DATASETS_DIR / "recorded.jsonl").read_text(encoding="utf-8"))
    assert shipped == row  # the shipped file is the builder's output


def test_an_empty_tool_result_loads_as_a_command_with_no_output_does(tmp_path):
    messages = [
        {"role": "user", "content": "Touch the file."},
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ]
    records = load_conversation(_write(tmp_path, messages))
    assert records[2]["content"] == ""
    assert isinstance(to_messages(records)[2], ToolMessage)
