"""The reference agent's policy: its next action as a pure function of what it sees.

It never sees a scenario, an expected answer or a seed; only the request's messages.

- It reads everything in the request: the system prompt (said before everything else),
  user messages, assistant text (scripted assistant turns and its own earlier replies),
  tool results, the summary and pages of the history file. Only user messages and the
  summary say what is asked and what the plan is.
- It finds the latest request: the last user message it can see, else the one the
  summary quotes.
- A question (``parse_probe``), of four kinds:
  - recall and continuation ("What is the <key>?"): the latest statement of "the <key>
    is <value>" in everything it sees, in the order it was said (the system prompt, then
    history pages by offset, then the summary, then the messages after it); a reference
    question ("What is the access code of the primary site?") that no statement answers as
    asked is resolved in two links, each the latest statement in view: the entity the
    reference names ("the primary site is ORBIT-7"), then its attribute ("the ORBIT-7
    access code is ..."); failing that (either link missing),
    it calls a cleared read-only tool again, or pages through evicted results and the
    history file the summary names with read_file (resuming after the pages it can see or
    the summary records), and says it does not know when those are exhausted or none is
    named;
  - decision ("What was decided for the <key> ...?"): the same search, answered as
    "<latest>; rejected: <the other values stated for the key, oldest first>", a changed
    statement's ", not X" counting as stated;
  - artifact ("Which files have you created or changed ...?"): the paths of its successful
    write_file / edit_file calls on history pages in view, in the summary's artifacts
    lines and in view, one per line, oldest first ("none" if none); it does not page the
    history file for this.
- A task: it needs the numbered step list, in a user message or quoted by the summary.
  Without it, it asks for clarification (goal drift). With it, it does the step after
  the highest one it has evidence of (a successful call it can see, or a "Step N done"
  line in the summary), and replies TASK COMPLETE after the last.
- A report built section by section in one file: each further section either rewrites
  the whole file (write_file) or is appended after the file's last line (edit_file), so
  it needs the file's current text. It takes that from its own writes and edits of the
  file, unless deepagents clipped one of their arguments ("...(argument truncated)") or
  they are gone from view; then it reads the file back with read_file first. If the read
  fails it stops and says so rather than overwrite the file with partial content.
  (``trust_clipped_args`` is a seeded fault: an agent that takes a clipped argument for
  the file's text.)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness.media_format import media_texts
from harness.task_format import (
    ARTIFACT_ACTIONS,
    COMPLETION_MARKER,
    FINDING_PREFIX,
    Step,
    attribute_key,
    call_target,
    delegation_brief,
    find_facts,
    parse_probe,
    parse_reference,
    parse_statements,
    parse_steps,
    render_decision_answer,
    section_end,
    section_heading,
    todo_content,
    wants_long_ids,
    wants_todos,
)

HISTORY_PAGE_LINES = 200
SECTION_LINES = 8  # opening lines of a document a report section quotes
CLARIFICATION = (
    "I have lost track of the task: I can no longer see the steps I was asked to follow. "
    "Could you restate what you would like me to do next?"
)
_SUMMARY_STEP_DONE = re.compile(r"Step (\d+) done")
_SUMMARY_READ = re.compile(r"read_file (\S+) lines (\d+)-(\d+) of (\d+)")
# An artifacts line of a summary: "- /reports/a.md (written)"; a summary written before the marks lists "- /path".
_SUMMARY_ARTIFACT = re.compile(r"^- (/\S+?)(?: \((\w+)\))?\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ToolAction:
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ReplyAction:
    text: str


Action = ToolAction | ReplyAction


@dataclass
class View:
    """What one request shows the agent, parsed."""

    summary: str | None = None  # summarizer text inside the summary message
    history_path: str | None = None
    user_messages: list[str] = field(default_factory=list)
    calls: list[tuple[dict, ToolMessage | None]] = field(default_factory=list)
    history_pages: list[str] = field(default_factory=list)  # read_file results of the history file, in view order
    # Everything readable: the system prompt, user and assistant text (scripted turns and the agent's own replies),
    # the summary, tool results.
    texts: list[str] = field(default_factory=list)
    # When each text's content was said, for taking the latest statement of a fact: the system prompt (before
    # everything), pages of the history file (the offloaded span, the oldest part of the conversation, by offset), then
    # the summary, then the messages after it.
    said_at: list[tuple[int, int, int]] = field(default_factory=list)
    request_at: int = 0  # len(calls) when the latest user message was seen: calls after it answer that request

    @classmethod
    def of(cls, messages: list[BaseMessage]) -> View:
        view = cls()
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
        calls_by_id: dict[str, dict] = {}
        for i, msg in enumerate(messages):
            text: str = str(msg.text) if isinstance(msg.content, (str, list)) else str(msg.content)
            seen = media_texts(msg.content)  # what an image or binary file it was sent shows (the sentence it carries)
            if seen:
                text = "\n".join([text, *seen]).strip()
            if isinstance(msg, SystemMessage):
                view._read(text, (-1, 0, i))
            elif da.reads_as_summary(msg):
                view.summary = da.summary_body(text)
                view.history_path = da.history_path(text)
                view._read(view.summary, (1, 0, i))
            elif isinstance(msg, HumanMessage):
                view.user_messages.append(text)
                view._read(text, (2, i, 0))
                view.request_at = len(view.calls)
            elif isinstance(msg, AIMessage):
                if text.strip():
                    view._read(text, (2, i, 0))
                for call in msg.tool_calls:
                    view.calls.append((dict(call), results.get(call.get("id") or "")))
                    calls_by_id[call.get("id") or ""] = dict(call)
            elif isinstance(msg, ToolMessage):
                args = calls_by_id.get(msg.tool_call_id, {}).get("args") or {}
                page = view.history_path is not None and args.get("file_path") == view.history_path
                view._read(text, (0, int(args.get("offset") or 0), i) if page else (2, i, 0))
                if page:
                    view.history_pages.append(text)
        return view

    def _read(self, text: str, said_at: tuple[int, int, int]) -> None:
        self.texts.append(text)
        self.said_at.append(said_at)

    def latest_statement(self, key: str) -> str | None:
        """The value last stated for ``key`` in what is in view (a fact updated later answers with its new value)."""
        stated = [(at, n, v) for at, text in zip(self.said_at, self.texts) for n, v in enumerate(find_facts(key, text))]
        return max(stated)[2] if stated else None

    def stated_values(self, key: str) -> list[str]:
        """Every value stated for ``key`` in view, oldest first, each once; the earlier value a changed statement
        names (", not X") counts as stated just before it, on its line."""
        norm = " ".join(key.split()).lower()
        stated: list[tuple[tuple[int, int, int], int, int, int, str]] = []
        for at, text in zip(self.said_at, self.texts):
            for line_no, line in enumerate(text.splitlines()):
                replaced = [s.replaces for s in parse_statements(line) if s.replaces and s.key.lower() == norm]
                stated += [(at, line_no, 0, n, v) for n, v in enumerate(replaced) if v]
                stated += [(at, line_no, 1, n, v) for n, v in enumerate(find_facts(key, line))]
        first: dict[str, str] = {}
        for *_, value in sorted(stated):
            first.setdefault(value.lower(), value)
        return list(first.values())

    def rejected(self, key: str, latest: str) -> list[str]:
        """The values stated for ``key`` in view other than ``latest``, oldest first: the choices it replaced."""
        return [v for v in self.stated_values(key) if v.lower() != latest.lower()]

    def latest_request(self) -> str | None:
        if self.user_messages:
            return self.user_messages[-1]
        if self.summary:
            return _quoted_block(self.summary, "Latest request:") or _quoted_block(self.summary, "Original request:")
        return None

    def plan(self) -> list[Step]:
        """The step list in view: a user's request first, else what the summary quotes or plans."""
        for text in reversed(self.user_messages):
            steps = parse_steps(text)
            if steps:
                return steps
        return parse_steps(self.summary or "")

    def successful_calls(self) -> list[dict]:
        return [call for call, result in self.calls if result is not None and not _is_error(result)]


