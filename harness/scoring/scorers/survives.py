"""What comes back after a compaction (issue 34, eval 7): an audit of what the model has in view on the first call
after each compaction against what it had on the last call before it, per item kind.

The items are read from the two requests as the model received them (the system prompt as sent: `Trace.sent_system_text`,
with the sections deepagents' memory and skills middleware append after the recorder), never from the case:

- ``system prompt``: the agent's own system prompt (as the recorder saw it, before those sections);
- ``memory``: each ``<agent_memory>`` section (an AGENTS.md file's path and text) anywhere in view;
- ``skills list``: each skill the skills middleware lists ("- **name**: description");
- ``skill body``: each SKILL.md read with read_file, its text;
- ``todo list``: the latest write_todos list in view, each item with its status (`state.shows_todo`);
- ``file contents`` and ``file paths``: each other file read with read_file (the compaction's own archive aside):
  all of its lines, and its path.

Each item in view before is, after: **kept** (in a message both requests carry, a message since, or the agent's own
system prompt), **re-injected** (in a section a middleware rebuilds on every call from state or disk: the memory and
skills sections of the system prompt, or what a re-injecting strategy put back: `summary_reinject.REINJECTED_ID`),
**summarized** (only in the summary) or **lost**. Everything is matched line by line (every non-blank line of the
item in one place), so a summary's paraphrase is not the item.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from harness import _deepagents_adapter as da
from harness.compaction.strategies.summary_reinject import REINJECTED_ID
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.state import shows_todo
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.task_format import call_target
from harness.trace.schema import Trace

KINDS = ("system prompt", "memory", "skills list", "skill body", "todo list", "file contents", "file paths")
STATUSES = ("kept", "re-injected", "summarized", "lost")
SKILL_FILE_NAME = "/SKILL.md"
_SYSTEM_STATUS = {"system prompt": "kept"}  # any other kind in the system prompt was put there by a middleware


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _holds(place: str, item: str) -> bool:
    lines = _lines(item)
    return bool(lines) and all(line in place for line in lines)


def _message_text(trace: Trace, key: str) -> str:
    """A message's text and the arguments of its tool calls (the plan lives in write_todos' arguments)."""
    data = trace.messages[key]
    calls = data.get("data", {}).get("tool_calls") or []
    return "\n".join([trace.message_text(key), *(json.dumps(tc.get("args"), ensure_ascii=False) for tc in calls)])


def _reinjected(trace: Trace, key: str) -> bool:
    body = trace.messages[key].get("data", {})
    ids = [tc.get("id") or "" for tc in body.get("tool_calls") or []] + [body.get("tool_call_id") or ""]
    return any(i.startswith(REINJECTED_ID) for i in ids)


def _place_of(trace: Trace, key: str) -> str:
    if da.is_summary_dict(trace.messages[key]):
        return "summary"
    return "reinjected" if _reinjected(trace, key) else "conversation"


def _places(trace: Trace, after: dict[str, Any]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """The text of each part of the request at ``after`` (the system prompt as sent, what a strategy re-injected, the
    messages carried over or new since: the conversation, the summary) and the paths read_file calls in each read."""
    texts: dict[str, list[str]] = {
        "system": [trace.sent_system_text(after) or ""],
        "reinjected": [],
        "conversation": [],
        "summary": [],
    }
    reads: dict[str, set[str]] = {name: set() for name in texts}
    for key in after["message_keys"]:
        place = _place_of(trace, key)
        texts[place].append(_message_text(trace, key))
        calls = trace.messages[key].get("data", {}).get("tool_calls") or []
        reads[place].update(call_target(tc) for tc in calls if tc.get("name") == "read_file")
    return {name: "\n".join(parts) for name, parts in texts.items()}, reads


def _reads(trace: Trace, call: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, text) of each successful read_file result in the request at ``call`` (a strategy's re-injection aside),
    the file's lines without the page header."""
    keys = [k for k in call["message_keys"] if not _reinjected(trace, k)]
    called = {
        tc.get("id"): tc
        for k in keys
        for tc in trace.messages[k].get("data", {}).get("tool_calls") or []
        if tc.get("name") == "read_file"
    }
    out = []
    for key in keys:
        body = trace.messages[key].get("data", {})
        tc = called.get(body.get("tool_call_id")) if trace.messages[key].get("type") == "tool" else None
        text = trace.message_text(key)
        if tc is None or body.get("status") == "error" or text.lstrip().lower().startswith("error"):
            continue
        out.append((call_target(tc), da.read_page_body(text) or text))
    return out


def _todos(trace: Trace, call: dict[str, Any]) -> list[dict[str, Any]]:
    """The latest write_todos list in the request at ``call`` (a strategy's re-injection aside)."""
    latest: list[dict[str, Any]] = []
    for key in call["message_keys"]:
        if _reinjected(trace, key):
            continue
        for tc in trace.messages[key].get("data", {}).get("tool_calls") or []:
            todos = (tc.get("args") or {}).get("todos")
            if tc.get("name") == "write_todos" and isinstance(todos, list):
                latest = [t for t in todos if isinstance(t, dict)]
    return latest


