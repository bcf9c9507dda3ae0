"""Work redone after a compaction, and intent kept against a full-context fork (the redo eval).

**Work redone** (opencode#50816, codex#38931, CooperBench#54). A call is keyed by its tool and its arguments as
canonical JSON (`call_key`). For each compaction (the events at one agent call are one compaction), the calls the
agent made from that call up to the next compaction are compared with the successful calls made before it: those of
the recorded prefix a case is carried on from (``trace.final["prefix_calls"]``) and the agent's own. A call made
before is a **repeat**, except a read of what compaction itself wrote (the history file under
``/conversation_history/``, an evicted result under ``/large_tool_results/``): that is the recovery a summary points
the agent to, not work done twice. A call whose earlier twin failed is a retry, not a repeat (only successful calls
count as made). **Rounds to progress**: the model calls from the compaction until the first one that makes a tool
call not made before (a recovery read is no progress) or replies with text not sent before (a request to restate the
task is no progress); none when no call before the next compaction or the end did.

``no_work_redone`` allows `REDO_ALLOWANCE` repeat per compaction: the step in flight at the cut, whose record a
summary may lose (the reference summarizer drops a progress line at a seeded rate, as a real summary may), is done
again once by an agent that cannot see it done. Finished work listed as pending is redone step after step. It also
fails a compaction followed by no new progress before the next one or the end of the run: a strategy that compacts at
every call (a sliding window moving on) would otherwise spread a loop of repeats one per compaction.

**Intent kept** (Slipstream, arXiv 2605.08580). A case carried on from a recorded prefix (`harness.suites.replay`)
runs twice from the same state, the prefix: the arm compacts at its first call, the full-context control (strategy
none, a window that fits) does not. Each action is a tool and what it acts on (`harness.task_format.call_target`: a
document, a path; the canonical arguments when it names none) or a reply; the history and evicted-result reads of the
recovery are left out of the arm's. Over the first `INTENT_STEPS` actions of each, ``intent_agreement`` is the share
of the control's actions the arm also took (as a multiset: order aside), and ``intent_kept`` holds when the arm's
first action is the control's or the agreement is at least `INTENT_SHARE`. The control's actions are recorded in
the arm's trace (``final["control"]["actions"]``), so `harness score` re-scores both from one trace.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.session import compacted_at_cut
from harness.scoring.scorers.shared import _succeeded, is_clarification_request
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.task_format import call_target
from harness.trace.schema import Trace

REDO_ALLOWANCE = 1
"""Repeats a compaction may cause and still pass ``no_work_redone`` (the step in flight at the cut)."""
INTENT_STEPS = 4
"""K: the actions after the cut compared between the arm and its full-context control."""
INTENT_SHARE = 0.75
"""``intent_kept`` with a first action unlike the control's: the share of the control's K actions the arm took."""
CONTROL_ACTIONS = 10
"""Actions of the control kept in the arm's trace (`harness.suites.replay.control_record`): K and room to raise it."""
RECOVERY_PREFIXES = (da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX)
REPLY = "reply"
CLARIFICATION = "reply asking to restate the task"


def call_key(name: str, args: Any) -> str:  # noqa: ANN401 - a tool call's arguments, as recorded
    """A tool call as the redo checks compare it: its tool and its arguments as canonical JSON."""
    return f"{name} {json.dumps(args, sort_keys=True, separators=(',', ':'), default=str)}"


def is_recovery(tool_call: dict[str, Any]) -> bool:
    """A read of what compaction wrote (the history file, an evicted result): recovery, never redone work."""
    return tool_call.get("name") == "read_file" and call_target(tool_call).startswith(RECOVERY_PREFIXES)


def calls_of(messages: list[Any]) -> list[dict[str, Any]]:
    """The tool calls of LangChain ``messages`` in order, each ``{"name", "args", "ok"}`` (``ok``: answered by a result
    that is not an error)."""
    from langchain_core.messages import AIMessage, ToolMessage

    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    out = []
    for msg in messages:
        for tc in msg.tool_calls if isinstance(msg, AIMessage) else []:
            result = results.get(tc.get("id") or "")
            ok = result is not None and result.status != "error" and not result.text.lstrip().lower().startswith("error")
            out.append({"name": tc["name"], "args": dict(tc.get("args") or {}), "ok": ok})
    return out


