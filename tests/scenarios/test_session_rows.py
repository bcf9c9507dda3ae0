"""A session case's row: the recorded prefix, where it came from and its probes, checked across fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DatasetError
from harness.scenarios.schema import load_scenarios, scenario_row

MESSAGES = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
    {
        "role": "assistant",
        "content": "Looking.",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "astropy/modeling/separable.py"},
]


def _row(**changes: object) -> dict:
    row = {
        "id": "s1",
        "kind": "session",
        "description": "a recorded session",
        "task": "Continue the task where you left off.",
        "conversation": "s1.jsonl",
        "session": {"format": "openai", "source": "s1.json", "messages": 6, "tokens": 900, "cut": 4, "cut_by": "index"},
        "probes": [
            {
                "id": "p1",
                "question": "Which file holds the bug?",
                "expected": ["astropy/modeling/separable.py", "separable.py"],
                "type": "path",
                "message": 3,
                "origin": "generated",
            }
        ],
    }
    row.update(changes)
    return row


def _write(tmp_path: Path, row: dict) -> Path:
    (tmp_path / "s1.jsonl").write_text("".join(json.dumps(m) + "\n" for m in MESSAGES))
    path = tmp_path / "sessions.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def test_a_session_row_loads_with_its_probes_as_follow_ups_and_round_trips(tmp_path: Path) -> None:
    (case,) = load_scenarios([_write(tmp_path, _row())])
    assert case.kind == "session" and case.session is not None and case.session.cut == 4
    assert case.followups == ("Which file holds the bug?",)
    assert case.probes[0].expected == ("astropy/modeling/separable.py", "separable.py")
    assert len(case.conversation) == 4
    again = scenario_row(case)
    assert again["session"]["cut_by"] == "index" and again["probes"][0]["origin"] == "generated"
    assert "stale" not in again["probes"][0]


@pytest.mark.parametrize(
    ("changes", "field", "said"),
    [
        ({"session": None}, "session", ""),
        ({"probes": []}, "probes", "a session case needs its probes"),
        ({"followups": ["What?"]}, "followups", "leave followups out"),
        (
            {"session": {"format": "openai", "source": "x", "messages": 3, "tokens": 1, "cut": 4, "cut_by": "index"}},
            "session.cut",
            "past the session's end",
        ),
        (
            {"session": {"format": "openai", "source": "x", "messages": 6, "tokens": 1, "cut": 5, "cut_by": "index"}},
            "session.cut",
            "holds 4 messages, the cut says 5",
        ),
        ({"session": {"format": "o", "source": "x", "messages": 6, "tokens": 1, "cut": 4, "cut_by": "half"}}, "cut_by", ""),
    ],
)
def test_a_broken_session_row_is_refused_naming_its_field(tmp_path: Path, changes: dict, field: str, said: str) -> None:
    row = _row(**changes)
    if changes.get("session", 1) is None:
        del row["session"]
    with pytest.raises(DatasetError) as err:
        load_scenarios([_write(tmp_path, row)])
    assert field in str(err.value) and said in str(err.value), str(err.value)


def test_a_probe_past_the_cut_or_both_expected_and_stale_is_refused(tmp_path: Path) -> None:
    probe = dict(_row()["probes"][0], message=4)
    with pytest.raises(DatasetError, match=r"probes\[0\]\.message.*past the conversation"):
        load_scenarios([_write(tmp_path, _row(probes=[probe]))])
    probe = dict(_row()["probes"][0], stale=["separable.py"])
    with pytest.raises(DatasetError, match=r"probes\[0\]\.stale.*both expected and stale"):
        load_scenarios([_write(tmp_path, _row(probes=[probe]))])


def test_only_a_session_case_has_session_or_probes(tmp_path: Path) -> None:
    row = _row(kind="goal", expected_steps=[{"tool": "reply", "target": ""}])
    with pytest.raises(DatasetError, match="only a session case has session"):
        load_scenarios([_write(tmp_path, row)])
