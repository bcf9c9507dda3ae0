"""How the reference agent answers a question (`answer_probe`): the value from what is in view (`resolve`), else
the next step of the search for it (media it cannot see, a cleared tool called again, pages of evicted results and
of the history file), and the trail of the files it made (`artifact_trail`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from langchain_core.messages import ToolMessage

from harness import _deepagents_adapter as da
from harness.reference.view import HISTORY_PAGE_LINES, Action, ReplyAction, ToolAction, View, is_error, is_error_text
from harness.task_format import ARTIFACT_ACTIONS, attribute_key, call_target, parse_reference, render_decision_answer

_SUMMARY_READ = re.compile(r"read_file (\S+) lines (\d+)-(\d+) of (\d+)")
# An artifacts line of a summary: "- /reports/a.md (written)"; a summary written before the marks lists "- /path".
_SUMMARY_ARTIFACT = re.compile(r"^- (/\S+?)(?: \((\w+)\))?\s*$", re.MULTILINE)


def answer_probe(view: View, kind: str, key: str | None, *, first: bool = False, reread_missing: bool = True) -> Action:
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
    view: `resolve`); otherwise the next step of the search for it (`search`)."""
    value = resolve(view, key, first=first)
    if value:
        return ReplyAction(reply(value))
    return search(view, key, reread_missing=reread_missing)


def search(view: View, what: str, *, reread_missing: bool = True) -> Action:
    """The next step of the search for something not in view (a cleared tool called again, a page of an evicted
    result or of the history file), and "I don't know the <what>" when that is over."""
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
    in_view = [p for t in view.texts for p in da.eviction_paths(t) if not is_read_page(t)]
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
        return ReplyAction(f"I don't know the {what}: it is not in what I can see and no history file is named.")
    for path in candidates:
        offset = _next_history_offset(view, path)
        if offset is not None:
            return ToolAction("read_file", {"file_path": path, "offset": offset, "limit": HISTORY_PAGE_LINES})
    return ReplyAction(f"I don't know the {what}: I read {', '.join(candidates)} and it is not there.")


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
    for text in page_runs(view.history_pages):
        paths += [
            call_target({"name": c.name, "args": c.args})
            for c in da.offloaded_calls(text)
            if c.name in ARTIFACT_ACTIONS and c.result is not None and not is_error_text(c.result)
        ]
    for path, mark in _SUMMARY_ARTIFACT.findall(view.summary or ""):
        written = mark in ARTIFACT_ACTIONS.values()
        if written or (not mark and not path.startswith((da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX))):
            paths.append(path)
    # a progress line of the summary that records a write or an edit ("- Step 3 done: write_file /notes/a.md")
    paths += [path for tool, path in _SUMMARY_PROGRESS_WRITE.findall(view.summary or "") if tool in ARTIFACT_ACTIONS]
    paths += [call_target(c) for c in view.successful_calls() if c.get("name") in ARTIFACT_ACTIONS]
    return [p for p in dict.fromkeys(paths) if p]


def page_runs(pages: list[str]) -> list[str]:
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


def is_read_page(text: str) -> bool:
    return da.read_page_header(text) is not None


def _next_history_offset(view: View, path: str) -> int | None:
    """Where to resume paging ``path``; None once the file (as first seen) is read."""
    pages: list[tuple[int, int]] = []  # (last line read, total lines)
    for call, result in view.calls:
        if call.get("name") == "read_file" and call_target(call) == path and result is not None:
            if is_error(result):
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
