"""Scenarios: eval cases as data rows in JSONL files under ``datasets/``, loaded with HF `datasets`.

The schema is documented in ``datasets/README.md``. Each line is validated before the
file is handed to `datasets.load_dataset("json", ...)`; a malformed row raises
`DatasetError` naming the file, the row (its line number) and the field.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness._paths import DATASETS_DIR as _DATASETS_DIR
from harness._paths import not_a_file
from harness.errors import DatasetError, dataset_location
from harness.task_format import (
    ARTIFACT_ACTIONS,
    FACT_TYPES,
    PROBES,
    STEP_TOOLS,
    VALUE_PATTERN,
    find_facts,
    parse_probe,
    parse_question,
    parse_statements,
    reference_question_key,
    render_question,
)

KINDS = ("needle", "goal", "chain", "truncation", "probe")
PLACES = ("user", "assistant", "tool", "system", "conversation")
"""Where a fact is stated: a user turn's text, a scripted assistant message before a user turn, a tool result (a
document the agent fetches or a file it reads: ``doc``), the system prompt (turn 0), or message ``message`` of the
recorded conversation the case starts from (turn 0)."""
DATASETS_DIR = _DATASETS_DIR
# Mechanism cases that need their own preset (e.g. `truncation`): not part of a default run.
MECHANISMS_DIR = DATASETS_DIR / "mechanisms"
# The scenario files a default run reads: the shipped ones `harness generate` writes, named, never a glob of
# datasets/, so a file a user writes there (a needle grid from `harness generate needle`) joins a run only when
# it is named with --datasets.
DEFAULT_FILES = ("needle.jsonl", "goal.jsonl", "chain.jsonl", "probes.jsonl", "recorded.jsonl")
MECHANISM_FILES = ("mechanisms/truncation.jsonl",)
_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


@dataclass(frozen=True)
class Needle:
    key: str
    answer: str
    doc: str
    depth: float
    turn: int  # the user turn (0 = task) whose question asks for it


@dataclass(frozen=True)
class Fact:
    """A fact planted in a case: of a ``type`` (`FACT_TYPES`), stated in a ``place`` (`PLACES`) in user turn ``turn``
    (for a ``tool`` fact, in document or file ``doc``). ``superseded_by`` names the fact (same key and type) that
    replaces it later: its value is then stale, a forbidden answer. An ``artifact`` is a file the agent writes or
    edits as a step of the task: ``key`` the path, ``value`` "written" or "edited"."""

    id: str
    type: str
    key: str
    value: str
    place: str
    turn: int
    doc: str | None = None
    superseded_by: str | None = None
    message: int | None = None  # a conversation fact: the index of the recorded message that states it


@dataclass(frozen=True)
class Question:
    """A probe asked by follow-up ``turn`` about ``facts`` (ids): recall, artifact, continuation or decision."""

    turn: int
    facts: tuple[str, ...]
    probe: str


@dataclass(frozen=True)
class ExpectedStep:
    tool: str
    target: str = ""


@dataclass(frozen=True)
class ExpectedFile:
    """A file the agent must leave behind, containing every one of ``contains``."""

    path: str
    contains: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    """One case: its task and follow-ups, what it gives the agent (files, documents) and what is expected of it."""

    id: str
    kind: str
    description: str
    task: str
    followups: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    documents: tuple[tuple[str, str], ...] = ()
    needles: tuple[Needle, ...] = ()
    expected_steps: tuple[ExpectedStep, ...] = ()
    expected_files: tuple[ExpectedFile, ...] = ()
    haystack_tokens: int | None = None
    needle_depth: float | None = None
    min_summaries: int = 1
    facts: tuple[Fact, ...] = ()
    questions: tuple[Question, ...] = ()
    assistant: tuple[tuple[int, str], ...] = ()  # (turn, text): a scripted assistant message before user turn ``turn``
    system_prompt: str | None = None  # added to the agent's system prompt
    conversation: tuple[dict[str, Any], ...] = ()  # recorded OpenAI-format messages placed before the task
    conversation_file: str | None = None  # as the row names it
    source: str = ""
    # What in the row misleads its author (`case_warnings`), found when it was loaded; not part of the case itself.
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def turns(self) -> tuple[str, ...]:
        return (self.task, *self.followups)

    @property
    def size_chars(self) -> int:
        """Characters the case puts before the agent (turns, files, documents, recorded conversation): the runner's
        estimate of how long the case runs, to start the longest first (`harness.runs.run.start_order`)."""
        texts = [*self.turns, *(t for _, t in self.files), *(t for _, t in self.documents)]
        return sum(map(len, texts)) + sum(len(str(m.get("content", ""))) for m in self.conversation)

    def files_dict(self) -> dict[str, str]:
        return dict(self.files)

    def documents_dict(self) -> dict[str, str]:
        return dict(self.documents)

    def agent_system_prompt(self) -> str | None:
        """What the case adds to the agent's system prompt: the recorded conversation's system text, then its own."""
        from harness.scenarios.conversation import system_text

        parts = [p for p in (system_text(self.conversation), self.system_prompt or "") if p]
        return "\n\n".join(parts) or None

    def fact(self, fact_id: str) -> Fact:
        return next(f for f in self.facts if f.id == fact_id)

    def chain(self, fact: Fact) -> list[Fact]:
        """``fact`` and every fact that supersedes it, in order (the first statement first, the latest last)."""
        by_id = {f.id: f for f in self.facts}
        out = [fact]
        while out[-1].superseded_by is not None and out[-1].superseded_by in by_id and len(out) <= len(by_id):
            out.append(by_id[out[-1].superseded_by])
        return out


# -- validation of raw rows -------------------------------------------------------------
_FIELDS: dict[str, tuple[type | tuple[type, ...], bool]] = {
    # name: (type, required)
    "id": (str, True),
    "kind": (str, True),
    "description": (str, True),
    "task": (str, True),
    "followups": (list, False),
    "files": (list, False),
    "documents": (list, False),
    "needles": (list, False),
    "expected_steps": (list, False),
    "expected_files": (list, False),
    "haystack_tokens": ((int, type(None)), False),
    "needle_depth": ((int, float, type(None)), False),
    "min_summaries": ((int, type(None)), False),
    "facts": (list, False),
    "questions": (list, False),
    "assistant": (list, False),
    "system_prompt": (str, False),
    "conversation": (str, False),
}


def validate_row(row: Any, path: str, line: int) -> None:
    """Raise DatasetError for the first problem in one raw row."""

    def fail(fld: str | None, problem: str) -> None:
        case = row.get("id") if isinstance(row, dict) and isinstance(row.get("id"), str) else None
        raise DatasetError(path, line, fld, problem, case_id=case)

    if not isinstance(row, dict):
        fail(None, f"a row must be a JSON object, got {type(row).__name__}")
    for name in row:
        if name not in _FIELDS:
            fail(name, f"unknown field; known fields: {', '.join(_FIELDS)}")
    for name, (typ, required) in _FIELDS.items():
        if name not in row:
            if required:
                fail(name, "missing required field")
            continue
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, typ):
            fail(name, f"expected {_type_name(typ)}, got {type(value).__name__}")
        if typ is str and not value.strip():
            fail(name, "must be a non-empty string")
    if not _ID.match(row["id"]):
        fail("id", "use lowercase letters, digits, '-', '_' or '.'")
    if row["kind"] not in KINDS:
        fail("kind", f"unknown kind {row['kind']!r}; expected one of {', '.join(KINDS)}")
    for i, text in enumerate(row.get("followups", [])):
        if not isinstance(text, str) or not text.strip():
            fail(f"followups[{i}]", "must be a non-empty string")
    _check_records(row, "files", {"path": str, "content": str}, fail)
    _check_records(row, "documents", {"id": str, "text": str}, fail)
    _check_records(row, "needles", {"key": str, "answer": str, "doc": str, "depth": (int, float), "turn": int}, fail)
    _check_records(row, "expected_steps", {"tool": str, "target": str}, fail)
    _check_records(row, "expected_files", {"path": str, "contains": list}, fail)
    for i, f in enumerate(row.get("expected_files", [])):
        if not f["path"].startswith("/"):
            fail(f"expected_files[{i}].path", "must be an absolute path starting with '/'")
        if not f["contains"] or not all(isinstance(x, str) and x.strip() for x in f["contains"]):
            fail(f"expected_files[{i}].contains", "must be a non-empty list of non-empty strings")
    for i, f in enumerate(row.get("files", [])):
        if not f["path"].startswith("/"):
            fail(f"files[{i}].path", "must be an absolute path starting with '/'")
    doc_ids = {d["id"] for d in row.get("documents", [])}
    n_turns = 1 + len(row.get("followups", []))
    for i, needle in enumerate(row.get("needles", [])):
        if not needle["answer"].strip():
            fail(f"needles[{i}].answer", "must be a non-empty string")
        if needle["doc"] not in doc_ids and needle["doc"] not in {f["path"] for f in row.get("files", [])}:
            fail(f"needles[{i}].doc", f"{needle['doc']!r} is not one of the row's documents or files")
        if not 0 <= needle["depth"] <= 1:
            fail(f"needles[{i}].depth", f"must be between 0 and 1, got {needle['depth']!r}")
        if not 1 <= needle["turn"] < n_turns:
            fail(f"needles[{i}].turn", f"must name a follow-up turn (1..{n_turns - 1}), got {needle['turn']!r}")
        question = row["followups"][needle["turn"] - 1]
        if parse_question(question) != needle["key"]:
            fail(f"followups[{needle['turn'] - 1}]", f"does not ask 'What is the {needle['key']}?'")
    for i, step in enumerate(row.get("expected_steps", [])):
        if step["tool"] not in STEP_TOOLS:
            fail(f"expected_steps[{i}].tool", f"unknown tool {step['tool']!r}; expected one of {', '.join(STEP_TOOLS)}")
    if row["kind"] in ("needle", "chain") and not row.get("needles"):
        fail("needles", f"a {row['kind']} scenario needs at least one needle")
    if row.get("min_summaries") is not None and row["min_summaries"] < 1:
        fail("min_summaries", f"must be at least 1, got {row['min_summaries']!r}")
    if row["kind"] in ("goal", "truncation"):
        if not row.get("expected_steps"):
            fail("expected_steps", f"a {row['kind']} scenario needs its expected steps")
        # A task in prose (no numbered step list) is valid data: a live model runs it as written; offline it is
        # SKIPPED, since the reference agent follows only the step grammar (harness.agent.runner.offline_skip_reason).
    if row["kind"] == "truncation" and not row.get("expected_files"):
        fail("expected_files", "a truncation scenario needs the file it builds and what that file must contain")
    conversation = _conversation(row, path, fail)
    _check_facts(row, n_turns, fail, conversation)


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


def _whole_word(value: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9\-]){re.escape(value)}(?![A-Za-z0-9\-])", text, re.IGNORECASE) is not None


def _check_facts(row: dict, n_turns: int, fail, conversation: list[dict[str, Any]]) -> None:  # noqa: ANN001, C901
    """Facts, questions, scripted assistant turns and the system prompt (issue 17's fields)."""
    _check_records(row, "assistant", {"turn": int, "text": str}, fail)
    for i, a in enumerate(row.get("assistant", [])):
        if not 1 <= a["turn"] < n_turns:
            fail(f"assistant[{i}].turn", f"must name a follow-up turn (1..{n_turns - 1}): it is said before that turn")
        if not a["text"].strip():
            fail(f"assistant[{i}].text", "must be a non-empty string")
    fact_schema = {"id": str, "type": str, "key": str, "value": str, "place": str, "turn": int}
    optional = {"doc": str, "superseded_by": str, "message": int}
    facts = row.get("facts", [])
    for i, f in enumerate(facts):
        if not isinstance(f, dict):
            fail(f"facts[{i}]", f"expected an object, got {type(f).__name__}")
        _check_one(f, f"facts[{i}]", fact_schema, optional, fail)
    ids: dict[str, int] = {}
    texts = {
        "documents": {d["id"]: d["text"] for d in row.get("documents", [])},
        "files": {x["path"]: x["content"] for x in row.get("files", [])},
        "conversation": conversation,
    }
    for i, f in enumerate(facts):
        where = f"facts[{i}]"
        if not _ID.match(f["id"]):
            fail(f"{where}.id", "use lowercase letters, digits, '-', '_' or '.'")
        if f["id"] in ids:
            fail(f"{where}.id", f"duplicate fact id (first in facts[{ids[f['id']]}])")
        ids[f["id"]] = i
        if f["type"] not in FACT_TYPES:
            fail(f"{where}.type", f"unknown fact type {f['type']!r}; expected one of {', '.join(FACT_TYPES)}")
        if f["place"] not in PLACES:
            fail(f"{where}.place", f"unknown place {f['place']!r}; expected one of {', '.join(PLACES)}")
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
        if not _whole_word(f["value"], text):
            fail(f"{where}.value", f"{f['value']!r} is not stated in its place ({_place_name(f)})")
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


def _check_one(item: dict, where: str, schema: dict[str, Any], optional: dict[str, Any], fail) -> None:  # noqa: ANN001
    for key, typ in schema.items():
        if key not in item:
            fail(f"{where}.{key}", "missing required field")
        if isinstance(item[key], bool) or not isinstance(item[key], typ):
            fail(f"{where}.{key}", f"expected {_type_name(typ)}, got {type(item[key]).__name__}")
    for key, typ in optional.items():
        if key in item and item[key] is not None and not isinstance(item[key], typ):
            fail(f"{where}.{key}", f"expected {_type_name(typ)} or null, got {type(item[key]).__name__}")
    extra = set(item) - set(schema) - set(optional)
    if extra:
        fail(f"{where}.{sorted(extra)[0]}", f"unknown field; known: {', '.join([*schema, *optional])}")


def _place_name(f: dict) -> str:
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
    _check_records(row, "questions", {"turn": int, "facts": list, "probe": str}, fail)
    facts = row.get("facts", [])
    asked: dict[int, int] = {}
    for i, q in enumerate(row.get("questions", [])):
        where = f"questions[{i}]"
        if q["probe"] not in PROBES:
            fail(f"{where}.probe", f"unknown probe {q['probe']!r}; expected one of {', '.join(PROBES)}")
        if not 1 <= q["turn"] < n_turns:
            fail(f"{where}.turn", f"must name a follow-up turn (1..{n_turns - 1}), got {q['turn']!r}")
        if q["turn"] in asked:
            fail(f"{where}.turn", f"turn {q['turn']} already asks questions[{asked[q['turn']]}]; one question per turn")
        asked[q["turn"]] = i
        if not q["facts"] or not all(isinstance(x, str) for x in q["facts"]):
            fail(f"{where}.facts", "must be a non-empty list of fact ids")
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


# -- warnings: a valid row that misleads its author --------------------------------------------------------------------
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
    return [g.key for g in scenario.facts if g.key != fact.key and g.type != "artifact" and _whole_word(fact.value, g.key)]


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
                    f"place ({_place_name(_fact_row(f))}): while that {kind} is in view a question about {f.id!r} is "
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
    type, key and value). Documents are not read: a haystack's distractor sentences are there by design."""
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


