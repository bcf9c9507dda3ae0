"""Scorers: ``(trace, scenario) -> [Score]``, read from the trace alone.

A score's key is also its LangSmith feedback key and its column in results; keys are
stable and never renamed. Each score has one of three roles:

- ``validity``: did the case test what it claims? (something was compacted, the needle
  was out of view, the file's argument was clipped, ...). A case that fails one is
  INVALID: counted in no rate, reported with the reason.
- ``check``: a pass/fail check the eval asserts on a valid case.
- ``measure``: a measurement reported beside them.

`outcome` turns a case's scores into PASS, FAIL or INVALID, or ERROR when the run ended
in a provider error after every retry (it measured nothing about compaction, so it
counts in no rate either). Evals assert validity before anything else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from harness.agent import _deepagents_adapter as da
from harness.scenarios.schema import Needle, Scenario
from harness.task_format import COMPLETION_MARKER, call_target
from harness.trace.schema import Trace

VALIDITY, CHECK, MEASURE = "validity", "check", "measure"
PASS, FAIL, INVALID, ERROR = "PASS", "FAIL", "INVALID", "ERROR"
OUTCOMES = (PASS, FAIL, INVALID, ERROR)
GATING = (VALIDITY, CHECK)


@dataclass(frozen=True)
class Score:
    key: str
    value: float | int | bool | None
    role: str  # VALIDITY, CHECK or MEASURE
    explanation: str

    @property
    def passed(self) -> bool | None:
        """For a validity score or a check: did it hold? None for a measurement."""
        return bool(self.value) if self.role in GATING else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- shared -------------------------------------------------------------------------------
def run_completed(trace: Trace) -> Score:
    err = trace.error
    if err:
        what = "a provider error" if err.get("provider_error") else "the run raised"
        return Score("run_completed", False, CHECK, f"{what} {err['type']} in turn {err.get('turn')}: {err['message'][:300]}")
    return Score("run_completed", True, CHECK, f"all {len(trace.turns)} turn(s) finished")


def compacted(trace: Trace, *, before_turn: int | None = None) -> Score:
    """At least one compaction event of any strategy (a summary, cleared tool results, a trimmed window), before
    ``before_turn`` if given."""
    events = [e for e in trace.compactions() if before_turn is None or e["turn"] < before_turn]
    where = f" before turn {before_turn}" if before_turn is not None else ""
    if not events:
        return Score(
            "compacted",
            0,
            VALIDITY,
            f"no compaction happened{where}: the case is invalid, not passed (raise the trigger pressure or the haystack)",
        )
    drops = ", ".join(f"{e['type']} {e['tokens_before']}->{e['tokens_after']}" for e in events[:6])
    return Score("compacted", len(events), VALIDITY, f"{len(events)} compaction event(s){where} ({drops})")


_CLARIFY = re.compile(
    r"\b(clarify|restate|remind me|lost track|could you (?:tell|share|provide|specify|confirm)|what would you like|"
    r"which (?:task|file|step)s? (?:do|should|would)|please (?:provide|specify|confirm))\b",
    re.IGNORECASE,
)


def is_clarification_request(text: str) -> bool:
    """A reply that asks the user what to do instead of doing it."""
    if COMPLETION_MARKER in text:
        return False
    return bool(_CLARIFY.search(text)) or text.rstrip().endswith("?")


def _succeeded(trace: Trace, tool_call: dict) -> bool:
    result = trace.tool_result(tool_call.get("id") or "")
    return result is not None and not result.lstrip().lower().startswith("error")


def _target(tool_call: dict) -> str:
    return call_target(tool_call)


def structural_issues(trace: Trace) -> list[str]:
    """Problems in any agent request: orphan tool results, unanswered tool calls, a summary
    not at the head, a system prompt that changed during the run."""
    issues = []
    first_system = None
    for call in trace.agent_calls():
        msgs = [trace.messages[k] for k in call["message_keys"]]
        called: set[str] = set()
        answered: set[str] = set()
        for pos, data in enumerate(msgs):
            body = data.get("data", {})
            if data.get("type") == "ai":
                called.update(tc.get("id") for tc in body.get("tool_calls") or [] if tc.get("id"))
            elif data.get("type") == "tool":
                tc_id = body.get("tool_call_id")
                if tc_id not in called:
                    issues.append(f"call {call['index']}: tool result {tc_id} has no tool call before it")
                answered.add(tc_id)
            if pos > 0 and da.is_summary_dict(data):
                issues.append(f"call {call['index']}: a summary at position {pos}, not at the head")
        for tc_id in sorted(called - answered):
            issues.append(f"call {call['index']}: tool call {tc_id} has no result")
        sha = call.get("system_sha")
        if first_system is None:
            first_system = sha
        elif sha != first_system:
            issues.append(f"call {call['index']}: the system prompt changed during the run")
    return issues


def structure_ok(trace: Trace) -> Score:
    issues = structural_issues(trace)
    n = len(trace.agent_calls())
    if issues:
        return Score("structure_ok", False, CHECK, f"{len(issues)} problem(s) in {n} requests; first: " + "; ".join(issues[:3]))
    return Score(
        "structure_ok",
        True,
        CHECK,
        f"all {n} requests well formed (tool calls paired, summary at the head, system prompt intact)",
    )


_REFUSAL = re.compile(r"\b(sorry|i can(?:no|')t|i cannot|unable to|as an ai)\b", re.IGNORECASE)
MIN_SUMMARY_CHARS = 40


def summary_defects(text: str) -> list[str]:
    """Why a summary is not a usable summary (empty, a refusal, too short), or []."""
    body = text.strip()
    if not body:
        return ["empty summary"]
    if _REFUSAL.search(body) and len(body) < 400:
        return [f"no summary in it (a refusal: {body[:80]!r})"]
    if len(body) < MIN_SUMMARY_CHARS:
        return [f"too short to carry the work ({len(body)} characters)"]
    return []


def summarizer_attempts(trace: Trace) -> list[list[dict]]:
    """Summarizer calls grouped into attempts at one summary: consecutive calls with no agent call between
    them (deepagents retries a failed summary request inside the same agent step)."""
    groups: list[list[dict]] = []
    previous = None
    for call in trace.calls:
        if call["role"] == "summarizer":
            if previous != "summarizer":
                groups.append([])
            groups[-1].append(call)
        previous = call["role"]
    return groups


def summaries_ok(trace: Trace) -> Score:
    """Every summary the agent was given is a real summary, and every summary request ended in one.

    A request that failed and then succeeded on a retry gave the agent a good summary: it is
    OK, and the explanation says it recovered after N attempts. A request whose last
    attempt failed is a failure, named with its error."""
    problems, recovered = [], []
    for group in summarizer_attempts(trace):
        failed = [c for c in group if c.get("error")]
        if not failed:
            continue
        if group[-1].get("error"):
            err = group[-1]["error"]
            problems.append(f"{len(failed)} summarizer call(s) failed, last with {err['type']}: {err['message'][:120]}")
        else:
            recovered.append(f"recovered after {len(group)} attempts ({failed[0]['error']['type']})")
    for event in trace.events_of("summary"):
        for defect in summary_defects(da.summary_body(trace.message_text(event["summary_key"]))):
            problems.append(f"call {event['call_index']}: {defect}")
    if problems:
        return Score("summaries_ok", False, CHECK, "degraded summarization: " + "; ".join(problems[:3]))
    n = len(trace.events_of("summary"))
    retried = f"; {len(recovered)} request(s) {', '.join(recovered[:3])}" if recovered else ""
    return Score("summaries_ok", True, CHECK, f"{n} summar{'y' if n == 1 else 'ies'}, none empty, refused or failed{retried}")


# -- needle --------------------------------------------------------------------------------
def needle_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Validity (compacted, needle_summarized_away), then needle_correct and needle_via_history.

    With several needles (each asked in its own turn) every key is scored once, over all of
    them: a check holds only if it holds for every needle, counts are summed, and the
    explanation names the first needle that failed.
    """
    per_needle = [_one_needle_scores(trace, needle) for needle in scenario.needles]
    scores = [compacted(trace, before_turn=min(n.turn for n in scenario.needles))]
    if len(per_needle) == 1:
        return scores + per_needle[0]
    for key_scores in zip(*per_needle):
        first = key_scores[0]
        values = [s.value for s in key_scores]
        if first.role == MEASURE and not all(isinstance(v, bool) for v in values):
            value = sum(values)
        else:
            value = all(values) if first.role != MEASURE else any(values)
        bad = next((i for i, s in enumerate(key_scores) if not s.value), None)
        why = (
            f"all {len(values)} needles: {first.explanation}"
            if bad is None
            else f"needle {bad + 1} of {len(values)}: {key_scores[bad].explanation}"
        )
        scores.append(Score(first.key, value, first.role, why))
    return scores


