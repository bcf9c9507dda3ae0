"""Probes a judge model proposes for a session: read from its reply, checked like a user's, marked model-written, and
every item left out said why."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from harness.sessions.propose import MAX_PROPOSED, MESSAGE_CHARS, propose_probes, read_proposal, transcript
from tests._probe_sessions import SESSION


def _model(text: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=text)]))


def test_a_proposal_is_read_checked_and_marked_model_written_and_each_item_left_out_says_why():
    items = [
        {"question": "Which module was missing at first?", "expected": ["tokenizer_v2"], "type": "error", "message": 5},
        {"question": "Which build number holds?", "expected": ["4420"], "stale": ["4417"], "type": "decision", "message": 11},
        {"question": "Past the cut", "expected": ["x"], "type": "value", "message": len(SESSION)},
        {"question": "An unknown type", "expected": ["x"], "type": "mood", "message": 1},
        {"question": "Both", "expected": ["x"], "stale": ["x"], "type": "value", "message": 1},
        {"question": "No answer", "type": "value", "message": 1},
        "not an object",
    ]
    probes, left_out = propose_probes(SESSION, _model("Here they are:\n```json\n" + json.dumps(items) + "\n```"))
    assert [(p.id, p.type, p.message, p.expected, p.stale, p.origin) for p in probes] == [
        ("model-1", "error", 5, ("tokenizer_v2",), (), "model"),
        ("model-2", "decision", 11, ("4420",), ("4417",), "model"),
    ]
    assert left_out[0] == f"item 2: message {len(SESSION)} is not one of the {len(SESSION)} messages before the cut"
    assert left_out[1].startswith("item 3: ") and "mood" in left_out[1]
    assert left_out[2:] == [
        "item 4: an answer cannot be both expected and stale",
        "item 5: no expected",
        "item 6: not an object: 'not an object'",
    ]


def test_a_reply_that_is_no_array_proposes_nothing_and_says_so():
    assert read_proposal("I cannot help with that.", 5) == (
        [],
        ["the reply is not a JSON array of probes: 'I cannot help with that.'"],
    )
    assert read_proposal("[not json]", 5)[0] == []


def test_more_than_the_cap_is_left_out_by_name():
    items = [{"question": f"Q{i}?", "expected": ["a1"], "type": "value", "message": 0} for i in range(MAX_PROPOSED + 2)]
    probes, left_out = read_proposal(json.dumps(items), 3)
    assert len(probes) == MAX_PROPOSED and left_out == [f"item {i}: more than {MAX_PROPOSED} proposed" for i in (10, 11)]


def test_the_transcript_numbers_every_message_shows_its_calls_and_cuts_a_long_one():
    text = transcript([*SESSION[:3], {"role": "tool", "tool_call_id": "c1", "content": "x" * (MESSAGE_CHARS + 5)}])
    lines = text.splitlines()
    assert lines[0].startswith("[0] system: You are a coding agent.")
    assert lines[4:6] == ["[2] assistant: ", "    call bash: cd /repo && find . -name '*.py' -path '*parser*'"]
    assert lines[6].endswith("... (cut: 5 more characters)") and lines[6].startswith("[3] tool: xxx")
