"""The second pass over a dataset row whose shape `harness.scenarios.model.ScenarioRow` has checked: the rules that
reach across fields (a needle's document is one of the row's, a question's follow-up asks it, a fact is stated in its
place, an update chain runs forward). Each raises DatasetError naming the file, the row and the field."""

from __future__ import annotations

import re
from typing import Any

from harness.errors import DatasetError
from harness.task_format import (
    ARTIFACT_ACTIONS,
    VALUE_PATTERN,
    parse_probe,
    parse_question,
    reference_question_key,
    render_question,
)


def check_row(row: dict[str, Any], path: str, line: int | None) -> None:
    """Raise DatasetError for the first rule ``row`` (shape already checked) breaks across its fields."""

    def fail(fld: str | None, problem: str) -> None:
        raise DatasetError(path, line, fld, problem, case_id=row["id"])

    n_turns = 1 + len(row.get("followups", []))
    doc_ids = {d["id"] for d in row.get("documents", [])}
    for i, needle in enumerate(row.get("needles", [])):
        if needle["doc"] not in doc_ids and needle["doc"] not in {f["path"] for f in row.get("files", [])}:
            fail(f"needles[{i}].doc", f"{needle['doc']!r} is not one of the row's documents or files")
        if not 1 <= needle["turn"] < n_turns:
            fail(f"needles[{i}].turn", f"must name a follow-up turn (1..{n_turns - 1}), got {needle['turn']!r}")
        question = row["followups"][needle["turn"] - 1]
        if parse_question(question) != needle["key"]:
            fail(f"followups[{needle['turn'] - 1}]", f"does not ask 'What is the {needle['key']}?'")
    if row["kind"] in ("needle", "chain") and not row.get("needles"):
        fail("needles", f"a {row['kind']} scenario needs at least one needle")
    if row["kind"] in ("goal", "truncation"):
        if not row.get("expected_steps"):
            fail("expected_steps", f"a {row['kind']} scenario needs its expected steps")
        # A task in prose (no numbered step list) is valid data: a live model runs it as written; offline it is
        # SKIPPED, since the reference agent follows only the step grammar (harness.agent.runner.offline_skip_reason).
    if row["kind"] == "truncation" and not row.get("expected_files"):
        fail("expected_files", "a truncation scenario needs the file it builds and what that file must contain")
    if row.get("system_in_state") and not row.get("system_prompt"):
        fail("system_in_state", "there is no system_prompt to send as the first message")
    conversation = _conversation(row, path, fail)
    _check_facts(row, n_turns, fail, conversation)
    _check_session(row, fail, conversation)


def _check_session(row: dict, fail, conversation: list[dict[str, Any]]) -> None:  # noqa: ANN001
    """A session case: its recorded prefix, where it came from, and its probes (the follow-ups); other kinds have none."""
    if row["kind"] != "session":
        for key in ("session", "probes"):
            if key in row:
                fail(key, f"only a session case has {key} (this one is a {row['kind']} case)")
        return
    for key in ("conversation", "session", "probes"):
        if not row.get(key):
            fail(key, f"a session case needs its {key} (`harness import` writes them)")
    if row.get("followups"):
        fail("followups", "a session case asks its probes' questions as its follow-ups: leave followups out")
    info = row["session"]
    if info["cut"] > info["messages"]:
        fail("session.cut", f"the cut ({info['cut']}) is past the session's end ({info['messages']} messages)")
    if len(conversation) != info["cut"]:
        fail("session.cut", f"the conversation file holds {len(conversation)} messages, the cut says {info['cut']}")
    for i, at in enumerate(info.get("compactions") or ()):
        if not 0 <= at <= info["messages"]:
            fail(f"session.compactions[{i}]", f"{at} is outside the session (0..{info['messages']} messages)")
    seen: set[str] = set()
    for i, probe in enumerate(row["probes"]):
        if probe["id"] in seen:
            fail(f"probes[{i}].id", f"{probe['id']!r} is given twice")
        seen.add(probe["id"])
        if probe["message"] >= len(conversation):
            fail(
                f"probes[{i}].message",
                f"{probe['message']} is past the conversation before the cut ({len(conversation)} messages)",
            )
        if set(probe.get("stale") or ()) & set(probe["expected"]):
            fail(f"probes[{i}].stale", "an answer cannot be both expected and stale")


