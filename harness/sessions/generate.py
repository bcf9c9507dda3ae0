"""Probes for a recorded session, generated offline and deterministically from the messages before its cut.

`generate_probes(messages)` reads exactly what a session case's conversation file holds (OpenAI chat messages, the
system message first when there is one) and writes questions about what a summary of it may lose, each with the
message that states its answer and ``origin`` "generated". The questions are the forms of `harness.session_format`
(and `harness.task_format.render_question` for a value), so the offline reference agent reads them with the same
rules; docs/sessions.md shows them.

What is asked, by type (the system prompt is never a source: no compaction drops it):

- ``artifact``: a file a successful tool call wrote (`harness.session_format.writes`: write/edit tools, an
  ``apply_patch``, a shell redirection, ``tee``, ``sed -i``), asked by the first line of the text it wrote
  (at least 8 characters, without the file's name); expected: the path as written, without ``./``, and from the
  root when a ``cd`` said where the command ran.
- ``path``: a path met (a folder and a file name with an extension), asked by its file name when every path with
  that name in the prefix is the same file. A path (here and for an artifact) is asked only when the answer reader
  reads each of its forms back as that path (`harness.answers.read_paths`), so an answer naming it can be scored.
- ``command``: a one-line command (at most 120 characters) run once whose result reports its exit code; a failing
  command before a succeeding one (a zero is the guess a model makes).
- ``error``: an exception line (a traceback's last line) with its first quoted name left blank.
- ``constraint``: a sentence of a user message with "never", "do not", "don't" or "must", its first word after
  that (not "not" or "never", not a small word such as "the" or "be") left blank.
- ``value`` and ``decision``: "the <key> is <value>" with a digit in every value stated for the key (the reading
  of `harness.task_format.find_facts`, the reference agent's); a key stated with several values is a decision, the
  earlier values stale.

Which are kept: a fact stated in exactly one message (so removing that message loses it), that message not among
the last `RECENT_MESSAGES`, and its answer not repeated there (what a compaction keeps would make it trivial); at
most `PER_TYPE` per type, the earliest first (a summary loses the oldest first), and `MAX_PROBES` in all, in the
order of the messages that state them (the order they are asked in), leaving out a fact that an earlier question
or its right answer names (the conversation keeps both: the fact would be given away).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.answers import read_paths
from harness.scenarios.conversation import text_of
from harness.scenarios.model import SessionProbe
from harness.session_format import (
    BLANK,
    Write,
    arguments,
    bare_path,
    blank_out,
    call_text,
    command_of,
    exception_lines,
    fill_blank,
    loose,
    path_forms,
    path_tokens,
    render_session_question,
    reports_failure,
    return_code,
    same_file,
    snippet,
    writes,
)
from harness.task_format import find_facts, render_question

RECENT_MESSAGES = 10
"""The tail of the prefix taken as what a compaction keeps: a fact stated or repeated there is not asked."""
PER_TYPE = 3
MAX_PROBES = 12
TYPE_ORDER = ("artifact", "path", "command", "error", "constraint", "decision", "value")
MIN_SNIPPET = 8
MAX_COMMAND = 120
_TRIGGER = re.compile(r"\b(?:never|do not|don't|must not|must)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*")
_LIST_MARK = re.compile(r"^(?:[-*•]|\d+[.)])\s+")  # "- ", "1. " before a listed sentence
_SMALL = frozenset(
    {
        "not",
        "never",
        "must",
        "do",
        "don",
        "the",
        "a",
        "an",
        "be",
        "to",
        "you",
        "your",
        "it",
        "any",
        "all",
        "that",
        "this",
        "and",
        "or",
    }
)
_QUOTED = re.compile(r"'([^'\s]{2,})'|\"([^\"\s]{2,})\"")
_STATED = re.compile(
    r"\bthe ((?:[a-z][a-z0-9_\-]*\s+){0,3}?[a-z][a-z0-9_\-]*)\s+is\s+[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9](?![\w\-]|\.\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Message:
    index: int
    role: str
    text: str  # what it says (a tool result's output)
    calls: tuple[tuple[str, str, dict[str, Any]], ...]  # (id, name, arguments)
    readable: str  # its text and its tool calls' commands or arguments: what a line, a path or a repeat is looked for in


@dataclass(frozen=True)
class _Candidate:
    type: str
    question: str
    expected: tuple[str, ...]
    message: int
    restated_by: tuple[str, ...]  # a text that, in the last messages, makes the question trivial
    stale: tuple[str, ...] = ()
    rank: tuple[int, ...] = ()  # within its type, lowest first (default: the message)


def generate_probes(messages: Sequence[dict[str, Any]]) -> list[SessionProbe]:
    """Probes about the facts the messages before a session's cut state (see the module's docstring for the rules)."""
    read = [_message(i, m) for i, m in enumerate(messages)]
    results = {_tool_call_id(messages[m.index]): m for m in read if m.role == "tool"}
    sources = [m for m in read if m.role != "system"]
    found = [
        *_artifacts(sources, results),
        *_paths(sources),
        *_commands(sources, results),
        *_errors(sources),
        *_constraints(sources),
        *_values(sources),
    ]
    recent_from = len(messages) - RECENT_MESSAGES
    recent = loose(" ".join(m.readable for m in read[max(recent_from, 0) :])).lower()
    kept: list[_Candidate] = []
    for kind in TYPE_ORDER:
        seen: set[str] = set()
        for c in sorted((c for c in found if c.type == kind), key=lambda c: (*(c.rank or (c.message,)), c.question)):
            trivial = c.message >= recent_from or any(loose(s).lower() in recent for s in c.restated_by)
            if c.question in seen or trivial:
                continue
            seen.add(c.question)
            kept.append(c)
            if len(seen) == PER_TYPE:
                break
    asked: list[_Candidate] = []
    said = ""  # the questions asked before and their right answers: a fact named there is given away
    for c in sorted(kept, key=lambda c: (c.message, TYPE_ORDER.index(c.type))):
        if len(asked) < MAX_PROBES and not any(loose(s).lower() in said for s in c.restated_by):
            asked.append(c)
            said += " " + loose(" ".join([c.question, *c.expected])).lower()
    count: dict[str, int] = {}
    probes = []
    for c in asked:
        count[c.type] = count.get(c.type, 0) + 1
        probes.append(
            SessionProbe(
                id=f"{c.type}-{count[c.type]}",
                question=c.question,
                expected=c.expected,
                type=c.type,
                message=c.message,
                stale=c.stale,
                origin="generated",
            )
        )
    return probes


def _message(index: int, msg: dict[str, Any]) -> _Message:
    calls: list[tuple[str, str, dict[str, Any]]] = []
    for call in msg.get("tool_calls") or ():
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            calls.append((str(call.get("id") or ""), str(fn.get("name") or ""), arguments(fn.get("arguments"))))
    text = text_of(msg)
    readable = "\n".join([text, *(call_text(args) for _, _, args in calls)])
    return _Message(index, str(msg.get("role") or ""), text, tuple(calls), readable)


def _tool_call_id(msg: dict[str, Any]) -> str:
    return str(msg.get("tool_call_id") or "")


def _artifacts(sources: list[_Message], results: dict[str, _Message]) -> list[_Candidate]:
    written: list[tuple[str | None, Write, int]] = []  # (snippet, write, message index), successful calls only
    for m in sources:
        for cid, name, args in m.calls:
            result = results.get(cid)
            if result is None or reports_failure(result.text):
                continue
            written += [(snippet(w.text), w, m.index) for w in writes(name, args)]
    texts = [loose(w.text or "") for _, w, _ in written]
    found: list[_Candidate] = []
    for cut, w, index in written:
        if not cut or len(cut) < MIN_SNIPPET or posixpath.basename(w.path) in cut:
            continue
        if sum(loose(cut) in t for t in texts) != 1:  # the text is written once: the snippet names one write
            continue
        if _read_back(path_forms(w.path, w.cwd)):
            question = render_session_question("artifact", cut)
            found.append(_Candidate("artifact", question, path_forms(w.path, w.cwd), index, (bare_path(w.path),)))
    return found


def _paths(sources: list[_Message]) -> list[_Candidate]:
    written: dict[str, list[str]] = {}  # bare path -> forms as written, in order
    stated: dict[str, set[int]] = {}  # bare path -> the messages naming it
    for m in sources:
        for p in path_tokens(m.readable):
            bare = bare_path(p)
            written.setdefault(bare, [])
            if p not in written[bare]:
                written[bare].append(p)
            stated.setdefault(bare, set()).add(m.index)
    by_name: dict[str, list[str]] = {}
    for bare in written:
        by_name.setdefault(posixpath.basename(bare), []).append(bare)
    found: list[_Candidate] = []
    for name, bares in by_name.items():
        longest = max(bares, key=lambda b: (b.count("/"), len(b)))
        messages: set[int] = set().union(*(stated[b] for b in bares))
        if longest == name or len(messages) != 1 or not all(same_file(b, longest) for b in bares):
            continue
        forms = [f for b in sorted(bares, key=lambda b: -len(b)) for f in written[b]]
        expected = tuple(dict.fromkeys(f for form in forms for f in path_forms(form)))
        if _read_back(expected):
            found.append(_Candidate("path", render_session_question("path", name), expected, min(messages), tuple(bares)))
    return found


def _read_back(forms: tuple[str, ...]) -> bool:
    """Every form of a path is read back as that one path by the answer reader (`harness.answers.read_paths`), so
    an answer naming it can be scored (``separable.cpython-311.pyc`` is not read as a path)."""
    return all(tuple(bare_path(p) for p in read_paths(f).paths) == (bare_path(f),) for f in forms)


def _commands(sources: list[_Message], results: dict[str, _Message]) -> list[_Candidate]:
    runs: dict[str, list[tuple[str, _Message | None]]] = {}
    for m in sources:
        for cid, _, args in m.calls:
            command = command_of(args)
            if command:
                runs.setdefault(" ".join(command.split()), []).append((command, results.get(cid)))
    found: list[_Candidate] = []
    for key, ran in runs.items():
        command, result = ran[0]
        code = return_code(result.text) if result is not None else None
        if len(ran) != 1 or result is None or code is None or "\n" in command.strip() or len(key) > MAX_COMMAND or "`" in key:
            continue
        question = render_session_question("command", key)
        found.append(_Candidate("command", question, (str(code),), result.index, (key,), rank=(code == 0, result.index)))
    return found


def _errors(sources: list[_Message]) -> list[_Candidate]:
    lines: list[_Line] = []
    for m in sources:
        for line, _cls, message in exception_lines(m.text):
            quoted = _QUOTED.search(message)
            if quoted is None:
                continue
            group = 1 if quoted.group(1) else 2
            at = line.index(message) + quoted.start(group)
            word = quoted.group(group)
            lines.append(_Line(blank_out(line, at, at + len(word)), word, m.index, line, m.text.find(line)))
    return _clozes("error", lines, sources)


def _constraints(sources: list[_Message]) -> list[_Candidate]:
    lines: list[_Line] = []
    for m in (m for m in sources if m.role == "user"):
        for line in m.text.splitlines():
            for said in re.split(r"(?<=[.!?])\s+", line.strip()):
                sentence = _LIST_MARK.sub("", said)
                trigger = _TRIGGER.search(sentence)
                if trigger is None or not 20 <= len(sentence) <= 200 or BLANK in sentence:
                    continue
                word = next(
                    (
                        w
                        for w in _WORD.finditer(sentence, trigger.end())
                        if w.group(0).lower() not in _SMALL and len(w.group(0)) >= 3
                    ),
                    None,
                )
                if word is not None:
                    template = blank_out(sentence, word.start(), word.end())
                    lines.append(_Line(template, word.group(0), m.index, sentence, m.text.find(sentence)))
    return _clozes("constraint", lines, sources)


@dataclass(frozen=True)
class _Line:
    """A line that may be asked with a blank: its template, the word in the blank, its message and place there."""

    template: str
    word: str
    index: int
    line: str
    position: int


def _clozes(kind: str, lines: list[_Line], sources: list[_Message]) -> list[_Candidate]:
    """Fill-in questions for the lines stated once: a line's blank is filled by its word, in its message only."""
    messages: dict[str, set[int]] = {}
    for ln in lines:
        messages.setdefault(ln.template, set()).add(ln.index)
    return [
        _Candidate(
            kind, render_session_question(kind, ln.template), (ln.word,), ln.index, (ln.line,), rank=(ln.index, ln.position)
        )
        for ln in lines
        if len(messages[ln.template]) == 1 and _stated_once(ln, sources)
    ]


