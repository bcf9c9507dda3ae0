"""The reference summarizer: extractive, shaped by the prompt's headings, seeded loss.

Input is exactly what deepagents sends a summarization model: one prompt in which the
messages to summarize are rendered as ``<message type="...">`` XML. Output depends on
that prompt and on (seed, loss rates) only:

- Headings in the prompt's instructions (``## SESSION INTENT``, ``COMPLETED WORK:``...)
  become the sections of the summary, filled by kind: intent (the user's requests,
  quoted verbatim), progress ("Step N done" and history-page lines), artifacts (each path
  with what was done to it: ``- /notes/a.md (written)``, ``(edited)``, ``(read)``), next
  steps, current state. A heading of a kind it cannot fill gets "None".
- Typed facts (``harness.task_format.parse_statements``: "Decision: the ... is ...") said in
  the messages (user turns, assistant text, tool results) or in an earlier summary are kept
  only where a heading asks for their type (``FACT_SECTIONS``: a "DECISIONS" heading keeps
  decisions, "CONSTRAINTS AND RULES" constraints and rules, "NEXT STEPS" the goal state...),
  each once, under the first heading that keeps its type, as its sentence. No heading for a
  type, no keeping: offline prompt comparisons then test the prompt's structure, and a live
  run tests the model. A fact stated several times keeps its latest value, marked with the
  value it replaced ("Decision (changed): the billing database is pg-16, not mysql-8.").
- A prompt with no headings gets a flat list of progress lines and no intent and no typed
  facts: the cost of an unstructured summary prompt shows up as goal drift and lost facts.
- An earlier summary among the messages is carried forward (anchored), so chained
  summaries keep the intent and accumulate progress.
- Each progress line is dropped with probability ``detail_loss``, and the whole intent
  with probability ``intent_loss``, from a generator seeded by (seed, prompt without the
  history file's session id and offload times): trials with different seeds differ, the
  same seed reproduces, run after run. Lines carried from an earlier summary (progress and
  typed facts) are dropped the same way unless the prompt anchors (asks to keep the earlier
  summary's items word for word); typed facts of the new messages are kept, so chained
  summaries under a non-anchored prompt lose facts round by round.
- Seeded faults are options, not copies: ``drop_types`` (those fact types never written),
  ``keep_first_value`` (an updated fact written with its first value, as if the update were
  missed), ``forget_artifacts`` (the artifacts section lists nothing).
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from dataclasses import dataclass, field

from harness import _deepagents_adapter as da
from harness.task_format import ARTIFACT_ACTIONS, Statement, Step, parse_statements, parse_steps

_MESSAGE = re.compile(r'<message type="(\w+)">(.*?)</message>', re.DOTALL)
_TOOL_CALL = re.compile(r'<tool_call id="[^"]*" name="([^"]+)">(.*?)</tool_call>', re.DOTALL)
_CONTENT = re.compile(r"<content>(.*?)</content>", re.DOTALL)
_HEADING = re.compile(r"^(?:#{1,4}\s+(.+?)|([A-Z][A-Z0-9 /&,\-]{3,}[A-Z]):?)\s*$")
_ARG = re.compile(r'"(doc_id|file_path)":\s*"([^"]+)"')
_MARKS = "|".join((*ARTIFACT_ACTIONS.values(), "read"))
_ARTIFACT_LINE = re.compile(rf"^- (/\S+)(?: \(({_MARKS})\))?$")

SECTION_KINDS = {
    # checked in this order; first keyword found in the heading wins
    "next": ("next", "remaining", "todo", "to do", "plan"),
    "intent": ("intent", "goal", "objective", "request", "task"),
    "artifacts": ("artifact", "file", "resource"),
    "state": ("current state", "state", "status"),
    "decisions": ("decision", "constraint"),
    "progress": ("summary", "progress", "completed", "done", "work", "history", "action", "context"),
}

FACT_SECTIONS = {
    # a heading keeps a fact type when it has one of these words (whole words, plural or not), so "ARTIFACTS" keeps
    # no "fact"; one heading may keep several types ("DECISIONS AND CONSTRAINTS")
    "decision": ("decision",),
    "constraint": ("constraint", "requirement", "limit"),
    "rule": ("rule", "instruction", "guideline", "policy", "policies"),
    "preference": ("preference",),
    "fact": ("fact", "detail", "key information"),
    "goal_state": ("state", "status", "next", "plan", "remaining"),
}


def fact_types(heading: str) -> tuple[str, ...]:
    """The fact types a heading keeps (``FACT_SECTIONS``), in the table's order; () when it keeps none."""
    low = heading.lower()
    return tuple(
        kind for kind, words in FACT_SECTIONS.items() if any(re.search(rf"\b{re.escape(w)}(?:s|es)?\b", low) for w in words)
    )