def carries_answer(reply: str, answer: str) -> bool:
    """The reply states ``answer`` as a whole token, case aside: "The code is TANGO-7." carries "tango-7"; "TANGO-71"
    and "XTANGO-7" do not (a longer code is another code)."""
    return bool(re.search(r"(?<![A-Za-z0-9])" + re.escape(answer) + r"(?![A-Za-z0-9])", reply, re.IGNORECASE))


def _one_needle_scores(trace: Trace, needle: Needle) -> list[Score]:
    scores: list[Score] = []
    turn = needle.turn
    answer = needle.answer
    calls = trace.agent_calls(turn)
    first = calls[0] if calls else None
    if first is None:
        scores.append(Score("needle_summarized_away", False, VALIDITY, f"no agent call in turn {turn}"))
    else:
        visible = answer.lower() in trace.request_text(first).lower()
        scores.append(
            Score(
                "needle_summarized_away",
                not visible,
                VALIDITY,
                "the needle was still in the agent's view when the question came (invalid: tests recall, not recovery)"
                if visible
                else "the needle was out of view when the question came",
            )
        )
    reply = trace.answer(turn) or ""
    correct = carries_answer(reply, answer)
    scores.append(Score("needle_correct", correct, CHECK, f"expected {answer!r}; the agent replied {reply[:160]!r}"))
    paths = _history_paths_seen(trace, turn)
    reads = [tc for _, tc in trace.tool_calls(turn) if tc["name"] == "read_file" and _target(tc) in paths]
    found = [tc for tc in reads if answer.lower() in (trace.tool_result(tc.get("id") or "") or "").lower()]
    # The correct answer came from the history file: a page of it returned the needle AND the reply carried it.
    if not paths:
        why = "no summary in view named a history file"
    elif found and correct:
        why = f"read_file on {_target(found[0])} (offset {found[0]['args'].get('offset', 0)}) returned the needle after {len(reads)} page(s)"
    elif found:
        why = f"read_file on {_target(found[0])} returned the needle, but the reply did not carry it"
    elif reads:
        why = f"read {len(reads)} page(s) of the history file but none contained the needle"
    else:
        why = "never called read_file on the history file the summary named"
    scores.append(Score("needle_via_history", bool(found) and correct, _recovery_role(trace, "needle_via_history"), why))
    scores.append(Score("history_pages_read", len(reads), MEASURE, f"read_file calls on the history file in turn {turn}"))
    recall = _via_recall(trace, turn, answer, correct)
    scores.append(recall)
    via_history = bool(found) and correct
    scores.append(
        Score(
            "needle_via_history_or_recall",
            via_history or bool(recall.value),
            _recovery_role(trace, "needle_via_history_or_recall"),
            "recovered from the history file"
            if via_history
            else "recovered by calling a cleared tool again"
            if recall.value
            else "not recovered from the history file nor by calling a tool again",
        )
    )
    in_summary = any(answer.lower() in trace.message_text(e["summary_key"]).lower() for e in trace.events_of("summary"))
    scores.append(
        Score(
            "needle_in_summary",
            in_summary,
            MEASURE,
            "a summary quoted the needle" if in_summary else "no summary quoted the needle",
        )
    )
    return scores


