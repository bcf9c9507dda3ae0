"""Session cases for the replay tests: the shipped billing-runbook session written anywhere
(`harness.scenarios.session_case`), and the shared real session with a probe written by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._paths import DATASETS_DIR
from harness.scenarios.conversation import SHIPPED_RECORDING, load_conversation, recorded_probe_row
from harness.scenarios.haystack import SHIPPED_SEED
from harness.scenarios.session_case import SESSION_CASE_ID, SESSION_PROBES, session_messages, session_row
from harness.task_format import render_question

ROOT = Path(__file__).resolve().parents[1]
SHARED_SESSION = ROOT / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
SHARED_MISSING = "the shared real session (../shared/sessions/, beside the repository) is absent on this machine"
CASE_ID = SESSION_CASE_ID
PROBES = [dict(p) for p in SESSION_PROBES]


def billing_runbook_messages() -> list[dict[str, Any]]:
    """The shipped session's messages, made as `harness generate` makes them."""
    recorded = recorded_probe_row(SHIPPED_RECORDING, DATASETS_DIR, SHIPPED_SEED)
    return session_messages(
        load_conversation(DATASETS_DIR / SHIPPED_RECORDING), {d["id"]: d["text"] for d in recorded["documents"]}
    )


def billing_runbook_row(messages: list[dict[str, Any]], conversation: str) -> dict[str, Any]:
    """The shipped session's row naming ``conversation`` (relative to the dataset file)."""
    return session_row(messages, conversation)


def write_session(folder: Path, messages: list[dict[str, Any]], row: dict[str, Any], name: str = "sessions.jsonl") -> Path:
    """A session dataset in ``folder``: the conversation file the row names (relative to it) and the row."""
    conversation = folder / row["conversation"]
    conversation.parent.mkdir(parents=True, exist_ok=True)
    conversation.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    path = folder / name
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def shared_session_messages(cut: int) -> list[dict[str, Any]]:
    """The first ``cut`` messages of the shared real session (its ``extra`` fields dropped), with one fact stated in
    the grammar the reference agent reads added to its task message (message 1): "the task id is ASTROPY-12907"."""
    data = json.loads(SHARED_SESSION.read_text(encoding="utf-8"))
    messages = []
    for m in data["messages"][:cut]:
        kept = {k: v for k, v in m.items() if k != "extra"}
        if kept.get("role") == "assistant" and kept.get("content") is None:
            kept["content"] = ""
        messages.append(kept)
    messages[1] = {**messages[1], "content": f"{messages[1]['content']}\n\nFor the record, the task id is ASTROPY-12907."}
    while messages and messages[-1].get("role") == "assistant" and messages[-1].get("tool_calls"):
        messages.pop()  # a cut never leaves a tool call unanswered
    return messages


SHARED_PROBES = [
    {"id": "task-id", "question": render_question("task id"), "expected": ["ASTROPY-12907"], "type": "value", "message": 1}
]
