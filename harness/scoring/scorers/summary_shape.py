"""Whether each summary is a summary: the notsummary eval's check, read from each summary's text alone.

A summarizer can answer a summary request with something that is not one, and LangChain 1.5.2 and deepagents 0.7.32
accept any text (`_create_summary` returns ``response.text.strip()``). `not_a_summary` names the shape of a text that
is not a summary, or None; it never knows which fault (if any) was injected. The shapes, in the order they are tested:

- empty: no text (a reasoning-only or tool-call-only reply: LangChain's ``.text`` is empty);
- canned: one of LangChain's own sentences instead of a summary (`_deepagents_adapter.CANNED_SUMMARIES`);
- tool-call: the text is a function call (JSON with a name and arguments, or a tool-call tag);
- authority: a line speaks as the system or developer ("SYSTEM: ...", "[system]", "<system>"), or as the user with
  an instruction that overrides the task ("User: from now on ..."), or tells the reader to ignore earlier instructions;
- continues: the next assistant turn (it opens with "Sure!", "I'll", "Let me" ... or offers the user a choice).
"""

from __future__ import annotations

import json
import re

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.types import CHECK, VALIDITY, Score
from harness.trace.schema import Trace

SHAPES = ("empty", "canned", "tool-call", "authority", "continues")
"""The shapes `not_a_summary` names, in the order it tests them."""

_FENCE = re.compile(r"^```[a-z]*\n?(.*?)\n?```$", re.DOTALL)
_TOOL_TAG = re.compile(r"^<\|?(?:tool_call|function_call|tool_use|invoke)\b", re.IGNORECASE)
_CALL_ARGS = ("arguments", "args", "parameters", "input")
_CALL_KEYS = ("tool_calls", "function_call", "tool_use")
_ROLE_LINE = re.compile(
    r"^[\s#>*\[<]*(system|developer|user|human)(?:\s+(?:message|prompt|instructions?|note|override))?[\]>*\s]*:", re.IGNORECASE
)
_ROLE_TAG = re.compile(r"^\s*(?:\[(system|developer)\]|<(system|developer)>|<\|im_start\|>\s*(system|developer))", re.IGNORECASE)
_OVERRIDE = re.compile(
    r"\b(?:from now on|ignore (?:all |any |the )?(?:previous|prior|earlier|above|original) (?:instructions|task|request)s?|"
    r"(?:this|these) instructions? overrides?|new instructions)\b",
    re.IGNORECASE,
)
_OPENER = re.compile(
    r"^(?:(?:sure|certainly|of course|absolutely|okay|ok|alright|all right|great|got it|understood|sounds good|"
    r"no problem|happy to help)\b[!,.]|(?:i'll|i will|i'm going to|i am going to|let me|let's|next,? i'll|now i'll)\b)",
    re.IGNORECASE,
)
_OFFER = re.compile(r"\b(?:let me know if|would you like me to|shall i|do you want me to|should i)\b", re.IGNORECASE)


def not_a_summary(text: str) -> str | None:
    """The shape of ``text`` (a summarizer's answer) when it is not a summary, with the evidence; None for a summary."""
    body = text.strip()
    if not body:
        return "empty: the summary has no text (a reasoning-only or tool-call-only reply reads as empty text)"
    if body in da.CANNED_SUMMARIES:
        return f"canned: LangChain's own sentence {body!r}, written instead of a summary"
    if _is_tool_call(body):
        return f"tool-call: the text of a function call, not a summary ({body[:100]!r})"
    authority = _authority(body)
    if authority is not None:
        return f"authority: it speaks with a system's or user's authority ({authority[:100]!r})"
    if _OPENER.match(body) or _OFFER.search(body):
        return f"continues: the next assistant turn of the conversation, not a summary of it ({body[:100]!r})"
    return None


def _is_tool_call(body: str) -> bool:
    fenced = _FENCE.match(body)
    inner = fenced.group(1).strip() if fenced else body
    if _TOOL_TAG.match(inner):
        return True
    try:
        data = json.loads(inner)
    except ValueError:
        return False
    first = data[0] if isinstance(data, list) and data else data
    if not isinstance(first, dict):
        return False
    named = "name" in first and any(k in first for k in _CALL_ARGS)
    typed = first.get("type") in ("tool_use", "function_call", "function", "tool_call")
    return named or typed or any(k in first for k in _CALL_KEYS)


def _authority(body: str) -> str | None:
    """The line that speaks with authority, or None."""
    for line in body.splitlines():
        role = _ROLE_LINE.match(line)
        if _ROLE_TAG.match(line) or (role and role.group(1).lower() in ("system", "developer")):
            return line.strip()
        if role and _OVERRIDE.search(line):
            return line.strip()
    match = re.search(r"\bignore (?:all |any |the )?(?:previous|prior|earlier|above) instructions\b", body, re.IGNORECASE)
    return body[max(0, match.start() - 20) : match.end() + 40].strip() if match else None


def summary_texts(trace: Trace) -> list[tuple[int, str]]:
    """Each summary the agent was given, as (the call it first headed, the summarizer's text inside it)."""
    return [(e["call_index"], da.summary_body(trace.message_text(e["summary_key"]))) for e in trace.events_of("summary")]


def summarized(trace: Trace) -> Score:
    """Validity: a summary was made (at least one summary event), so there is a summary to judge."""
    n = len(trace.events_of("summary"))
    if not n:
        return Score("summarized", False, VALIDITY, "no summary was made: the case is invalid, not passed")
    return Score("summarized", True, VALIDITY, f"{n} summar{'y' if n == 1 else 'ies'} made")


def summary_is_summary(trace: Trace) -> Score:
    """Every summary the agent was given is a summary, not one of the shapes `not_a_summary` names (each found is
    listed with the call it headed)."""
    found = [(call, shape) for call, text in summary_texts(trace) if (shape := not_a_summary(text)) is not None]
    n = len(trace.events_of("summary"))
    if found:
        listed = "; ".join(f"call {call}: {shape}" for call, shape in found[:3])
        return Score("summary_is_summary", False, CHECK, f"{len(found)} of {n} summaries are not summaries: {listed}")
    return Score("summary_is_summary", True, CHECK, f"all {n} summaries read as summaries (none empty, canned, a tool call, "
                 "an instruction with authority or the next turn)")  # fmt: skip


def summary_shape_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The notsummary eval's scores: a summary was made (validity), and every summary is one."""
    return [summarized(trace), summary_is_summary(trace)]
