"""The plain-English task format the scenarios use, written and read in one place.

A task is ordinary prose followed by a numbered step list, one tool call per step:

    Work through these steps in order, one tool call per step:
    1. Fetch document DOC-001 with fetch_document.
    2. Read /ledgers/ledger_01.md with read_file.
    3. Write /notes/ledger_01.md with write_file: a one-line note on /ledgers/ledger_01.md.
    4. Reply with "TASK COMPLETE" and the number of steps you finished.

A report is built section by section in one file, each section added by rewriting the
whole file (``mode`` "section" for the first, "add" for the rest), or appending with
edit_file ("append"):

    2. Write /reports/r.md with write_file: a section on DOC-001.
    4. Add a section on DOC-002 to /reports/r.md with write_file, keeping everything already in it.
    6. Append a section on DOC-003 to /reports/r.md with edit_file, after its last line.

A section is headed ``## <document id>``, records the document's "Finding:" lines and
opening lines, and ends with ``End of section <document id>.``

Several documents fetched at once, as parallel tool calls in one assistant message (``mode`` "parallel"):

    5. Fetch documents DOC-005, DOC-006 and DOC-007 with fetch_document, all in one turn.

A follow-up question reads ``Question: What is the <key>? Reply with the value only.``

A live model reads this as English; the offline reference agent parses it with the
functions below. The generator renders it with the same functions, so the two cannot
drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

STEPS_HEADER = "Work through these steps in order, one tool call per step:"
COMPLETION_MARKER = "TASK COMPLETE"
STEP_TOOLS = ("fetch_document", "read_file", "write_file", "edit_file", "task", "compact_conversation", "reply")
# File steps: a one-line note, a report's first section, a further section by rewriting
# the whole file (write_file), a further section appended after the last line (edit_file).
FILE_MODES = ("note", "section", "add", "append")
FINDING_PREFIX = "Finding:"


@dataclass(frozen=True)
class Step:
    number: int
    tool: str
    target: str = ""
    source: str = ""
    mode: str = ""  # write_file / edit_file steps only: one of FILE_MODES

    def __post_init__(self) -> None:
        if self.tool == "write_file" and not self.mode:
            object.__setattr__(self, "mode", "note")
        if self.tool == "edit_file" and not self.mode:
            object.__setattr__(self, "mode", "append")

    @property
    def targets(self) -> tuple[str, ...]:
        """What the step acts on: its one target, or each document of a parallel fetch (``mode`` "parallel")."""
        return tuple(self.target.split(",")) if self.mode == "parallel" else (self.target,)

    def render(self) -> str:
        if self.tool == "fetch_document" and self.mode == "parallel":
            *head, tail = self.targets
            return f"{self.number}. Fetch documents {', '.join(head)} and {tail} with fetch_document, all in one turn."
        if self.tool == "fetch_document":
            return f"{self.number}. Fetch document {self.target} with fetch_document."
        if self.tool == "read_file":
            return f"{self.number}. Read {self.target} with read_file."
        if self.tool == "write_file" and self.mode == "section":
            return f"{self.number}. Write {self.target} with write_file: a section on {self.source}."
        if self.tool == "write_file" and self.mode == "add":
            return f"{self.number}. Add a section on {self.source} to {self.target} with write_file, keeping everything already in it."
        if self.tool == "write_file":
            return f"{self.number}. Write {self.target} with write_file: a one-line note on {self.source}."
        if self.tool == "edit_file":
            return f"{self.number}. Append a section on {self.source} to {self.target} with edit_file, after its last line."
        if self.tool == "task":
            first, _, last = self.target.partition("..")
            return f"{self.number}. Delegate documents {first} to {last} to a subagent with task."
        if self.tool == "compact_conversation":
            return f"{self.number}. Compact the conversation with compact_conversation."
        if self.tool == "reply":
            return f'{self.number}. Reply with "{COMPLETION_MARKER}" and the number of steps you finished.'
        raise ValueError(f"unknown step tool {self.tool!r}")


_STEP_PATTERNS = [
    (re.compile(r"^(\d+)\. Fetch document (\S+) with fetch_document\.$"), "fetch_document"),
    (
        re.compile(r"^(\d+)\. Fetch documents ([^\s,]+(?:, [^\s,]+)*) and ([^\s,]+) with fetch_document, all in one turn\.$"),
        "fetch_document:parallel",
    ),
    (re.compile(r"^(\d+)\. Read (\S+) with read_file\.$"), "read_file"),
    (re.compile(r"^(\d+)\. Write (\S+) with write_file: a one-line note on (\S+)\.$"), "write_file"),
    (re.compile(r"^(\d+)\. Write (\S+) with write_file: a section on (\S+)\.$"), "write_file:section"),
    (
        re.compile(r"^(\d+)\. Add a section on (\S+) to (\S+) with write_file, keeping everything already in it\.$"),
        "write_file:add",
    ),
    (re.compile(r"^(\d+)\. Append a section on (\S+) to (\S+) with edit_file, after its last line\.$"), "edit_file:append"),
    (re.compile(r"^(\d+)\. Delegate documents (\S+) to (\S+) to a subagent with task\.$"), "task"),
    (re.compile(r"^(\d+)\. Compact the conversation with compact_conversation\.$"), "compact_conversation"),
    (re.compile(r'^(\d+)\. Reply with "' + COMPLETION_MARKER + r'"'), "reply"),
]
_QUESTION = re.compile(r"What is the (.+?)\?")


def note_steps(tool: str, targets: Sequence[str], note_path: Callable[[str], str]) -> list[Step]:
    """A task that takes each target with ``tool`` (read_file, fetch_document), writes a one-line note on it at
    ``note_path(target)``, then replies: the shape of the generated families' and the redo eval's tasks."""
    steps: list[Step] = []
    for target in targets:
        steps.append(Step(len(steps) + 1, tool, target))
        steps.append(Step(len(steps) + 1, "write_file", note_path(target), target))
    steps.append(Step(len(steps) + 1, "reply"))
    return steps


def is_step_line(line: str) -> bool:
    """``line`` is one numbered step of a task (also inside a '> ' quote)."""
    text = line.strip().lstrip(">").strip()
    return any(pattern.match(text) for pattern, _ in _STEP_PATTERNS)


def render_task(intro: str, steps: list[Step]) -> str:
    return "\n".join([intro.strip(), "", STEPS_HEADER, *(s.render() for s in steps)])


def parse_steps(text: str) -> list[Step]:
    """The numbered steps in ``text`` (also inside '> ' quotes), in order; [] if none.

    A plan may start after step 1 (the remaining steps of a request, as a summary's
    plan section lists them); it must be contiguous and end with the reply step.
    """
    steps: dict[int, Step] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(">"):
            line = line.lstrip(">").strip()
        for pattern, form in _STEP_PATTERNS:
            match = pattern.match(line)
            if match:
                steps.setdefault(int(match.group(1)), _step(form, match.groups()))
                break
    ordered = [steps[n] for n in sorted(steps)]
    if not ordered:
        return []
    first = ordered[0].number
    contiguous = [s.number for s in ordered] == list(range(first, first + len(ordered)))
    if not contiguous or (first > 1 and ordered[-1].tool != "reply"):
        return []
    return ordered


def _step(form: str, groups: tuple[str, ...]) -> Step:
    number, args = int(groups[0]), groups[1:]
    tool, _, mode = form.partition(":")
    if tool == "task":
        return Step(number, tool, f"{args[0]}..{args[1]}")
    if tool in ("reply", "compact_conversation"):
        return Step(number, tool)
    if mode == "parallel":  # "Fetch documents A, B and C ...": one step, several calls in one assistant message
        return Step(number, tool, ",".join([*args[0].split(", "), args[1]]), mode=mode)
    if mode in ("add", "append"):  # "Add / Append a section on <source> to <target>"
        return Step(number, tool, args[1], args[0], mode)
    if tool == "write_file":
        return Step(number, tool, args[0], args[1], mode or "note")
    return Step(number, tool, args[0])


def section_heading(source: str) -> str:
    """The heading a report section on ``source`` starts with."""
    return f"## {source}"


def section_end(source: str) -> str:
    """The line a report section on ``source`` ends with (a unique anchor for the next append)."""
    return f"End of section {source}."


def render_question(key: str) -> str:
    return f"Question: What is the {key}? Reply with the value only."


def parse_question(text: str) -> str | None:
    """The key a question asks for ("access code for the north vault"), or None."""
    if "Question:" not in text:
        return None
    match = _QUESTION.search(text)
    return match.group(1).strip() if match else None


# -- reference questions: an attribute asked through a reference to its entity ------------------------------------------
# "For the record, the primary site is ORBIT-7." defines the reference; "For the record, the ORBIT-7 access code is
# 4417-KESTREL." states the attribute under the entity's own name; "What is the access code of the primary site?" asks
# it through the reference. The attribute never contains " of the " (the split is at its first occurrence).
REFERENCE_JOIN = " of the "


def reference_key(attribute: str, reference: str) -> str:
    """The key a reference question asks: "access code of the primary site"."""
    if REFERENCE_JOIN in f" {attribute} ":
        raise ValueError(f"an attribute must not contain {REFERENCE_JOIN.strip()!r}: {attribute!r}")
    return f"{attribute}{REFERENCE_JOIN}{reference}"


def attribute_key(entity: str, attribute: str) -> str:
    """The key an attribute is stated under, named by its entity: "ORBIT-7 access code"."""
    return f"{entity} {attribute}"


def entity_attribute(key: str, entity: str) -> str | None:
    """The attribute an attribute key states for ``entity`` ("ORBIT-7 access code", "ORBIT-7" -> "access code"), or
    None when ``key`` is not named by ``entity``."""
    prefix = f"{entity} "
    attribute = key[len(prefix) :].strip() if key.lower().startswith(prefix.lower()) else ""
    return attribute or None


def reference_question_key(key: str, entity: str, reference: str) -> str | None:
    """What a reference question asks of the attribute stated under ``key`` ("ORBIT-7 access code") when ``reference``
    ("primary site") names ``entity`` ("ORBIT-7"): "access code of the primary site"; None when ``key`` is not named
    by ``entity``."""
    attribute = entity_attribute(key, entity)
    return reference_key(attribute, reference) if attribute else None


def render_reference_question(attribute: str, reference: str) -> str:
    """'Question: What is the <attribute> of the <reference>? Reply with the value only.'"""
    return render_question(reference_key(attribute, reference))


def parse_reference(key: str) -> tuple[str, str] | None:
    """(attribute, reference) of a reference question's key ("access code of the primary site"), or None when the key
    names no reference. A plain key may read the same way ("name of the ship"): a reader tries the key as stated
    first."""
    attribute, join, reference = key.partition(REFERENCE_JOIN)
    return (attribute.strip(), reference.strip()) if join and attribute.strip() and reference.strip() else None


TODOS_REQUEST = "Track these steps with write_todos: one todo per step, each marked completed as soon as it is done."
"""A task line asking the agent to keep its plan in the todo list (the todos eval, deepagents#4161 / #4164)."""


def wants_todos(text: str) -> bool:
    """``text`` asks for the plan to be tracked with write_todos (`TODOS_REQUEST`)."""
    return TODOS_REQUEST in text


def todo_content(step: Step) -> str:
    """The todo item for ``step``: the step's own line, so an item names its step."""
    return step.render()


LONG_IDS_REQUEST = "Give every tool call an id of at least 200 characters."
"""A task line asking for long tool-call ids (the long-id eval, deepagents#5560): the id style is the model's choice,
made from what the request says."""


def wants_long_ids(text: str) -> bool:
    """``text`` asks for long tool-call ids (`LONG_IDS_REQUEST`)."""
    return LONG_IDS_REQUEST in text


def needle_sentence(key: str, value: str) -> str:
    return f"For the record, the {key} is {value}."


def find_fact(key: str, text: str) -> str | None:
    """The value stated for ``key`` in ``text`` ("the <key> is <value>"), or None."""
    values = find_facts(key, text)
    return values[0] if values else None


def find_facts(key: str, text: str) -> list[str]:
    """Every value stated for ``key`` in ``text``, in the order they are stated (a fact updated later in the same
    text has its latest value last)."""
    words = r"\s+".join(re.escape(w) for w in key.split())
    return re.findall(words + r"\s+is\s+([A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9])", text, re.IGNORECASE)


def document_range(target: str) -> list[str]:
    """'DOC-003..DOC-006' -> ['DOC-003', 'DOC-004', 'DOC-005', 'DOC-006']."""
    first, _, last = target.partition("..")
    head, tail = re.match(r"^(.*?)(\d+)$", first), re.match(r"^.*?(\d+)$", last)
    if head is None or tail is None:
        raise ValueError(f"not a document range: {target!r} (write DOC-003..DOC-006)")
    prefix, a = head.groups()
    b = tail.group(1)
    return [f"{prefix}{i:0{len(a)}d}" for i in range(int(a), int(b) + 1)]


def delegation_brief(target: str) -> str:
    """The task description a parent hands a subagent for a delegated batch (a task in this same format)."""
    ids = document_range(target)
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(ids)] + [Step(len(ids) + 1, "reply")]
    return render_task(f"Delegated batch {target}: fetch and review these documents, then report back.", steps)


