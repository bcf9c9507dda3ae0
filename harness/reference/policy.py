"""The reference agent's policy: its next action as a pure function of what it sees.

It never sees a scenario, an expected answer or a seed; only the request's messages. This module decides between a
question and a task and works the task; what a request shows is read in `harness.reference.view`, and a question is
answered in `harness.reference.recall`.

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
- A question about a recorded session (`harness.session_format`: the file a text was
  written into, where a file is, a command's exit code, a blank in an error or in what the
  user said): read from what is in view, history pages included, by the rules the probe
  generator wrote it with, else the same search of the history file, then "I don't know"
  (`harness.reference.session_recall`).
- A task: it needs the numbered step list, in a user message or quoted by the summary.
  Without it, it asks for clarification (goal drift). With it, it does the step after
  the highest one it has evidence of (a successful call it can see, or a "Step N done"
  line in the summary), and replies TASK COMPLETE after the last. A step the summary
  lists as pending ("Step N pending") that no successful call in view shows done is
  taken at the summary's word: not done, and the lowest such step comes next (so a
  summary that lists finished work as pending has it done again, opencode#50816).
  A step whose call has failed `GIVE_UP_AFTER` times in view (a file a replayed session's
  filesystem does not hold) is not tried again: it stops and says which step failed and why.
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

import re
from dataclasses import dataclass

from langchain_core.messages import BaseMessage

from harness import _deepagents_adapter as da
from harness.reference.recall import answer_probe
from harness.reference.session_recall import answer_session
from harness.reference.view import HISTORY_PAGE_LINES, Action, ParallelCalls, ReplyAction, ToolAction, View, is_error
from harness.session_format import parse_session_question
from harness.task_format import (
    COMPLETION_MARKER,
    FINDING_PREFIX,
    Step,
    call_target,
    delegation_brief,
    parse_probe,
    parse_steps,
    section_end,
    section_heading,
    todo_content,
    wants_todos,
)

SECTION_LINES = 8  # opening lines of a document a report section quotes
CLARIFICATION = (
    "I have lost track of the task: I can no longer see the steps I was asked to follow. "
    "Could you restate what you would like me to do next?"
)
_SUMMARY_STEP_DONE = re.compile(r"Step (\d+) done")
_SUMMARY_STEP_PENDING = re.compile(r"Step (\d+) pending")


NEEDS_LIVE_MODEL = (
    "needs a live model: the reference agent follows only the step grammar in datasets/README.md "
    "(numbered steps, or 'What is the <key>?')"
)


def cannot_follow(task: str) -> str | None:
    """Why the reference agent could not act on ``task`` (prose outside its grammar), or None when it can.
    Such a task would only get a clarification request, which is not goal drift."""
    follows = parse_probe(task) is not None or parse_session_question(task) is not None or parse_steps(task)
    return None if follows else NEEDS_LIVE_MODEL


def decide(
    messages: list[BaseMessage],
    *,
    trust_clipped_args: bool = False,
    takes_first_statement: bool = False,
    writes_todos_once: bool = False,
    ignores_missing_blobs: bool = False,
    repeats_after_summary: bool = False,
) -> Action:
    """The agent's next action: a tool call or a reply, from ``messages`` alone (a pure function of them).
    Seeded faults: ``writes_todos_once`` (todos-not-updated): the todo list is written as the first action and never
    updated; ``ignores_missing_blobs`` (missing-blob-ignored): an agent that never re-reads a file whose binary content
    deepagents reports as no longer available; ``repeats_after_summary`` (loop-without-progress): `_repeat_last_call`."""
    view = View.of(messages)
    if repeats_after_summary and view.summary is not None and view.calls:
        again = _repeat_last_call(view)
        if again is not None:
            return again
    request = view.latest_request() or ""
    session = parse_session_question(request)
    if session is not None:
        return answer_session(view, *session, reread_missing=not ignores_missing_blobs)
    probe = parse_probe(request)
    if probe is not None:
        return answer_probe(view, *probe, first=takes_first_statement, reread_missing=not ignores_missing_blobs)
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
    pending = _listed_pending(view, steps, files)
    done -= pending
    # a plan starting at step k means 1..k-1 are done; steps done before it (another request's) count for nothing here
    following = min(pending) if pending else max(max(done, default=0), first - 1) + 1
    if tracked:
        want = _todos_for(steps, done, following)
        first_action = not view.calls and view.summary is None
        if known != want and (first_action or not writes_todos_once):
            return ToolAction("write_todos", {"todos": want})
    if following > last or steps[following - first].tool == "reply":
        return ReplyAction(f"{COMPLETION_MARKER}. I finished all {last} steps.")
    action = _step_action(steps[following - first], view, files)
    return _given_up(following, action, view) or action


GIVE_UP_AFTER = 2
"""Failed calls of a step's tool on its target in view after which the agent stops and says so, rather than retry."""


