"""Retention of typed facts through compaction rounds: where a fact is at each agent call, when its statement left
view, whether each later round kept its latest value (the summary or the kept messages), and the cliff round.

A fact is *stated* at a call when its value (whole word, case aside: `carries_answer`) is in a message of the request
that is neither the summary at the head nor a page of a history file the agent read, or, for a system fact, in the
system prompt of the call; a value that names an entity ("the primary site is ORBIT-7") counts outside the keys of
the facts stated under that entity ("the ORBIT-7 access code is ...": `TrackedFact.masks`). An artifact (a file the agent wrote) is stated by its own write/edit call or that call's
result in view, and is looked for by its path. The value looked for at a call is the latest member of the fact's
update chain stated by then (its value has appeared in some request up to that call); the others are stale.

Round r is the r-th compaction event (summary, mask, trim; 1-based). A fact *left view* at round r when it was stated
in an earlier request and is not stated in the request of that round's call. From then on, each round r is
*retained* when the latest value is anywhere in the round's request (summary or kept messages) and *stale* when a
stale value is there and the latest is not. Survival at round r: kept at every round from leaving view through r.
The cliff round is the first round whose survival over the facts out of view by then is under ``CLIFF_THRESHOLD``.

Needles of needle and chain cases are facts of type "fact" (place tool, doc the needle's), so the retention scorer
set runs on those cases too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from harness.scenarios.schema import Question, Scenario
from harness.scoring.scorers.needle import carries_answer
from harness.scoring.scorers.shared import compacted
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Role, Score
from harness.scoring.scorers.view import Where, history_read_ids, locate
from harness.task_format import ARTIFACT_ACTIONS, call_target, is_step_line
from harness.trace.schema import Trace

CLIFF_THRESHOLD = 0.5
"""The cliff round is the first round whose survival (share of the facts out of view by then that every round since
kept) falls under this."""


@dataclass(frozen=True)
class TrackedFact:
    """A fact and its update chain as one tracked thing, keyed by the chain's first fact."""

    id: str
    type: str
    key: str
    place: str
    turn: int
    values: tuple[str, ...]  # each chain member's value, first to last
    turns: tuple[int, ...]  # the user turn each member is stated in
    ids: tuple[str, ...]  # each member's fact id
    places: tuple[str, ...] = ()  # each member's place (an assistant member is said just before its user turn)
    # Phrases that never state this fact although they carry its value: the keys of the attributes its value names
    # ("ORBIT-7 access code" for "the primary site is ORBIT-7"), so an attribute's statement is not the reference's.
    masks: tuple[str, ...] = ()

    def said_before(self, member: int, turn: int) -> bool:
        """Chain member ``member`` is said before user turn ``turn``'s message: in an earlier turn, or as the
        scripted assistant message placed just before that turn."""
        t = self.turns[member]
        return t < turn or (t == turn and member < len(self.places) and self.places[member] == "assistant")

    @property
    def tokens(self) -> tuple[str, ...]:
        """What is looked for, per chain member: the value, or an artifact's path."""
        return (self.key,) * len(self.values) if self.type == "artifact" else self.values

    @property
    def updated(self) -> bool:
        return len(set(self.tokens)) > 1


def tracked_facts(scenario: Scenario) -> list[TrackedFact]:
    """The scenario's facts, one per update chain, then its needles as facts of type "fact" (ids needle-1, ...)."""
    replacing = {f.superseded_by for f in scenario.facts if f.superseded_by}
    out = []
    for head in (f for f in scenario.facts if f.id not in replacing):
        chain = scenario.chain(head)
        out.append(
            TrackedFact(
                head.id,
                head.type,
                head.key,
                head.place,
                head.turn,
                tuple(f.value for f in chain),
                tuple(f.turn for f in chain),
                tuple(f.id for f in chain),
                tuple(f.place for f in chain),
            )
        )
    for i, n in enumerate(scenario.needles, 1):
        out.append(TrackedFact(f"needle-{i}", "fact", n.key, "tool", 0, (n.answer,), (0,), (f"needle-{i}",)))
    return [_with_masks(f, out) for f in out]