NEEDS_LIVE_MODEL = (
    "needs a live model: the reference agent follows only the step grammar in datasets/README.md "
    "(numbered steps, or 'What is the <key>?')"
)


def cannot_follow(task: str) -> str | None:
    """Why the reference agent could not act on ``task`` (prose outside its grammar), or None when it can.
    Such a task would only get a clarification request, which is not goal drift."""
    return None if parse_probe(task) is not None or parse_steps(task) else NEEDS_LIVE_MODEL


def decide(
    messages: list[BaseMessage],
    *,
    trust_clipped_args: bool = False,
    takes_first_statement: bool = False,
    writes_todos_once: bool = False,
    ignores_missing_blobs: bool = False,
) -> Action:
    """The agent's next action: a tool call or a reply, from ``messages`` alone (a pure function of them).
    Seeded faults: ``writes_todos_once`` (todos-not-updated): the todo list is written as the first action and never
    updated; ``ignores_missing_blobs`` (missing-blob-ignored): an agent that never re-reads a file whose binary content
    deepagents reports as no longer available."""
    view = View.of(messages)
    request = view.latest_request() or ""
    probe = parse_probe(request)
    if probe is not None:
        return _answer_probe(view, *probe, first=takes_first_statement, reread_missing=not ignores_missing_blobs)
    steps = view.plan()
    if not steps:
        return ReplyAction(CLARIFICATION)
    files = {s.target: _file_state(view, s.target, trust_clipped_args) for s in steps if _is_report_step(s)}
    done = _completed_step_numbers(view, steps, files)
    first, last = steps[0].number, steps[-1].number
    tracked = wants_todos(request)
    known = todo_list(view) if tracked else None
    if known:  # the todo list in view carries progress: an item marked completed is a step done
        number = {todo_content(s): s.number for s in steps}
        done |= {number[t["content"]] for t in known if t.get("status") == "completed" and t.get("content") in number}
    # a plan starting at step k means 1..k-1 are done; steps done before it (another request's) count for nothing here
    following = max(max(done, default=0), first - 1) + 1
    if tracked:
        want = _todos_for(steps, done, following)
        first_action = not view.calls and view.summary is None
        if known != want and (first_action or not writes_todos_once):
            return ToolAction("write_todos", {"todos": want})
    if following > last or steps[following - first].tool == "reply":
        return ReplyAction(f"{COMPLETION_MARKER}. I finished all {last} steps.")
    return _step_action(steps[following - first], view, files)