def _conversation(row: dict, path: str, fail) -> list[dict[str, Any]]:  # noqa: ANN001
    """The recorded conversation the row names (checked), or []."""
    if "conversation" not in row:
        return []
    from harness.scenarios.conversation import load_conversation, resolve

    try:
        return load_conversation(resolve(row["conversation"], path))
    except DatasetError as exc:
        fail("conversation", f"{row['conversation']!r}: {exc}")
    return []


def whole_word(value: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9\-]){re.escape(value)}(?![A-Za-z0-9\-])", text, re.IGNORECASE) is not None


def _check_facts(row: dict, n_turns: int, fail, conversation: list[dict[str, Any]]) -> None:  # noqa: ANN001, C901
    """Facts, questions, scripted assistant turns and the system prompt (issue 17's fields)."""
    for i, a in enumerate(row.get("assistant", [])):
        if not 1 <= a["turn"] < n_turns:
            fail(f"assistant[{i}].turn", f"must name a follow-up turn (1..{n_turns - 1}): it is said before that turn")
    facts = row.get("facts", [])
    ids: dict[str, int] = {}
    texts = {
        "documents": {d["id"]: d["text"] for d in row.get("documents", [])},
        "files": {x["path"]: x["content"] for x in row.get("files", [])},
        "conversation": conversation,
    }
    for i, f in enumerate(facts):
        where = f"facts[{i}]"
        if f["id"] in ids:
            fail(f"{where}.id", f"duplicate fact id (first in facts[{ids[f['id']]}])")
        ids[f["id"]] = i
        if not 0 <= f["turn"] < n_turns:
            fail(f"{where}.turn", f"must name a turn of the case (0..{n_turns - 1}), got {f['turn']!r}")
        if f["type"] == "artifact":
            _check_artifact(row, f, where, fail)
            continue
        key = f["key"]
        if not key.strip() or " is " in f" {key} " or "\n" in key:
            fail(
                f"{where}.key", "must be a non-empty phrase without the word 'is' (the fact is stated as 'the <key> is <value>')"
            )
        if not VALUE_PATTERN.match(f["value"]):
            fail(
                f"{where}.value",
                "must be one word of letters, digits and inner '-' (e.g. pg-16), so an answer can be read exactly",
            )
        text = _place_text(row, f, where, texts, fail)
        if not whole_word(f["value"], text):
            fail(f"{where}.value", f"{f['value']!r} is not stated in its place ({place_name(f)})")
    for i, f in enumerate(facts):
        nxt = f.get("superseded_by")
        if nxt is None:
            continue
        if nxt not in ids:
            fail(f"facts[{i}].superseded_by", f"{nxt!r} is not a fact id of this row")
        later = facts[ids[nxt]]
        if nxt == f["id"] or later["key"] != f["key"] or later["type"] != f["type"]:
            fail(f"facts[{i}].superseded_by", "must name another fact with the same key and type")
        if later["turn"] < f["turn"]:
            fail(f"facts[{i}].superseded_by", f"{nxt!r} is stated in turn {later['turn']}, before this fact (turn {f['turn']})")
        if later["value"] == f["value"]:
            fail(f"facts[{i}].superseded_by", f"{nxt!r} restates the same value {f['value']!r}; an update must change it")
    superseders = [f["superseded_by"] for f in facts if f.get("superseded_by")]
    if len(superseders) != len(set(superseders)):
        dup = next(x for x in superseders if superseders.count(x) > 1)
        fail(f"facts[{ids[dup]}].id", f"{dup!r} supersedes two facts; an update chain is one line")
    _check_questions(row, n_turns, ids, fail)


