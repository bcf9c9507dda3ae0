"""Sessions for the probe generator's and the reference agent's tests: a small hand-written one stating one fact of
each probe type, the shared real session (../shared/sessions/, skipped when absent), and how a generated probe is
asked, judged (the reading the scorer makes, by type) and recovered through the history file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, get_buffer_string

from harness.answers import Verdict, judge_path, judge_value
from harness.reference.policy import decide
from harness.reference.view import ReplyAction, ToolAction
from harness.scenarios.conversation import system_text, to_messages
from harness.scenarios.model import SessionProbe
from harness.session_format import parse_session_question
from harness.task_format import parse_question
from tests._messages import call, summary_message

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
SHARED_CUT = 100  # messages before the cut: the agent has fixed the bug and is failing to build astropy to test it


def bash(cid: str, command: str) -> dict[str, Any]:
    function = {"name": "bash", "arguments": json.dumps({"command": command})}
    return {"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": function}]}


def tool(cid: str, name: str, **args: Any) -> dict[str, Any]:  # noqa: ANN401
    function = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "content": "", "tool_calls": [{"id": cid, "type": "function", "function": function}]}


def result(cid: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": text}


def rc(code: int, output: str = "") -> str:
    return f"<returncode>{code}</returncode>\n<output>\n{output}\n</output>"


FILLER = [
    m
    for k in range(6)
    for m in ({"role": "user", "content": "Carry on."}, {"role": "assistant", "content": f"Carrying on, part {k}."})
]
SESSION = [
    {"role": "system", "content": "You are a coding agent. Never use sudo in this repository."},
    {
        "role": "user",
        "content": "Fix the failing import in the parser package.\nDo not modify the tests under tests/.\n"
        "You must keep the public API unchanged.",
    },
    bash("c1", "cd /repo && find . -name '*.py' -path '*parser*'"),
    result("c1", rc(0, "./src/parser/parser_core.py\n./src/legacy/lexer_tables.py")),
    bash("c2", "cd /repo && python -c 'import parser'"),
    result(
        "c2",
        rc(
            1,
            'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
            "ModuleNotFoundError: No module named 'tokenizer_v2'",
        ),
    ),
    {"role": "assistant", "content": "For the record, the build number is 4417."},
    bash("c3", "cd /repo && sed -i 's/import tokenizer_v2/import tokenizer_v3 as tokenizer_v2/' src/parser/parser_core.py"),
    result("c3", rc(0)),
    tool("c4", "write_file", file_path="/repo/notes/fix.md", content="Switched the parser to tokenizer v3\n"),
    result("c4", "Updated file /repo/notes/fix.md"),
    {"role": "user", "content": "Correction: the build number is 4420, and the listen port is 8080."},
    *FILLER,
]
"""A session stating one fact or more of each probe type before its last ten messages (the filler)."""


def shared_prefix(cut: int = SHARED_CUT) -> list[dict[str, Any]]:
    """The first ``cut`` messages of the shared real session (its ``extra`` dropped), or a skip when it is absent."""
    if not SHARED.is_file():
        pytest.skip(f"the shared real session is not here ({SHARED.name} in ../shared/sessions/ beside the repository)")
    messages = json.loads(SHARED.read_text(encoding="utf-8"))["messages"]
    return [{k: v for k, v in m.items() if k != "extra"} for m in messages[:cut]]


def as_request(prefix: list[dict[str, Any]], question: str) -> list[BaseMessage]:
    """What the agent is sent when ``question`` is asked right after ``prefix``, nothing compacted."""
    system = system_text(prefix)
    return [*([SystemMessage(system)] if system else []), *to_messages(prefix), HumanMessage(question)]


def subject(probe: SessionProbe) -> str:
    """What a probe's question asks about: its subject (a session form) or its key ("What is the <key>?")."""
    session = parse_session_question(probe.question)
    return session[1] if session else parse_question(probe.question) or probe.question


def judge(probe: SessionProbe, answer: str) -> Verdict:
    """The reading of an answer the scorer makes, by type: a path (`judge_path`) for artifact and path, else a value
    (`judge_value`, the stale ones earlier)."""
    if probe.type in ("artifact", "path"):
        return judge_path(answer, probe.expected)
    return judge_value(answer, subject(probe), probe.expected[0], earlier=probe.stale, others=probe.expected[1:])


def reply(messages: list[BaseMessage]) -> str:
    action = decide(messages)
    assert isinstance(action, ReplyAction), f"expected a reply, got {action}"
    return action.text


HISTORY = "/conversation_history/session_abc.md"


def answer_after_summary(prefix: list[dict[str, Any]], question: str, max_pages: int = 60) -> tuple[str, int]:
    """The reply to ``question`` once everything before it was summarized to nothing and offloaded to the history
    file as deepagents writes it; the agent pages it (a read_file page of 200 lines at a time, as it asks) until it
    replies. (reply, pages read)."""
    system = system_text(prefix)
    lines = f"## Summarized at 2026-11-28T10:00:00+00:00\n\n{get_buffer_string(to_messages(prefix), format='xml')}\n".splitlines()
    messages: list[BaseMessage] = [
        *([SystemMessage(system)] if system else []),
        summary_message("## SUMMARY\nNone", HISTORY),
        HumanMessage(question),
    ]
    for page in range(max_pages):
        action = decide(messages)
        if isinstance(action, ReplyAction):
            return action.text, page
        assert isinstance(action, ToolAction) and action.name == "read_file" and action.args["file_path"] == HISTORY, action
        first, limit = action.args["offset"], action.args["limit"]
        last = min(first + limit, len(lines))
        more = f" | next offset {last}" if last < len(lines) else ""
        text = f"@@ lines {first + 1}-{last} of {len(lines)}{more} @@\n" + "\n".join(lines[first:last])
        messages += call("read_file", dict(action.args), text, f"h{page}")
    raise AssertionError(f"no reply after {max_pages} pages")
