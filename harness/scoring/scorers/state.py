"""deepagents' failure modes read from the agent's state and its backend's files (issue 20), not only from the reply:
the history file each summary names, a large tool result whose tool-call id is very long, pasted user content
saved to the workspace, and the todo list across summaries.

Each reads ``trace.final`` (the graph's final state: file sizes, the texts under /conversation_history/, the todo
list), the requests the model received (``trace.calls`` / ``trace.messages``) and the events the recorder derived
from them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.mechanisms import eviction_scores
from harness.scoring.scorers.needle import needle_answered
from harness.scoring.scorers.shared import _succeeded, _target, compacted
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.trace.schema import Trace


# -- history file validity -----------------------------------------------------------------
def summarized_span(trace: Trace, event: dict[str, Any]) -> list[str]:
    """The keys (``trace.messages``) of the messages a summary took out of view: those of the request before it that
    the request it heads no longer carries (an earlier summary aside)."""
    index = event["call_index"]
    before = next((c for c in reversed(trace.agent_calls()) if c["index"] < index), None)
    if before is None:
        return []
    kept = set(trace.call(index)["message_keys"])
    return [k for k in before["message_keys"] if k not in kept and not da.is_summary_dict(trace.messages[k])]


def history_scores(trace: Trace, scenario: Scenario) -> list[Score]:  # noqa: ARG001 - every case kind
    """Every summary names a history path; that path exists in the backend at the end of the run and holds the span
    the summary took out of view, whatever the version's naming scheme (``session_<hex>.md``, ``{thread_id}.md``)."""
    summaries = trace.events_of("summary")
    files = trace.final.get("files") or {}
    texts: dict[str, str] = trace.final.get("history_texts") or {}
    unnamed = [e["call_index"] for e in summaries if not e.get("history_path")]
    named = [e for e in summaries if e.get("history_path")]
    missing = sorted({e["history_path"] for e in named if e["history_path"] not in files})
    lost: list[tuple[int, str, int, int]] = []  # (call, path, messages absent, span)
    for event in named:
        path = event["history_path"]
        if path not in files:
            continue
        span = summarized_span(trace, event)
        absent = [k for k in span if not da.offloaded_in_history(trace.messages[k], texts.get(path, ""))]
        if absent or not span:
            lost.append((event["call_index"], path, len(absent), len(span)))
    schemes = sorted({da.history_naming(e["history_path"]) for e in named})
    return [
        compacted(trace),
        Score(
            "history_path_named",
            bool(summaries) and not unnamed,
            CHECK,
            f"each of the {len(summaries)} summaries names a history file"
            if summaries and not unnamed
            else "no summary to name one"
            if not summaries
            else f"{len(unnamed)} of {len(summaries)} summaries name no history file (first at call {unnamed[0]})",
        ),
        Score(
            "history_file_exists",
            bool(named) and not missing,
            CHECK,
            f"every named history file is in the backend ({', '.join(sorted({e['history_path'] for e in named}))})"
            if named and not missing
            else "no summary names a history file"
            if not named
            else f"named but not in the backend: {', '.join(missing)} (files there: "
            f"{', '.join(p for p in sorted(files) if p.startswith(da.HISTORY_PREFIX)) or 'none under ' + da.HISTORY_PREFIX})",
        ),
        Score(
            "history_holds_span",
            bool(named) and not missing and not lost,
            CHECK,
            f"each named file holds every message its summary took out of view ({len(named)} summaries)"
            if named and not missing and not lost
            else "no history file to hold the span"
            if not named or missing
            else f"{len(lost)} summaries' spans are not in their file; first: call {lost[0][0]}, {lost[0][1]} lacks "
            f"{lost[0][2]} of the {lost[0][3]} message(s) summarized away",
        ),
        Score(
            "history_files",
            len({e["history_path"] for e in named}),
            MEASURE,
            f"history files named by the summaries; naming scheme: {', '.join(schemes) or 'none'}",
        ),
    ]


