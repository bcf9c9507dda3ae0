"""Generated probe families (issue 17 §4): seeded cases of kind ``probe`` that plant typed facts and ask about them.

Each family is a function ``(seed, instance) -> row``. Turn 0 is a step-list task that fetches a haystack of archive
documents (and, for some families, reads and writes files); the questions are follow-up turns after it, one probe
each. Facts are stated with `harness.task_format.fact_sentence` in every place a row allows: the task's prose (user),
a scripted assistant message (assistant), a document or file (tool), the system prompt (system).

Families that state a fact in an assistant message "early" split the work in two: turn 0 fetches a few briefing
documents, the assistant message comes before turn 1, and turn 1 is the rest of the step list (numbered on from turn
0's, so a summary's "Step N done" lines never mark a later step done), long enough to push that message out of view.

- ``buried-constraint``: a constraint said once early (in the task's prose, or in the first document), under the
  haystack; a recall probe at the end.
- ``decision-override``: a decision stated early (a document, or an assistant message) and changed later (a user
  follow-up turn, or a later document: "Decision (changed): ..., not <old>"); a decision probe (latest required,
  stale forbidden).
- ``entity-confusion``: two facts whose keys differ in one word (north/south vault); one of them asked.
- ``reference-resolution``: an entity named by a defining fact early ("the primary site is ORBIT-7"), its attribute
  stated under its own name in a document ("the ORBIT-7 access code is ..."), a look-alike entity with the same
  attribute; a recall probe asks the attribute through the reference ("the access code of the primary site"), so the
  answer needs both facts.
- ``artifact-trail``: the task reads seed files, writes notes, appends a section to a file with edit_file, among
  fetches; an artifact probe asks which files were created or changed (reads are not artifacts).
- ``plan-state``: goal_state facts ("Status: the next step is ...") updated as the work goes (assistant messages and
  the user's turn-1 prose), asked by a continuation probe.
- ``standing-rule``: a rule in the system prompt and one in the task's prose; a recall probe for each.
- ``canary-rounds``: compaction-conformance-kit's canary set (rule and preference from the user, constraint and
  fact from tools, goal_state from the assistant) stated early, then enough documents for at least
  ``CANARY_ROUNDS`` summaries at forced-20, then one question per canary.

Padding is checked at generation (`harness.scenarios.padding.check_padding`): every instance carries enough text before its first question
for a summary under every forced preset, estimated with the approximate counter (4 characters a token) and each
preset's trigger; canary-rounds must reach ``CANARY_ROUNDS`` summaries at forced-20. A row that would not compact
raises ValueError.

The development set (`datasets/probes.jsonl`) is `SHIPPED_SEED`, ``DEV_INSTANCES`` instances per family. The
held-out seeds ``HELD_OUT_SEEDS`` are never shipped: tests/scenarios/test_probe_families.py runs one held-out instance per
family and checks its outcomes match the development instances', so development results are not an artefact of the
shipped instances.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from harness.scenarios.haystack import (
    ATTRIBUTES,
    CHARS_PER_TOKEN,
    CODEWORDS,
    COMPANIES,
    CONSTRAINTS,
    DECISIONS,
    ENTITIES,
    NEXT_STEPS,
    PLACES,
    PREFERENCES,
    ROLES,
    RULES,
    SHIPPED_SEED,
    THINGS,
    document,
    ledger,
)
from harness.scenarios.padding import CANARY_PRESET, CANARY_ROUNDS, check_padding, estimated_summaries, tokens_before_question
from harness.task_format import (
    ARTIFACT_QUESTION,
    Step,
    attribute_key,
    fact_sentence,
    reference_question_key,
    render_decision_question,
    render_question,
    render_task,
)

DEV_INSTANCES = 2
HELD_OUT_SEEDS = (101, 102, 103)
"""Seeds never shipped: only tests/scenarios/test_probe_families.py generates and runs them (one instance per family)."""
DOC_TOKENS = 2_000
# A two-part task (an assistant message between turn 0 and the rest of the work): turn 0's briefing documents are
# short, so no preset summarizes before turn 1 (a summary's "Step N done" lines would then be all the agent knows of
# its progress), and the continuation's documents fit the smallest kept window (forced-10: 1,600 tokens), so after
# each summary the latest fetch is still in view and the reference agent resumes after it.
BRIEF_DOC_TOKENS = 600
CONT_DOC_TOKENS = 1_200


# -- building blocks ---------------------------------------------------------------------------------------------------
def _code(rng: random.Random) -> str:
    return f"{rng.randint(1000, 9999)}-{rng.choice(CODEWORDS)}"


def _fill(template: str, rng: random.Random, place: str | None = None) -> str:
    return template.format(
        place=place or rng.choice(PLACES),
        n=rng.randint(120, 980),
        h=rng.randint(14, 22),
        w=rng.choice(CODEWORDS).lower() if template.startswith("ops-") else rng.choice(CODEWORDS),
    )


def _constraint(rng: random.Random) -> tuple[str, str]:
    key, value = rng.choice(CONSTRAINTS)
    return _fill(key, rng), _fill(value, rng)


def _rules(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` standing rules on different subjects: (key, value)."""
    return [(_fill(key, rng), _fill(value, rng)) for key, value in rng.sample(RULES, count)]