def items_in_view(trace: Trace, call: dict[str, Any]) -> dict[str, list[str]]:
    """Each item kind's items (their text) in view at ``call``: the module docstring's list."""
    everything = "\n".join([trace.sent_system_text(call) or "", *(_message_text(trace, k) for k in call["message_keys"])])
    reads = [(p, t) for p, t in _reads(trace, call) if not p.startswith((da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX))]
    todos = _todos(trace, call)
    return {
        "system prompt": [own] if (own := trace.system_text(call)) else [],
        "memory": da.memory_sections(everything),
        "skills list": da.skill_entries(everything),
        "skill body": [t for p, t in reads if p.endswith(SKILL_FILE_NAME)],
        "todo list": [json.dumps(todos, ensure_ascii=False)] if todos else [],
        "file contents": [t for p, t in reads if not p.endswith(SKILL_FILE_NAME)],
        "file paths": [p for p, _ in reads if not p.endswith(SKILL_FILE_NAME)],
    }


def _status(kind: str, item: str, places: dict[str, str], reads: dict[str, set[str]]) -> str:
    if kind == "todo list":
        todos = json.loads(item)
        found = {name for name, text in places.items() if all(shows_todo(text, t) for t in todos)}
    elif kind == "file paths":  # as a read: a read_file call on it (kept or re-injected), or the summary naming it
        found = {name for name in places if item in reads[name] or (name == "summary" and item in places[name])}
    else:
        found = {name for name, text in places.items() if _holds(text, item)}
    if "system" in found:
        return _SYSTEM_STATUS.get(kind, "re-injected")
    if "reinjected" in found:
        return "re-injected"
    if "conversation" in found:
        return "kept"
    return "summarized" if "summary" in found else "lost"


def audit(trace: Trace) -> list[dict[str, Any]]:
    """For each compaction with an agent call before it: its call, and per item kind the status of each item that was
    in view on the call before (``{"call": i, "type": ..., "items": {kind: [status, ...]}}``)."""
    calls = trace.agent_calls()
    out = []
    for event in trace.compactions():
        before = next((c for c in reversed(calls) if c["index"] < event["call_index"]), None)
        if before is None:
            continue
        after = trace.call(event["call_index"])
        places, reads = _places(trace, after)
        items = items_in_view(trace, before)
        out.append(
            {
                "call": event["call_index"],
                "type": event["type"],
                "items": {kind: [_status(kind, item, places, reads) for item in items[kind]] for kind in KINDS},
            }
        )
    return out


def tally(records: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Per item kind, how many items were kept, re-injected, summarized or lost over ``records`` (`audit`'s)."""
    out: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for record in records:
        for kind, statuses in record["items"].items():
            out[kind].update(statuses)
    return out


def said(counts: Counter[str]) -> str:
    """``counts`` as a table cell: "re-injected 3/3", "lost 6, summarized 2 (of 8)", or "-" when none was in view."""
    n = sum(counts.values())
    if not n:
        return "-"
    parts = [(s, counts[s]) for s in STATUSES if counts[s]]
    if len(parts) == 1:
        return f"{parts[0][0]} {n}/{n}"
    return ", ".join(f"{s} {c}" for s, c in parts) + f" (of {n})"


def _promised(records: list[dict[str, Any]], kind: str) -> tuple[int, list[str]]:
    """How many ``kind`` items were in view before a compaction, and where one was not kept or re-injected after."""
    n, missed = 0, []
    for record in records:
        for status in record["items"][kind]:
            n += 1
            if status not in ("kept", "re-injected"):
                missed.append(f"call {record['call']}: {status}")
    return n, missed


def survives_scores(trace: Trace, scenario: Scenario) -> list[Score]:  # noqa: ARG001 - read from the requests alone
    """The audit's scores: the memory and the skills list deepagents promises on every call (its middleware rebuilds
    both sections from state), asserted after every compaction; the files read before it, measured."""
    records = audit(trace)
    first = records[0]["items"] if records else {}
    ready = bool(records) and bool(first["memory"]) and bool(first["skills list"])
    scores = [
        Score(
            "survives_audited",
            ready,
            VALIDITY,
            f"{len(records)} compaction(s) audited; before the first, in view: "
            + ", ".join(f"{kind} {len(first[kind])}" for kind in KINDS)
            if ready
            else "no compaction with an agent call before it"
            if not records
            else "no memory file or no skills list in view before the first compaction: the case is invalid (is the "
            "survives assembly in use?)",
        )
    ]
    for key, kind in (("memory_after_compaction", "memory"), ("skills_after_compaction", "skills list")):
        n, missed = _promised(records, kind)
        scores.append(
            Score(
                key,
                ready and not missed,
                CHECK,
                f"each of the {n} {kind} item(s) in view before a compaction was in view after it ({said(tally(records)[kind])})"
                if ready and not missed
                else "nothing audited"
                if not ready
                else f"{len(missed)} of {n} {kind} item(s) not kept or re-injected after a compaction; first {missed[0]}",
            )
        )
    counts = tally(records)
    for key, kind in (("files_after_compaction", "file contents"), ("skill_body_after_compaction", "skill body")):
        n = sum(counts[kind].values())
        back = counts[kind]["kept"] + counts[kind]["re-injected"]
        scores.append(
            Score(key, round(back / n, 3) if n else None, MEASURE, f"{kind}: {said(counts[kind])} after the compactions")
        )
    return scores