def _recovery_role(trace: Trace, key: str) -> str:
    """CHECK for the recovery check of the trace's strategy (its ``INFO.recovery_check``), MEASURE for the others: a
    recovery path the strategy does not have never fails a case."""
    from harness.compaction.strategies.registry import INFO

    strategy = trace.config.get("strategy", "deepagents-summarization")
    info = INFO.get(strategy)
    return CHECK if info is not None and info.recovery_check == key else MEASURE


def _via_recall(trace: Trace, turn: int, answer: str, correct: bool) -> Score:
    """The correct answer came from calling again a tool whose earlier result had been cleared (observation masking):
    a call in the question's turn repeating an earlier call returned the needle, and the reply carried it."""
    earlier = {(tc["name"], json.dumps(tc.get("args"), sort_keys=True)) for t in range(turn) for _, tc in trace.tool_calls(t)}
    again = [tc for _, tc in trace.tool_calls(turn) if (tc["name"], json.dumps(tc.get("args"), sort_keys=True)) in earlier]
    found = [tc for tc in again if answer.lower() in (trace.tool_result(tc.get("id") or "") or "").lower()]
    if found and correct:
        why = f"{found[0]['name']} called again ({len(again)} repeated call(s)) returned the needle"
    elif found:
        why = f"{found[0]['name']} called again returned the needle, but the reply did not carry it"
    elif again:
        why = f"{len(again)} earlier call(s) made again, none returned the needle"
    else:
        why = "no earlier tool call was made again"
    return Score("needle_via_recall", bool(found) and correct, _recovery_role(trace, "needle_via_recall"), why)