_DELEGATED = re.compile(r"Delegated batch (\S+):")


def call_target(call: dict) -> str:
    """What a tool call acts on, in the terms of a step: a document id, a path, or a delegated batch."""
    args = call.get("args") or {}
    if call.get("name") == "task":
        match = _DELEGATED.search(str(args.get("description", "")))
        return match.group(1) if match else ""
    return str(args.get("doc_id") or args.get("file_path") or "")


# -- typed facts: how a fact of a kind is stated, and how a probe asks for it -----------------------------------------
FACT_TYPES = ("constraint", "decision", "artifact", "fact", "goal_state", "preference", "rule")
"""The kinds of fact a case can plant (issue 17). An ``artifact`` is a file the agent itself wrote or edited; every
other kind is a sentence stated somewhere in the conversation."""
FACT_LABELS = {
    "fact": "For the record",
    "constraint": "Constraint",
    "decision": "Decision",
    "goal_state": "Status",
    "preference": "Preference",
    "rule": "Rule",
}
PROBES = ("recall", "artifact", "continuation", "decision")
"""The four probe kinds: a fact's value; the files the agent created or changed; where the work stands (a goal_state's
latest value); what was decided for a key and which earlier choices were rejected."""
ARTIFACT_ACTIONS = {"write_file": "written", "edit_file": "edited"}