def _check_records(row: dict, name: str, schema: dict[str, Any], fail) -> None:  # noqa: ANN001
    for i, item in enumerate(row.get(name, [])):
        if not isinstance(item, dict):
            fail(f"{name}[{i}]", f"expected an object, got {type(item).__name__}")
        for key, typ in schema.items():
            if key not in item:
                fail(f"{name}[{i}].{key}", "missing required field")
            if isinstance(item[key], bool) or not isinstance(item[key], typ):
                fail(f"{name}[{i}].{key}", f"expected {_type_name(typ)}, got {type(item[key]).__name__}")
        extra = set(item) - set(schema)
        if extra:
            fail(f"{name}[{i}].{sorted(extra)[0]}", f"unknown field; known: {', '.join(schema)}")


def _type_name(typ: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object", type(None): "null"}
    if isinstance(typ, tuple):
        return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in typ))
    return names.get(typ, typ.__name__)


# -- loading ----------------------------------------------------------------------------
def _raw_rows(path: Path) -> list[tuple[int, dict]]:
    problem = not_a_file(path)
    if problem == "is a directory":
        raise DatasetError(str(path), None, None, f"is a directory; give its .jsonl files (e.g. {path / '*.jsonl'})")
    if problem is not None:  # a symlink loop, a FIFO...: named for what it is, never "no such file"
        raise DatasetError(str(path), None, None, problem)
    try:
        return _read_rows(path)
    except OSError as exc:  # unreadable (permissions, an I/O error): named against the file, not a traceback
        raise DatasetError(str(path), None, None, f"cannot be read ({exc.strerror or exc})") from None