def _stated_once(ln: _Line, sources: list[_Message]) -> bool:
    """Only ``ln``'s message fills the blank of its template, and only with its word (the reference agent's reading)."""
    anchor = max(ln.template.replace(BLANK, " ").split(), key=len)  # a message without it cannot have the line
    for m in sources:
        if anchor in m.readable:
            fills = set(fill_blank(ln.template, m.readable))
            if fills and (m.index != ln.index or fills != {ln.word}):
                return False
    return True


def _values(sources: list[_Message]) -> list[_Candidate]:
    keys = list(dict.fromkeys(" ".join(m.group(1).lower().split()) for s in sources for m in _STATED.finditer(s.text)))
    found: list[_Candidate] = []
    lowered = [(s, s.text.lower()) for s in sources]
    for key in keys:
        last = key.split()[-1]  # a message without the key's last word states nothing for it
        chain = [(s.index, v) for s, low in lowered if last in low for v in find_facts(key, s.text)]
        if not chain or not all(any(ch.isdigit() for ch in v) for _, v in chain):
            continue
        index, latest = chain[-1]
        if len({i for i, v in chain if v.lower() == latest.lower()}) != 1:
            continue  # the latest value is stated in more than one message
        stale = tuple(dict.fromkeys(v for _, v in chain if v.lower() != latest.lower()))
        kind = "decision" if stale else "value"
        found.append(_Candidate(kind, render_question(key), (latest,), index, (f"{key} is {latest}",), stale))
    return found
