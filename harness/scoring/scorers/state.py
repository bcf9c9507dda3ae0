"""deepagents' failure modes read from the agent's state and its backend's files (issue 20), not only from the reply:
the history file each summary names, a large tool result whose tool-call id is very long, pasted user content
saved to the workspace, and the todo list across summaries.

Each reads ``trace.final`` (the graph's final state: file sizes, the texts under /conversation_history/, the todo
list), the requests the model received (``trace.calls`` / ``trace.messages``) and the events the recorder derived
from them.
"""

from __future__ import annotations

from typing import Any

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.mechanisms import eviction_scores
from harness.scoring.scorers.needle import carries_answer
from harness.scoring.scorers.shared import _target, compacted
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
    correct = carries_answer(reply, needle.answer)
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
            f"the pasted message was saved to {', '.join(sorted(saved))} and replaced by a notice in the request"
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
            f"the pasted fact is in {', '.join(holding)}"
            if holding
            else f"no file under {da.HISTORY_PREFIX} holds the pasted fact ({len(texts)} file(s) there)",
        ),
        Score("needle_correct", correct, CHECK, f"expected {needle.answer!r}; the agent replied {reply[:160]!r}"),
        Score(
            "pasted_via_file",
            bool(found) and correct,
            CHECK,
            f"read_file on {_target(found[0])} returned the pasted fact and the reply carried it"
            if found and correct
            else f"read_file on {_target(found[0])} returned the fact, but the reply did not carry it"
            if found
            else f"{len(reads)} read_file call(s) under {da.HISTORY_PREFIX} in the question turn, none returned the fact",
        ),
    ]


def _text(trace: Trace, key: str) -> str:
    return trace.message_text(key)