def todo_list(view: View) -> list[dict] | None:
    """The todo list in view: the items of the latest successful write_todos call, or None when none is in view."""
    for call, result in reversed(view.calls):
        if call.get("name") == "write_todos" and result is not None and not _is_error(result):
            todos = (call.get("args") or {}).get("todos")
            if isinstance(todos, list):
                return [dict(t) for t in todos if isinstance(t, dict)]
    return None


def _todos_for(steps: list[Step], done: set[int], following: int) -> list[dict]:
    """The todo list for ``steps`` (the reply step aside): done steps completed, the next one in progress."""
    return [
        {
            "content": todo_content(s),
            "status": "completed" if s.number in done else "in_progress" if s.number == following else "pending",
        }
        for s in steps
        if s.tool != "reply"
    ]


def _is_report_step(step: Step) -> bool:
    return step.mode in ("section", "add", "append")


def _completed_step_numbers(view: View, steps: list[Step], files: dict[str, FileState]) -> set[int]:
    # Report sections share one path: each is done when the file's known text has its heading.
    by_call: dict[tuple[str | None, str], int] = {
        (s.tool, s.target): s.number for s in steps if s.tool != "reply" and not _is_report_step(s)
    }
    done = set()
    for call in view.successful_calls():
        target = call_target(call)
        if (call.get("name"), target) in by_call:
            done.add(by_call[(call.get("name"), target)])
    for step in filter(_is_report_step, steps):
        state = files[step.target]
        if state.content is not None and section_heading(step.source) in state.content.splitlines():
            done.add(step.number)
    if view.summary:
        last = steps[-1].number
        done.update(int(n) for n in _SUMMARY_STEP_DONE.findall(view.summary) if 1 <= int(n) <= last)
    return done