def _tool_calls(call: dict[str, Any]) -> list[dict[str, Any]]:
    return list((call.get("response") or {}).get("tool_calls") or [])


def _reply(call: dict[str, Any]) -> str | None:
    """The call's reply text when it made no tool call (None: it called a tool, or has no response)."""
    response = call.get("response") or {}
    return None if not response or _tool_calls(call) else str(response.get("text") or "")


def compaction_points(trace: Trace) -> list[tuple[int, str]]:
    """(agent call index, event type) of each compaction: the events at one call are one compaction."""
    seen: dict[int, str] = {}
    for event in trace.compactions():
        seen.setdefault(event["call_index"], event["type"])
    return sorted(seen.items())


def redo_records(trace: Trace) -> list[dict[str, Any]]:
    """One record per compaction: its call and type, the repeats after it (count and which), the recovery reads left
    out, and the rounds to new progress (None: none before the next compaction or the end)."""
    agent = trace.agent_calls()
    prefix = [call_key(c["name"], c["args"]) for c in trace.final.get("prefix_calls") or [] if c.get("ok")]
    points = compaction_points(trace)
    records = []
    for n, (at, kind) in enumerate(points):
        until = points[n + 1][0] if n + 1 < len(points) else None
        earlier = [c for c in agent if c["index"] < at]
        made = set(prefix) | {
            call_key(tc["name"], tc.get("args")) for c in earlier for tc in _tool_calls(c) if _succeeded(trace, tc)
        }
        said = {text for c in earlier if (text := _reply(c)) is not None}
        repeated: list[str] = []
        recovery, rounds = 0, None
        after = [c for c in agent if c["index"] >= at and (until is None or c["index"] < until)]
        for i, call in enumerate(after, start=1):
            progress = False
            for tc in _tool_calls(call):
                key = call_key(tc["name"], tc.get("args"))
                if is_recovery(tc):
                    recovery += 1
                elif key in made:
                    repeated.append(f"{tc['name']} {call_target(tc) or key}")
                else:
                    progress = True
            text = _reply(call)
            if text is not None and text not in said and not is_clarification_request(text):
                progress = True
            if progress and rounds is None:
                rounds = i
        records.append(
            {
                "call": at,
                "type": kind,
                "repeats": len(repeated),
                "repeated": repeated,
                "recovery_reads": recovery,
                "rounds": rounds,
            }
        )
    return records


def _said(record: dict[str, Any]) -> str:
    what = f"{record['repeats']} repeated" + (f" ({', '.join(record['repeated'][:4])})" if record["repeated"] else "")
    progress = f"new progress in {record['rounds']} round(s)" if record["rounds"] is not None else "no new progress"
    return f"{record['type']} at call {record['call']}: {what}, {record['recovery_reads']} recovery read(s), {progress}"


def redo_scores(trace: Trace) -> list[Score]:
    """``no_work_redone`` (check: at most `REDO_ALLOWANCE` repeats after each compaction, and new progress after each)
    and the measures: repeats in all and at the worst compaction, the most rounds to progress, and the compactions
    followed by no progress."""
    records = redo_records(trace)
    if not records:
        said = "no compaction: nothing could be redone"
        return [
            Score("no_work_redone", True, CHECK, said),
            *(Score(k, None, MEASURE, said) for k in ("redo_repeats", "redo_repeats_max", "redo_rounds_to_progress")),
            Score("redo_no_progress", 0, MEASURE, said),
        ]
    worst = max(records, key=lambda r: r["repeats"])
    rounds = [r["rounds"] for r in records if r["rounds"] is not None]
    stalled = [r for r in records if r["rounds"] is None]
    per = "; ".join(_said(r) for r in records)
    held = worst["repeats"] <= REDO_ALLOWANCE and not stalled
    if worst["repeats"] > REDO_ALLOWANCE:
        verdict = (
            f"{worst['repeats']} calls made before the {worst['type']} at call {worst['call']} were made again "
            f"(allowance {REDO_ALLOWANCE})"
        )
    elif stalled:
        verdict = (
            f"{len(stalled)} of {len(records)} compaction(s) followed by no new progress (the first: the "
            f"{stalled[0]['type']} at call {stalled[0]['call']})"
        )
    else:
        verdict = f"every compaction within the allowance of {REDO_ALLOWANCE} repeat and followed by new progress"
    return [
        Score("no_work_redone", held, CHECK, f"{verdict}: {per}"),
        Score("redo_repeats", sum(r["repeats"] for r in records), MEASURE, f"repeated calls after {len(records)} compaction(s)"),
        Score("redo_repeats_max", worst["repeats"], MEASURE, "repeated calls after the worst compaction"),
        Score(
            "redo_rounds_to_progress", max(rounds) if rounds else None, MEASURE, f"model calls to new progress, the most: {per}"
        ),
        Score("redo_no_progress", sum(r["rounds"] is None for r in records), MEASURE, "compactions followed by no new progress"),
    ]