def _read_rows(path: Path) -> list[tuple[int, dict]]:
    rows = []
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(
                    str(path),
                    line_no,
                    None,
                    f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    "scenario files must be UTF-8 JSON Lines",
                ) from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                # json's own messages may end in "at" ("Unterminated string starting at"): the column stands apart
                raise DatasetError(str(path), line_no, None, f"invalid JSON ({exc.msg}), column {exc.colno}") from None
            validate_row(row, str(path), line_no)
            rows.append((line_no, row))
    if not rows:
        raise DatasetError(str(path), None, None, "file has no rows")
    return rows


def _load_hf(path: Path):  # noqa: ANN202
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    import datasets

    # datasets exports these lazily, out of mypy's sight
    datasets.disable_progress_bars()  # type: ignore[attr-defined]
    datasets.logging.set_verbosity_error()  # type: ignore[attr-defined]
    # datasets resolves the file through tqdm's thread_map, and tqdm starts its monitor thread for any bar, disabled or
    # not: a thread that outlived the load and made the process unsafe to fork (`harness._fork.can_fork`).
    from tqdm import std

    interval, std.tqdm.monitor_interval = std.tqdm.monitor_interval, 0
    try:
        return datasets.load_dataset(  # type: ignore[attr-defined]
            "json", data_files=str(path), split="train"
        )
    finally:
        std.tqdm.monitor_interval = interval