@dataclass
class Extract:
    original_request: str | None = None
    latest_request: str | None = None
    carried: list[str] = field(default_factory=list)  # progress lines from an earlier summary
    carried_plan: str | None = None  # steps an earlier summary listed, when it did not quote the request
    progress: list[str] = field(default_factory=list)  # progress lines from the new messages
    artifacts: dict[str, str] = field(default_factory=dict)  # path -> what was done to it ("" when not said)
    statements: list[tuple[Statement, bool]] = field(default_factory=list)  # typed facts in order, and carried?
    last_action: str | None = None


@dataclass(frozen=True)
class TypedFact:
    """One (type, key) as the summary would write it, and whether only an earlier summary stated it."""

    statement: Statement
    carried: bool


def summarize(
    prompt: str,
    *,
    seed: int = 0,
    detail_loss: float = 0.15,
    intent_loss: float = 0.0,
    drop_types: tuple[str, ...] = (),
    keep_first_value: bool = False,
    forget_artifacts: bool = False,
) -> str:
    """The summary of the messages in ``prompt`` (deepagents' summarization request), shaped by its headings.

    ``drop_types``, ``keep_first_value`` and ``forget_artifacts`` are seeded faults (see the module docstring); they
    change what is written, never the generator's draws, so a fault run loses the same lines as a healthy one.
    """
    instructions, messages = _split_prompt(prompt)
    headings = [h for h in (_heading(line) for line in instructions.splitlines()) if h]
    extract = _extract(messages)
    # Seeded by the prompt without deepagents' run-specific history id and offload times, so the
    # same case and seed drop the same lines on every run.
    rng = random.Random(f"{seed}:{hashlib.sha256(da.run_stable_text(prompt).encode()).hexdigest()}")
    # An anchored prompt asks to keep the earlier summary's items: only new lines can be lost.
    carried = extract.carried if _anchors(instructions) else [ln for ln in extract.carried if rng.random() >= detail_loss]
    progress = carried + [line for line in extract.progress if rng.random() >= detail_loss]
    keep_intent = rng.random() >= intent_loss
    # Drawn after every earlier draw, so adding typed facts shifts no progress line's fate.
    anchored = _anchors(instructions)
    facts = [
        f
        for f in typed_facts(extract.statements, keep_first_value=keep_first_value)
        if not (f.carried and not anchored and rng.random() < detail_loss) and f.statement.type not in drop_types
    ]
    if forget_artifacts:
        extract.artifacts = {}
    # Media the messages refer to by path (deepagents' <image url="..." /> for media offloaded with the summary, and
    # those an earlier summary kept): kept as the prompt's media addendum asks, whatever the headings.
    media = [f'- <{kind} url="{path}" />' for kind, path in _media(messages)]
    if not headings:
        body = progress or ["No notable progress recorded."]
        return "Summary of earlier work:\n" + "\n".join([*body, *(["Media:", *media] if media else [])])
    home: dict[str, int] = {}  # fact type -> the first heading that keeps it
    for i, heading in enumerate(headings):
        for fact_type in fact_types(heading):
            home.setdefault(fact_type, i)
    out = []
    for i, heading in enumerate(headings):
        out.append(f"## {heading}")
        section = _section(_kind(heading), extract, progress, keep_intent)
        typed = [f"- {f.statement.render()}" for f in facts if home.get(f.statement.type) == i]
        if typed:
            section = "\n".join(typed if section == "None" else [section, *typed])
        out.append(section)
        out.append("")
    if media:
        out += ["## MEDIA", *media]
    return "\n".join(out).strip()


_MEDIA_TAG = re.compile(r'<(image|audio|video|file) url="([^"]+)"')