def chain_length_reached(trace: Trace, scenario: Scenario) -> Score:
    """Validity of a chain case: at least ``min_summaries`` summaries before the question."""
    turn = min(n.turn for n in scenario.needles)
    count = len([e for e in trace.events_of("summary") if e["turn"] < turn])
    ok = count >= scenario.min_summaries
    return Score(
        "chain_length_reached",
        ok,
        VALIDITY,
        f"{count} summaries before the question (at least {scenario.min_summaries} needed)"
        + ("" if ok else ": the case is invalid at this threshold"),
    )


def _history_paths_seen(trace: Trace, turn: int) -> set[str]:
    paths = set()
    for call in trace.agent_calls(turn):
        if call["summary_at_head"]:
            path = da.history_path(trace.message_text(call["message_keys"][0]))
            if path:
                paths.add(path)
    return paths


# -- goal ----------------------------------------------------------------------------------
def goal_scores(trace: Trace, scenario: Scenario, turn: int = 0) -> list[Score]:
    expected = [(s.tool, s.target) for s in scenario.expected_steps if s.tool != "reply"]
    expected_set = set(expected)
    done: set[tuple[str, str]] = set()
    repeats = 0
    stalled = []
    clarifications, premature = [], None
    events_at = {e["call_index"] for e in trace.compactions(turn)}
    for call in trace.agent_calls(turn):
        response = call.get("response") or {}
        tool_calls = response.get("tool_calls") or []
        text = response.get("text") or ""
        if call["index"] in events_at:
            on_task = any((tc["name"], _target(tc)) in expected_set for tc in tool_calls) or (
                not tool_calls and not (expected_set - done) and COMPLETION_MARKER in text
            )
            if not on_task:
                stalled.append(call["index"])
        for tc in tool_calls:
            step = (tc["name"], _target(tc))
            if step in expected_set and _succeeded(trace, tc):
                repeats += step in done
                done.add(step)
        if not tool_calls and response:
            if is_clarification_request(text):
                clarifications.append(call["index"])
            elif premature is None and expected_set - done:
                premature = (call["index"], len(expected_set - done))
    n_events = len(events_at)
    scores = [compacted(trace, before_turn=turn + 1)]
    if n_events == 0:
        scores.append(
            Score("goal_continued_after_summary", False, CHECK, "no compaction in the task turn, nothing to continue across")
        )
    else:
        scores.append(
            Score(
                "goal_continued_after_summary",
                not stalled,
                CHECK,
                f"the next action after all {n_events} compaction(s) was a task step"
                if not stalled
                else f"after {len(stalled)} of {n_events} compaction(s) the next action was not a task step; "
                f"first at call {stalled[0]}: {_action(trace, stalled[0])}",
            )
        )
    scores.append(
        Score(
            "goal_no_clarification",
            not clarifications,
            CHECK,
            "never asked the user to restate the task"
            if not clarifications
            else f"asked for clarification at call(s) {clarifications[:5]}: {_reply(trace, clarifications[0])[:160]!r}",
        )
    )
    scores.append(
        Score(
            "goal_no_premature_completion",
            premature is None,
            CHECK,
            "did not stop before the work was done"
            if premature is None
            else f"stopped at call {premature[0]} with {premature[1]} expected step(s) not done: {_reply(trace, premature[0])[:120]!r}",
        )
    )
    fraction = len(done) / len(expected_set) if expected_set else 1.0
    missing = [f"{t} {a}" for t, a in expected if (t, a) not in done]
    scores.append(
        Score(
            "goal_steps_completed",
            round(fraction, 4),
            MEASURE,
            f"{len(done)}/{len(expected_set)} expected tool steps done" + (f"; first missing: {missing[0]}" if missing else ""),
        )
    )
    scores.append(
        Score(
            "goal_all_steps_done",
            fraction == 1.0,
            CHECK,
            "every expected tool step was done"
            if fraction == 1.0
            else f"{len(missing)} expected step(s) not done; first: {missing[0]}",
        )
    )
    control_arm = trace.config.get("strategy") == "none"  # nothing is compacted by design: finishing is the goal
    preserved = not stalled and not clarifications and premature is None and fraction == 1.0 and (n_events > 0 or control_arm)
    scores.append(
        Score(
            "goal_preserved",
            preserved,
            CHECK,
            (
                "finished the task with the whole history in view"
                if control_arm
                else "kept working on the task across every compaction and finished it"
            )
            if preserved
            else "see goal_* scores",
        )
    )
    scores.append(
        Score("goal_repeated_steps", repeats, MEASURE, f"{repeats} expected step(s) done more than once (lost progress)")
    )
    return scores