# -- a large tool result whose tool-call id is very long (deepagents#5560) -----------------
def long_id_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """A tool result over the eviction limit whose tool_call_id is longer than a path component may be: the request
    the model received next must show the eviction notice in its place, and the backend must hold the file the
    notice names, with the whole result (deepagents#5560: eviction once failed on such ids and kept the original)."""
    limit_chars = 4 * int(trace.config.get("eviction_tokens") or 0)
    docs = dict(scenario.documents)
    long_calls = [
        tc
        for _, tc in trace.tool_calls()
        if tc["name"] == "fetch_document"
        and len((tc.get("id") or "").encode()) > da.TOOL_CALL_PATH_COMPONENT_BYTES
        and len(docs.get(_target(tc), "")) > limit_chars
    ]
    notices = {e["tool_call_id"]: e["path"] for e in trace.events_of("evict")}
    files = trace.final.get("files") or {}
    kept, unfiled = [], []
    for tc in long_calls:
        path = notices.get(tc["id"])
        if path is None:
            kept.append(tc["id"])
        elif files.get(path, 0) < len(docs.get(_target(tc), "")):
            unfiled.append(path)
    longest = max((len(tc["id"]) for tc in long_calls), default=0)
    # the needle checks of the eviction eval; its validity (the needle's document evicted) is what long_id_evicted asks
    recovered = [sc for sc in eviction_scores(trace, scenario) if sc.key != "evicted"]
    return [
        Score(
            "long_ids_oversized",
            len(long_calls),
            VALIDITY,
            f"{len(long_calls)} result(s) over the {limit_chars:,}-character eviction limit answered tool calls with ids "
            f"over {da.TOOL_CALL_PATH_COMPONENT_BYTES} bytes (longest {longest} characters)"
            if long_calls
            else "no over-large result answered a long tool-call id: the case is invalid (is the id style in the task?)",
        ),
        Score(
            "long_id_evicted",
            bool(long_calls) and not kept and not unfiled,
            CHECK,
            f"all {len(long_calls)} were replaced by the eviction notice, their whole text in the backend"
            if long_calls and not kept and not unfiled
            else "nothing to evict"
            if not long_calls
            else f"{len(kept)} kept whole in the request (no eviction notice), first id {kept[0][:40]}..."
            if kept
            else f"the notice names {unfiled[0]}, which the backend does not hold whole",
        ),
        *recovered,
    ]


# -- pasted user content --------------------------------------------------------------------
def pasted_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """A user message too large for the request (a pasted document) is saved to the workspace and replaced by a
    notice; once a summary took it out of view, the fact in it must come back by reading it from a file under
    /conversation_history/ (the saved message or the history file), and the reply must carry it."""
    needle = scenario.needles[0]
    question = next((c for c in trace.agent_calls(needle.turn)), None)
    saved = {p for c in trace.agent_calls() for k in c["message_keys"] if (p := da.evicted_message_path(_text(trace, k)))}
    in_view = question is not None and any(
        needle.answer in (t := _text(trace, k)) or da.evicted_message_path(t) for k in question["message_keys"]
    )
    texts: dict[str, str] = trace.final.get("history_texts") or {}
    holding = sorted(p for p, t in texts.items() if needle.answer in t)
    reply = trace.answer(needle.turn) or ""
    correct = needle_answered(reply, needle, scenario).correct
    reads = [
        tc for _, tc in trace.tool_calls(needle.turn) if tc["name"] == "read_file" and _target(tc).startswith(da.HISTORY_PREFIX)
    ]
    found = [tc for tc in reads if needle.answer.lower() in (trace.tool_result(tc.get("id") or "") or "").lower()]
    return [
        compacted(trace, before_turn=needle.turn),
        Score(
            "pasted_evicted",
            len(saved),
            VALIDITY,
            f"the pasted message was saved to {_stable(saved)} and replaced by a notice in the request"
            if saved
            else "no user message was replaced by the 'Message content too large' notice: the case is invalid",
        ),
        Score(
            "pasted_out_of_view",
            question is not None and not in_view,
            VALIDITY,
            "at the question, neither the pasted fact nor its notice is in the request"
            if question is not None and not in_view
            else "the question was never asked"
            if question is None
            else "the pasted content (or its notice) is still in view at the question: the case is invalid",
        ),
        Score(
            "pasted_in_workspace",
            bool(holding),
            CHECK,
            f"the pasted fact is in {_stable(holding)}"
            if holding
            else f"no file under {da.HISTORY_PREFIX} holds the pasted fact ({len(texts)} file(s) there)",
        ),
        Score("needle_correct", correct, CHECK, f"expected {needle.answer!r}; the agent replied {reply[:160]!r}"),
        Score(
            "pasted_via_file",
            bool(found) and correct,
            CHECK,
            f"read_file on {_stable([_target(found[0])])} returned the pasted fact and the reply carried it"
            if found and correct
            else f"read_file on {_stable([_target(found[0])])} returned the fact, but the reply did not carry it"
            if found
            else f"{len(reads)} read_file call(s) under {da.HISTORY_PREFIX} in the question turn, none returned the fact",
        ),
    ]


# -- the todo list across summaries (deepagents#4161, #4164) --------------------------------