def load_scenarios(paths: Iterable[str | Path] | None = None) -> list[Scenario]:
    """Validate and load scenario files (default: the shipped ones, ``DEFAULT_FILES``)."""
    files = [Path(p) for p in paths] if paths else default_scenario_files()
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for path in files:
        raw = _raw_rows(path)
        try:
            table = _load_hf(path)
        except Exception as exc:  # noqa: BLE001 - report any loader failure against the file
            raise DatasetError(str(path), None, None, f"Hugging Face datasets could not load the file: {exc}") from None
        for (line_no, _), row in zip(raw, table, strict=True):
            scenario = _scenario(row, str(path))
            scenario = replace(scenario, warnings=tuple(case_warnings(scenario, line_no)))
            if scenario.id in seen:
                raise DatasetError(str(path), line_no, "id", f"duplicate id (first in {seen[scenario.id]})", case_id=scenario.id)
            seen[scenario.id] = f"{path}"
            scenarios.append(scenario)
    return scenarios


def default_scenario_files() -> list[Path]:
    """The shipped scenario files a default run reads (``DEFAULT_FILES``)."""
    return [DATASETS_DIR / name for name in DEFAULT_FILES]


def all_scenario_files() -> list[Path]:
    """The default scenario files plus the shipped mechanism cases (``MECHANISM_FILES``)."""
    return [*default_scenario_files(), *(DATASETS_DIR / name for name in MECHANISM_FILES)]