def _action(trace: Trace, call_index: int) -> str:
    call = trace.call(call_index)
    if call.get("error"):
        return f"the call failed ({call['error']['type']})"
    response = call.get("response") or {}
    if response.get("tool_calls"):
        return "called " + ", ".join(f"{tc['name']}({_target(tc)})" for tc in response["tool_calls"])
    return f"replied {response.get('text', '')[:140]!r}"


def _reply(trace: Trace, call_index: int) -> str:
    return ((trace.call(call_index).get("response") or {}).get("text")) or ""


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
    correct = carries_answer(reply, needle.answer)
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
            else f"{len(reads)} read_file call(s) on evicted results, none returned the needle",
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
    return scores + goal_scores(trace, scenario)


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
    parent = [
        s
        for s in goal_scores(trace, scenario)
        if s.key in ("goal_no_clarification", "goal_no_premature_completion", "goal_steps_completed", "goal_all_steps_done")
    ]
    return scores + parent


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
    goal = [
        s
        for s in goal_scores(trace, scenario)
        if s.key in ("goal_no_clarification", "goal_no_premature_completion", "goal_steps_completed")
    ]
    return scores + goal


# -- dispatch ------------------------------------------------------------------------------
ScorerFn = Callable[[Trace, Scenario], "Score | list[Score]"]
_REGISTRY: dict[str, dict[str, list[ScorerFn]]] = {}
ANY_KIND = "*"


