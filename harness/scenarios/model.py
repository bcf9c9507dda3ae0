"""The shape of a dataset row, stated once: a pydantic model whose fields carry their descriptions.

`ScenarioRow` is what one line of a ``datasets/*.jsonl`` file holds; the records inside it (`Needle`, `Fact`,
`Question`, `ExpectedStep`, `ExpectedFile`) are the same dataclasses a loaded `Scenario` (the case as the harness runs
it, defined here too) carries. From it come: the check of each row's shape (`parse_row`: types, required and unknown
fields, the values a field takes alone), the JSON Schema shipped for editors (`schemas/scenario-row.schema.json`,
written by `tools/schemas.py`) and the field table of datasets/README.md. What a row must satisfy across fields (a needle's document exists, a fact is
stated in its place, a question's turn asks it) is the second pass, `harness.scenarios.checks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError, with_config

from harness.errors import DatasetError
from harness.rows import Kind, NonBlank, input_problem, one_of, pattern, told
from harness.task_format import FACT_TYPES, PROBES, STEP_TOOLS

KINDS: tuple[str, ...] = get_args(Kind)
PLACES = ("user", "assistant", "tool", "system", "conversation")
"""Where a fact is stated: a user turn's text, a scripted assistant message before a user turn, a tool result (a
document the agent fetches or a file it reads: ``doc``), the system prompt (turn 0), or message ``message`` of the
recorded conversation the case starts from (turn 0)."""
ID_PATTERN = r"^[a-z0-9][a-z0-9_.\-]*$"
_ID = pattern(ID_PATTERN, "use lowercase letters, digits, '-', '_' or '.'")
_ABSOLUTE = pattern(r"^/", "must be an absolute path starting with '/'")
_CONFIG = ConfigDict(extra="forbid")  # no field the harness would ignore
# No coercion of a row's values ("3" is not a turn, true is not 1): each scalar is strict. The containers are not, so
# that a JSON object is a record's value and a JSON array a tuple's (a strict model takes only instances).
Text = Annotated[str, Strict()]
Int = Annotated[int, Strict()]
Number = Annotated[float, Strict()]  # an integer is a number too


def _described(text: str, needed_by: str | None = None) -> Any:  # noqa: ANN401 - a FieldInfo (pydantic types it Any)
    """A field's description; ``needed_by``: the cases that must have an optional field (``x-needed-by`` in the
    schema, the 'required' column of datasets/README.md's table)."""
    return Field(description=text, json_schema_extra={"x-needed-by": needed_by} if needed_by else None)


@with_config(_CONFIG)
@dataclass(frozen=True)
class Needle:
    """A needle: the fact ``"the <key> is <answer>"`` hidden in a document or file, asked for by a follow-up turn."""

    key: Annotated[Text, _described("what the fact is about: 'the <key> is <answer>'")]
    answer: Annotated[NonBlank, _described("the value the agent must give back")]
    doc: Annotated[Text, _described("the document id or file path that states it")]
    depth: Annotated[Number, Field(ge=0, le=1), _described("where in the haystack it sits, 0 (start) to 1 (end)")]
    turn: Annotated[Int, _described("the follow-up turn (1, 2, ...) whose question asks for it")]


@with_config(_CONFIG)
@dataclass(frozen=True)
class Fact:
    """A fact planted in a case: of a ``type`` (`FACT_TYPES`), stated in a ``place`` (`PLACES`) in user turn ``turn``
    (for a ``tool`` fact, in document or file ``doc``). ``superseded_by`` names the fact (same key and type) that
    replaces it later: its value is then stale, a forbidden answer. An ``artifact`` is a file the agent writes or
    edits as a step of the task: ``key`` the path, ``value`` "written" or "edited"."""

    id: Annotated[Text, _ID, _described("the fact's id, named by questions and superseded_by")]
    type: Annotated[
        Text, one_of("fact type", FACT_TYPES), Field(json_schema_extra={"enum": list(FACT_TYPES)}), _described("its type")
    ]
    key: Annotated[Text, _described("what it is about (an artifact: the file's path)")]
    value: Annotated[Text, _described("one word of letters, digits and inner '-' (an artifact: written or edited)")]
    place: Annotated[
        Text, one_of("place", PLACES), Field(json_schema_extra={"enum": list(PLACES)}), _described("where it is stated")
    ]
    turn: Annotated[Int, _described("the turn that states it (0: the task)")]
    doc: Annotated[Text | None, _described("a tool fact: the document or file that states it")] = None
    superseded_by: Annotated[Text | None, _described("the id of the later fact (same key and type) that replaces it")] = None
    message: Annotated[Int | None, _described("a conversation fact: the index of the recorded message that states it")] = None


