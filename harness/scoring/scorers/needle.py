"""Needle recovery: a fact summarized away, asked for later, and where the answer came from (the history file,
a tool called again, the summary); the chain kind's length check."""

from __future__ import annotations

import re

from harness import answers
from harness.compaction.config import DEFAULT_STRATEGY
from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers.shared import (
    _target,
    compacted,
    unreadable,
)
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Role, Score
from harness.scoring.scorers.view import history_paths_seen, history_reads, locate, repeated_calls
from harness.trace.schema import Trace


def needle_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Validity (compacted, needle_summarized_away), then needle_correct and needle_via_history.

    With several needles (each asked in its own turn) every key is scored once, over all of
    them: a check holds only if it holds for every needle, counts are summed, and the
    explanation names the first needle that failed.
    """
    per_needle = [_one_needle_scores(trace, needle, scenario) for needle in scenario.needles]
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


def needle_answered(reply: str, needle: Needle, scenario: Scenario) -> answers.Verdict:
    """The one reading of an answer to a needle's question (`harness.answers.judge_value`): right when it commits to
    the needle's value, however written; the case's other needles are look-alikes it may give instead."""
    others = [n.answer for n in scenario.needles if n is not needle]
    return answers.judge_value(reply, needle.key, needle.answer, others=others)


def _one_needle_scores(trace: Trace, needle: Needle, scenario: Scenario) -> list[Score]:
    scores: list[Score] = []
    turn = needle.turn
    answer = needle.answer
    calls = trace.agent_calls(turn)
    first = calls[0] if calls else None
    brought_back = False
    if first is None:
        scores.append(Score("needle_summarized_away", False, VALIDITY, f"no agent call in turn {turn}"))
    else:
        stated, brought_back = _in_view(trace, first, answer)
        scores.append(
            Score(
                "needle_summarized_away",
                not stated,
                VALIDITY,
                "the needle was still in the agent's view when the question came (invalid: tests recall, not recovery)"
                if stated
                else "the needle was out of view when the question came"
                + (
                    " (a page of the history file the agent read for an earlier question, still in view, holds it)"
                    if brought_back
                    else ""
                ),
            )
        )
    reply = trace.answer(turn) or ""
    verdict = needle_answered(reply, needle, scenario)
    correct = verdict.correct
    scores.append(
        Score(
            "needle_correct",
            correct,
            CHECK,
            f"expected {answer!r}; read {verdict.answered!r} ({verdict.how}) from {reply[:160]!r}",
        )
    )
    paths = history_paths_seen(trace, turn)
    reads = history_reads(trace, turn, paths)
    found = [tc for tc in reads if answer.lower() in (trace.tool_result(tc.get("id") or "") or "").lower()]
    # The correct answer came from the history file: a page of it returned the needle AND the reply carried it. A
    # page read for an earlier question that is still in view and holds the needle counts as that page.
    earlier_page = brought_back and not found
    if not paths:
        why = "no summary in view named a history file"
    elif earlier_page and correct:
        why = "a page of the history file read for an earlier question, still in view, held the needle"
    elif found and correct:
        why = f"read_file on {_target(found[0])} (offset {found[0]['args'].get('offset', 0)}) returned the needle after {len(reads)} page(s)"
    elif found:
        why = f"read_file on {_target(found[0])} returned the needle, but the reply did not carry it"
    elif (refused := unreadable(trace, reads, "the history file")) is not None:
        why = refused
    elif reads:
        why = f"read {len(reads)} page(s) of the history file but none contained the needle"
    else:
        why = "never called read_file on the history file the summary named"
    via_history = (bool(found) or earlier_page) and correct
    scores.append(Score("needle_via_history", via_history, _recovery_role(trace, "needle_via_history"), why))
    scores.append(Score("history_pages_read", len(reads), MEASURE, f"read_file calls on the history file in turn {turn}"))
    recall = _via_recall(trace, turn, answer, correct)
    scores.append(recall)
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


def _in_view(trace: Trace, call: dict, answer: str) -> tuple[bool, bool]:
    """Whether ``answer`` is in the request of ``call``: (as stated: anywhere but a page of the history file the agent
    read, the summary included; on a page of the history file the agent read). Each question's validity is its own: a
    needle the agent brought back into view while recovering an earlier one still tests recovery, and is recorded."""
    where = locate(trace, call, lambda key: answer.lower() in trace.message_text(key).lower())
    return where.stated or where.in_summary, where.on_history_page


def _recovery_role(trace: Trace, key: str) -> Role:
    """CHECK for the recovery check of the trace's strategy (its ``INFO.recovery_check``), MEASURE for the others: a
    recovery path the strategy does not have never fails a case."""
    from harness.compaction.strategies.registry import INFO

    strategy = trace.config.get("strategy", DEFAULT_STRATEGY)  # a config dict omits the default strategy
    info = INFO.get(strategy)
    return CHECK if info is not None and info.recovery_check == key else MEASURE


def _via_recall(trace: Trace, turn: int, answer: str, correct: bool) -> Score:
    """The correct answer came from calling again a tool whose earlier result had been cleared (observation masking):
    a call in the question's turn repeating an earlier call returned the needle, and the reply carried it."""
    again = repeated_calls(trace, turn)
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
