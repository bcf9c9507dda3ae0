"""The questions a session case asks about a recorded session, and the reading of its tool calls, written and read in
one place.

The probe generator (`harness.sessions.generate`) writes these questions from the messages before a session's cut,
and the offline reference agent (`harness.reference.session_recall`) reads them and answers from what it can see,
with the same readings of a tool call, a command's exit code, a path and an exception line, so the two cannot drift
apart. A question names its subject, never its answer:

- artifact: "Which file did you write the text `<snippet>` into?" (the path a write, an edit or a shell command
  wrote that text to);
- path: "Where is the file `<basename>` you came across?" (the path met with that file name);
- command: "What exit code did the command `<command>` return?";
- error and constraint: a line of the session with one word left blank ("Fill in the blank in the error you met:
  ...", "... in what the user told you: ..."), answered by the word that fills it.

A value or a decision is asked in the scenarios' own grammar (`harness.task_format.render_question`: "What is the
<key>?", the latest "the <key> is <value>" in view answers it).

What changes a file (`writes`), the rules kept few: a tool call whose arguments name a file (``file_path``, ``path``)
and the text it writes (``content``, ``new_string``, ``file_text``, ``new_str``); an ``apply_patch`` body (``*** Add
File:`` / ``*** Update File:``, the added lines); and in a shell command (``command`` / ``cmd``): an output
redirection ``>`` / ``>>`` (not ``/dev/...``, not ``>&N``; a heredoc's body or ``echo``'s words are the text),
``tee FILE``, ``sed -i ... FILE`` (an ``s`` command's replacement is the text), each relative path also read from the
``cd DIR`` before it.
"""

from __future__ import annotations

import functools
import html
import json
import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

BLANK = "____"
_FORMS = {
    "artifact": "Question: Which file did you write the text `{}` into? Reply with its path only.",
    "path": "Question: Where is the file `{}` you came across? Reply with its full path only.",
    "command": "Question: What exit code did the command `{}` return? Reply with the number only.",
    "error": 'Question: Fill in the blank in the error you met: "{}". Reply with the missing part only.',
    "constraint": 'Question: Fill in the blank in what the user told you: "{}". Reply with the missing part only.',
}
_PARSE = {
    kind: re.compile(re.escape(form.split("{}")[0]) + r"(?P<subject>.+?)" + re.escape(form.split("{}")[1]))
    for kind, form in _FORMS.items()
}
SUBJECTS = {
    "artifact": "file you wrote `{}` into",
    "path": "path of `{}`",
    "command": "exit code of `{}`",
    "error": "missing part of the error",
    "constraint": "missing part of what the user said",
}
"""How a reply names what a question asked for (the reference agent's "I don't know the ..."), by type."""


def render_session_question(kind: str, subject: str) -> str:
    """The question of type ``kind`` about ``subject`` (a snippet, a file name, a command, a line with `BLANK`)."""
    if kind not in _FORMS:
        raise ValueError(f"no session question form for {kind!r}: forms exist for {', '.join(_FORMS)}")
    if "\n" in subject or not subject.strip() or ("`" in subject and "`{}`" in _FORMS[kind]):
        raise ValueError(f"a {kind} question's subject must be one non-blank line without backticks: {subject!r}")
    if kind in ("error", "constraint") and subject.count(BLANK) != 1:
        raise ValueError(f"a {kind} question's line must have exactly one blank ({BLANK}): {subject!r}")
    return _FORMS[kind].format(subject)


def parse_session_question(text: str) -> tuple[str, str] | None:
    """(type, subject) of a session question in ``text``, or None when it asks none."""
    if "Question:" not in text:
        return None
    for kind, pattern in _PARSE.items():
        match = pattern.search(text)
        if match:
            return kind, match.group("subject")
    return None


NAMED_PROBES = 3
"""Probes `free_text_probes_reason` quotes by id and question (the others are counted)."""