def place_name(f: dict) -> str:
    if f["place"] == "tool":
        return f"document or file {f.get('doc')!r}"
    if f["place"] == "system":
        return "the system prompt"
    if f["place"] == "conversation":
        return f"recorded message {f.get('message')}"
    return f"the {f['place']} message of turn {f['turn']}"


def _place_text(row: dict, f: dict, where: str, texts: dict, fail) -> str:  # noqa: ANN001
    place = f["place"]
    if place != "tool" and f.get("doc") is not None:
        fail(f"{where}.doc", f"only a tool fact names a doc (this one is stated in the {place} place)")
    if place != "conversation" and f.get("message") is not None:
        fail(f"{where}.message", f"only a conversation fact names a message (this one is stated in the {place} place)")
    if place == "conversation":
        from harness.scenarios.conversation import text_of

        recorded = texts["conversation"]
        if not recorded:
            fail(f"{where}.place", "the row names no recorded conversation ('conversation')")
        if f["turn"] != 0:
            fail(f"{where}.turn", "the recorded conversation comes before the task: turn 0")
        if f.get("message") is None or not 0 <= f["message"] < len(recorded):
            fail(f"{where}.message", f"must be the index of a recorded message (0..{len(recorded) - 1})")
        return text_of(recorded[f["message"]])
    if place == "user":
        return ([row["task"], *row.get("followups", [])])[f["turn"]]
    if place == "assistant":
        said = [a["text"] for a in row.get("assistant", []) if a["turn"] == f["turn"]]
        if not said:
            fail(f"{where}.place", f"no scripted assistant message before turn {f['turn']} (add one to 'assistant')")
        return "\n".join(said)
    if place == "system":
        if f["turn"] != 0:
            fail(f"{where}.turn", "a system-prompt fact is stated from the start: turn 0")
        if not row.get("system_prompt"):
            fail("system_prompt", f"{where} is stated in the system prompt, but the row has none")
        return row["system_prompt"]
    doc = f.get("doc")
    if doc is None:
        fail(f"{where}.doc", "a tool fact names the document or file that states it")
    if doc in texts["documents"]:
        return texts["documents"][doc]
    if doc in texts["files"]:
        return texts["files"][doc]
    fail(f"{where}.doc", f"{doc!r} is not one of the row's documents or files")
    return ""


def _check_artifact(row: dict, f: dict, where: str, fail) -> None:  # noqa: ANN001
    if f["place"] != "tool":
        fail(f"{where}.place", "an artifact is a file the agent writes or edits as a step: its place is 'tool'")
    if f.get("doc") is not None:
        fail(f"{where}.doc", "an artifact names its path in 'key', not 'doc'")
    if f["value"] not in ARTIFACT_ACTIONS.values():
        fail(f"{where}.value", f"an artifact's value is what was done to it: one of {', '.join(ARTIFACT_ACTIONS.values())}")
    tools = {tool for tool, action in ARTIFACT_ACTIONS.items() if action == f["value"]}
    if not any(s["tool"] in tools and s["target"] == f["key"] for s in row.get("expected_steps", [])):
        fail(
            f"{where}.key",
            f"no expected step {'/'.join(sorted(tools))} on {f['key']!r}: an artifact is a file the task has the agent {f['value'][:-2] if f['value'] == 'edited' else 'write'}",
        )


