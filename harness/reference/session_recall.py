"""How the reference agent answers a question about a recorded session (`answer_session`): from what is in view, read
with the rules of `harness.session_format` the probe generator wrote it by, else the next step of the search
(`harness.reference.recall.search`: the history file's pages, then "I don't know").

- artifact ("Which file did you write the text `S` into?"): the file of the latest successful tool call in view or
  on a history page in view whose written text holds ``S`` (`harness.session_format.writes`);
- path ("Where is the file `N` you came across?"): of the paths named ``N`` in view (texts, tool calls, history
  pages), the one with the most folders;
- command ("What exit code did the command `C` return?"): the exit code the result of the latest run of ``C`` in view
  or on a history page reports;
- error and constraint (a line with a blank): the word that fills the blank in the latest text in view that has the
  line.

The question itself is not read as an answer.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from harness import _deepagents_adapter as da
from harness.reference.recall import is_read_page, page_runs, search
from harness.reference.view import Action, ReplyAction, View
from harness.session_format import (
    BLANK,
    SUBJECTS,
    bare_path,
    call_text,
    command_of,
    fill_blank,
    loose,
    page_text,
    path_tokens,
    reports_failure,
    return_code,
    same_command,
    writes,
)


def answer_session(view: View, kind: str, subject: str, *, reread_missing: bool = True) -> Action:
    """The answer to a session question of type ``kind`` about ``subject`` (`parse_session_question`'s reading)."""
    value = _FIND[kind](view, subject)
    if value is not None:
        return ReplyAction(value)
    return search(view, SUBJECTS[kind].format(subject), reread_missing=reread_missing)


def _texts(view: View) -> list[str]:
    """Everything readable in view except the question, oldest first: texts by when they were said (history pages as
    text), then the commands and arguments of the tool calls in view."""
    request = view.latest_request()
    said = sorted(zip(view.said_at, range(len(view.texts)), view.texts))
    texts = [page_text(da.read_page_body(text) or text) if is_read_page(text) else text for _, _, text in said if text != request]
    return texts + [call_text(call.get("args") or {}) for call, _ in view.calls]


def _calls(view: View) -> list[tuple[str, dict[str, Any], str | None]]:
    """Every tool call in view with its result's text, oldest first: those on history pages, then the messages'."""
    calls = [(c.name, c.args, c.result) for run in page_runs(view.history_pages) for c in da.offloaded_calls(run)]
    return calls + [(str(c.get("name") or ""), c.get("args") or {}, r.text if r is not None else None) for c, r in view.calls]


def _artifact(view: View, snippet: str) -> str | None:
    want = loose(snippet)
    for name, args, result in reversed(_calls(view)):
        if result is None or reports_failure(result):
            continue
        for write in writes(name, args):
            if write.text is not None and want in loose(write.text):
                return write.path
    return None


def _path(view: View, name: str) -> str | None:
    found = [p for text in _texts(view) for p in path_tokens(text) if posixpath.basename(p) == name]
    return max(found, key=lambda p: (bare_path(p).count("/"), len(p)), default=None)


def _command(view: View, command: str) -> str | None:
    for _, args, result in reversed(_calls(view)):
        ran = command_of(args)
        if ran is not None and result is not None and same_command(ran, command):
            code = return_code(result)
            if code is not None:
                return str(code)
    return None


def _fill(view: View, template: str) -> str | None:
    fills = [word for text in _texts(view) for word in fill_blank(template, text) if BLANK not in word]
    return fills[-1] if fills else None


_FIND: dict[str, Callable[[View, str], str | None]] = {
    "artifact": _artifact,
    "path": _path,
    "command": _command,
    "error": _fill,
    "constraint": _fill,
}
