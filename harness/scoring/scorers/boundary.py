"""The boundary eval's scores: the message structure across a compaction's cut.

- ``no_orphan_tool_results`` (check): in every request the agent model received, every tool result follows the call
  it answers (`harness.tool_pairs`, the one pairing rule the shared ``structure_ok`` and ``harness serve`` apply too);
  a failure names the request (call index), the result's place in it and the call id. A result whose call a cut
  summarized away is what langchain#38352 leaves, and a provider answers that request with a 400.
- ``cut_at_parallel_calls`` (validity, a case with a parallel step): some compaction's cut fell at a group of
  parallel tool calls: the first message it kept (after the summary, or the pinned task of a trimmed window) is the
  assistant message that made them or one of their results. Without that the case did not test the straddle.
- ``system_prompt_in_state`` (validity, a ``system_in_state`` case): the first request holds a system message at
  the head of its messages (the case's instructions in the message state, deer-flow#5454).
- ``cut_made`` (validity, the same case): a compaction cut the conversation (a summary or a trimmed window; cleared
  tool results leave every message in place, so they test nothing here).
- ``system_prompt_kept`` (check, the same case): every request from the first cut on still holds that system text,
  as a system message or in the system prompt; a cut that slices the state by index summarizes it away.
"""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Scenario
from harness.scoring.scorers.shared import compacted, request_pairs
from harness.scoring.scorers.types import CHECK, VALIDITY, Score
from harness.task_format import parse_steps
from harness.trace.schema import Trace

CUT_EVENTS = ("summary", "trim")  # the compactions that cut the conversation (masking keeps every message in place)


def has_parallel_step(scenario: Scenario) -> bool:
    return any(s.mode == "parallel" for text in scenario.turns for s in parse_steps(text))


def boundary_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The boundary eval's scores for one case (which of them: the module docstring)."""
    scores = [compacted(trace), no_orphan_tool_results(trace)]
    if has_parallel_step(scenario):
        scores.append(cut_at_parallel_calls(trace))
    if scenario.system_in_state:
        scores += [system_prompt_in_state(trace), cut_made(trace), system_prompt_kept(trace)]
    return scores


def no_orphan_tool_results(trace: Trace) -> Score:
    """Every tool result in every agent request follows its call (`shared.request_pairs`)."""
    calls = trace.agent_calls()
    found = [(call, o) for call in calls for o in request_pairs(trace, call)[0]]
    if found:
        call, first = found[0]
        return Score(
            "no_orphan_tool_results",
            False,
            CHECK,
            f"{len(found)} tool result(s) with no call before them, in {len({c['index'] for c, _ in found})} request(s); "
            f"first: call {call['index']}, message {first.position} of {len(call['message_keys'])}, answering "
            f"{first.call_id}, whose call is not in the request (summarized away across the cut: langchain#38352); a "
            "provider answers such a request with a 400",
        )
    groups = len(parallel_groups(trace))
    return Score(
        "no_orphan_tool_results",
        True,
        CHECK,
        f"every tool result in {len(calls)} request(s) follows its call ({groups} parallel call group(s) made)",
    )


def parallel_groups(trace: Trace) -> list[frozenset[str]]:
    """The call ids of each assistant reply that made two or more tool calls at once."""
    groups = []
    for call in trace.agent_calls():
        ids = [tc.get("id") for tc in (call.get("response") or {}).get("tool_calls") or [] if tc.get("id")]
        if len(ids) >= 2:
            groups.append(frozenset(ids))
    return groups


def _first_kept(trace: Trace, call: dict[str, Any]) -> dict[str, Any] | None:
    """The first message of ``call``'s request that came from before the cut: after the summary at its head, or after
    the user messages a trimmed window pins in front."""
    messages = [trace.messages[k] for k in call["message_keys"]]
    start = 1 if call.get("summary_at_head") else 0
    while start < len(messages) and messages[start].get("type") in ("human", "system"):
        start += 1
    return messages[start] if start < len(messages) else None