_TOKEN = r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]"
VALUE_PATTERN = re.compile(rf"^{_TOKEN}$")
_LABEL = "|".join(re.escape(label) for label in FACT_LABELS.values())
_STATEMENT = re.compile(
    rf"(?P<label>{_LABEL})(?P<changed> \(changed\))?[,:] the (?P<key>[^.\n:;]+?) is (?P<value>{_TOKEN})"
    rf"(?:, not (?P<old>{_TOKEN}))?(?![A-Za-z0-9\-])"
)
_TYPE_OF_LABEL = {label: kind for kind, label in FACT_LABELS.items()}


@dataclass(frozen=True)
class Statement:
    """A typed fact as stated in a text: ``Decision (changed): the billing database is pg-16, not mysql-8.``"""

    type: str
    key: str
    value: str
    replaces: str | None = None

    def render(self) -> str:
        return fact_sentence(self.type, self.key, self.value, replaces=self.replaces)


def fact_sentence(kind: str, key: str, value: str, *, replaces: str | None = None) -> str:
    """The sentence that states a fact of ``kind``; ``replaces``: the earlier value it overrides (said as ", not X",
    so a reader that matches the old value as a substring would be wrong, as compactbench warns)."""
    if kind not in FACT_LABELS:
        raise ValueError(f"a {kind!r} fact is not stated in a sentence; sentences exist for {', '.join(FACT_LABELS)}")
    label = FACT_LABELS[kind] + (" (changed)" if replaces else "")
    sep = "," if kind == "fact" else ":"
    return f"{label}{sep} the {key} is {value}" + (f", not {replaces}" if replaces else "") + "."