def free_text_probes_reason(outside: list[tuple[str, str]], total: int) -> str:
    """Why a session case needs a live model: ``outside`` (id, question) of its ``total`` probes are free text, outside
    the questions above and "What is the <key>?" (what the offline reference agent answers), and what to do. The one
    wording of the reason an offline run skips the case with and `harness import` warns with."""
    named = ", ".join(f"{probe_id} ({_quoted(question)})" for probe_id, question in outside[:NAMED_PROBES])
    more = f" and {len(outside) - NAMED_PROBES} more" if len(outside) > NAMED_PROBES else ""
    return (
        f"needs a live model: {len(outside)} of its {total} probe(s) are free text, which the offline reference agent "
        f"does not answer (it answers the questions `harness import` generates and 'What is the <key>?'): {named}{more}. "
        "Run it with a live model (--model provider:name), or import the session without --probes to have its probes "
        "generated"
    )


def _quoted(question: str, limit: int = 80) -> str:
    text = " ".join(question.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


# -- a line with a blank ------------------------------------------------------------------------------------------------
def blank_out(line: str, start: int, end: int) -> str:
    """``line`` with ``line[start:end]`` replaced by `BLANK`, whitespace runs made single spaces."""
    return " ".join(f"{line[:start]}{BLANK}{line[end:]}".split())


@functools.lru_cache(maxsize=4096)
def _cloze(template: str) -> re.Pattern[str]:
    before, _, after = template.partition(BLANK)

    def words(part: str) -> str:
        return r"\s+".join(re.escape(w) for w in part.split())

    lead = words(before) + (r"\s+" if before[-1:].isspace() else "")
    tail = (r"\s+" if after[:1].isspace() else "") + words(after)
    return re.compile(lead + (r"(\S+?)" if tail else r"(\S+)") + tail)


def fill_blank(template: str, text: str) -> list[str]:
    """Every word that fills the blank of ``template`` in ``text`` (whitespace read loosely), in order."""
    return _cloze(template).findall(text)


# -- paths --------------------------------------------------------------------------------------------------------------
_PATH = re.compile(r"(?<![\w/.~\-:])((?:\.{1,2}/|/)?(?:[\w.\-]+/)+[\w\-][\w.\-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")


def path_tokens(text: str) -> list[str]:
    """The file paths ``text`` names (a folder and a file name with an extension: ``astropy/modeling/separable.py``,
    ``./a/b.md``, ``/etc/x.conf``), in order."""
    return [p.rstrip(".") for p in _PATH.findall(text)]


def bare_path(path: str) -> str:
    """A path compared as a file's name in one tree: ``./a/b``, ``a/b`` and ``/a/b`` alike."""
    return path.strip().removeprefix("./").lstrip("/")


def path_forms(path: str, cwd: str | None = None) -> tuple[str, ...]:
    """The ways an answer may name ``path``: as written, without a leading ``./``, and from the root when it is
    relative and a ``cd`` before it said where it was run."""
    forms = [path, path.removeprefix("./")]
    if cwd and cwd.startswith("/") and not path.startswith("/"):
        forms.append(posixpath.normpath(posixpath.join(cwd, path)))
    return tuple(dict.fromkeys(forms))


def same_file(a: str, b: str) -> bool:
    """``a`` and ``b`` name one file: one is the other's tail, by whole folders (``./x/y.py`` and ``/root/x/y.py``)."""
    pa, pb = bare_path(a).split("/"), bare_path(b).split("/")
    short, long = sorted((pa, pb), key=len)
    return bool(short) and long[len(long) - len(short) :] == short


# -- commands and what they return --------------------------------------------------------------------------------------
_RETURN_CODE = (
    re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>"),
    re.compile(r"(?im)^\s*(?:exit code|exit status|return code|returncode)\s*[:=]?\s*(-?\d+)\b"),
)


def return_code(result: str) -> int | None:
    """The exit code a command's result reports (mini-swe-agent's ``<returncode>N</returncode>``, a line ``Exit code:
    N``), or None when it reports none."""
    for pattern in _RETURN_CODE:
        match = pattern.search(result)
        if match:
            return int(match.group(1))
    return None


def reports_failure(result: str) -> bool:
    """A tool result that says its call failed: an error reply, or a non-zero exit code."""
    return result.lstrip().lower().startswith("error") or (return_code(result) or 0) != 0


def command_of(args: dict[str, Any]) -> str | None:
    """The shell command a tool call ran (``command`` or ``cmd``, a string or an argv list), or None."""
    value = args.get("command", args.get("cmd"))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = value[-1] if value[:2] in (["bash", "-lc"], ["bash", "-c"], ["sh", "-c"]) else shlex.join(value)
    return value if isinstance(value, str) else None


def same_command(a: str, b: str) -> bool:
    """Two commands are the same when they differ only in whitespace."""
    return a.split() == b.split()


def call_text(args: dict[str, Any]) -> str:
    """The readable text of a tool call: its command, else its arguments' string values."""
    command = command_of(args)
    if command is not None:
        return command
    return "\n".join(str(v) for v in args.values() if isinstance(v, (str, int, float)))


# -- exceptions ---------------------------------------------------------------------------------------------------------
_EXCEPTION = re.compile(r"^\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)): (\S.*?)\s*$", re.MULTILINE)


def exception_lines(text: str) -> list[tuple[str, str, str]]:
    """The exception lines of ``text`` (a traceback's last line: ``ModuleNotFoundError: No module named 'numpy'``),
    each as (line, class, message), in order."""
    return [(m.group(0).strip(), m.group(1), m.group(2)) for m in _EXCEPTION.finditer(text)]


# -- what changes a file ------------------------------------------------------------------------------------------------
_PATH_KEYS = ("file_path", "path")
_TEXT_KEYS = ("content", "new_string", "file_text", "new_str")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_]\w*)\1")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (\S+)\s*$", re.MULTILINE)
_NO_FILE = re.compile(r"\d*>&\d*|\d*>\s*/dev/null")  # redirections that write no file: 2>&1, >/dev/null
_MAY_WRITE = re.compile(r">|\btee\b|\bsed\b")
_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;"}
_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}