def _fact_ids(value: Any) -> Any:  # noqa: ANN401 - raw JSON, checked here
    if isinstance(value, list) and (not value or not all(isinstance(x, str) for x in value)):
        raise ValueError("must be a non-empty list of fact ids")
    return tuple(value) if isinstance(value, list) else value  # past the JSON parser, a list: the tuple it stands for


def _strings(value: Any) -> Any:  # noqa: ANN401 - raw JSON, checked here
    if isinstance(value, list) and (not value or not all(isinstance(x, str) and x.strip() for x in value)):
        raise ValueError("must be a non-empty list of non-empty strings")
    return tuple(value) if isinstance(value, list) else value


@with_config(_CONFIG)
@dataclass(frozen=True)
class Question:
    """A probe asked by follow-up ``turn`` about ``facts`` (ids): recall, artifact, continuation or decision."""

    turn: Annotated[Int, _described("the follow-up turn (1, 2, ...) that asks it")]
    facts: Annotated[
        tuple[Text, ...], BeforeValidator(_fact_ids), Field(min_length=1), _described("the ids of the facts it asks about")
    ]
    probe: Annotated[Text, one_of("probe", PROBES), Field(json_schema_extra={"enum": list(PROBES)}), _described("what it asks")]


SESSION_PROBE_TYPES = ("artifact", "path", "command", "error", "constraint", "decision", "value", "fact")
"""What a session probe asks about: a file created or edited (``artifact``), a path met, a command run and its
outcome, an error met, a constraint the user set ("never", "do not", "must"), a decision (``stale``: what it
overrode), a value stated, or any other fact a user writes a probe for."""
PROBE_ORIGINS = ("user", "generated", "model")
"""Who wrote a session probe: the user (a probes file), the offline generator, or a judge model (marked model-written)."""
CUT_BY = ("compaction", "index", "share")
"""How a session's cut point was chosen: just before its first recorded compaction, a message index, a token share."""


@with_config(_CONFIG)
@dataclass(frozen=True)
class SessionInfo:
    """Where a ``session`` case came from (`harness import`): the recorded session, its size and where it was cut. The
    row's conversation file holds the ``cut`` messages before the cut point; the case continues from there."""

    format: Annotated[NonBlank, _described("the importer that read it (`harness import --help` lists them)")]
    source: Annotated[NonBlank, _described("what was imported: a file name, a run id, a database and thread (redacted)")]
    messages: Annotated[Int, Field(ge=1), _described("messages in the whole recorded session")]
    tokens: Annotated[Int, Field(ge=0), _described("approximate tokens of the whole session (count_tokens_approximately)")]
    cut: Annotated[Int, Field(ge=1), _described("messages before the cut point: the conversation file holds exactly these")]
    cut_by: Annotated[
        Text, one_of("cut_by", CUT_BY), Field(json_schema_extra={"enum": list(CUT_BY)}), _described("how the cut was chosen")
    ]
    compactions: Annotated[
        tuple[Int, ...], _described("where the session recorded a compaction: the number of messages before each")
    ] = ()
    steps: Annotated[
        Int | None,
        Field(ge=0),
        _described(
            "an agent that follows the task (a live model): the model calls it makes of its own after the cut before the "
            "probes are asked (its continuation turn ends after this many); 0: the probes alone; omitted: until it answers"
        ),
    ] = None


@with_config(_CONFIG)
@dataclass(frozen=True)
class SessionProbe:
    """A question about a recorded session, asked after the cut (one follow-up turn each, in order): right when the
    answer gives one of ``expected``, stale when it gives one of ``stale``; stated by message ``message``."""

    id: Annotated[Text, _ID, _described("the probe's id")]
    question: Annotated[NonBlank, _described("the follow-up the agent is asked")]
    expected: Annotated[
        tuple[NonBlank, ...], BeforeValidator(_strings), Field(min_length=1), _described("right answers: any one of them")
    ]
    type: Annotated[
        Text,
        one_of("probe type", SESSION_PROBE_TYPES),
        Field(json_schema_extra={"enum": list(SESSION_PROBE_TYPES)}),
        _described("what it asks about"),
    ]
    message: Annotated[Int, Field(ge=0), _described("the index of the conversation message that states the answer")]
    stale: Annotated[tuple[NonBlank, ...], BeforeValidator(_strings), _described("answers that must not be given")] = ()
    origin: Annotated[
        Text, one_of("origin", PROBE_ORIGINS), Field(json_schema_extra={"enum": list(PROBE_ORIGINS)}), _described("who wrote it")
    ] = "user"