def _with_masks(fact: TrackedFact, facts: list[TrackedFact]) -> TrackedFact:
    """``fact`` with ``masks``: the keys of the other stated facts that carry one of its values (an attribute named
    by the entity ``fact`` names)."""
    if fact.type == "artifact":
        return fact
    keys = [g.key for g in facts if g.id != fact.id and g.type != "artifact"]
    masks = tuple(dict.fromkeys(k for k in keys if any(carries_answer(k, v) for v in fact.values)))
    return replace(fact, masks=masks) if masks else fact


def unmasked(text: str, masks: tuple[str, ...]) -> str:
    """``text`` without the phrases ``masks`` (case and spacing aside): what is left to state a masked fact."""
    for phrase in masks:
        words = r"\s+".join(re.escape(w) for w in phrase.split())
        text = re.sub(rf"(?<![A-Za-z0-9\-]){words}(?![A-Za-z0-9\-])", " ", text, flags=re.IGNORECASE)
    return text


def asked_questions(scenario: Scenario) -> list[Question]:
    """The scenario's questions with fact ids mapped to their chain's first fact, then one recall question per needle."""
    head = {fid: f.id for f in tracked_facts(scenario) for fid in f.ids}
    out = [Question(q.turn, tuple(dict.fromkeys(head[x] for x in q.facts)), q.probe) for q in scenario.questions]
    return out + [Question(n.turn, (f"needle-{i}",), "recall") for i, n in enumerate(scenario.needles, 1)]


class TraceReader:
    """Reads one trace for the fact scorers; each (message, value) is matched once."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.history_reads = history_read_ids(trace)
        self._hits: dict[tuple[str, ...], bool] = {}
        self._writes: dict[str, set[str]] = {}  # path -> ids of write/edit calls on it
        for _, tc in trace.tool_calls():
            if tc["name"] in ARTIFACT_ACTIONS:
                self._writes.setdefault(call_target(tc), set()).add(tc.get("id") or "")

    def has(self, key: str, token: str, masks: tuple[str, ...] = ()) -> bool:
        """Message ``key`` carries ``token`` as a whole word (outside the phrases ``masks``: `TrackedFact.masks`)."""
        hit = self._hits.get((key, token, *masks))
        if hit is None:
            text = self.trace.message_text(key)
            hit = self._hits[(key, token, *masks)] = carries_answer(unmasked(text, masks) if masks else text, token)
        return hit

    def _writes_path(self, key: str, path: str) -> bool:
        msg = self.trace.message(key)
        if isinstance(msg, ToolMessage):
            return msg.tool_call_id in self._writes.get(path, set())
        return isinstance(msg, AIMessage) and any(
            tc["name"] in ARTIFACT_ACTIONS and call_target(dict(tc)) == path for tc in msg.tool_calls
        )

    def where(self, call: dict, fact: TrackedFact, token: str) -> Where:
        """Where ``token`` of ``fact`` is in ``call``'s request (an artifact is stated only by its own write)."""
        system = fact.place == "system"
        where = locate(
            self.trace, call, lambda k: self.has(k, token, fact.masks), system=system, history_reads=self.history_reads
        )
        if fact.type != "artifact":
            return where
        wrote = locate(self.trace, call, lambda k: self._writes_path(k, token), history_reads=self.history_reads)
        return Where(wrote.stated, where.in_summary, where.on_history_page)

    def in_request(self, call: dict, fact: TrackedFact, token: str) -> bool:
        """``token`` is anywhere in ``call``'s request (or its system prompt, for a system fact). An artifact's path
        counts outside the task's own step lines only: a summary quoting the request ("3. Write /notes/a.md with
        write_file ...") says what was asked, not that the file was made."""
        keys = [*call["message_keys"], *([call["system_key"]] if fact.place == "system" and call.get("system_key") else [])]
        if fact.type == "artifact":
            return any(self._mentions_made(k, token) for k in keys)
        return any(self.has(k, token, fact.masks) for k in keys)

    def _mentions_made(self, key: str, path: str) -> bool:
        hit = self._hits.get((key, "artifact:" + path))
        if hit is None:
            if self._writes_path(key, path):
                hit = True
            else:
                text = "\n".join(ln for ln in self.trace.message_text(key).splitlines() if not is_step_line(ln))
                hit = carries_answer(text, path)
            self._hits[key, "artifact:" + path] = hit
        return hit

    def seen(self, call: dict, fact: TrackedFact, token: str) -> bool:
        """The chain member looked for by ``token`` has appeared in ``call``'s request (an artifact: its write has)."""
        if fact.type == "artifact":
            return any(self._writes_path(k, token) for k in call["message_keys"])
        return self.in_request(call, fact, token)


