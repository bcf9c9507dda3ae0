"""Probe questions about typed facts: is each question valid (its facts left view before it was asked), was it
answered with the latest value (read from the answer, never a substring), where did the answer come from, and the
per-fact records a result row carries.

Expected answers come from the scenario: the latest member of the asked fact's chain stated in a turn before the
question; the earlier members are stale. A recall of two facts is a reference question ("What is the access code
of the primary site?"): the first fact (the attribute) gives the expected value, the second (the fact naming its
entity) is needed to reach it, so both are judged with the answer. A question is valid when every fact it asks left view (`facts.Timeline`) at
or before the question's first call and is not stated there; a fact that a history page, read for an earlier
question, brought back is still out of view, and the explanation records it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage

from harness import answers
from harness.scenarios.schema import Question, Scenario, stated_in_grammar
from harness.scoring.scorers.facts import (
    Timeline,
    TraceReader,
    TrackedFact,
    asked_questions,
    retention_record,
    survival_cliff_score,
    timeline,
    tracked_facts,
    unmasked,
)
from harness.scoring.scorers.needle import carries_answer
from harness.scoring.scorers.shared import compacted
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.scoring.scorers.view import Where, history_reads, locate, repeated_calls
from harness.task_format import PROBES, call_target, find_facts
from harness.trace.schema import Trace

PROBE_CHECKS = {
    "recall": "probe_recall_correct",
    "continuation": "probe_continuation_correct",
    "decision": "probe_decision_correct",
    "artifact": "probe_artifact_exact",
}
VIAS = {
    "summary": "the summary at the head of the question's first call held the value",
    "history": "a page of a history file returned the value",
    "recall": "a tool call made again returned the value",
}


@dataclass
class Judged:
    """One question, judged. ``per_fact``: for each asked fact, {expected, correct, stale, via}."""

    question: Question
    valid: bool
    why: str  # why it is invalid, or a note on a valid one ("" when nothing to say)
    correct: bool
    stale: bool
    expected: str | list[str]
    answered: str | list[str] | None
    reply: str
    rejected: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)  # recall, continuation, decision: the stale values of the chain
    rejected_recall: float | None = None  # decision: share of the stale values named as rejected
    precision: float | None = None  # artifact
    recall: float | None = None  # artifact
    per_fact: dict[str, dict[str, Any]] = field(default_factory=dict)
    how: str = ""  # how the answer was read (`harness.answers`)

    def record(self, fact_id: str) -> dict[str, Any]:
        """The question as a fact record carries it."""
        one = self.per_fact[fact_id]
        return {
            "turn": self.question.turn,
            "probe": self.question.probe,
            "valid": self.valid,
            "correct": one["correct"],
            "stale": one["stale"],
            "via": one["via"],
            "expected": one["expected"],
            "answered": self.answered,
        }


def expected_member(fact: TrackedFact, turn: int) -> int:
    """The chain member (index) a question in ``turn`` expects: the latest said before the question."""
    return max((i for i in range(len(fact.turns)) if fact.said_before(i, turn)), default=0)


def judge(reader: TraceReader, lines: dict[str, Timeline], q: Question, paraphrased: frozenset[str] = frozenset()) -> Judged:
    """Validity, answer and provenance of question ``q``. A fact in view makes it invalid, and the reason says how:
    its statement is ("still in view as stated"), or only its value's word is, say in a document that happens to
    carry it ("the value occurs in view", naming the message); ``paraphrased``: the facts whose statement is not in
    the 'the <key> is <value>' grammar, for which any occurrence of the value counts as their statement."""
    trace = reader.trace
    facts = [lines[x].fact for x in q.facts]
    reply = trace.answer(q.turn) or ""
    calls = trace.agent_calls(q.turn)
    first = calls[0] if calls else None
    problems, notes = [], []
    wheres = {}
    for f in facts:
        token = f.tokens[expected_member(f, q.turn)]
        line = lines[f.id]
        if first is None:
            problems.append("no agent call in its turn")
            continue
        wheres[f.id] = where = reader.where(first, f, token)
        left = line.left_view_round
        left_at = trace.compactions()[left - 1]["call_index"] if left is not None else None
        if f.updated and expected_member(f, q.turn) > 0:
            # An updated fact: the question is valid once its original statement left view, whether the update is
            # still in view or not (the stale value then waits in the summary or the history file: the trap). A
            # message stating the update names the old value too ("..., not X"): it is the update, not the original.
            original = _original(reader, first, f)
            if original.stated:
                problems.append(_in_view(reader, first, f, original=True, grammar=f.id not in paraphrased))
                continue
            if where.stated:
                notes.append(f"{f.id}'s update is still in view; its original statement is not")
            if original.on_history_page or where.on_history_page:
                notes.append(f"{f.id} is on a history page read for an earlier question (still out of view as stated)")
            continue
        if where.stated:
            problems.append(_in_view(reader, first, f, token, grammar=f.id not in paraphrased))
        elif left_at is None or left_at > first["index"]:
            problems.append(f"{f.id} never left view before the question")
        elif where.on_history_page:
            notes.append(f"{f.id} is on a history page read for an earlier question (still out of view as stated)")
    others = [v for x, line in lines.items() if x not in q.facts and line.fact.type != "artifact" for v in line.fact.values]
    judged = read_answer(q, facts, reply, others)
    judged.valid = not problems
    judged.why = "; ".join(problems or notes)
    for f in facts:
        one = judged.per_fact[f.id]
        one["via"] = _via(reader, q.turn, f, one["expected_token"], wheres.get(f.id)) if one["correct"] else None
        del one["expected_token"]
    return judged


def _in_view(
    reader: TraceReader, call: dict, fact: TrackedFact, token: str = "", *, original: bool = False, grammar: bool
) -> str:
    """Why ``fact`` is in view at ``call`` (a question there is invalid): a message states it ("still in view as
    stated", or "as first stated" for an update chain's original), or only its value occurs there as a word ("the value
    occurs in view", with the message that carries it). ``grammar`` False: the fact is not stated in the task grammar,
    so its value in view is taken for its statement."""
    as_stated = f"{fact.id} still in view as {'first stated' if original else 'stated'}"
    if original:
        token = fact.tokens[0]
    later = [t for t in fact.tokens[1:] if t.lower() != token.lower()] if original else []
    if not grammar or fact.type == "artifact":
        return as_stated

    def holds(key: str) -> bool:
        return reader.has(key, token, fact.masks) and not any(reader.has(key, t, fact.masks) for t in later)

    stating = locate(
        reader.trace,
        call,
        lambda k: holds(k) and _states(reader, k, fact, token),
        system=fact.place == "system",
        history_reads=reader.history_reads,
    )
    if stating.stated:
        return as_stated
    return f"{fact.id}: the value occurs in view ({token!r} in {_holder(reader, call, fact, token)}), not its statement"


def _states(reader: TraceReader, key: str, fact: TrackedFact, token: str) -> bool:
    """Message ``key`` states ``fact`` with ``token`` as its value ('the <key> is <value>'), not only the word."""
    text = unmasked(reader.trace.message_text(key), fact.masks)
    return any(v.lower() == token.lower() for v in find_facts(fact.key, text))


def _holder(reader: TraceReader, call: dict, fact: TrackedFact, token: str) -> str:
    """The first message of ``call``'s request in view (neither the summary at its head nor a history page) that carries
    ``token``, described for an explanation: "the result of fetch_document(DOC-7)", "a user message"..."""
    trace = reader.trace
    for pos, (key, msg) in enumerate(zip(call["message_keys"], trace.request(call))):
        if (pos == 0 and call.get("summary_at_head")) or not reader.has(key, token, fact.masks):
            continue
        if isinstance(msg, ToolMessage):
            if msg.tool_call_id in reader.history_reads:
                continue
            tc = next((tc for _, tc in trace.tool_calls() if tc.get("id") == msg.tool_call_id), None)
            return f"the result of {tc['name']}({call_target(tc)})" if tc else "a tool result"
        return {"human": "a user message", "ai": "an assistant message"}.get(msg.type, f"a {msg.type} message")
    return "the system prompt"


def _original(reader: TraceReader, call: dict, fact: TrackedFact) -> Where:
    """Where the first value of ``fact``'s chain is as first stated in ``call``'s request: in a message that states
    none of the later values (a message stating an update names the old value too: ", not X")."""
    first, later = fact.tokens[0], [t for t in fact.tokens[1:] if t.lower() != fact.tokens[0].lower()]
    return locate(
        reader.trace,
        call,
        lambda k: reader.has(k, first, fact.masks) and not any(reader.has(k, t, fact.masks) for t in later),
        system=fact.place == "system",
        history_reads=reader.history_reads,
    )


def read_answer(q: Question, facts: list[TrackedFact], reply: str, others: Sequence[str] = ()) -> Judged:
    """The answer to ``q`` read from ``reply`` and compared with the scenario's expected answer, validity and
    provenance aside (they need the trace): what every probe check and the judge's calibration read answers by
    (`harness.answers`: one reading, one rule per probe kind). ``facts``: the tracked facts ``q`` asks, in its order;
    ``others``: the values of the case's other facts (look-alikes an answer may give instead)."""
    if q.probe == "artifact":
        return _answer_artifact(q, facts, reply)
    fact = facts[0]
    i = expected_member(fact, q.turn)
    expected, stale = fact.values[i], [v for v in fact.values[:i] if v.lower() != fact.values[i].lower()]
    # A reference question's further facts (the entity the reference names) are context, never the answer.
    context = [v for other in facts[1:] for v in other.values]
    if q.probe == "decision":
        verdict = answers.judge_decision(reply, fact.key, expected, stale, others, context)
    else:
        verdict = answers.judge_value(reply, fact.key, expected, stale, [*fact.values[i + 1 :], *others], context)
    answered = verdict.answered if isinstance(verdict.answered, str) or verdict.answered is None else None
    rejected = list(verdict.rejected) if q.probe == "decision" else []
    judged = Judged(q, False, "", verdict.correct, verdict.stale, expected, answered, reply, rejected, earlier=stale)
    judged.how = verdict.how
    if q.probe == "decision" and stale:
        named = {answers.normal(v) for v in rejected}
        judged.rejected_recall = sum(answers.normal(v) in named for v in stale) / len(stale)
    correct = verdict.correct
    judged.per_fact = {fact.id: {"expected": expected, "expected_token": expected, "correct": correct, "stale": verdict.stale}}
    # A reference question (a recall of an attribute through the fact naming its entity): the asked value is the
    # attribute's, and right only when the reference was resolved too, so each further fact is as right as the answer.
    for other in facts[1:]:
        value = other.values[expected_member(other, q.turn)]
        judged.per_fact[other.id] = {"expected": value, "expected_token": value, "correct": correct, "stale": False}
    return judged


def _answer_artifact(q: Question, facts: list[TrackedFact], reply: str) -> Judged:
    """An artifact probe: the set of paths named as created or changed must equal the asked artifacts' paths."""
    want = [f.key for f in facts]
    verdict = answers.judge_paths(reply, want)
    paths = list(verdict.answered or ())
    hit = set(paths) & set(want)
    judged = Judged(q, False, "", verdict.correct, False, want, paths, reply)
    judged.how = verdict.how
    judged.precision = len(hit) / len(paths) if paths else 0.0
    judged.recall = len(hit) / len(want)
    judged.per_fact = {
        f.id: {"expected": f.key, "expected_token": f.key, "correct": f.key in paths, "stale": False} for f in facts
    }
    return judged


def _via(reader: TraceReader, turn: int, fact: TrackedFact, token: str, where: Any) -> str | None:
    """Where a correct answer came from: still in view, the summary at the head of the question's first call, a page
    of a history file (read in this turn, or for an earlier question and still in view), a repeated tool call."""
    trace = reader.trace
    if where is None:
        return None
    if where.stated:
        return "view"
    if where.in_summary:
        return "summary"
    returned = [unmasked(trace.tool_result(tc.get("id") or "") or "", fact.masks) for tc in history_reads(trace, turn)]
    if where.on_history_page or any(carries_answer(text, token) for text in returned):
        return "history"
    again = [unmasked(trace.tool_result(tc.get("id") or "") or "", fact.masks) for tc in repeated_calls(trace, turn)]
    return "recall" if any(carries_answer(text, token) for text in again) else None


def judge_all(trace: Trace, scenario: Scenario) -> tuple[list[dict[str, Any]], list[Judged]]:
    """Every tracked fact's retention record and every question judged (needles' questions included)."""
    reader = TraceReader(trace)
    lines = {f.id: timeline(reader, f) for f in tracked_facts(scenario)}
    records = [retention_record(reader, line) for line in lines.values()]
    paraphrased = frozenset(f.id for f in scenario.facts if not stated_in_grammar(scenario, f))
    return records, [judge(reader, lines, q, paraphrased) for q in asked_questions(scenario)]


def fact_records(trace: Trace, scenario: Scenario) -> list[dict[str, Any]]:
    """One JSON-able dict per fact (an update chain is one, keyed by its first fact): retention through the rounds
    (`facts.retention_record`) and, when a question asks it, ``question``: {turn, probe, valid, correct, stale, via,
    expected, answered} (the first question that asks it)."""
    records, judged = judge_all(trace, scenario)
    for rec in records:
        asking = next((j for j in judged if rec["id"] in j.question.facts), None)
        if asking is not None:
            rec["question"] = asking.record(rec["id"])
    return records


def _describe(j: Judged) -> str:
    what = ", ".join(j.question.facts)
    return f"turn {j.question.turn} ({what}): expected {j.expected!r}, read {j.answered!r} ({j.how}) from {j.reply[:120]!r}"


def probe_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Scores of a probe case: validity (compacted before the first question, questions_out_of_view), a check per
    probe kind asked (over valid questions), no_stale_answer when an asked fact has updates, and measures."""
    records, judged = judge_all(trace, scenario)
    facts = {f.id: f for f in tracked_facts(scenario)}
    valid = [j for j in judged if j.valid]
    scores = [compacted(trace, before_turn=min((j.question.turn for j in judged), default=None))]
    invalid = [f"turn {j.question.turn}: {j.why}" for j in judged if not j.valid]
    notes = [f"turn {j.question.turn}: {j.why}" for j in valid if j.why]
    scores.append(
        Score(
            "questions_out_of_view",
            bool(valid),
            VALIDITY,
            f"{len(valid)} of {len(judged)} questions valid"
            + (f"; invalid: {'; '.join(invalid)}" if invalid else "")
            + (f"; noted: {'; '.join(notes)}" if notes else ""),
        )
    )
    # The checks cover the valid questions; under the control arm (strategy none: nothing is compacted by design, so
    # no question leaves view) every question, since that arm's result is the task with the whole history in view.
    scored = judged if trace.config.get("strategy") == "none" else valid
    for probe in (p for p in PROBES if any(j.question.probe == p for j in scored)):  # no question to score: no check
        mine = [j for j in scored if j.question.probe == probe]
        bad = next((j for j in mine if not j.correct), None)
        why = f"{len(mine)} valid {probe} question(s), all correct" if bad is None else _describe(bad)
        scores.append(Score(PROBE_CHECKS[probe], bad is None, CHECK, why))
    if any(facts[x].updated and facts[x].type != "artifact" for j in judged for x in j.question.facts):
        stale = next((j for j in scored if j.stale), None)
        why = "no valid question was answered with a stale value" if stale is None else "stale answer: " + _describe(stale)
        scores.append(Score("no_stale_answer", stale is None, CHECK, why))
    vias = [one["via"] for j in valid for one in j.per_fact.values()]
    scores += [
        Score("questions_asked", len(judged), MEASURE, "questions the case asks"),
        Score("questions_valid", len(valid), MEASURE, "questions whose facts were out of view when asked"),
        Score("questions_correct", sum(j.correct for j in valid), MEASURE, "valid questions answered correctly"),
        Score("stale_answers", sum(j.stale for j in valid), MEASURE, "valid questions answered with a stale value"),
        survival_cliff_score(records, MEASURE),
        *(
            Score(f"answered_via_{v}", vias.count(v), MEASURE, f"correct answers (per asked fact): {why}")
            for v, why in VIAS.items()
        ),
    ]
    artifact = [j for j in judged if j.question.probe == "artifact"]
    if artifact:
        scores += [
            Score(
                f"artifact_{m}",
                _mean([getattr(j, m) for j in artifact if j.valid]),
                MEASURE,
                f"artifact {m} over valid questions",
            )
            for m in ("precision", "recall")
        ]
    decisions = [j for j in judged if j.question.probe == "decision"]
    if decisions:
        share = _mean([j.rejected_recall for j in decisions if j.valid])
        scores.append(
            Score("decision_rejected_recall", share, MEASURE, "share of stale values named as rejected (valid questions)")
        )
    return scores


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 4) if kept else None