@with_config(_CONFIG)
@dataclass(frozen=True)
class ExpectedStep:
    """A tool call the task requires, in order (the final ``reply`` included)."""

    tool: Annotated[Text, one_of("tool", STEP_TOOLS), Field(json_schema_extra={"enum": list(STEP_TOOLS)}), _described("the tool")]
    target: Annotated[Text, _described("what it is called on: a document id or a path ('' for reply)")]


@with_config(_CONFIG)
@dataclass(frozen=True)
class ExpectedFile:
    """A file the agent must leave behind, containing every one of ``contains``."""

    path: Annotated[Text, _ABSOLUTE, _described("the file's absolute path")]
    contains: Annotated[
        tuple[Text, ...],
        BeforeValidator(_strings),
        Field(min_length=1),
        _described("strings the file must hold (and no truncation marker)"),
    ]


@with_config(_CONFIG)
@dataclass(frozen=True)
class SeedFile:
    """A file in the agent's filesystem when the case starts."""

    path: Annotated[Text, _ABSOLUTE, _described("its absolute path")]
    content: Annotated[Text, _described("its text")]


@with_config(_CONFIG)
@dataclass(frozen=True)
class Document:
    """A document served by the ``fetch_document`` tool (its result lives only in the conversation)."""

    id: Annotated[Text, _described("the id the task fetches it by")]
    text: Annotated[Text, _described("its text")]


@with_config(_CONFIG)
@dataclass(frozen=True)
class ScriptedMessage:
    """A scripted assistant message, placed just before user turn ``turn``."""

    turn: Annotated[Int, _described("the follow-up turn (1, 2, ...) it comes before")]
    text: Annotated[NonBlank, _described("what the assistant says")]


@dataclass(frozen=True)
class Scenario:
    """One eval case as the harness runs it: a validated dataset row (`harness.scenarios.model.ScenarioRow`) with its
    files, documents and scripted messages as pairs, its recorded conversation loaded, the file it came from
    (``source``) and what in it misleads its author (``warnings``)."""

    id: str
    kind: Kind
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
    system_in_state: bool = False  # the system_prompt goes to the message state instead, as its message 0
    conversation: tuple[dict[str, Any], ...] = ()  # recorded OpenAI-format messages placed before the task
    conversation_file: str | None = None  # as the row names it
    session: SessionInfo | None = None  # a session case: where it was imported from and cut
    probes: tuple[SessionProbe, ...] = ()  # a session case's questions (its follow-ups, in order)
    source: str = ""
    # What in the row misleads its author (`case_warnings`), found when it was loaded; not part of the case itself.
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def turns(self) -> tuple[str, ...]:
        return (self.task, *self.followups)

    def continuation_steps(self) -> int | None:
        """The model calls the first turn may take: a session's ``steps`` when that turn is its continuation (its task,
        not a probe's question: `harness.suites.replay.session_turns` asks the probes alone of an agent that cannot
        follow the task), None when unlimited."""
        if self.session is None or not self.session.steps or self.task in {p.question for p in self.probes}:
            return None
        return self.session.steps

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

        own = "" if self.system_in_state else self.system_prompt or ""
        parts = [p for p in (system_text(self.conversation), own) if p]
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