@dataclass
class Timeline:
    """One fact through a trace's rounds."""

    fact: TrackedFact
    rounds: list[bool | None]  # per round: retained (True/False), or None before the fact left view
    stale: list[bool]  # per round: a stale value kept without the latest
    left_view_round: int | None
    first_seen: dict[int, int]  # chain member -> the first agent call index whose request had it

    def latest_at(self, call_index: int) -> int | None:
        """The chain member (index) that is the latest stated by ``call_index``."""
        seen = [i for i, at in self.first_seen.items() if at <= call_index]
        return max(seen) if seen else None

    @property
    def retained(self) -> bool | None:
        return None if self.left_view_round is None else self.rounds[self.left_view_round - 1]

    @property
    def survived(self) -> bool | None:
        return None if self.left_view_round is None else all(self.rounds[self.left_view_round - 1 :])


def timeline(reader: TraceReader, fact: TrackedFact) -> Timeline:
    """Where ``fact`` was at each compaction round of the reader's trace."""
    trace = reader.trace
    calls = trace.agent_calls()
    first_seen: dict[int, int] = {}
    for i, member in enumerate(fact.tokens):
        at = next((c["index"] for c in calls if reader.seen(c, fact, member)), None)
        if at is not None:
            first_seen[i] = at
    line = Timeline(fact, [], [], None, first_seen)
    rounds_at: dict[int, list[int]] = {}
    for r, event in enumerate(trace.compactions(), 1):
        rounds_at.setdefault(event["call_index"], []).append(r)
    line.rounds = [None] * sum(len(v) for v in rounds_at.values())
    line.stale = [False] * len(line.rounds)
    was_stated = False
    for call in calls:
        latest = line.latest_at(call["index"])
        token = fact.tokens[latest] if latest is not None else None
        stated = token is not None and reader.where(call, fact, token).stated
        for r in rounds_at.get(call["index"], []):
            if line.left_view_round is None and was_stated and not stated:
                line.left_view_round = r
            if line.left_view_round is not None and token is not None:
                kept = reader.in_request(call, fact, token)
                old = {fact.tokens[i] for i in line.first_seen if i != latest and line.first_seen[i] <= call["index"]} - {token}
                line.rounds[r - 1] = kept
                line.stale[r - 1] = not kept and any(reader.in_request(call, fact, v) for v in old)
        was_stated = was_stated or stated
    return line


def retention_record(reader: TraceReader, line: Timeline) -> dict[str, Any]:
    """One fact's retention as a JSON-able dict (without its question; see `probes.fact_records`)."""
    trace, fact = reader.trace, line.fact
    events = trace.compactions()
    last = trace.agent_calls()[-1]["index"] if trace.agent_calls() else -1
    latest = line.latest_at(last)
    summaries = [e["summary_key"] for e in trace.events_of("summary") if e.get("summary_key")]
    in_summary = latest is not None and any(reader.has(k, fact.tokens[latest], fact.masks) for k in summaries)
    left_event = events[line.left_view_round - 1] if line.left_view_round is not None else {}
    offloaded = left_event.get("type") == "summary" and bool(left_event.get("history_path"))
    return {
        "id": fact.id,
        "type": fact.type,
        "key": fact.key,
        "place": fact.place,
        "turn": fact.turn,
        "value": fact.values[-1],
        "stale": [v for v in dict.fromkeys(fact.values[:-1]) if v != fact.values[-1]],
        "left_view_round": line.left_view_round,
        "retained": line.retained,
        "survived": line.survived,
        "rounds": list(line.rounds),
        "stale_retained": any(line.stale),
        "findable": in_summary or offloaded,
    }


def retention_records(trace: Trace, scenario: Scenario) -> list[dict[str, Any]]:
    """`retention_record` for every tracked fact of ``scenario`` in ``trace``."""
    reader = TraceReader(trace)
    return [retention_record(reader, timeline(reader, f)) for f in tracked_facts(scenario)]


