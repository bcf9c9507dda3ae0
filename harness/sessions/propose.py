"""Probes for a recorded session proposed by a judge model from the full context, marked model-written (live only).

`propose_probes(messages, judge_model)` sends the judge model (`harness.scoring.judge.choose_judge(...).model`) the
messages before the cut, numbered, and asks for the critical facts a summary must keep, each as a question that
names what it asks about but not its answer, its right answers, the stale answers an override left, its type and the
message that states it. What it proposes is checked as a user's probes are (`SessionProbe`, the message inside the
prefix, no answer both right and stale); an item that fails is left out and said why, never dropped silently. The
offline reference models propose nothing: its questions are free text the reference agent does not read, so
model-written probes are for live runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import TypeAdapter, ValidationError

from harness.judge_prompt import PROPOSAL_TAG
from harness.scenarios.conversation import text_of
from harness.scenarios.model import SESSION_PROBE_TYPES, SessionProbe
from harness.session_format import arguments, call_text

MAX_PROPOSED = 10
_PROBE = TypeAdapter(SessionProbe)  # checks a proposed probe as a row's probe is checked
MESSAGE_CHARS = 2_000  # of each message's text in the prompt; a longer one is cut and says so
PROMPT = f"""{PROPOSAL_TAG}
You read a recorded session of an AI agent: its messages, numbered [i]. List the critical facts a summary
of it must keep for the agent to carry on: files created or edited and their paths, commands run and their outcome,
errors met, the user's constraints, decisions and what they overrode, values stated. Prefer facts stated once and
early. For each fact write a question that names what it asks about but not its answer.

Reply with a JSON array only, at most {MAX_PROPOSED} items, each:
{{"question": "...", "expected": ["the right answer", "other acceptable forms"], "stale": ["an overridden answer"],
"type": one of {", ".join(SESSION_PROBE_TYPES)}, "message": the number [i] of the message that states the answer}}"""


def transcript(messages: Sequence[dict[str, Any]]) -> str:
    """The messages as the judge model reads them: ``[i] role: text``, each tool call on a line of its own."""
    lines = []
    for i, msg in enumerate(messages):
        text = text_of(msg)
        if len(text) > MESSAGE_CHARS:
            text = text[:MESSAGE_CHARS] + f" ... (cut: {len(text) - MESSAGE_CHARS} more characters)"
        lines.append(f"[{i}] {msg.get('role')}: {text}")
        for call in msg.get("tool_calls") or ():
            fn = (call.get("function") or {}) if isinstance(call, dict) else {}
            lines.append(f"    call {fn.get('name')}: {call_text(arguments(fn.get('arguments')))[:MESSAGE_CHARS]}")
    return "\n".join(lines)


def propose_probes(messages: Sequence[dict[str, Any]], judge_model: BaseChatModel) -> tuple[list[SessionProbe], list[str]]:
    """The probes ``judge_model`` proposes for ``messages`` (origin "model", ids ``model-<n>``), and why each item it
    proposed and that was left out was left out."""
    reply = judge_model.invoke([SystemMessage(PROMPT), HumanMessage(transcript(messages))])
    return read_proposal(str(reply.text), len(messages))


def read_proposal(text: str, n_messages: int) -> tuple[list[SessionProbe], list[str]]:
    """The probes a judge model's reply proposes, checked, and the problems of the items left out."""
    start, end = text.find("["), text.rfind("]")
    try:
        items = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        items = None
    if not isinstance(items, list):
        return [], [f"the reply is not a JSON array of probes: {text[:120]!r}"]
    probes: list[SessionProbe] = []
    left_out: list[str] = []
    for i, item in enumerate(items[:MAX_PROPOSED]):
        problem = _problem(item, n_messages)
        if problem is None:
            try:
                fields = {k: item[k] for k in ("question", "expected", "type", "message")}
                stale = {"stale": item["stale"]} if item.get("stale") else {}
                probe = _PROBE.validate_python({"id": f"model-{len(probes) + 1}", "origin": "model", **fields, **stale})
            except ValidationError as exc:
                problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            else:
                probes.append(probe)
                continue
        left_out.append(f"item {i}: {problem}")
    left_out += [f"item {i}: more than {MAX_PROPOSED} proposed" for i in range(MAX_PROPOSED, len(items))]
    return probes, left_out


def _problem(item: Any, n_messages: int) -> str | None:  # noqa: ANN401 - a parsed JSON value
    if not isinstance(item, dict):
        return f"not an object: {item!r}"[:160]
    missing = [k for k in ("question", "expected", "type", "message") if k not in item]
    if missing:
        return f"no {', '.join(missing)}"
    message = item["message"]
    if not isinstance(message, int) or isinstance(message, bool) or not 0 <= message < n_messages:
        return f"message {message!r} is not one of the {n_messages} messages before the cut"
    if set(item.get("stale") or ()) & set(item["expected"] if isinstance(item["expected"], list) else [item["expected"]]):
        return "an answer cannot be both expected and stale"
    return None