def _step_action(step: Step, view: View, files: dict[str, FileState]) -> Action:
    if step.tool == "fetch_document":
        return ToolAction("fetch_document", {"doc_id": step.target})
    if step.tool == "read_file":
        return ToolAction("read_file", {"file_path": step.target})
    if step.tool == "compact_conversation":
        return ToolAction("compact_conversation", {})
    if step.tool == "task":
        return ToolAction("task", {"description": delegation_brief(step.target), "subagent_type": "general-purpose"})
    if step.tool == "write_file" and step.mode == "note":
        return ToolAction("write_file", {"file_path": step.target, "content": _note_on(step.source, view)})
    if _is_report_step(step):
        section = _section_on(step.source, view)
        if section is None:  # the document is no longer in view: fetch it again
            return ToolAction("fetch_document", {"doc_id": step.source})
        if step.mode == "section":
            return ToolAction("write_file", {"file_path": step.target, "content": section})
        state = files[step.target]
        if state.unreadable is not None:
            return ReplyAction(
                f"I cannot add the section on {step.source} to {step.target} safely: my copy of its text is clipped or "
                f"out of view and reading it back failed ({state.unreadable}). I am stopping rather than overwrite it "
                "with partial content."
            )
        if state.content is None:
            return ToolAction("read_file", {"file_path": step.target, "offset": state.next_offset, "limit": HISTORY_PAGE_LINES})
        if step.mode == "append":
            anchor = next((line for line in reversed(state.content.splitlines()) if line.strip()), "")
            return ToolAction(
                "edit_file", {"file_path": step.target, "old_string": anchor, "new_string": anchor + "\n" + section.rstrip("\n")}
            )
        base = state.content if state.content.endswith("\n") or not state.content else state.content + "\n"
        return ToolAction("write_file", {"file_path": step.target, "content": base + section})
    raise ValueError(f"no tool call for step {step}")


@dataclass(frozen=True)
class FileState:
    """What the agent knows of a file it is building: its text, or where to read it next, or the read error."""

    content: str | None = None
    next_offset: int = 0
    unreadable: str | None = None


def _file_state(view: View, path: str, trust_clipped_args: bool) -> FileState:
    """The file's current text: the latest whole write of it in view, or the pages read since, with later edits applied.

    A clipped argument on the way (deepagents' "...(argument truncated)") makes the text
    unknown: the file must be read back.
    """
    edits: list[dict] = []  # successful edits after the base, newest first
    pages: list[str] = []  # read_file pages after the latest write / edit, newest first
    base: str | None = None
    for call, result in reversed(view.calls):
        if call_target(call) != path or result is None:
            continue
        name, args = call.get("name"), call.get("args") or {}
        if name == "read_file":
            if _is_error(result):
                if not pages and not edits:
                    return FileState(unreadable=result.text.strip()[:200])
                if pages:
                    break
                continue
            pages.append(result.text)
            continue
        if name not in da.TRUNCATED_TOOLS or _is_error(result):
            continue
        if pages:
            break  # the pages read after this write / edit describe the file
        if name == "edit_file":
            edits.append(args)
            continue
        content = args.get("content")
        if not isinstance(content, str) or (da.is_clipped(content) and not trust_clipped_args):
            return FileState()  # what was written is not in view: read it back
        base = content
        break
    if pages:
        state = _assemble(pages[::-1])
        if state.content is None:
            return state
        base = state.content
    if base is None:
        return FileState()
    for edit in reversed(edits):  # oldest first
        old, new = edit.get("old_string"), edit.get("new_string")
        clipped = da.is_clipped(old) or da.is_clipped(new)
        if not isinstance(old, str) or not isinstance(new, str) or (clipped and not trust_clipped_args) or old not in base:
            return FileState()
        base = base.replace(old, new) if edit.get("replace_all") else base.replace(old, new, 1)
    return FileState(content=base)