def _given_up(number: int, action: Action, view: View) -> ReplyAction | None:
    """The reply that stops the task at step ``number`` when ``action`` (its call) has already failed `GIVE_UP_AFTER`
    times in view (a file the replay's filesystem does not hold, a tool that keeps erring), else None: the policy
    retries a failed step, and without this bound it retried it until LangGraph's recursion limit."""
    if not isinstance(action, ToolAction):
        return None
    target = call_target({"name": action.name, "args": action.args})
    failed = [
        result
        for call, result in view.calls
        if call.get("name") == action.name and call_target(call) == target and result is not None and is_error(result)
    ]
    if len(failed) < GIVE_UP_AFTER:
        return None
    error = failed[-1].text.strip().splitlines()[0][:200] if failed[-1].text.strip() else "an error"
    return ReplyAction(
        f"I cannot do step {number} ({action.name} {target}): it failed {len(failed)} times ({error}). "
        "I am stopping here rather than try it again."
    )


REPEATS = 3
"""The ``repeats_after_summary`` fault: the agent makes its last call again until this many in a row are in view."""


def _repeat_last_call(view: View) -> ToolAction | None:
    """Seeded fault ``repeats_after_summary`` (loop-without-progress): headed by a summary, the agent makes its latest
    call again (same tool, same arguments, as agents that re-read after a compaction do: CooperBench#54) until `REPEATS`
    identical calls end the view; then it goes on with its task."""
    last = view.calls[-1][0]
    same = 0
    for call, _ in reversed(view.calls):
        if (call.get("name"), call.get("args")) != (last.get("name"), last.get("args")):
            break
        same += 1
    return ToolAction(str(last.get("name")), dict(last.get("args") or {})) if same < REPEATS else None


def todo_list(view: View) -> list[dict] | None:
    """The todo list in view: the items of the latest successful write_todos call, or None when none is in view."""
    for call, result in reversed(view.calls):
        if call.get("name") == "write_todos" and result is not None and not is_error(result):
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


def _listed_pending(view: View, steps: list[Step], files: dict[str, FileState]) -> set[int]:
    """The steps the summary lists as pending ("Step N pending") that no successful call in view shows done."""
    if not view.summary:
        return set()
    first, last = steps[0].number, steps[-1].number
    listed = {int(n) for n in _SUMMARY_STEP_PENDING.findall(view.summary) if first <= int(n) <= last}
    return listed - _completed_step_numbers(view, steps, files, summary=False) if listed else set()


def _completed_step_numbers(view: View, steps: list[Step], files: dict[str, FileState], *, summary: bool = True) -> set[int]:
    # Report sections share one path: each is done when the file's known text has its heading.
    # A parallel step is done when every one of its documents is.
    by_call: dict[tuple[str | None, str], int] = {
        (s.tool, s.target): s.number for s in steps if s.tool != "reply" and not _is_report_step(s) and s.mode != "parallel"
    }
    done = set()
    seen = set()
    for call in view.successful_calls():
        target = call_target(call)
        seen.add((call.get("name"), target))
        if (call.get("name"), target) in by_call:
            done.add(by_call[(call.get("name"), target)])
    done |= {s.number for s in steps if s.mode == "parallel" and all((s.tool, t) in seen for t in s.targets)}
    for step in filter(_is_report_step, steps):
        state = files[step.target]
        if state.content is not None and section_heading(step.source) in state.content.splitlines():
            done.add(step.number)
    if summary and view.summary:
        last = steps[-1].number
        done.update(int(n) for n in _SUMMARY_STEP_DONE.findall(view.summary) if 1 <= int(n) <= last)
    return done


def _step_action(step: Step, view: View, files: dict[str, FileState]) -> Action:
    if step.mode == "parallel":  # the documents of the step not fetched yet, all in one message
        fetched = {call_target(c) for c in view.successful_calls() if c.get("name") == "fetch_document"}
        return ParallelCalls(tuple(ToolAction("fetch_document", {"doc_id": t}) for t in step.targets if t not in fetched))
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
            if is_error(result):
                if not pages and not edits:
                    return FileState(unreadable=result.text.strip()[:200])
                if pages:
                    break
                continue
            pages.append(result.text)
            continue
        if name not in da.TRUNCATED_TOOLS or is_error(result):
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
        if call.get("name") == "fetch_document" and call_target(call) == source and result is not None and not is_error(result):
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
        if call_target(call) == source and result is not None and not is_error(result):
            body = [line for line in result.text.splitlines() if line.strip() and not line.startswith("@@")]
            if body:
                return f"Note on {source}: {body[0].strip()[:160]}\n"
    return f"Note on {source}: reviewed (contents no longer in view).\n"