def scorer(*kinds: str, scorer_set: str = "default") -> Callable[[ScorerFn], ScorerFn]:
    """Register ``fn(trace, scenario) -> Score | [Score]`` for the case kinds it scores (``*``: any kind) in a scorer
    set. ``score_case`` runs the shared checks, then every scorer registered for the case's kind in that set, in
    registration order. Adding a scorer is this decorator on one function (and its unit test)."""

    def register(fn: ScorerFn) -> ScorerFn:
        for kind in kinds or (ANY_KIND,):
            _REGISTRY.setdefault(scorer_set, {}).setdefault(kind, []).append(fn)
        return fn

    return register


scorer("needle")(needle_scores)
scorer("chain")(chain_length_reached)
scorer("chain")(needle_scores)
scorer("goal")(goal_scores)
scorer("truncation")(truncation_scores)
scorer(scorer_set="eviction")(eviction_scores)
scorer(scorer_set="overflow")(overflow_scores)
scorer(scorer_set="subagent")(subagent_scores)
SCORER_SETS = tuple(_REGISTRY)  # a result row records which one scored it (``scorers``)


def score_case(trace: Trace, scenario: Scenario, scorers: str = "default") -> list[Score]:
    """Scores for one case: the shared checks, then the scorers registered for its kind in the scorer set."""
    if scorers not in _REGISTRY:
        raise ValueError(f"unknown scorer set {scorers!r}; known: {', '.join(_REGISTRY)}")
    scores = [run_completed(trace), structure_ok(trace), summaries_ok(trace)]
    by_kind = _REGISTRY[scorers]
    for fn in by_kind.get(scenario.kind, by_kind.get(ANY_KIND, [])):
        out = fn(trace, scenario)
        scores += out if isinstance(out, list) else [out]
    if trace.config.get("strategy") == "none":
        scores = [_as_control_arm(sc) for sc in scores]
    return scores


NEEDS_COMPACTION = ("compacted", "needle_summarized_away", "chain_length_reached", "goal_continued_after_summary")
"""Scores that ask whether compaction happened or how the agent went on after it. Under the ``none`` strategy (the
control arm) nothing is compacted by design, so they are measures there: the arm's PASS / FAIL is the task itself
with the whole history in view, the reference the other strategies are compared with."""


def _as_control_arm(score: Score) -> Score:
    if score.key not in NEEDS_COMPACTION:
        return score
    return Score(score.key, score.value, MEASURE, f"(control arm: nothing is compacted by design) {score.explanation}")


def scores_by_key(scores: list[Score]) -> dict[str, Score]:
    return {s.key: s for s in scores}


def outcome(scores: list[Score], error: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """PASS, FAIL, INVALID or ERROR for a case, and the keys (or, for ERROR, the cause) that decided it.

    A run that ended in a provider error (``error["provider_error"]``, see `harness.agent.live`) is
    ERROR: an outage is not a finding about compaction. Any other run that raised is FAIL
    (its crash is the finding, whatever it did not get to); otherwise a failed validity
    score makes the case INVALID (it did not test what it claims, so it counts in no
    rate); otherwise any failed check is a FAIL.
    """
    if error and error.get("provider_error"):
        from harness.agent.live import error_cause

        return ERROR, [error_cause(error)]
    failed = [s for s in scores if s.role in GATING and not s.value]
    if any(s.key == "run_completed" for s in failed):
        return FAIL, [s.key for s in failed if s.role == CHECK]
    invalid = [s.key for s in failed if s.role == VALIDITY]
    if invalid:
        return INVALID, invalid
    return (FAIL, [s.key for s in failed]) if failed else (PASS, [])