@dataclass(frozen=True)
class Write:
    """A file a tool call created or changed: ``path`` as the call names it, the ``cwd`` a shell ``cd`` set before it
    (None when none did), and the ``text`` it wrote where the call shows it (None when it does not)."""

    path: str
    text: str | None = None
    cwd: str | None = None


def writes(name: str, args: dict[str, Any]) -> list[Write]:
    """The files the tool call ``name(args)`` creates or changes, by the rules of this module's docstring."""
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
    text = next((args[k] for k in _TEXT_KEYS if isinstance(args.get(k), str)), None)
    if path and text is not None:
        return [Write(path, text)]
    patch = next((v for v in (args.get("input"), args.get("patch")) if isinstance(v, str)), None)
    if name == "apply_patch" and patch:
        return _patch_writes(patch)
    command = command_of(args)
    return shell_writes(command) if command else []


def _patch_writes(patch: str, cwd: str | None = None) -> list[Write]:
    found = []
    for match in _PATCH_FILE.finditer(patch):
        body = patch[match.end() :].split("\n*** ", 1)[0]
        added = [line[1:] for line in body.splitlines() if line.startswith("+")]
        found.append(Write(match.group(1), "\n".join(added) or None, cwd))
    return found


def shell_writes(command: str) -> list[Write]:
    """The files a shell command writes (redirections, ``tee``, ``sed -i``, an ``apply_patch`` heredoc); [] when it
    cannot be split into words (unbalanced quotes)."""
    if "*** Begin Patch" in command:
        return _patch_writes(command)
    if not _MAY_WRITE.search(_NO_FILE.sub(" ", command)):  # nothing can write a file: no need to split it into words
        return []
    bodies: list[str] = []
    lines = command.split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):  # a heredoc's body is text, not words: set it aside
        kept.append(lines[i])
        match = _HEREDOC.search(lines[i])
        i += 1
        if match:
            body: list[str] = []
            while i < len(lines) and lines[i].strip() != match.group(2):
                body.append(lines[i])
                i += 1
            bodies.append("\n".join(body))
            i += 1
    try:
        lexer = shlex.shlex(_statements("\n".join(kept)), posix=True, punctuation_chars=True)
        lexer.commenters = ""
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return []
    found: list[Write] = []
    cwd: str | None = None
    segment: list[str] = []
    for token in [*tokens, ";"]:
        if token not in _SEPARATORS:
            segment.append(token)
            continue
        if segment[:1] == ["cd"] and len(segment) > 1:
            cwd = segment[1] if segment[1].startswith("/") or cwd is None else posixpath.join(cwd, segment[1])
        else:
            found += _segment_writes(segment, cwd, bodies[0] if bodies and "<<" in segment else None)
            if bodies and "<<" in segment:
                bodies.pop(0)
        segment = []
    return found