def _assemble(pages: list[str]) -> FileState:
    """Join read_file pages covering the file from line 1; otherwise say where to read next."""
    by_first: dict[int, tuple[int, int | None, str]] = {}
    for text in pages:
        header, body = da.read_page_header(text), da.read_page_body(text)
        if header is not None and body is not None:
            by_first[header.first_line] = (header.last_line, header.total_lines, body)
    line, parts, total = 1, [], None
    while line in by_first:
        last, total, body = by_first[line]
        parts.append(body)
        if total is None or last >= total:
            return FileState(content="\n".join(parts))
        line = last + 1
    return FileState(next_offset=line - 1)


def _section_on(source: str, view: View) -> str | None:
    """A report section on document ``source``: its heading, title, findings and opening lines."""
    for call, result in reversed(view.calls):
        if call.get("name") == "fetch_document" and call_target(call) == source and result is not None and not _is_error(result):
            lines = [line.strip() for line in result.text.splitlines() if line.strip()]
            if not lines:
                return None
            findings = [line for line in lines if line.startswith(FINDING_PREFIX)]
            opening = [line for line in lines[1:] if not line.startswith(FINDING_PREFIX)][:SECTION_LINES]
            body = [
                section_heading(source),
                f"Source: {lines[0]}",
                *findings,
                *(f"- {line}" for line in opening),
                section_end(source),
            ]
            return "\n".join(body) + "\n"
    return None


def _note_on(source: str, view: View) -> str:
    """A one-line note about ``source`` from the latest read of it the agent can see."""
    for call, result in reversed(view.calls):
        if call_target(call) == source and result is not None and not _is_error(result):
            body = [line for line in result.text.splitlines() if line.strip() and not line.startswith("@@")]
            if body:
                return f"Note on {source}: {body[0].strip()[:160]}\n"
    return f"Note on {source}: reviewed (contents no longer in view).\n"


def _answer_probe(view: View, kind: str, key: str | None, *, first: bool = False, reread_missing: bool = True) -> Action:
    """Answer a follow-up question of any probe kind (``parse_probe``'s kinds) from what is in view or can be read.
    ``first`` is a seeded fault (``stale-answer``): an agent that answers with the first value it finds stated, not
    the latest."""
    if kind == "artifact" or key is None:
        return ReplyAction("\n".join(artifact_trail(view)) or "none")
    if kind == "decision":
        return _answer(
            view,
            key,
            lambda latest: render_decision_answer(latest, view.rejected(key, latest)),
            first=first,
            reread_missing=reread_missing,
        )
    return _answer(view, key, str, first=first, reread_missing=reread_missing)


def resolve(view: View, key: str, *, first: bool = False) -> str | None:
    """The value of ``key`` from what is in view: the latest statement of "the <key> is <value>" (``first``: the
    first, the stale-answer fault); failing that, for a reference question's key ("access code of the primary site",
    ``parse_reference``), the entity the reference names ("the primary site is ORBIT-7"), then that entity's attribute
    ("the ORBIT-7 access code is 4417-KESTREL"). None when a link is missing."""

    def lookup(k: str) -> str | None:
        if first:
            stated = view.stated_values(k)
            return stated[0] if stated else None
        return view.latest_statement(k)

    value = lookup(key)
    split = parse_reference(key)
    if value or split is None:
        return value
    attribute, reference = split
    entity = lookup(reference)
    return lookup(attribute_key(entity, attribute)) if entity else None