def actions(trace: Trace, calls: list[dict[str, Any]]) -> list[str]:
    """What the agent did at ``calls``, in order: ``<tool> <target>`` per tool call (recovery reads left out), or a
    reply (one asking to restate the task told apart)."""
    out: list[str] = []
    for call in calls:
        for tc in _tool_calls(call):
            if not is_recovery(tc):
                out.append(f"{tc['name']} {call_target(tc) or call_key(tc['name'], tc.get('args'))}")
        text = _reply(call)
        if text is not None:
            out.append(CLARIFICATION if is_clarification_request(text) else REPLY)
    return out


def intent_record(trace: Trace) -> dict[str, Any]:
    """The arm's and the control's first `INTENT_STEPS` actions after the cut, whether the first match, the share of
    the control's the arm took, and why the comparison cannot be made (``why``, empty when it can)."""
    control = trace.final.get("control")
    arm = actions(trace, trace.agent_calls())[:INTENT_STEPS]
    theirs = list((control or {}).get("actions") or [])[:INTENT_STEPS]
    why = ""
    if control is None:
        why = "no full-context control ran (run the case as the redo eval)"
    elif control.get("error"):
        why = f"the control ended in an error ({(control['error'] or {}).get('type')}): nothing to compare with"
    elif not theirs:
        why = "the control took no action after the cut"
    elif not arm:
        why = "the arm took no action after the cut"
    matched = sum((Counter(arm) & Counter(theirs)).values())
    return {
        "arm": arm,
        "control": theirs,
        "first_match": bool(arm and theirs and arm[0] == theirs[0]),
        "agreement": matched / len(theirs) if theirs else None,
        "why": why,
    }


def intent_scores(trace: Trace) -> list[Score]:
    """``intent_comparable`` (validity), ``intent_kept`` (check), ``intent_agreement`` and ``intent_first_match``."""
    record = intent_record(trace)
    side = f"arm {record['arm']} vs control {record['control']}"
    if record["why"]:
        return [
            Score("intent_comparable", False, VALIDITY, record["why"]),
            Score("intent_kept", False, CHECK, f"not compared: {record['why']}"),
            Score("intent_agreement", None, MEASURE, record["why"]),
            Score("intent_first_match", None, MEASURE, record["why"]),
        ]
    share = record["agreement"]
    kept = record["first_match"] or share >= INTENT_SHARE
    how = "the first action is the control's" if record["first_match"] else f"the first action differs; agreement {share:.2f}"
    return [
        Score("intent_comparable", True, VALIDITY, f"the control took {len(record['control'])} action(s) after the cut"),
        Score(
            "intent_kept",
            kept,
            CHECK,
            f"{how} (kept: the first matches or agreement >= {INTENT_SHARE}): {side}",
        ),
        Score("intent_agreement", share, MEASURE, f"share of the control's first {len(record['control'])} actions the arm took"),
        Score("intent_first_match", record["first_match"], MEASURE, side),
    ]


def redo_eval_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The redo eval's scores: compacted at the cut and a comparable control (validity), then work redone and intent."""
    return [compacted_at_cut(trace), *intent_scores(trace), *redo_scores(trace)]