def _statements(command: str) -> str:
    """``command`` with each line a statement (a newline outside quotes made ``;``), line continuations joined and
    comments (``#`` starting a word, outside quotes) left out."""
    out: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if ch == "\\" and quote != "'" and i + 1 < len(command):
            out.append("" if command[i + 1] == "\n" and quote is None else command[i : i + 2])
            i += 2
            continue
        if quote is None and ch == "#" and (i == 0 or command[i - 1] in " \t\n;"):
            while i < len(command) and command[i] != "\n":
                i += 1
            continue
        if quote is None and ch in "'\"":
            quote = ch
        elif ch == quote:
            quote = None
        elif ch == "\n" and quote is None:
            ch = ";"
        out.append(ch)
        i += 1
    return "".join(out)


def _segment_writes(words: list[str], cwd: str | None, heredoc: str | None) -> list[Write]:
    """The files one simple command writes."""
    found: list[Write] = []
    plain = [w for i, w in enumerate(words) if w not in _REDIRECTS and (i == 0 or words[i - 1] not in _REDIRECTS | {"<<"})]
    echoed = " ".join(w for w in plain[1:] if not w.startswith("-")) if plain[:1] in (["echo"], ["printf"]) else None
    for i, word in enumerate(words[:-1]):
        target = words[i + 1]
        if word in _REDIRECTS and not target.startswith(("&", "/dev/")) and not target.isdigit():
            found.append(Write(target, heredoc if heredoc is not None else echoed, cwd))
    if plain[:1] == ["tee"]:
        found += [Write(w, heredoc, cwd) for w in plain[1:] if not w.startswith("-")]
    if plain[:1] == ["sed"] and any(w == "-i" or w.startswith(("-i", "--in-place")) for w in plain[1:]):
        script: str | None = None
        files: list[str] = []
        expect_script = False
        for w in plain[1:]:
            if expect_script:
                script, expect_script = w, False
            elif w in ("-e", "--expression"):
                expect_script = True
            elif w.startswith("-"):
                continue
            elif script is None:
                script = w
            else:
                files.append(w)
        found += [Write(f, sed_replacement(script or ""), cwd) for f in files]
    return found


def sed_replacement(script: str) -> str | None:
    """The replacement text of a sed ``s`` command (``s/old/new/g`` -> ``new``), or None."""
    if len(script) < 4 or script[0] != "s" or script[1].isalnum() or script[1] in "\\\n":
        return None
    delimiter, current, escaped = script[1], "", False
    parts: list[str] = []
    for ch in script[2:]:
        if escaped:
            current, escaped = current + (ch if ch == delimiter else "\\" + ch), False
        elif ch == "\\":
            escaped = True
        elif ch == delimiter:
            parts.append(current)
            current = ""
        else:
            current += ch
    return parts[1] if len(parts) >= 2 else None


def snippet(text: str | None, limit: int = 80) -> str | None:
    """The snippet an artifact question quotes from a written ``text``: its first non-blank line, stripped, cut at
    ``limit`` characters; None when there is none or it has a backtick."""
    line = next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")
    line = " ".join(line.split())[:limit].strip()
    return line if line and "`" not in line else None


def loose(text: str) -> str:
    """``text`` with whitespace runs made single spaces (how a snippet is looked for in a written text)."""
    return " ".join(text.split())


def page_text(text: str) -> str:
    """A history-file page as text: deepagents writes messages there XML-escaped (``&amp;``, ``&lt;``)."""
    return html.unescape(text)


def arguments(raw: Any) -> dict[str, Any]:  # noqa: ANN401 - a recorded call's arguments: JSON text or an object
    """A recorded tool call's arguments as a dict (OpenAI's JSON string, or already an object); {} when unreadable."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
