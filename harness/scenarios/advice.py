"""What in a valid dataset row misleads its author (warnings, not errors), and whether the offline reference agent can
read a row's facts: read from the loaded `Scenario`, after `harness.scenarios.checks` has passed it."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import TYPE_CHECKING

from harness.errors import dataset_location
from harness.scenarios.checks import place_name, whole_word
from harness.task_format import find_facts, parse_statements

if TYPE_CHECKING:
    from harness.scenarios.model import Fact, Scenario


def offline_statement_problem(scenario: Scenario) -> str | None:
    """Why the reference agent could not read one of ``scenario``'s facts: a value not stated as 'the <key> is
    <value>' (a paraphrase a live model reads). None when every fact is in that form."""
    for f in scenario.facts:
        if f.type != "artifact" and not stated_in_grammar(scenario, f):
            return f"fact {f.id!r} is not stated as 'the {f.key} is {f.value}' (a paraphrase needs a live model)"
    return None


def stated_in_grammar(scenario: Scenario, f: Fact) -> bool:
    """``f``'s place states it as 'the <key> is <value>' (the task grammar; a paraphrase is valid data too)."""
    return f.type != "artifact" and any(f.value in find_facts(f.key, t) for t in _scenario_place_texts(scenario, f))


def case_warnings(scenario: Scenario, line: int | None = None) -> list[str]:
    """What in a valid row misleads its author, each naming the file, the row (``line``), the case and the field: a
    fact's value that also occurs in another of the row's documents or files (`value_elsewhere`), and a typed-fact
    statement in its turns, scripted assistant messages, system prompt or recorded conversation that no fact covers
    (`uncovered_statements`). Printed when a run starts and kept in its meta.json (`RunSink`)."""

    def where(fld: str) -> str:
        return dataset_location(scenario.source, line, fld, scenario.id)

    return [f"{where(fld)}: {problem}" for fld, problem in (*value_elsewhere(scenario), *uncovered_statements(scenario))]


def _masks(scenario: Scenario, fact: Fact) -> list[str]:
    """The keys of the row's other stated facts that carry ``fact``'s value (an attribute under the entity ``fact``
    names: "the ORBIT-7 access code is ..."): the value there names the entity, it does not state ``fact``."""
    return [g.key for g in scenario.facts if g.key != fact.key and g.type != "artifact" and whole_word(fact.value, g.key)]


def _unmasked(text: str, masks: list[str]) -> str:
    for phrase in masks:
        words = r"\s+".join(re.escape(w) for w in phrase.split())
        text = re.sub(rf"(?<![A-Za-z0-9\-]){words}(?![A-Za-z0-9\-])", " ", text, flags=re.IGNORECASE)
    return text


def value_elsewhere(scenario: Scenario) -> list[tuple[str, str]]:
    """(field, problem) for each fact whose value also occurs, as a whole word, in a document or file of the row that
    is not where the fact (or a fact of its update chain) is stated. The probe scorer finds a fact by its value, so
    while that document is in view a question about the fact is INVALID, whether the document states the fact again
    ("still in view as stated") or only the word matched ("the value occurs in view")."""
    out = []
    for i, f in enumerate(scenario.facts):
        if f.type == "artifact":
            continue
        own = {g.doc for g in scenario.facts if g.key == f.key and g.type == f.type and g.place == "tool"}
        masks = _masks(scenario, f)
        for kind, name, text in [
            *(("document", d, t) for d, t in scenario.documents),
            *(("file", p, t) for p, t in scenario.files),
        ]:
            if name in own:
                continue
            seen = _unmasked(text, masks)
            hit = re.search(rf"(?<![A-Za-z0-9\-]){re.escape(f.value)}(?![A-Za-z0-9\-])", seen, re.IGNORECASE)
            if hit is None:
                continue
            if any(v.lower() == f.value.lower() for v in find_facts(f.key, seen)):
                problem = (
                    f"fact {f.id!r} is stated again in {kind} {name!r} ('the {f.key} is {f.value}'), not only in its "
                    f"place ({place_name(asdict(f))}): while that {kind} is in view a question about {f.id!r} is "
                    "INVALID ('still in view as stated')"
                )
            else:
                around = " ".join(seen[max(0, hit.start() - 40) : hit.end() + 40].split())
                problem = (
                    f"fact {f.id!r}: its value {f.value!r} also occurs in {kind} {name!r} as the word {hit.group(0)!r} "
                    f"({around!r}), not as the fact's statement: while that {kind} is in view a question about "
                    f"{f.id!r} is INVALID ('the value occurs in view'); choose a value that occurs nowhere else in the case"
                )
            out.append((f"facts[{i}].value", problem))
    return out


def uncovered_statements(scenario: Scenario) -> list[tuple[str, str]]:
    """(field, problem) for each typed-fact sentence (`task_format.parse_statements`) in the row's task, follow-ups,
    scripted assistant messages, system prompt or recorded conversation that no fact or needle of the row covers (same
    type, key and value). Documents are not read: a haystack's distractor sentences are there by design; nor is a
    session case's conversation: it is a recording (not its author's to reword), asked about by its probes, not facts."""
    from harness.scenarios.conversation import text_of

    covered = {(f.type, " ".join(f.key.split()).lower(), f.value.lower()) for f in scenario.facts}
    covered |= {("fact", " ".join(n.key.split()).lower(), n.answer.lower()) for n in scenario.needles}
    texts = [
        ("task", scenario.task),
        *((f"followups[{i}]", t) for i, t in enumerate(scenario.followups)),
        *((f"assistant[{i}].text", t) for i, (_, t) in enumerate(scenario.assistant)),
        ("system_prompt", scenario.system_prompt or ""),
        *(
            (f"conversation (message {m} of {scenario.conversation_file})", text_of(msg))
            for m, msg in enumerate(scenario.conversation)
            if scenario.kind != "session"
        ),
    ]
    out = []
    for fld, text in texts:
        for st in parse_statements(text):
            if (st.type, st.key.lower(), st.value.lower()) in covered:
                continue
            same = [f for f in scenario.facts if f.type == st.type and " ".join(f.key.split()).lower() == st.key.lower()]
            hint = f" (fact {same[0].id!r} has that key, with the value {same[0].value!r})" if same else ""
            out.append(
                (
                    fld,
                    f"states {st.render()!r}, which no fact of the row covers{hint}: nothing scores or asks it, yet the "
                    "agent and the summarizer read it like a listed fact; list it under 'facts' or reword it",
                )
            )
    return out


def _scenario_place_texts(scenario: Scenario, f: Fact) -> list[str]:
    if f.place == "user":
        return [scenario.turns[f.turn]]
    if f.place == "assistant":
        return [t for turn, t in scenario.assistant if turn == f.turn]
    if f.place == "system":
        return [scenario.system_prompt or ""]
    if f.place == "conversation":
        from harness.scenarios.conversation import text_of

        return [text_of(scenario.conversation[f.message])] if f.message is not None else []
    return [t for d, t in (*scenario.documents, *scenario.files) if d == f.doc]
