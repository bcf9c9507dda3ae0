"""One scorer set per compaction mechanism: eviction of large tool results, the context-overflow fallback,
summaries inside subagents, and truncation of old write/edit arguments."""

from __future__ import annotations

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.goal import goal_eval_scores
from harness.scoring.scorers.needle import needle_answered
from harness.scoring.scorers.shared import (
    _succeeded,
    _target,
    unreadable,
)
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.task_format import COMPLETION_MARKER
from harness.trace.schema import Trace


# -- eviction ------------------------------------------------------------------------------
def eviction_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """A needle in a tool result that was evicted to /large_tool_results/ must come back by paging read_file."""
    needle = scenario.needles[0]
    evictions = [e for e in trace.events_of("evict") if e["turn"] < needle.turn]
    fetched = {tc.get("id"): _target(tc) for _, tc in trace.tool_calls() if tc["name"] == "fetch_document"}
    evicted_docs = {fetched.get(e["tool_call_id"]) for e in evictions}
    scores = [
        Score(
            "evicted",
            needle.doc in evicted_docs,
            VALIDITY,
            f"{len(evictions)} tool result(s) evicted before the question, the needle's document {needle.doc} "
            + ("among them" if needle.doc in evicted_docs else "NOT among them: the case is invalid"),
        )
    ]
    reply = trace.answer(needle.turn) or ""
    correct = needle_answered(reply, needle, scenario).correct
    scores.append(Score("needle_correct", correct, CHECK, f"expected {needle.answer!r}; the agent replied {reply[:160]!r}"))
    paths = {e["path"] for e in evictions}
    reads = [tc for _, tc in trace.tool_calls(needle.turn) if tc["name"] == "read_file" and _target(tc) in paths]
    found = [tc for tc in reads if needle.answer.lower() in (trace.tool_result(tc.get("id") or "") or "").lower()]
    scores.append(
        Score(
            "needle_via_eviction_file",
            bool(found) and correct,
            CHECK,
            f"read_file on {_target(found[0])} returned the needle after {len(reads)} page(s) of evicted results"
            if found and correct
            else f"read_file on {_target(found[0])} returned the needle, but the reply did not carry it"
            if found
            else unreadable(trace, reads, "the evicted result")
            or f"{len(reads)} read_file call(s) on evicted results, none returned the needle",
        )
    )
    scores.append(
        Score("eviction_pages_read", len(reads), MEASURE, "read_file calls on /large_tool_results/ files in the question turn")
    )
    return scores


# -- overflow ------------------------------------------------------------------------------
def overflow_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The provider rejected a request the approximate counter thought fit; deepagents summarized and retried."""
    overflows = [c for c in trace.agent_calls() if (c.get("error") or {}).get("context_overflow")]
    recovered = {e["failed_call_index"] for e in trace.events_of("overflow-recovery")}
    fallback = [e for e in trace.events_of("summary") if e["cause"] == "overflow"]
    scores = [
        Score(
            "overflowed",
            len(overflows),
            VALIDITY,
            f"{len(overflows)} request(s) rejected as too long"
            + (f", the first at {overflows[0]['approx_tokens']:,} approximate tokens" if overflows else ": the case is invalid"),
        )
    ]
    missing = [c["index"] for c in overflows if c["index"] not in recovered]
    ok = bool(overflows) and not missing and trace.error is None
    why = (
        f"every rejection was followed by a fallback summary and a smaller retry ({len(fallback)} fallback summaries)"
        if ok
        else f"rejections at calls {missing[:5]} had no recovery"
        if missing
        else f"the run ended with {trace.error['type']}: {trace.error['message'][:120]}"
        if trace.error
        else "nothing to recover from"
    )
    scores.append(Score("overflow_recovered", ok, CHECK, why))
    return scores + goal_eval_scores(trace, scenario)  # the goal-drift checks are shared (`score_case`)


# -- subagents -----------------------------------------------------------------------------
def subagent_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Work delegated through the task tool compresses inside the subagent, and its result reaches the parent."""
    inside = [c for c in trace.summarizer_calls() if c.get("namespace") == "subagent"]
    tasks = [tc for _, tc in trace.tool_calls() if tc["name"] == "task"]
    results = [trace.tool_result(tc.get("id") or "") or "" for tc in tasks]
    returned = [r for r in results if COMPLETION_MARKER in r]
    scores = [
        Score(
            "subagent_compressed",
            len(inside),
            VALIDITY,
            f"{len(inside)} summarizer call(s) inside subagents"
            + ("" if inside else ": nothing compressed there, the case is invalid"),
        ),
        Score(
            "subagent_results_returned",
            bool(tasks) and len(returned) == len(tasks),
            CHECK,
            f"{len(returned)}/{len(tasks)} delegated task(s) returned their report to the parent"
            + (
                ""
                if len(returned) == len(tasks)
                else f"; first other result: {next((r for r in results if COMPLETION_MARKER not in r), '')[:120]!r}"
            ),
        ),
    ]
    return scores  # the parent's goal-drift checks are shared (`score_case`)