def _answer(view: View, key: str, reply: Callable[[str], str], *, first: bool = False, reread_missing: bool = True) -> Action:
    """``reply(latest value)`` when ``key`` is stated in view (or, for a reference question, can be resolved from
    view: `resolve`); otherwise the next step of the search for it (a cleared tool called again, a page of an evicted
    result or of the history file), and "I don't know" when that is over."""
    value = resolve(view, key, first=first)
    if value:
        return ReplyAction(reply(value))
    # Media it cannot see any more: a file whose binary content is reported gone (read it again), or media a summary
    # or history page refers to by path (read it).
    media = _media_read(view, reread_missing=reread_missing)
    if media is not None:
        return media
    # A tool result cleared to save context: call that tool again, as a capable model would.
    recall = _recall(view)
    if recall is not None:
        return recall
    # Where the fact may still be: evicted tool results named in view and saved user messages named anywhere (a
    # history page quoting the notice included), the history file the summary names, then evicted results that
    # history pages name.
    in_view = [p for t in view.texts for p in da.eviction_paths(t) if not _is_read_page(t)]
    in_view += [p for t in view.texts for p in da.evicted_message_paths(t)]  # a saved message is read first, seen anywhere
    candidates = list(
        dict.fromkeys(
            [
                *in_view,
                *([view.history_path] if view.history_path else []),
                *(p for t in view.texts for p in da.eviction_paths(t)),
            ]
        )
    )
    if not candidates:
        return ReplyAction(f"I don't know the {key}: it is not in what I can see and no history file is named.")
    for path in candidates:
        offset = _next_history_offset(view, path)
        if offset is not None:
            return ToolAction("read_file", {"file_path": path, "offset": offset, "limit": HISTORY_PAGE_LINES})
    return ReplyAction(f"I don't know the {key}: I read {', '.join(candidates)} and it is not there.")


_SUMMARY_PROGRESS_WRITE = re.compile(r"^- (?:Step \d+ )?done: (write_file|edit_file) (/\S+)", re.MULTILINE)


def artifact_trail(view: View) -> list[str]:
    """The files the agent created or changed, as far as it can tell from what is in view, oldest first, each once:
    write_file / edit_file calls that succeeded on the history-file pages in view (by offset), the summary's artifacts
    lines marked (written) or (edited) (and the unmarked "- /path" lines of a summary written before the marks;
    (read) lines do not count) and its progress lines that record a write or an edit, then the successful calls in
    view.

    It does not page the history file for this: a trail is what the agent can see, so a summary that drops its
    artifacts section loses the files that are not on a page already in view.
    """
    paths: list[str] = []
    for text in _page_runs(view.history_pages):
        paths += [
            call_target({"name": c.name, "args": c.args})
            for c in da.offloaded_calls(text)
            if c.name in ARTIFACT_ACTIONS and c.result is not None and not _is_error_text(c.result)
        ]
    for path, mark in _SUMMARY_ARTIFACT.findall(view.summary or ""):
        written = mark in ARTIFACT_ACTIONS.values()
        if written or (not mark and not path.startswith((da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX))):
            paths.append(path)
    # a progress line of the summary that records a write or an edit ("- Step 3 done: write_file /notes/a.md")
    paths += [path for tool, path in _SUMMARY_PROGRESS_WRITE.findall(view.summary or "") if tool in ARTIFACT_ACTIONS]
    paths += [call_target(c) for c in view.successful_calls() if c.get("name") in ARTIFACT_ACTIONS]
    return [p for p in dict.fromkeys(paths) if p]


def _page_runs(pages: list[str]) -> list[str]:
    """The text of pages of one file, by line number, with pages that follow on from each other joined (so a tool
    call and its answer on either side of a page break are read together); overlapping or repeated pages once."""
    by_first: dict[int, tuple[int, str]] = {}
    for text in pages:
        header, body = da.read_page_header(text), da.read_page_body(text)
        if header is not None and body is not None:
            by_first[header.first_line] = (header.last_line, body)
    runs: list[str] = []
    end = 0  # the last line already taken
    for first in sorted(by_first):
        last, body = by_first[first]
        if last <= end:
            continue
        lines = body.split("\n")[max(0, end + 1 - first) :]
        if first <= end + 1 and runs:
            runs[-1] += "\n" + "\n".join(lines)
        else:
            runs.append("\n".join(lines))
        end = last
    return runs


MAX_MEDIA_READS = 3  # reads of one media file before giving up on it (a blob store that keeps losing it)