def cut_at_parallel_calls(trace: Trace) -> Score:
    """Some compaction's cut fell at a parallel call group (see the module docstring)."""
    groups = parallel_groups(trace)
    if not groups:
        return Score(
            "cut_at_parallel_calls", False, VALIDITY, "the agent made no parallel tool calls: nothing could straddle a cut"
        )
    members = frozenset().union(*groups)
    cuts = [e for e in trace.compactions() if e["type"] in CUT_EVENTS]
    for event in cuts:
        first = _first_kept(trace, trace.call(event["call_index"]))
        body = (first or {}).get("data", {})
        if first is None:
            continue
        if first.get("type") == "ai" and {tc.get("id") for tc in body.get("tool_calls") or []} & members:
            return Score(
                "cut_at_parallel_calls",
                True,
                VALIDITY,
                f"the {event['type']} at call {event['call_index']} kept the conversation from the assistant message that "
                "made a parallel call group: the cut fell at it",
            )
        if first.get("type") == "tool" and body.get("tool_call_id") in members:
            return Score(
                "cut_at_parallel_calls",
                True,
                VALIDITY,
                f"the {event['type']} at call {event['call_index']} kept the conversation from a result of a parallel call "
                f"group ({body.get('tool_call_id')}): the cut fell between the calls and their results",
            )
    return Score(
        "cut_at_parallel_calls",
        False,
        VALIDITY,
        f"{len(groups)} parallel call group(s), but none of {len(cuts)} cut(s) fell at one (the case did not test the "
        "straddle under this strategy)",
    )


def _state_system_text(trace: Trace) -> str | None:
    calls = trace.agent_calls()
    if not calls or not calls[0]["message_keys"]:
        return None
    head = trace.messages[calls[0]["message_keys"][0]]
    return trace.message_text(calls[0]["message_keys"][0]) if head.get("type") == "system" else None


def system_prompt_in_state(trace: Trace) -> Score:
    text = _state_system_text(trace)
    if not text:
        return Score(
            "system_prompt_in_state", False, VALIDITY, "the first request has no system message at the head of its messages"
        )
    return Score(
        "system_prompt_in_state", True, VALIDITY, f"the first request opens with a system message ({len(text)} characters)"
    )


def cut_made(trace: Trace) -> Score:
    cuts = [e for e in trace.compactions() if e["type"] in CUT_EVENTS]
    if not cuts:
        return Score("cut_made", False, VALIDITY, "no compaction cut the conversation (no summary, no trimmed window)")
    return Score("cut_made", True, VALIDITY, f"{len(cuts)} cut(s), the first a {cuts[0]['type']} at call {cuts[0]['call_index']}")


def system_prompt_kept(trace: Trace) -> Score:
    """Every request from the first cut on still holds the system text that opened the state."""
    text = _state_system_text(trace)
    events = [e for e in trace.compactions() if e["type"] in CUT_EVENTS]
    if not text or not events:
        why = "no system message in the state" if not text else "no cut"
        return Score("system_prompt_kept", True, CHECK, f"nothing to lose ({why})")
    first = events[0]["call_index"]
    after = [c for c in trace.agent_calls() if c["index"] >= first]
    lost = [
        c["index"]
        for c in after
        if text not in (trace.system_text(c) or "")
        and not any(trace.messages[k].get("type") == "system" and trace.message_text(k) == text for k in c["message_keys"])
    ]
    if lost:
        return Score(
            "system_prompt_kept",
            False,
            CHECK,
            f"the system message at the head of the state is gone from {len(lost)} of {len(after)} request(s) from the "
            f"{events[0]['type']} at call {first} on (first: call {lost[0]}): summarized away with the messages before "
            "the cut (deer-flow#5454)",
        )
    return Score(
        "system_prompt_kept", True, CHECK, f"all {len(after)} request(s) from the {events[0]['type']} at call {first} on keep it"
    )