def _docs(rng: random.Random, company: str, first: int, count: int, tokens: int, said: dict[int, list[str]]) -> list[dict]:
    """``count`` archive documents DOC-<first>.. of about ``tokens`` tokens; ``said[i]``: sentences in the i-th."""
    out = []
    for i in range(count):
        doc_id = f"DOC-{first + i:03d}"
        sentences = said.get(i, [])
        lines = max(3, tokens * CHARS_PER_TOKEN // 100)
        inserts = {rng.randint(2, max(3, lines // 2)) + k: s for k, s in enumerate(sentences)}
        out.append({"id": doc_id, "text": document(rng, doc_id, company, tokens, inserts)})
    return out


def _fetches(docs: list[dict], first_number: int = 1) -> list[Step]:
    return [Step(first_number + i, "fetch_document", d["id"]) for i, d in enumerate(docs)]


def _with_reply(steps: list[Step]) -> list[Step]:
    return [*steps, Step((steps[-1].number if steps else 0) + 1, "reply")]


def _intro(company: str, *said: str) -> str:
    base = (
        f"You are reviewing the {company} document archive before it is migrated. "
        "Read every document carefully; I will have questions about their contents afterwards."
    )
    return " ".join([base, *said])


def _continuation(company: str, *said: str) -> str:
    return " ".join([f"Thanks. Now carry on with the rest of the {company} archive.", *said])


def _fact(
    fid: str, kind: str, key: str, value: str, place: str, turn: int, doc: str | None = None, sup: str | None = None
) -> dict:
    out: dict[str, Any] = {"id": fid, "type": kind, "key": key, "value": value, "place": place, "turn": turn}
    if doc is not None:
        out["doc"] = doc
    if sup is not None:
        out["superseded_by"] = sup
    return out


def question_text(probe: str, key: str, reference: tuple[str, str] | None = None) -> str:
    """The follow-up that asks a ``probe`` question about ``key`` (the artifact question names no key). ``reference``:
    (the key, the value) of the fact that names the entity ``key`` is stated under, for a reference question
    ("What is the access code of the primary site?" of "ORBIT-7 access code" with ("primary site", "ORBIT-7"))."""
    if probe == "decision":
        return render_decision_question(key)
    if probe == "artifact":
        return ARTIFACT_QUESTION
    if reference is not None:
        asked = reference_question_key(key, reference[1], reference[0])
        if asked is None:
            raise ValueError(f"{key!r} is not named by {reference[1]!r}: a reference question cannot ask it")
        return render_question(asked)
    return render_question(key)


def _row(
    family: str,
    seed: int,
    instance: int,
    description: str,
    parts: list[tuple[str, list[Step]]],
    *,
    documents: list[dict],
    facts: list[dict],
    asks: list[tuple[str, list[str]]],
    statements: list[str] | tuple[str, ...] = (),
    assistant: list[tuple[int, str]] = (),  # type: ignore[assignment]
    files: list[dict] | None = None,
    system_prompt: str | None = None,
) -> dict:
    """A probe row: ``parts`` are the step-list turns (turn 0, then continuations), ``statements`` user follow-ups
    that only say something, then one follow-up per ``asks`` entry (probe, fact ids)."""
    turns = [render_task(intro, steps) for intro, steps in parts]
    turns += list(statements)
    by_id = {f["id"]: f for f in facts}
    questions = []
    for probe, ids in asks:
        questions.append({"turn": len(turns), "facts": ids, "probe": probe})
        # a recall of two facts asks the first through the second (a reference question); other asks name one key
        reference = (by_id[ids[1]]["key"], by_id[ids[1]]["value"]) if probe == "recall" and len(ids) == 2 else None
        turns.append(question_text(probe, by_id[ids[0]]["key"], reference))
    steps = [s for _, part in parts for s in part]
    row: dict[str, Any] = {
        "id": f"probe-{family}-s{seed}-i{instance}",
        "kind": "probe",
        "description": description,
        "task": turns[0],
        "followups": turns[1:],
    }
    if files:
        row["files"] = files
    row["documents"] = documents
    row["expected_steps"] = [{"tool": s.tool, "target": s.target} for s in steps]
    row["facts"] = facts
    row["questions"] = questions
    if assistant:
        row["assistant"] = [{"turn": t, "text": x} for t, x in assistant]
    if system_prompt:
        row["system_prompt"] = system_prompt
    return row


# -- the families -----------------------------------------------------------------------------------------------------
def buried_constraint(seed: int, instance: int) -> dict:
    """A constraint said once early (instance even: in the task's prose; odd: in the first document), a look-alike
    constraint elsewhere, a haystack after; a recall probe at the end."""
    rng = random.Random(f"probe:buried-constraint:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    key, value = _constraint(rng)
    other_key, other_value = key, value
    while other_key == key:
        other_key, other_value = _constraint(rng)
    in_prose = instance % 2 == 0
    n_docs = rng.randint(11, 13)
    said = {} if in_prose else {0: [fact_sentence("constraint", key, value)]}
    said.setdefault(n_docs // 2, []).append(fact_sentence("constraint", other_key, other_value))
    docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, said)
    intro = _intro(company, fact_sentence("constraint", key, value) if in_prose else "")
    facts = [
        _fact("constraint", "constraint", key, value, "user" if in_prose else "tool", 0, None if in_prose else "DOC-001"),
        _fact("distractor", "constraint", other_key, other_value, "tool", 0, docs[n_docs // 2]["id"]),
    ]
    where = "the task's prose" if in_prose else "DOC-001"
    return _row(
        "buried-constraint",
        seed,
        instance,
        f"Constraint stated once in {where}, a look-alike in {docs[n_docs // 2]['id']}, under {n_docs} documents; "
        "recall probe after the task.",
        [(intro.strip(), _with_reply(_fetches(docs)))],
        documents=docs,
        facts=facts,
        asks=[("recall", ["constraint"])],
    )


def decision_override(seed: int, instance: int) -> dict:
    """A decision stated early and changed later. Instance even: first document, changed by a user follow-up turn
    after the task. Odd: a scripted assistant message after a briefing document, changed in a later document of the
    turn-1 continuation. A decision probe asks it: the latest value required, the stale one forbidden."""
    rng = random.Random(f"probe:decision-override:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    key_t, options = rng.choice(DECISIONS)
    key = _fill(key_t, rng)
    old, new = rng.sample(options, 2)
    first = fact_sentence("decision", key, old)
    changed = fact_sentence("decision", key, new, replaces=old)
    if instance % 2 == 0:
        n_docs = rng.randint(11, 13)
        docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, {0: [first]})
        facts = [
            _fact("decision-1", "decision", key, old, "tool", 0, "DOC-001", "decision-2"),
            _fact("decision-2", "decision", key, new, "user", 1),
        ]
        return _row(
            "decision-override",
            seed,
            instance,
            f"Decision on the {key} stated in DOC-001, changed by the user after {n_docs} documents; decision probe.",
            [(_intro(company), _with_reply(_fetches(docs)))],
            documents=docs,
            facts=facts,
            statements=[changed + " Please keep that in mind."],
            asks=[("decision", ["decision-1"])],
        )
    brief = _docs(rng, company, 1, 2, BRIEF_DOC_TOKENS, {})
    n_more = rng.randint(14, 16)
    at = rng.randint(n_more // 2, n_more - 4)
    more = _docs(rng, company, 3, n_more, CONT_DOC_TOKENS, {at: [changed]})
    part0 = _with_reply(_fetches(brief))
    part1 = _with_reply(_fetches(more, part0[-1].number + 1))
    facts = [
        _fact("decision-1", "decision", key, old, "assistant", 1, sup="decision-2"),
        _fact("decision-2", "decision", key, new, "tool", 1, more[at]["id"]),
    ]
    return _row(
        "decision-override",
        seed,
        instance,
        f"Decision on the {key} stated by the assistant after the briefing, changed in {more[at]['id']} of the "
        f"{n_more}-document continuation; decision probe.",
        [(_intro(company), part0), (_continuation(company), part1)],
        documents=brief + more,
        facts=facts,
        assistant=[(1, f"Noted from the briefing. {first}")],
        asks=[("decision", ["decision-1"])],
    )


def entity_confusion(seed: int, instance: int) -> dict:
    """Two facts whose keys differ in one word (the north and the south vault), in two documents; one is asked
    (instance even: the earlier stated; odd: the later)."""
    rng = random.Random(f"probe:entity-confusion:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    thing, holder = rng.choice(THINGS)
    a, b = rng.sample(PLACES, 2)
    keys = (f"{thing} for the {a} {holder}", f"{thing} for the {b} {holder}")
    values = (_code(rng), _code(rng))
    n_docs = rng.randint(11, 13)
    at = (rng.randint(0, 2), rng.randint(3, 5))
    docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, {at[k]: [fact_sentence("fact", keys[k], values[k])] for k in (0, 1)})
    facts = [_fact(f"entity-{k + 1}", "fact", keys[k], values[k], "tool", 0, docs[at[k]]["id"]) for k in (0, 1)]
    asked = instance % 2
    return _row(
        "entity-confusion",
        seed,
        instance,
        f"Look-alike keys ({a} / {b} {holder}) in {docs[at[0]]['id']} and {docs[at[1]]['id']} of {n_docs} documents; "
        f"the {(a, b)[asked]} one asked.",
        [(_intro(company), _with_reply(_fetches(docs)))],
        documents=docs,
        facts=facts,
        asks=[("recall", [f"entity-{asked + 1}"])],
    )


def reference_resolution(seed: int, instance: int) -> dict:
    """An entity introduced by a defining fact early ("For the record, the primary site is ORBIT-7."), its attribute
    stated under the entity's own name in a document ("For the record, the ORBIT-7 access code is 4417-KESTREL."), and
    a look-alike (the backup site, another entity, the same attribute in another document). A recall question asks
    the attribute through the reference only ("What is the access code of the primary site?"): the answer needs both
    facts. Instance even: the defining facts in the task's prose, the attributes in early documents of the haystack.
    Odd: the defining facts in a scripted assistant message after the briefing, the attributes in early documents of
    the turn-1 continuation."""
    rng = random.Random(f"probe:reference-resolution:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    roles = rng.choice(ROLES)
    attribute = rng.choice(ATTRIBUTES)
    entities = [f"{name}-{rng.randint(2, 9)}" for name in rng.sample(ENTITIES, 2)]
    codes = [_code(rng)]
    while len(codes) < 2:
        codes += [c for c in [_code(rng)] if c != codes[0]]
    defining = [fact_sentence("fact", roles[k], entities[k]) for k in (0, 1)]
    keys = [attribute_key(entities[k], attribute) for k in (0, 1)]
    at = (rng.randint(0, 2), rng.randint(3, 5))
    if rng.random() < 0.5:  # which attribute is stated first
        at = (at[1], at[0])
    said = {at[k]: [fact_sentence("fact", keys[k], codes[k])] for k in (0, 1)}
    if instance % 2 == 0:
        n_docs = rng.randint(11, 13)
        docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, said)
        parts = [(_intro(company, *defining), _with_reply(_fetches(docs)))]
        place, turn, assistant, where = "user", 0, [], "the task's prose"
        stated = docs
    else:
        brief = _docs(rng, company, 1, 2, BRIEF_DOC_TOKENS, {})
        n_more = rng.randint(14, 16)
        stated = _docs(rng, company, 3, n_more, CONT_DOC_TOKENS, said)
        docs = brief + stated
        part0 = _with_reply(_fetches(brief))
        parts = [(_intro(company), part0), (_continuation(company), _with_reply(_fetches(stated, part0[-1].number + 1)))]
        place, turn, where = "assistant", 1, "an assistant message after the briefing"
        assistant = [(1, " ".join(["Noted from the briefing.", *defining]))]
    facts = [
        _fact("attribute", "fact", keys[0], codes[0], "tool", turn, stated[at[0]]["id"]),
        _fact("reference", "fact", roles[0], entities[0], place, turn),
        _fact("distractor", "fact", keys[1], codes[1], "tool", turn, stated[at[1]]["id"]),
        _fact("distractor-reference", "fact", roles[1], entities[1], place, turn),
    ]
    return _row(
        "reference-resolution",
        seed,
        instance,
        f"The {roles[0]} ({entities[0]}) and the {roles[1]} ({entities[1]}) named in {where}, their {attribute}s in "
        f"{stated[at[0]]['id']} and {stated[at[1]]['id']} of {len(docs)} documents; asked for the {attribute} of the "
        f"{roles[0]} (needs both facts).",
        parts,
        documents=docs,
        facts=facts,
        assistant=assistant,
        asks=[("recall", ["attribute", "reference"])],
    )


def artifact_trail(seed: int, instance: int) -> dict:
    """Among fetches, the task reads seed ledgers, writes a note on some, and appends a section to a seed log with
    edit_file; more documents follow. An artifact probe asks which files were created or changed: each written or
    edited path (a file only read is not an artifact)."""
    rng = random.Random(f"probe:artifact-trail:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    n_ledgers = 3
    ledgers = [f"/ledgers/ledger_{i + 1:02d}.md" for i in range(n_ledgers)]
    log = "/reports/log.md"
    files = [{"path": p, "content": ledger(rng, p.rsplit("/", 1)[1][:-3], company, 12)} for p in ledgers]
    files.append({"path": log, "content": f"# Migration log ({company})\n\nEnd of log header."})
    noted = sorted(rng.sample(range(n_ledgers), 2))
    n_docs = rng.randint(10, 12)
    docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, {})
    steps: list[Step] = []

    def add(tool: str, target: str, source: str = "", mode: str = "") -> None:
        steps.append(Step(len(steps) + 1, tool, target, source, mode))

    add("fetch_document", docs[0]["id"])
    for i, path in enumerate(ledgers):
        add("read_file", path)
        if i in noted:
            add("write_file", f"/notes/{path.rsplit('/', 1)[1]}", path)
    add("fetch_document", docs[1]["id"])
    add("edit_file", log, docs[1]["id"], "append")
    for d in docs[2:]:
        add("fetch_document", d["id"])
    steps = _with_reply(steps)
    written = [f"/notes/{ledgers[i].rsplit('/', 1)[1]}" for i in noted]
    facts = [_fact(f"artifact-{k + 1}", "artifact", p, "written", "tool", 0) for k, p in enumerate(written)]
    facts.append(_fact(f"artifact-{len(written) + 1}", "artifact", log, "edited", "tool", 0))
    return _row(
        "artifact-trail",
        seed,
        instance,
        f"Reads {n_ledgers} ledgers, writes {len(written)} notes, appends to {log}, then {n_docs - 2} more documents; "
        "artifact probe (reads are not artifacts).",
        [(_intro(company, f"Keep the migration log {log} up to date as you go."), steps)],
        documents=docs,
        files=files,
        facts=facts,
        asks=[("artifact", [f["id"] for f in facts])],
    )


def plan_state(seed: int, instance: int) -> dict:
    """Where the work stands ("Status: the next step is ..."), updated as it goes: an assistant message after the
    briefing, changed in the user's turn-1 prose, and (instance even) changed again by an assistant message just
    before the question. A continuation probe asks it; earlier values are stale."""
    rng = random.Random(f"probe:plan-state:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    values = rng.sample(NEXT_STEPS, 3)
    key = "next step"
    brief = _docs(rng, company, 1, 2, BRIEF_DOC_TOKENS, {})
    n_more = rng.randint(14, 16)
    more = _docs(rng, company, 3, n_more, CONT_DOC_TOKENS, {})
    part0 = _with_reply(_fetches(brief))
    part1 = _with_reply(_fetches(more, part0[-1].number + 1))
    third = instance % 2 == 0
    facts = [
        _fact("status-1", "goal_state", key, values[0], "assistant", 1, sup="status-2"),
        _fact("status-2", "goal_state", key, values[1], "user", 1, sup="status-3" if third else None),
    ]
    assistant = [(1, f"Briefing read. {fact_sentence('goal_state', key, values[0])}")]
    if third:
        facts.append(_fact("status-3", "goal_state", key, values[2], "assistant", 2))
        assistant.append((2, f"Archive done. {fact_sentence('goal_state', key, values[2], replaces=values[1])}"))
    return _row(
        "plan-state",
        seed,
        instance,
        f"Next step stated by the assistant, changed in the user's continuation ({n_more} documents)"
        + (", changed again by the assistant before the question" if third else "")
        + "; continuation probe.",
        [
            (_intro(company), part0),
            (_continuation(company, fact_sentence("goal_state", key, values[1], replaces=values[0])), part1),
        ],
        documents=brief + more,
        facts=facts,
        assistant=assistant,
        asks=[("continuation", ["status-1"])],
    )


def standing_rule(seed: int, instance: int) -> dict:
    """A standing rule in the system prompt (never summarized: the control) and one in the task's prose, a haystack
    after; a recall probe for each (instance even asks the system rule first)."""
    rng = random.Random(f"probe:standing-rule:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    (sys_key, sys_value), (user_key, user_value) = _rules(rng, 2)
    n_docs = rng.randint(11, 13)
    docs = _docs(rng, company, 1, n_docs, DOC_TOKENS, {})
    facts = [
        _fact("rule-system", "rule", sys_key, sys_value, "system", 0),
        _fact("rule-user", "rule", user_key, user_value, "user", 0),
    ]
    order = ["rule-system", "rule-user"] if instance % 2 == 0 else ["rule-user", "rule-system"]
    return _row(
        "standing-rule",
        seed,
        instance,
        f"A rule in the system prompt and one in the task's prose, {n_docs} documents after; a recall probe for each.",
        [(_intro(company, fact_sentence("rule", user_key, user_value)), _with_reply(_fetches(docs)))],
        documents=docs,
        facts=facts,
        system_prompt=f"You work for {company}. {fact_sentence('rule', sys_key, sys_value)}",
        asks=[("recall", [fid]) for fid in order],
    )


def canary_rounds(seed: int, instance: int) -> dict:
    """compaction-conformance-kit's canary set stated early: a rule and a preference in the task's prose, a constraint
    and a fact in the two briefing documents, the goal state in an assistant message; then a continuation long
    enough for ``CANARY_ROUNDS`` summaries at forced-20; then one question per canary."""
    rng = random.Random(f"probe:canary-rounds:{seed}:{instance}")
    company = rng.choice(COMPANIES)
    ((rule_key, rule_value),) = _rules(rng, 1)
    pref_key, pref_options = rng.choice(PREFERENCES)
    pref_value = rng.choice(pref_options)
    con_key, con_value = _constraint(rng)
    thing, holder = rng.choice(THINGS)
    fact_key, fact_value = f"{thing} for the {rng.choice(PLACES)} {holder}", _code(rng)
    goal_value = rng.choice(NEXT_STEPS)
    brief = _docs(
        rng,
        company,
        1,
        2,
        BRIEF_DOC_TOKENS,
        {0: [fact_sentence("constraint", con_key, con_value)], 1: [fact_sentence("fact", fact_key, fact_value)]},
    )
    n_more = rng.randint(40, 42)
    more = _docs(rng, company, 3, n_more, CONT_DOC_TOKENS, {})
    part0 = _with_reply(_fetches(brief))
    part1 = _with_reply(_fetches(more, part0[-1].number + 1))
    facts = [
        _fact("canary-rule", "rule", rule_key, rule_value, "user", 0),
        _fact("canary-constraint", "constraint", con_key, con_value, "tool", 0, "DOC-001"),
        _fact("canary-fact", "fact", fact_key, fact_value, "tool", 0, "DOC-002"),
        _fact("canary-goal", "goal_state", "next step", goal_value, "assistant", 1),
        _fact("canary-preference", "preference", pref_key, pref_value, "user", 0),
    ]
    intro = _intro(company, fact_sentence("rule", rule_key, rule_value), fact_sentence("preference", pref_key, pref_value))
    asks = [("continuation" if f["type"] == "goal_state" else "recall", [f["id"]]) for f in facts]
    return _row(
        "canary-rounds",
        seed,
        instance,
        f"Canary set (rule, constraint, fact, goal_state, preference) stated early, then {n_more} documents: at least "
        f"{CANARY_ROUNDS} summaries at {CANARY_PRESET} before the first of 5 questions.",
        [(intro, part0), (_continuation(company), part1)],
        documents=brief + more,
        facts=facts,
        assistant=[(1, f"Briefing read. {fact_sentence('goal_state', 'next step', goal_value)}")],
        asks=asks,
    )


FAMILIES: dict[str, Callable[[int, int], dict]] = {
    "buried-constraint": buried_constraint,
    "decision-override": decision_override,
    "entity-confusion": entity_confusion,
    "artifact-trail": artifact_trail,
    "plan-state": plan_state,
    "standing-rule": standing_rule,
    "canary-rounds": canary_rounds,
    # after the first seven, so their held-out seeds and instances (tests/scenarios/test_probe_families.py) stay as they were
    "reference-resolution": reference_resolution,
}


def probe_rows(seed: int = SHIPPED_SEED, families: list[str] | None = None, instances: int = DEV_INSTANCES) -> list[dict]:
    """``instances`` rows of each family (all by default, in `FAMILIES` order), each checked for padding."""
    names = families or list(FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown probe family {unknown[0]!r}; known: {', '.join(FAMILIES)}")
    if instances < 1:
        raise ValueError(f"instances must be at least 1, got {instances}")
    rows = []
    for name in names:
        for i in range(instances):
            row = FAMILIES[name](seed, i)
            check_padding(row, name)
            rows.append(row)
    return rows


__all__ = [
    "CANARY_ROUNDS",
    "DEV_INSTANCES",
    "FAMILIES",
    "HELD_OUT_SEEDS",
    "check_padding",
    "estimated_summaries",
    "probe_rows",
    "tokens_before_question",
]
