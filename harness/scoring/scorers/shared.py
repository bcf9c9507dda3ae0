"""The checks every case gets (the run finished, requests well formed, summaries usable) and what several
scorers share: was something compacted, does a reply ask for clarification, did a tool call succeed."""

from __future__ import annotations

import re

from harness import _deepagents_adapter as da
from harness.scoring.scorers.types import CHECK, VALIDITY, Score
from harness.task_format import COMPLETION_MARKER, call_target
from harness.tool_pairs import Orphan, ToolPairs
from harness.trace.schema import Trace


def run_completed(trace: Trace) -> Score:
    """Every turn finished: the run raised nothing (provider error or otherwise) and no turn ended in a request for
    clarification (`is_clarification_request`): a turn whose answer asks the user what to do did not do it. A turn a
    session case's full-context control also left unfinished is not the arm's failure (`unfinished_turns`)."""
    err = trace.error
    if err:
        what = "a provider error" if err.get("provider_error") else "the run raised"
        return Score("run_completed", False, CHECK, f"{what} {err['type']} in turn {err.get('turn')}: {err['message'][:300]}")
    asked = unfinished_turns(trace)
    if asked:
        return Score(
            "run_completed",
            False,
            CHECK,
            f"{len(asked)} of {len(trace.turns)} turn(s) ended in a request for clarification, not a finished turn; "
            f"first turn {asked[0]}: {(trace.answer(asked[0]) or '')[:160]!r}",
        )
    excused = len(control_unfinished(trace))
    also = f"; {excused} the full-context control left unfinished too are not counted" if excused else ""
    return Score("run_completed", True, CHECK, f"all {len(trace.turns)} turn(s) finished{also}")


def unfinished_turns(trace: Trace) -> list[int]:
    """The turns whose answer (the agent's last reply of the turn) is a request for clarification, but for those a
    session case's control (``final["control"]``, `harness.suites.replay`: the gold) asked for clarification too."""
    gold = control_unfinished(trace)
    return [
        t
        for t in range(len(trace.turns))
        if is_clarification_request(trace.answer(t) or "") and trace.turns[t].get("text") not in gold
    ]


def control_unfinished(trace: Trace) -> set[str]:
    """The turns (by their text) a session case's full-context control ended in a request for clarification: an agent
    that cannot carry the recorded session on with the whole of it in view did not lose that to compaction."""
    control = trace.final.get("control") or {}
    pairs = zip(control.get("turns") or [], control.get("answers") or [])
    return {text for text, answer in pairs if is_clarification_request(answer or "")}


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


def unreadable(trace: Trace, reads: list[dict], what: str) -> str | None:
    """Why a recovery through ``reads`` (read_file calls on ``what``: the history file, an evicted result) could not
    work when every one of them returned an error: the file is not readable through the agent's backend (a backend
    that routes the path where read_file cannot read it back, or one without the path), with the first error. None
    when there were no reads or one returned the file."""
    results = [trace.tool_result(tc.get("id") or "") for tc in reads]
    if not reads or any(r is None or not r.lstrip().lower().startswith("error") for r in results):
        return None
    return (
        f"{what} {_target(reads[0])} is not readable through the agent's backend: read_file returned "
        f"{(results[0] or '').strip()[:160]!r} ({len(reads)} read(s), every one refused)"
    )


def request_pairs(trace: Trace, call: dict) -> tuple[list[Orphan], list[str]]:
    """The tool pairing of one agent request (`harness.tool_pairs`, the one rule): its orphan results (position in
    the request, call id) and the calls it makes that no result answers."""
    pairs = ToolPairs()
    found = []
    for pos, key in enumerate(call["message_keys"]):
        data = trace.messages[key]
        body = data.get("data", {})
        if data.get("type") == "ai":
            pairs.call([tc.get("id") for tc in body.get("tool_calls") or [] if tc.get("id")], pos)
        elif data.get("type") == "tool":
            orphan = pairs.answer(str(body.get("tool_call_id")), pos)
            if orphan is not None:
                found.append(orphan)
    return found, pairs.unanswered()


def structural_issues(trace: Trace) -> list[str]:
    """Problems in any agent request: orphan tool results, unanswered tool calls, a summary
    not at the head, a system prompt that changed during the run."""
    issues = []
    first_system = None
    for call in trace.agent_calls():
        orphans, unanswered = request_pairs(trace, call)
        issues += [f"call {call['index']}: tool result {o.call_id} has no tool call before it" for o in orphans]
        for pos, key in enumerate(call["message_keys"]):
            if pos > 0 and da.is_summary_dict(trace.messages[key]):
                issues.append(f"call {call['index']}: a summary at position {pos}, not at the head")
        for tc_id in unanswered:
            issues.append(f"call {call['index']}: tool call {tc_id} has no result")
        sha = call.get("system_sha")
        if first_system is None:
            first_system = sha
        elif sha != first_system:
            issues.append(f"call {call['index']}: the system prompt changed during the run")
    return issues


def structure_ok(trace: Trace) -> Score:
    """Every request well formed: tool calls paired with their results, the summary at the head, the system prompt
    intact (`structural_issues`)."""
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
    """Every summary the agent was given is a real summary, and every summary request ended in one (a provider's
    native compaction that returned none, a null compaction block, is a failed one).

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
    for call in trace.calls:  # a provider-native compaction that came back without a summary (a null block)
        if call.get("native_compaction_failed"):
            problems.append(f"call {call['index']}: the {call['native_compaction_failed']} compaction returned no summary")
    if problems:
        return Score("summaries_ok", False, CHECK, "degraded summarization: " + "; ".join(problems[:3]))
    n = len(trace.events_of("summary"))
    retried = f"; {len(recovered)} request(s) {', '.join(recovered[:3])}" if recovered else ""
    return Score("summaries_ok", True, CHECK, f"{n} summar{'y' if n == 1 else 'ies'}, none empty, refused or failed{retried}")