def _scenario(row: dict[str, Any], source: str) -> Scenario:
    return Scenario(
        id=row["id"],
        kind=row["kind"],
        description=row["description"],
        task=row["task"],
        followups=tuple(row.get("followups") or ()),
        files=tuple((f["path"], f["content"]) for f in row.get("files") or ()),
        documents=tuple((d["id"], d["text"]) for d in row.get("documents") or ()),
        needles=tuple(
            Needle(n["key"], n["answer"], n["doc"], float(n["depth"]), int(n["turn"])) for n in row.get("needles") or ()
        ),
        expected_steps=tuple(ExpectedStep(s["tool"], s["target"]) for s in row.get("expected_steps") or ()),
        expected_files=tuple(ExpectedFile(f["path"], tuple(f["contains"])) for f in row.get("expected_files") or ()),
        haystack_tokens=row.get("haystack_tokens"),
        needle_depth=row.get("needle_depth"),
        min_summaries=row.get("min_summaries") or 1,
        facts=tuple(
            Fact(
                f["id"],
                f["type"],
                f["key"],
                f["value"],
                f["place"],
                int(f["turn"]),
                f.get("doc"),
                f.get("superseded_by"),
                f.get("message"),
            )
            for f in row.get("facts") or ()
        ),
        questions=tuple(Question(int(q["turn"]), tuple(q["facts"]), q["probe"]) for q in row.get("questions") or ()),
        assistant=tuple((int(a["turn"]), a["text"]) for a in row.get("assistant") or ()),
        system_prompt=row.get("system_prompt") or None,
        conversation=tuple(_recorded(row.get("conversation"), source)),
        conversation_file=row.get("conversation") or None,
        source=source,
    )