def _media_read(view: View, *, reread_missing: bool = True) -> ToolAction | None:
    """The next read that may show media the agent cannot see: the file of a ``read_file`` result whose binary
    content deepagents reports as no longer available (unless ``reread_missing`` is off: the seeded fault), then a
    media path named in the summary or on history pages (``<image url="..." />``) that it has not read."""
    reads: dict[str, list[str]] = {}
    for call, result in view.calls:
        if call.get("name") == "read_file" and result is not None:
            reads.setdefault(call_target(call), []).append(result.text)
    if reread_missing:
        for path, texts in reads.items():
            if da.is_missing_blob(texts[-1]) and len(texts) < MAX_MEDIA_READS:
                return ToolAction("read_file", {"file_path": path})
        # a read summarized away with the notice in it: the summary's progress line or the history page says so
        for text in [view.summary or "", *view.history_pages]:
            for path in da.missing_blob_reads(text):
                if path not in reads:
                    return ToolAction("read_file", {"file_path": path})
    for text in [view.summary or "", *view.history_pages]:
        for path in da.media_references(text):
            if path not in reads:
                return ToolAction("read_file", {"file_path": path})
    return None


REREADABLE_TOOLS = ("fetch_document", "read_file", "ls", "glob", "grep")  # no side effects: safe to call again


def _is_cleared(result: ToolMessage) -> bool:
    """A tool result replaced by a placeholder such as LangChain's ``[cleared]``: read from its text, as a model does."""
    return result.text.strip().lower().startswith("[cleared")


def _recall(view: View) -> ToolAction | None:
    """The oldest cleared read-only call from before the question that has not been made again since."""
    since = {(c.get("name"), json.dumps(c.get("args"), sort_keys=True)) for c, _ in view.calls[view.request_at :]}
    for call, result in view.calls[: view.request_at]:
        if result is None or call.get("name") not in REREADABLE_TOOLS or not _is_cleared(result):
            continue
        if (call.get("name"), json.dumps(call.get("args"), sort_keys=True)) not in since:
            return ToolAction(call["name"], dict(call.get("args") or {}))
    return None


def _is_read_page(text: str) -> bool:
    return da.read_page_header(text) is not None


def _next_history_offset(view: View, path: str) -> int | None:
    """Where to resume paging ``path``; None once the file (as first seen) is read."""
    pages: list[tuple[int, int]] = []  # (last line read, total lines)
    for call, result in view.calls:
        if call.get("name") == "read_file" and call_target(call) == path and result is not None:
            if _is_error(result):
                return None
            page = da.read_page_header(result.text)
            if page is not None:
                pages.append((page.last_line, page.total_lines or page.last_line))
    if view.summary:
        for p, _first, last, total in _SUMMARY_READ.findall(view.summary):
            if p == path:
                pages.append((int(last), int(total)))
    if not pages:
        return 0
    end = min(total for _, total in pages)  # the file as it was when the search began
    furthest = max(last for last, _ in pages)
    return furthest if furthest < end else None


def _is_error(result: ToolMessage) -> bool:
    return result.status == "error" or _is_error_text(result.text)


def _is_error_text(text: str) -> bool:
    return text.lstrip().lower().startswith("error")


def _quoted_block(text: str, label: str) -> str | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == label:
            block = []
            for follow in lines[i + 1 :]:
                if not follow.startswith(">"):
                    break
                block.append(follow[1:].removeprefix(" "))
            return "\n".join(block) if block else None
    return None


LONG_ID_CHARS = 240


def call_id(messages: list[BaseMessage], action: ToolAction) -> str:
    """A deterministic tool-call id: the same request yields the same id, run after run
    (deepagents' offload times in history pages and the uuid4 names of saved user messages are left out). A user message asking for long ids
    (`harness.task_format.LONG_IDS_REQUEST`) gets ids of `LONG_ID_CHARS` characters."""
    digest = hashlib.sha256()
    for msg in messages:
        digest.update(type(msg).__name__.encode())
        digest.update(da.run_stable_text(str(msg.content)).encode())
    digest.update(da.run_stable_text(repr(sorted(action.args.items()))).encode())
    hexdigest = digest.hexdigest()
    if any(isinstance(m, HumanMessage) and wants_long_ids(m.text) for m in messages):
        return ("call_" + hexdigest * 4)[:LONG_ID_CHARS]
    return "call_" + hexdigest[:16]
