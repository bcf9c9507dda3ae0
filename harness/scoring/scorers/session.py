"""Session probes: a recorded session replayed from its cut, each probe's answer read against its control's.

A probe (`harness.scenarios.model.SessionProbe`) is asked as one turn after the cut (found by its question's text,
so a run that asked the task first and one that asked the probes alone are read alike). Its answer is read by the one
reader (`harness.answers.judge_value`, against each expected answer, the stale ones as earlier values; a path or
artifact probe by `harness.answers.judge_path`): ``right``,
``stale`` or ``lost`` (neither: "I don't know", another value, nothing). Where the answer was when it was asked, at
the question's first agent call: ``retained`` (in the summary at the head of the request, or still in view),
``recovered`` (a page of a history file read in that turn returned it), or nowhere the agent was sent.

A probe counts (is valid) only where the full-context control (`harness.suites.replay`; its answers are in the arm's
trace, ``final["control"]``) answered it right, and where its answer had left view (it is in no kept message of the
question's first call; under the ``none`` arm nothing leaves view by design, so that rule is off there). Every other
probe is INVALID for that session, with the reason ("the control did not answer it: <its answer>").
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness import answers
from harness.scenarios.schema import Scenario, SessionProbe
from harness.scoring.scorers.needle import carries_answer
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.scoring.scorers.view import history_reads, locate
from harness.task_format import parse_question
from harness.trace.schema import Trace

VERDICTS = ("right", "stale", "lost")
PATH_TYPES = ("artifact", "path")
"""Probe types whose answer is a file: read as paths (`harness.answers.judge_path`: ``a/b``, ``./a/b`` and ``/a/b``
alike), every other type as a value."""
BUCKETS = ("retained", "recovered", "right_unsourced", "stale", "lost")
"""Where a valid probe ended: answered right from the summary or a kept message (``retained``), right through a
history page read for it (``recovered``), right with the answer nowhere the agent was sent (``right_unsourced``: a
tool called again, a guess), answered with a stale value, or not answered (``lost``)."""


def read_probe(reply: str | None, probe: SessionProbe) -> tuple[str, str | None, str]:
    """(verdict, the value read, how it was read) of ``reply`` to ``probe``: ``right`` when it commits to one of the
    expected answers (however written), ``stale`` when to one of its stale answers, else ``lost``."""
    if not reply:
        return "lost", None, "no answer"
    if probe.type in PATH_TYPES:
        path = answers.judge_path(reply, probe.expected)
        stale = answers.judge_path(reply, probe.stale) if probe.stale and not path.correct else None
        if path.correct:
            return "right", _value(path.answered), path.how
        if stale is not None and stale.correct:
            return "stale", _value(stale.answered), stale.how
        return "lost", _value(path.answered), path.how
    key = parse_question(probe.question) or probe.question
    verdicts = [answers.judge_value(reply, key, e, probe.stale, [x for x in probe.expected if x != e]) for e in probe.expected]
    right = next((v for v in verdicts if v.correct), None)
    if right is not None:
        return "right", _value(right.answered), right.how
    stale = next((v for v in verdicts if v.stale), None)
    if stale is not None:
        return "stale", _value(stale.answered), stale.how
    return "lost", _value(verdicts[0].answered), verdicts[0].how


def _value(answered: str | tuple[str, ...] | None) -> str | None:
    return answered if isinstance(answered, str) or answered is None else ", ".join(answered)


def _turns(texts: list[str], probes: tuple[SessionProbe, ...]) -> list[int | None]:
    """The turn each probe was asked in (its question's text, in order), None when it was not asked."""
    out: list[int | None] = []
    start = 0
    for probe in probes:
        turn = next((t for t in range(start, len(texts)) if texts[t] == probe.question), None)
        out.append(turn)
        start = turn + 1 if turn is not None else start
    return out


def _where(trace: Trace, turn: int, probe: SessionProbe) -> str:
    """Where ``probe``'s answer was at its question's first call: ``view``, ``summary``, ``history`` or ``none``."""
    calls = trace.agent_calls(turn)
    if not calls:
        return "none"

    def holds(key: str) -> bool:
        text = trace.message_text(key)
        return text != probe.question and any(carries_answer(text, e) for e in probe.expected)

    where = locate(trace, calls[0], holds)
    if where.in_summary:
        return "summary"
    if where.stated:
        return "view"
    pages = [trace.tool_result(tc.get("id") or "") or "" for tc in history_reads(trace, turn)]
    if where.on_history_page or any(carries_answer(p, e) for p in pages for e in probe.expected):
        return "history"
    return "none"


def probe_records(trace: Trace, scenario: Scenario) -> list[dict[str, Any]]:
    """One record per probe: its id, type, stating message and origin, the turn it was asked in, the arm's verdict and
    the control's (each with the value read), where the answer was, its bucket, and whether it counts (``valid``,
    with ``why`` not)."""
    control = trace.final.get("control")
    texts = [t["text"] for t in trace.turns]
    turns = _turns(texts, scenario.probes)
    control_turns: list[int | None] = (
        _turns(list(control.get("turns") or []), scenario.probes) if control else [None] * len(scenario.probes)
    )
    none_arm = trace.config.get("strategy") == "none"
    records = []
    for probe, turn, cturn in zip(scenario.probes, turns, control_turns):
        reply = trace.answer(turn) if turn is not None else None
        verdict, answered, how = read_probe(reply, probe)
        creply = control["answers"][cturn] if control and cturn is not None and cturn < len(control["answers"]) else None
        cverdict, canswered, _ = read_probe(creply, probe)
        where = _where(trace, turn, probe) if turn is not None else "none"
        why = ""
        if control is None:
            why = "no control ran for this case (run it as the session eval)"
        elif control.get("error"):
            why = f"the control ended in an error ({control['error'].get('type')}): it answered nothing to compare with"
        elif cverdict != "right":
            why = f"the control did not answer it: {(creply or '(no answer)')[:160]!r}"
        elif turn is None:
            why = "it was never asked (the run ended first)"
        elif where == "view" and not none_arm:
            why = "its answer was still in view when it was asked (a kept message states it): compaction was not tested"
        if verdict == "right":
            bucket = {"summary": "retained", "view": "retained", "history": "recovered"}.get(where, "right_unsourced")
        else:
            bucket = verdict
        records.append(
            {
                "id": probe.id,
                "type": probe.type,
                "message": probe.message,
                "origin": probe.origin,
                "turn": turn,
                "valid": not why,
                "why": why,
                "verdict": verdict,
                "answered": answered,
                "how": how,
                "where": where,
                "bucket": bucket,
                "control": {"verdict": cverdict, "answered": canswered},
            }
        )
    return records


def compacted_at_cut(trace: Trace) -> Score:
    """Validity: a compaction happened at the first agent call after the cut (the window was chosen for it)."""
    session = trace.final.get("session") or {}
    said = (
        f"first call {session.get('first_call_tokens', '?')} tokens ({session.get('first_call_message_tokens', '?')} in its "
        f"messages), window {session.get('window', '?')} "
        f"({session.get('rule', 'not recorded')})"
    )
    agent = trace.agent_calls()
    events = trace.compactions()
    if not agent or not events:
        return Score("compacted_at_cut", False, VALIDITY, f"no compaction after the cut ({said}): the session is not tested")
    first = events[0]
    if first["call_index"] != agent[0]["index"]:
        return Score(
            "compacted_at_cut",
            False,
            VALIDITY,
            f"the first compaction came at call {first['call_index']}, not at the first call after the cut "
            f"({agent[0]['index']}; {said})",
        )
    return Score(
        "compacted_at_cut",
        True,
        VALIDITY,
        f"{first['type']} at the first call after the cut: {first['tokens_before']}->{first['tokens_after']} tokens ({said})",
    )


def session_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Scores of a session case: validity (compacted at the cut; at least one probe counts), the checks over the
    probes that count (every one answered right; none stale, when a probe has stale answers), and measures (the
    buckets, the control's score, the first call)."""
    records = probe_records(trace, scenario)
    valid = [r for r in records if r["valid"]]
    invalid = [f"{r['id']}: {r['why']}" for r in records if not r["valid"]]
    scores = [
        compacted_at_cut(trace),
        Score(
            "session_probes_valid",
            bool(valid),
            VALIDITY,
            f"{len(valid)} of {len(records)} probes count" + (f"; invalid: {'; '.join(invalid)}" if invalid else ""),
        ),
    ]
    wrong = next((r for r in valid if r["verdict"] != "right"), None)
    scores.append(
        Score(
            "session_probes_correct",
            wrong is None,
            CHECK,
            f"{len(valid)} probe(s) that count, all answered right"
            if wrong is None
            else f"{wrong['id']} ({wrong['type']}): {wrong['verdict']}, read {wrong['answered']!r} ({wrong['how']})",
        )
    )
    if any(p.stale for p, r in zip(scenario.probes, records) if r["valid"]):
        stale = next((r for r in valid if r["verdict"] == "stale"), None)
        scores.append(
            Score(
                "session_no_stale",
                stale is None,
                CHECK,
                "no probe that counts was answered with a stale value"
                if stale is None
                else f"{stale['id']} answered stale: {stale['answered']!r} ({stale['how']})",
            )
        )
    buckets = Counter(r["bucket"] for r in valid)
    control_right = sum(r["control"]["verdict"] == "right" for r in records)
    session = trace.final.get("session") or {}
    scores += [
        Score("session_probes", len(records), MEASURE, "probes the session asks"),
        Score("session_probes_counted", len(valid), MEASURE, "probes the control answered right and compaction took out of view"),
        *(Score(f"session_{b}", buckets.get(b, 0), MEASURE, BUCKET_HELP[b]) for b in BUCKETS),
        Score("session_control_right", control_right, MEASURE, "probes the full-context control answered right"),
        Score("session_first_call_tokens", session.get("first_call_tokens"), MEASURE, "the first call after the cut"),
    ]
    return scores


BUCKET_HELP = {
    "retained": "probes that count answered right from the summary or a kept message",
    "recovered": "probes that count answered right through a history page read for them",
    "right_unsourced": "probes that count answered right with the answer nowhere the agent was sent",
    "stale": "probes that count answered with a stale value",
    "lost": "probes that count not answered (another value, don't know, nothing)",
}


def session_record(trace: Trace, scenario: Scenario) -> dict[str, Any]:
    """What a session row carries beside its scores (``row["session"]``): how the window was chosen, the tokens
    before and after each compaction, the control (its answers' score, size and cost) and every probe's record."""
    control = trace.final.get("control")
    records = probe_records(trace, scenario)
    return {
        **(trace.final.get("session") or {}),
        "compactions": [
            {"type": e["type"], "call": e["call_index"], "before": e["tokens_before"], "after": e["tokens_after"]}
            for e in trace.compactions()
        ],
        "control": None
        if control is None
        else {
            "right": sum(r["control"]["verdict"] == "right" for r in records),
            "n": len(records),
            **{k: control.get(k) for k in ("calls", "peak_context", "tokens_sent", "cost_usd", "error")},
            "window": (control.get("config") or {}).get("window"),
        },
        "probes": records,
    }