def _recorded(name: str | None, source: str) -> list[dict[str, Any]]:
    if not name:
        return []
    from harness.scenarios.conversation import load_conversation, resolve

    return load_conversation(resolve(name, source))


def scenario_row(scenario: Scenario) -> dict[str, Any]:
    """The dataset row of ``scenario`` (the inverse of loading it), e.g. to keep a generated case with its run."""
    return {
        "id": scenario.id,
        "kind": scenario.kind,
        "description": scenario.description,
        "task": scenario.task,
        "followups": list(scenario.followups),
        "files": [{"path": p, "content": c} for p, c in scenario.files],
        "documents": [{"id": d, "text": t} for d, t in scenario.documents],
        "needles": [{"key": n.key, "answer": n.answer, "doc": n.doc, "depth": n.depth, "turn": n.turn} for n in scenario.needles],
        "expected_steps": [{"tool": e.tool, "target": e.target} for e in scenario.expected_steps],
        "expected_files": [{"path": f.path, "contains": list(f.contains)} for f in scenario.expected_files],
        "haystack_tokens": scenario.haystack_tokens,
        "needle_depth": scenario.needle_depth,
        "min_summaries": scenario.min_summaries,
        **({"facts": [_fact_row(f) for f in scenario.facts]} if scenario.facts else {}),
        **(
            {"questions": [{"turn": q.turn, "facts": list(q.facts), "probe": q.probe} for q in scenario.questions]}
            if scenario.questions
            else {}
        ),
        **({"assistant": [{"turn": t, "text": x} for t, x in scenario.assistant]} if scenario.assistant else {}),
        **({"system_prompt": scenario.system_prompt} if scenario.system_prompt else {}),
        **({"conversation": scenario.conversation_file} if scenario.conversation_file else {}),
    }


def _fact_row(f: Fact) -> dict[str, Any]:
    row: dict[str, Any] = {"id": f.id, "type": f.type, "key": f.key, "value": f.value, "place": f.place, "turn": f.turn}
    if f.doc is not None:
        row["doc"] = f.doc
    if f.superseded_by is not None:
        row["superseded_by"] = f.superseded_by
    if f.message is not None:
        row["message"] = f.message
    return row


def select(
    scenarios: Sequence[Scenario], *, kind: str | None = None, ids: Sequence[str] | None = None, limit: int | None = None
) -> list[Scenario]:
    """The scenarios of ``kind`` whose ids match one of the ``ids`` globs, at most ``limit`` of them, in order."""
    out = [s for s in scenarios if kind is None or s.kind == kind]
    if ids:
        import fnmatch

        out = [s for s in out if any(fnmatch.fnmatch(s.id, pattern) for pattern in ids)]
    return out[:limit] if limit is not None else out