class ScenarioRow(BaseModel):
    """One eval case: one JSON object per line of a ``datasets/*.jsonl`` file."""

    model_config = ConfigDict(extra="forbid", title="Scenario row", json_schema_extra={"$comment": "generated: tools/schemas.py"})

    id: Annotated[NonBlank, _ID, _described("stable case id: lowercase letters, digits, `-`, `_`, `.`")]
    kind: Annotated[
        Kind,
        one_of("kind", KINDS),
        _described(
            "which eval scores it (chain: needle scorers plus `chain_length_reached`; probe: typed facts asked by `questions`; "
            "session: a recorded session continued from its cut, asked its `probes`)",
        ),
    ]
    description: Annotated[NonBlank, _described("one line for humans")]
    task: Annotated[
        NonBlank,
        _described(
            "the first user message: prose, then the numbered step list (format below); prose alone is valid for live "
            "models, and SKIPPED offline",
        ),
    ]
    followups: Annotated[list[NonBlank], _described("later user messages, in order (turn 1, 2, ...)")] = []
    files: Annotated[list[SeedFile], _described("seed files in the agent's filesystem (absolute paths)")] = []
    documents: Annotated[
        list[Document], _described("served by the `fetch_document` tool; results live only in the conversation")
    ] = []
    needles: Annotated[
        list[Needle],
        _described(
            'the fact `"the <key> is <answer>"` stated in document/file `doc`, at `depth` (0..1) of the haystack, asked '
            "for by follow-up `turn`",
            needed_by="needle cases",
        ),
    ] = []
    expected_steps: Annotated[
        list[ExpectedStep],
        _described(
            "the tool calls the task requires (`fetch_document`, `read_file`, `write_file`) and the final `reply`",
            needed_by="goal, truncation cases",
        ),
    ] = []
    expected_files: Annotated[
        list[ExpectedFile],
        _described(
            "a file the agent must leave behind (absolute path) and the strings it must hold; it must also hold no "
            "truncation marker",
            needed_by="truncation cases",
        ),
    ] = []
    haystack_tokens: Annotated[Int | None, _described("approximate size of the haystack (needle grid)")] = None
    needle_depth: Annotated[Number | None, _described("the needle's depth (needle grid)")] = None
    min_summaries: Annotated[
        Annotated[Int, Field(ge=1)] | None,
        _described("chain cases: valid only with at least this many summaries before the question"),
    ] = None
    facts: Annotated[list[Fact], _described("typed facts planted in the case (below)", needed_by="probe cases")] = []
    questions: Annotated[
        list[Question],
        _described(
            "follow-up `turn` asks about `facts` (ids) with a probe: `recall`, `artifact`, `continuation` or `decision`",
            needed_by="probe cases",
        ),
    ] = []
    assistant: Annotated[
        list[ScriptedMessage],
        _described("scripted assistant messages, each placed just before user turn `turn` (1, 2, ...)"),
    ] = []
    system_prompt: Annotated[
        NonBlank,
        _described("added to the agent's system prompt (never summarized: a fact stated there is the control)"),
    ] = Field(default=None)  # type: ignore[assignment]  # absent: None; written: a string, never null
    system_in_state: Annotated[
        bool,
        _described(
            "send `system_prompt` as a system message at the head of the message state (message 0) instead of in the "
            "agent's system prompt: an agent made with no system prompt and its own as its first message (deer-flow#5454)"
        ),
    ] = False
    conversation: Annotated[
        NonBlank,
        _described(
            "a recorded conversation the case starts from: a JSONL file of OpenAI-format chat messages (`role`, "
            "`content`, `tool_calls`, `tool_call_id`), relative to this file; placed before the task, its system text "
            "joined to the system prompt"
        ),
    ] = Field(default=None)  # type: ignore[assignment]  # absent: None; written: a string, never null
    session: Annotated[
        SessionInfo,
        _described("where a recorded session was imported from and cut (`harness import`)", needed_by="session cases"),
    ] = Field(default=None)  # type: ignore[assignment]  # absent: None; written: an object, never null
    probes: Annotated[
        list[SessionProbe],
        _described("a session case's questions, asked after the cut in order (its follow-ups)", needed_by="session cases"),
    ] = []


def parse_row(row: Any, path: str, line: int | None) -> ScenarioRow:  # noqa: ANN401 - a raw JSON value
    """``row`` checked against `ScenarioRow`, or a DatasetError naming the file, the row (``line``), the case and the
    field of its first problem."""
    case = row.get("id") if isinstance(row, dict) and isinstance(row.get("id"), str) else None
    if not isinstance(row, dict):
        raise DatasetError(path, line, None, f"a row must be a JSON object, got {type(row).__name__}")
    try:
        return ScenarioRow.model_validate(row)
    except ValidationError as exc:
        problem = input_problem(exc, ScenarioRow)
        assert problem is not None  # nothing skipped: the first of one or more problems
        raise DatasetError(path, line, problem["field"] or None, told(problem, "field"), case_id=case) from None