# -- argument truncation ------------------------------------------------------------------
def truncation_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """A file changed after deepagents clipped its previous write/edit must be read back first, and end up whole.

    Validity: at least one successful write_file / edit_file of an expected file came
    after the file's previous write/edit was shown to the agent clipped (an
    ``arg_truncation`` event names that call). For each such change, a successful
    read_file of the file must come between the two. The file at the end must hold every expected
    string and no truncation marker.
    """
    paths = [f.path for f in scenario.expected_files]
    clipped_at: dict[str, int] = {}
    for event in trace.events_of("truncate-args"):
        for call_id in event.get("tool_call_ids", []):
            clipped_at.setdefault(call_id, event["call_index"])
    writes: dict[str, list[tuple[dict, dict]]] = {p: [] for p in paths}
    reads: dict[str, list[int]] = {p: [] for p in paths}
    read_chars = 0
    for call, tc in trace.tool_calls():
        path = _target(tc)
        if path not in writes or not _succeeded(trace, tc):
            continue
        if tc["name"] in da.TRUNCATED_TOOLS:
            writes[path].append((call, tc))
        elif tc["name"] == "read_file":
            reads[path].append(call["index"])
            read_chars += len(trace.tool_result(tc.get("id") or "") or "")
    needed, blind = [], []
    for path, seq in writes.items():
        for (prev_call, prev), (call, _) in zip(seq, seq[1:]):
            seen = clipped_at.get(prev.get("id") or "")
            if seen is None or seen > call["index"]:
                continue
            needed.append((path, call["index"]))
            if not any(prev_call["index"] < r < call["index"] for r in reads[path]):
                blind.append((path, call["index"], seen))
    events = trace.events_of("truncate-args")
    scores = [
        Score(
            "args_clipped",
            len(needed),
            VALIDITY,
            f"{len(needed)} write(s)/edit(s) came after the file's previous write/edit was shown clipped ({len(events)} clipping event(s))"
            if needed
            else f"no write/edit of {', '.join(paths)} followed a clipped one ({len(events)} clipping event(s)): the case is invalid",
        ),
        Score(
            "reread_after_clipping",
            bool(needed) and not blind,
            CHECK,
            f"read the file back before each of the {len(needed)} write(s)/edit(s) that followed a clipped one"
            if needed and not blind
            else "nothing to re-read: the case is invalid"
            if not needed
            else f"{len(blind)} of {len(needed)} write(s)/edit(s) built on a clipped one without reading the file back; first: "
            f"{blind[0][0]} changed at call {blind[0][1]}, its previous write/edit shown clipped from call {blind[0][2]}",
        ),
    ]
    marker = (trace.config.get("arg_truncation") or {}).get("truncation_text") or da.TRUNCATION_TEXT
    written = trace.final.get("written_files")
    problems = []
    for expected in scenario.expected_files:
        if written is None:
            problems.append("the trace holds no file contents (recorded before they were kept)")
            break
        text = written.get(expected.path)
        if text is None:
            problems.append(f"{expected.path} was never written")
            continue
        missing = [x for x in expected.contains if x not in text]
        if missing:
            problems.append(
                f"{expected.path} lacks {len(missing)} of {len(expected.contains)} expected entries (first {missing[0]!r})"
            )
        if marker in text:
            problems.append(f"{expected.path} contains the truncation marker {marker!r}: a clipped argument was written back")
    scores.append(
        Score(
            "file_intact",
            not problems,
            CHECK,
            "; ".join(problems) if problems else f"{', '.join(paths)} hold every expected entry and no truncation marker",
        )
    )
    scores.append(Score("reread_chars", read_chars, MEASURE, f"{read_chars:,} characters of the file(s) read back"))
    return scores  # the goal-drift checks are shared (`score_case`)