def survival_by_round(records: Iterable[dict[str, Any]]) -> dict[str, list[float | None]]:
    """Per fact type, per round (index 0 = round 1): the share of the records out of view by that round that were
    kept at every round from leaving view through it; None where no fact of the type was out of view. Records may
    come from several traces (their ``rounds`` lists differ in length)."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for rec in records:
        by_type.setdefault(rec["type"], []).append(rec)
    return {kind: _survival(recs) for kind, recs in sorted(by_type.items())}


def _survival(records: list[dict[str, Any]]) -> list[float | None]:
    n = max((len(r["rounds"]) for r in records), default=0)
    shares: list[float | None] = []
    for r in range(n):
        out = [rec["rounds"][: r + 1] for rec in records if len(rec["rounds"]) > r and rec["rounds"][r] is not None]
        alive = [all(v is not False for v in rounds) for rounds in out]
        shares.append(sum(alive) / len(alive) if alive else None)
    return shares


def cliff_round(shares: list[float | None], threshold: float = CLIFF_THRESHOLD) -> int | None:
    """The first round (1-based) whose share is under ``threshold``; None when there is none."""
    return next((r for r, share in enumerate(shares, 1) if share is not None and share < threshold), None)


def survival_cliff_score(records: list[dict[str, Any]], role: Role) -> Score:
    """``no_survival_cliff``: survival (over the facts out of view by each round) never fell under CLIFF_THRESHOLD. A
    check in the retention eval; a measure of the probe eval that the nightly gate holds to its baseline."""
    cliff = cliff_round(_survival([r for r in records if r["left_view_round"] is not None]))
    return Score(
        "no_survival_cliff",
        cliff is None,
        role,
        f"survival stayed at or above {CLIFF_THRESHOLD:g} in every round"
        if cliff is None
        else f"survival fell under {CLIFF_THRESHOLD:g} at round {cliff} (the cliff round)",
    )


def retention_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The retention scorer set: validity (compacted, facts_left_view), checks (facts_retained, latest_value_kept when
    a fact has updates) and measures (facts_left_view_n, facts_retained_n, rounds, cliff_round)."""
    records = retention_records(trace, scenario)
    out = [r for r in records if r["left_view_round"] is not None]
    n_rounds = len(trace.compactions())
    scores = [compacted(trace)]
    scores.append(
        Score(
            "facts_left_view",
            bool(out),
            VALIDITY,
            f"{len(out)} of {len(records)} facts left view"
            + ("" if out else ": nothing was compacted away, so nothing was asked of retention"),
        )
    )
    lost = next((r for r in out if not r["survived"]), None)
    scores.append(
        Score(
            "facts_retained",
            lost is None,
            CHECK,
            f"every one of {len(out)} facts out of view was kept at every round since"
            if lost is None
            else f"{lost['id']} ({lost['type']}, {lost['key']!r}) lost at round "
            f"{next(r for r, v in enumerate(lost['rounds'], 1) if v is False)} (left view at round {lost['left_view_round']})",
        )
    )
    updated = [r for r in records if r["stale"] and r["type"] != "artifact"]
    if updated:
        stale = next((r for r in updated if r["stale_retained"]), None)
        scores.append(
            Score(
                "latest_value_kept",
                stale is None,
                CHECK,
                f"no round kept a stale value without the latest ({len(updated)} fact(s) with updates)"
                if stale is None
                else f"{stale['id']} ({stale['type']}): a round kept a stale value ({', '.join(stale['stale'])}) "
                f"without the latest {stale['value']!r}",
            )
        )
    shares = _survival(out)
    cliff = cliff_round(shares)
    scores.append(survival_cliff_score(records, CHECK))
    scores += [
        Score("facts_left_view_n", len(out), MEASURE, "facts whose statement left view"),
        Score("facts_retained_n", sum(bool(r["survived"]) for r in out), MEASURE, "facts out of view kept at every round since"),
        Score("rounds", n_rounds, MEASURE, "compaction events (summary, mask, trim)"),
        Score(
            "cliff_round",
            cliff,
            MEASURE,
            f"survival per round {[None if s is None else round(s, 2) for s in shares]}; cliff under {CLIFF_THRESHOLD}",
        ),
    ]
    return scores