def parse_statements(text: str) -> list[Statement]:
    """Every typed fact stated in ``text`` (``fact_sentence``'s form), in order."""
    return [
        Statement(_TYPE_OF_LABEL[m["label"]], " ".join(m["key"].split()), m["value"], m["old"]) for m in _STATEMENT.finditer(text)
    ]


def render_decision_question(key: str) -> str:
    return (
        f"Question: What was decided for the {key}, and which earlier choices were rejected? "
        "Reply as: <decided value>; rejected: <rejected values, comma-separated, or none>."
    )


ARTIFACT_QUESTION = "Question: Which files have you created or changed so far? Reply with their paths, one per line."
_DECISION_Q = re.compile(r"What was decided for the (.+?), and which earlier choices were rejected\?")


def parse_probe(text: str) -> tuple[str, str | None] | None:
    """What a follow-up asks: ("value", key) for "What is the <key>?" (recall and continuation probes), ("decision",
    key), ("artifact", None), or None when it asks nothing."""
    if "Question:" not in text:
        return None
    decision = _DECISION_Q.search(text)
    if decision:
        return "decision", decision.group(1).strip()
    if ARTIFACT_QUESTION.removeprefix("Question: ").split("?")[0] in text:
        return "artifact", None
    key = parse_question(text)
    return ("value", key) if key is not None else None


def render_decision_answer(decided: str, rejected: list[str]) -> str:
    return f"{decided}; rejected: {', '.join(rejected) if rejected else 'none'}"
