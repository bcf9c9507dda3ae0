"""The shipped session case (`harness generate`): the harness's own billing-migration recording with runbook pages
fetched after it, cut at its end, and probes about the plan it states.

A session case is what `harness import` makes of a recorded session; the shipped one is made here from the harness's
own data, never a third-party transcript: the recorded conversation (``conversations/billing-migration.jsonl``), then
the user asks for the runbook and the agent fetches eight pages (the runbook documents of the recorded probe case,
`harness.scenarios.conversation.recorded_probe_row`). Its facts are stated in the task grammar, so the offline
reference agent answers its probes from the prefix; the session eval's validity matrix runs it.
"""

from __future__ import annotations

import json
from typing import Any

from harness.task_format import render_question

SESSION_CASE_ID = "session-billing-runbook"
SESSION_RECORDING = "conversations/billing-runbook.jsonl"  # under datasets/, written by `harness generate`
SESSION_PAGES = 8
SESSION_TASK = "Carry on with the billing migration where we left off."


def session_messages(recording: list[dict[str, Any]], documents: dict[str, str]) -> list[dict[str, Any]]:
    """The session's messages: ``recording``, the request for the runbook, ``SESSION_PAGES`` fetches of its pages
    (``documents``: RUN-001 ...) and the agent's closing line."""
    messages = [dict(m) for m in recording]
    messages.append({"role": "user", "content": "Before we start, read the runbook pages in order, one at a time."})
    for n in range(1, SESSION_PAGES + 1):
        doc, call_id = f"RUN-{n:03d}", f"call_run_{n}"
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": "fetch_document", "arguments": json.dumps({"doc_id": doc})},
        }
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": documents[doc]})
    messages.append({"role": "assistant", "content": f"I have read the {SESSION_PAGES} runbook pages."})
    return messages


def _probe(pid: str, key: str, expected: str, kind: str, message: int, stale: tuple[str, ...] = ()) -> dict[str, Any]:
    probe: dict[str, Any] = {
        "id": pid,
        "question": render_question(key),
        "expected": [expected],
        "type": kind,
        "message": message,
    }
    if stale:
        probe["stale"] = list(stale)
    return {**probe, "origin": "user"}


SESSION_PROBES = (
    _probe("downtime", "maximum downtime window", "15-minutes", "constraint", 1),
    _probe("escalation", "on-call escalation code", "7731-HERON", "value", 3),
    _probe("database", "billing database", "pg-16", "decision", 7, ("mysql-8",)),
    _probe("ticket", "change ticket prefix", "CHG-PAY", "constraint", 5),
    _probe("next", "next step", "schema-dry-run", "decision", 8, ("snapshot-ledger",)),
)
"""The shipped session's probes: each fact of the billing recording (message 1: the downtime window; 3: the escalation
code; 5: the ticket prefix; 7: the database, changed from mysql-8; 8: the next step, changed from snapshot-ledger)."""


def session_row(messages: list[dict[str, Any]], conversation: str = f"../{SESSION_RECORDING}") -> dict[str, Any]:
    """The session row of ``messages``, cut at its end (``conversation``: the file's name relative to the dataset)."""
    from langchain_core.messages import convert_to_messages
    from langchain_core.messages.utils import count_tokens_approximately

    return {
        "id": SESSION_CASE_ID,
        "kind": "session",
        "description": f"The billing-migration recording with {SESSION_PAGES} runbook pages fetched after it "
        f"({len(messages)} messages), replayed from its end and asked about the plan.",
        "task": SESSION_TASK,
        "conversation": conversation,
        "session": {
            "format": "openai",
            "source": SESSION_RECORDING,
            "messages": len(messages),
            "tokens": count_tokens_approximately(convert_to_messages(messages)),
            "cut": len(messages),
            "cut_by": "index",
        },
        "probes": [dict(p) for p in SESSION_PROBES],
    }