def _check_questions(row: dict, n_turns: int, ids: dict[str, int], fail) -> None:  # noqa: ANN001
    facts = row.get("facts", [])
    asked: dict[int, int] = {}
    for i, q in enumerate(row.get("questions", [])):
        where = f"questions[{i}]"
        if not 1 <= q["turn"] < n_turns:
            fail(f"{where}.turn", f"must name a follow-up turn (1..{n_turns - 1}), got {q['turn']!r}")
        if q["turn"] in asked:
            fail(f"{where}.turn", f"turn {q['turn']} already asks questions[{asked[q['turn']]}]; one question per turn")
        asked[q["turn"]] = i
        for x in q["facts"]:
            if x not in ids:
                fail(f"{where}.facts", f"{x!r} is not a fact id of this row")
        asked_facts = [facts[ids[x]] for x in q["facts"]]
        text = row["followups"][q["turn"] - 1]
        form = parse_probe(text)
        types = {f["type"] for f in asked_facts}
        if q["probe"] == "artifact":
            if types != {"artifact"}:
                fail(f"{where}.facts", "an artifact probe asks about artifact facts only")
            if form != ("artifact", None):
                fail(f"followups[{q['turn'] - 1}]", "does not ask the artifact question (harness.task_format.ARTIFACT_QUESTION)")
            continue
        if len(asked_facts) == 2 and q["probe"] == "recall":
            _check_reference_question(row, where, q, asked_facts, ids, fail)
            continue
        if len(asked_facts) != 1:
            fail(
                f"{where}.facts",
                f"a {q['probe']} probe asks about one fact (its update chain is followed); a recall probe may ask two: "
                "an attribute through the fact that names its entity (a reference question)",
            )
        fact = asked_facts[0]
        wanted = {"continuation": {"goal_state"}, "decision": {"decision"}}.get(q["probe"])
        if wanted is not None and fact["type"] not in wanted:
            fail(f"{where}.facts", f"a {q['probe']} probe asks about a {'/'.join(sorted(wanted))} fact, not a {fact['type']}")
        if q["probe"] == "recall" and fact["type"] == "artifact":
            fail(f"{where}.probe", "an artifact fact is asked by an artifact probe")
        form_wanted = ("decision", fact["key"]) if q["probe"] == "decision" else ("value", fact["key"])
        if form != form_wanted:
            asks = "What was decided for the <key>, ...?" if q["probe"] == "decision" else "What is the <key>?"
            fail(f"followups[{q['turn'] - 1}]", f"does not ask {asks.replace('<key>', fact['key'])!r}")
        if fact["turn"] >= q["turn"]:
            fail(f"{where}.turn", f"asks about {fact['id']!r} before it is stated (turn {fact['turn']})")
    if row["kind"] == "probe" and not row.get("questions"):
        fail("questions", "a probe scenario needs at least one question")
    if row.get("questions") and not facts:
        fail("facts", "questions ask about facts: the row has none")


def _check_reference_question(row: dict, where: str, q: dict, asked: list[dict], ids: dict[str, int], fail) -> None:  # noqa: ANN001
    """A recall of two facts is a reference question: the first is the attribute, stated under its entity's name ("the
    ORBIT-7 access code is ..."), the second the fact that names the entity ("the primary site is ORBIT-7", its chain's
    latest value), and the follow-up asks "What is the <attribute> of the <reference>?"."""
    facts = row.get("facts", [])
    attribute, reference = asked
    for f in asked:
        if f["type"] == "artifact":
            fail(f"{where}.facts", "a reference question asks about stated facts, not artifacts")
        if f["turn"] >= q["turn"]:
            fail(f"{where}.turn", f"asks about {f['id']!r} before it is stated (turn {f['turn']})")
    entity = reference
    while entity.get("superseded_by"):
        entity = facts[ids[entity["superseded_by"]]]
    asked_key = reference_question_key(attribute["key"], entity["value"], reference["key"])
    if asked_key is None:
        fail(
            f"{where}.facts",
            f"a recall of two facts asks the first through the second: {attribute['key']!r} is not named by "
            f"{reference['id']!r}'s value {entity['value']!r} (expected '{entity['value']} <attribute>')",
        )
    if parse_probe(row["followups"][q["turn"] - 1]) != ("value", asked_key):
        fail(f"followups[{q['turn'] - 1}]", f"does not ask {render_question(str(asked_key))!r}")