def _todo_writes(trace: Trace) -> list[tuple[int, list[dict[str, Any]]]]:
    """(call index, items) of every successful write_todos call, in order."""
    out = []
    for call, tc in trace.tool_calls():
        todos = (tc.get("args") or {}).get("todos")
        if tc["name"] == "write_todos" and isinstance(todos, list) and _succeeded(trace, tc):
            out.append((call["index"], [t for t in todos if isinstance(t, dict)]))
    return out


def shows_todo(text: str, item: dict[str, Any]) -> bool:
    """``text`` shows the todo ``item``: its content followed on the same line, within 40 characters, by its status
    (a write_todos call's arguments, the tool's "Updated todo list to [...]" reply, a summary line "<content>
    (completed)"). The step list the task quotes has the contents but no statuses, so it does not count."""
    pattern = re.escape(str(item.get("content"))) + r".{0,40}?" + re.escape(str(item.get("status")))
    return re.search(pattern, text) is not None


def _in_request(trace: Trace, call: dict[str, Any]) -> str:
    """What the model received at ``call``: every message's text and the arguments of the tool calls in it."""
    parts = []
    for key in call["message_keys"]:
        data = trace.messages[key]
        parts.append(trace.message_text(key))
        parts += [json.dumps(tc.get("args"), ensure_ascii=False) for tc in data.get("data", {}).get("tool_calls") or []]
    return "\n".join(parts)


def todo_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The plan kept in the todo list: after every summary the latest list reaches the model (in the summary or in a
    write_todos call still in the request), and the agent continues it: in the final state every item of the first
    list is there and completed, and no item once completed was set back (restarted)."""
    writes = _todo_writes(trace)
    summaries = trace.events_of("summary")
    first_summary = min((e["call_index"] for e in summaries), default=None)
    planned = bool(writes) and first_summary is not None and writes[0][0] < first_summary
    unseen = []
    for event in summaries:
        latest = next((items for index, items in reversed(writes) if index < event["call_index"]), None)
        if latest is None:
            continue
        seen = _in_request(trace, trace.call(event["call_index"]))
        if not all(shows_todo(seen, t) for t in latest):
            unseen.append(event["call_index"])
    final = trace.final.get("todos")
    first = [str(t.get("content")) for t in writes[0][1]] if writes else []
    status = {str(t.get("content")): t.get("status") for t in final or []}
    lost = [c for c in first if c not in status]
    unfinished = [c for c, st in status.items() if st != "completed"]
    restarted: list[str] = []
    completed: set[str] = set()
    for _, items in writes:
        for t in items:
            content = str(t.get("content"))
            if t.get("status") == "completed":
                completed.add(content)
            elif content in completed and content not in restarted:
                restarted.append(content)
    continued = final is not None and bool(first) and not lost and not unfinished and not restarted
    why = (
        f"all {len(first)} items of the plan completed in the final state, none set back"
        if continued
        else "the final state holds no todo list"
        if final is None
        else "no todo list was written"
        if not first
        else "; ".join(
            part
            for part in (
                f"{len(lost)} item(s) of the first list missing from the final state (first: {lost[0]!r})" if lost else "",
                f"{len(unfinished)} item(s) not completed (first: {unfinished[0]!r})" if unfinished else "",
                f"{len(restarted)} item(s) set back after being completed (first: {restarted[0]!r})" if restarted else "",
            )
            if part
        )
    )
    return [
        compacted(trace),
        Score(
            "todos_planned",
            planned,
            VALIDITY,
            f"a todo list of {len(writes[0][1])} items was written at call {writes[0][0]}, before the first summary"
            if planned
            else "no todo list was written before the first summary: the case is invalid",
        ),
        Score(
            "todos_reach_model",
            planned and not unseen,
            CHECK,
            f"after each of the {len(summaries)} summaries the latest todo list was in the request"
            if planned and not unseen
            else "nothing to carry"
            if not planned
            else f"after {len(unseen)} of {len(summaries)} summaries the request showed no current todo list (first at call "
            f"{unseen[0]}): the plan lives in state only",
        ),
        Score("todos_continued", continued, CHECK, why),
        Score("todo_writes", len(writes), MEASURE, f"{len(writes)} write_todos call(s)"),
    ]  # the goal-drift checks are shared (`score_case`)


def _stable(paths: Any) -> str:
    """Paths for an explanation, run-stable: a saved user message's uuid4 name differs on every run."""
    return da.run_stable_text(", ".join(sorted(paths)))


def _text(trace: Trace, key: str) -> str:
    return trace.message_text(key)