def _media(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(kind, path) of every media reference in the messages, in order, each once."""
    found = ((m.group(1), m.group(2)) for _, raw in messages for m in _MEDIA_TAG.finditer(html.unescape(raw)))
    return list(dict.fromkeys(found))


def typed_facts(statements: list[tuple[Statement, bool]], *, keep_first_value: bool = False) -> list[TypedFact]:
    """One fact per (type, key), in order of first mention: its latest value, marked with the distinct value before
    it (a statement's own ", not X" counts as that value having come first), carried when no new message states it.
    ``keep_first_value`` writes the first value instead, as a summarizer that missed the update would."""
    values: dict[tuple[str, str], list[str]] = {}
    carried: dict[tuple[str, str], bool] = {}
    for st, from_summary in statements:
        ident = (st.type, st.key)
        seq = values.setdefault(ident, [])
        for value in (st.replaces, st.value):
            if value and (not seq or seq[-1] != value):
                seq.append(value)
        carried[ident] = carried.get(ident, True) and from_summary
    out = []
    for (fact_type, fact_key), seq in values.items():
        if keep_first_value:
            statement = Statement(fact_type, fact_key, seq[0])
        else:
            statement = Statement(fact_type, fact_key, seq[-1], seq[-2] if len(seq) > 1 else None)
        out.append(TypedFact(statement, carried[(fact_type, fact_key)]))
    return out


def _split_prompt(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    first = prompt.find('<message type="')
    last = prompt.rfind("</message>")
    if first < 0 or last < 0:
        return prompt, []
    instructions = prompt[:first] + prompt[last + len("</message>") :]
    return instructions, [(kind, body) for kind, body in _MESSAGE.findall(prompt[first : last + len("</message>")])]


_ANCHOR_WORDS = ("earlier summary", "previous summary", "word for word", "update it", "persistent")


def _anchors(instructions: str) -> bool:
    low = instructions.lower()
    return sum(w in low for w in _ANCHOR_WORDS) >= 2


def _heading(line: str) -> str | None:
    match = _HEADING.match(line.strip())
    if not match:
        return None
    text = (match.group(1) or match.group(2) or "").strip().rstrip(":")
    return text if _kind(text) != "unknown" or fact_types(text) else None


def _kind(heading: str) -> str:
    low = heading.lower()
    for kind, words in SECTION_KINDS.items():
        if any(w in low for w in words):
            return kind
    return "unknown"


def _extract(messages: list[tuple[str, str]]) -> Extract:
    ext = Extract()
    plan: list[Step] = []
    for kind, raw in messages:
        if kind == "human":
            text = html.unescape(raw)
            if text.startswith(da.SUMMARY_OPENINGS):
                _carry(ext, da.summary_body(text))
            else:
                if ext.original_request is None:
                    ext.original_request = text
                ext.latest_request = text
        if not plan:
            plan = parse_steps(_plan_source(ext))
    pending: list[tuple[str, str]] = []
    for kind, raw in messages:
        if kind == "ai":
            pending = [(name, html.unescape(args)) for name, args in _TOOL_CALL.findall(raw)]
            content = _CONTENT.search(raw)
            if content and not pending and content.group(1).strip():
                ext.last_action = "replied: " + html.unescape(content.group(1)).strip()[:200]
        elif kind == "tool" and pending:
            name, args = pending.pop(0)
            _record(ext, name, args, html.unescape(raw), plan)
    if ext.latest_request == ext.original_request:
        ext.latest_request = None
    ext.statements = _statements(messages)
    return ext


def _statements(messages: list[tuple[str, str]]) -> list[tuple[Statement, bool]]:
    """The typed facts the messages state, oldest first: user turns, an assistant's text (not its tool arguments),
    tool results, and an earlier summary (marked carried). As the reference agent orders them, a page of the history
    file is older than the earlier summary, which is older than every other message, so a stale value read back from
    the history never passes for the latest."""
    found: list[tuple[tuple[int, int, int], Statement, bool]] = []
    pending: list[tuple[str, str]] = []
    for i, (kind, raw) in enumerate(messages):
        text = html.unescape(raw)
        at, carried = (2, i, 0), False
        if kind == "human" and text.startswith(da.SUMMARY_OPENINGS):
            text, at, carried = da.summary_body(text), (1, 0, i), True
        elif kind == "ai":
            pending = [(name, html.unescape(args)) for name, args in _TOOL_CALL.findall(raw)]
            content = _CONTENT.search(raw)
            text = html.unescape(content.group(1)) if content else ("" if pending else text)
        elif kind == "tool":
            name, args = pending.pop(0) if pending else ("", "")
            path = dict(_ARG.findall(args)).get("file_path", "")
            header = da.read_page_header(text)
            if name == "read_file" and header is not None and path.startswith(da.HISTORY_PREFIX):
                at = (0, header.first_line, i)
        elif kind != "human":
            continue
        found += [(at, st, carried) for st in parse_statements(text)]
    found.sort(key=lambda entry: entry[0])  # stable: a message's statements keep their order
    return [(st, carried) for _, st, carried in found]


def _record(ext: Extract, name: str, args: str, result: str, plan) -> None:
    target = dict(_ARG.findall(args))
    path = target.get("doc_id") or target.get("file_path") or ""
    failed = result.lstrip().lower().startswith("error")
    header = da.read_page_header(result)
    if name == "read_file" and header is not None and path.startswith((da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX)):
        line = f"- read_file {path} lines {header.first_line}-{header.last_line} of {header.total_lines}"
    else:
        first = next((ln.strip() for ln in result.splitlines() if ln.strip() and not ln.startswith("@@")), "")
        number = next((s.number for s in plan if s.tool == name and path in s.targets), None)
        label = f"Step {number} done" if number and not failed else ("failed" if failed else "done")
        line = f"- {label}: {name} {path}" + (f' (begins "{first[:80]}")' if first and name != "write_file" else "")
    ext.progress.append(line)
    ext.last_action = line[2:]
    if path and name in ("write_file", "edit_file", "read_file") and not failed:
        action = ARTIFACT_ACTIONS.get(name, "read")
        if action != "read" or path not in ext.artifacts:  # a read never hides that the file was written
            ext.artifacts[path] = action


def _carry(ext: Extract, previous: str) -> None:
    """Fold an earlier summary (one of ours, or any text) into this extract."""
    original = _quoted(previous, "Original request:")
    latest = _quoted(previous, "Latest request:")
    if original and ext.original_request is None:
        ext.original_request = original
    if latest:
        ext.latest_request = latest
    if original is None:
        steps = parse_steps(previous)
        if steps:
            ext.carried_plan = "\n".join(s.render() for s in steps)
    for line in previous.splitlines():
        artifact = _ARTIFACT_LINE.match(line)
        if _is_typed_line(line):
            continue  # carried as a typed fact (``_statements``)
        if line.startswith("- ") and (" done" in line or "read_file " in line or "failed" in line):
            ext.carried.append(line)
        elif artifact and artifact.group(1) not in ext.artifacts:
            ext.artifacts[artifact.group(1)] = artifact.group(2) or ""


def _is_typed_line(line: str) -> bool:
    """A line this summarizer writes for a typed fact: "- " and exactly one statement."""
    found = parse_statements(line)
    return len(found) == 1 and line == f"- {found[0].render()}"


def _plan_source(ext: Extract) -> str:
    """The request whose steps are the plan: the latest one when it has steps of its own (a task continued in a later
    turn, numbered on from the first), else the original request, else the steps an earlier summary listed."""
    if ext.latest_request and parse_steps(ext.latest_request):
        return ext.latest_request
    return ext.original_request or ext.carried_plan or ""


def _quoted(text: str, label: str) -> str | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == label:
            block = [f[1:].removeprefix(" ") for f in _takewhile_quoted(lines[i + 1 :])]
            return "\n".join(block) if block else None
    return None


def _takewhile_quoted(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if not line.startswith(">"):
            break
        out.append(line)
    return out


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def _section(kind: str, ext: Extract, progress: list[str], keep_intent: bool) -> str:
    if kind == "intent":
        if not keep_intent or not ext.original_request:
            return "None"
        parts = ["Original request:", _quote(ext.original_request)]
        if ext.latest_request:
            parts += ["", "Latest request:", _quote(ext.latest_request)]
        return "\n".join(parts)
    if kind == "progress":
        return "\n".join(progress) if progress else "None"
    if kind == "artifacts":
        lines = [f"- {path} ({action})" if action else f"- {path}" for path, action in ext.artifacts.items()]
        return "\n".join(lines) if lines else "None"
    if kind == "next":
        # The remaining steps of the request, copied with their numbers.
        steps = parse_steps(_plan_source(ext)) if keep_intent else []
        done = [int(n) for n in re.findall(r"Step (\d+) done", "\n".join(progress))]
        remaining = [s for s in steps if s.number > max(done, default=0)]
        if not remaining:
            return "None"
        return f"Continue with step {remaining[0].number}. Remaining steps:\n" + _quote("\n".join(s.render() for s in remaining))
    if kind == "state":
        return ext.last_action or "None"
    return "None"
