"""Reading a list of files (the artifact probe): the paths named as created or changed, not those only read
(`read_paths`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.answers.reading import _clause_end, _clause_start
from harness.answers.text import clean

_PATH = re.compile(
    r"(?<![\w/.\-~])(?:\.(?=/))?(/[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*|(?<![\w.])[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_.\-]+)*/[A-Za-z0-9_\-]+\.[A-Za-z0-9]{1,5}(?![\w/]))"
)
_BRACES = re.compile(r"(/[\w./\-]*)\{([^{}\s]+)\}([\w./\-]*)")
_PATH_RANGE = re.compile(r"(/[\w./\-]*?)(\d+)([\w.\-]*)\s+(?:through|thru|to|until|…|\.\.\.?)\s+\1(\d+)\3(?![\w/])")
_TREE_BRANCH = re.compile(r"^([\s│|`]*)(?:├──|└──|\|--|`--|\+--)[ \t]*([\w./][^\n]*?)\s*$")


def _absolute(path: str) -> str:
    """A path as the agent's filesystem names it: relative ones (notes/a.md, ./notes/a.md) from the root."""
    return path if path.startswith("/") else "/" + path


def _expand(text: str) -> str:
    """Paths written compactly, written out: brace lists (/notes/ledger_{01,02}.md), numbered ranges
    ("/notes/ledger_01.md through /notes/ledger_04.md") and trees (├── / └── under a root)."""
    text = _BRACES.sub(lambda m: " ".join(m.group(1) + item + m.group(3) for item in m.group(2).split(",")), text)

    def span(m: re.Match[str]) -> str:
        first, last, width = int(m.group(2)), int(m.group(4)), len(m.group(2))
        if not 0 < last - first < 100:
            return m.group(0)
        return " ".join(f"{m.group(1)}{n:0{width}d}{m.group(3)}" for n in range(first, last + 1))

    text = _PATH_RANGE.sub(span, text)
    lines, out = text.split("\n"), []
    stack: list[tuple[int, str]] = []  # (depth, name) of the folders above the current line
    root = ""
    for i, line in enumerate(lines):
        branch = _TREE_BRANCH.match(line)
        if branch is None:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if _TREE_BRANCH.match(nxt) and re.fullmatch(r"\s*/?[\w./\-]*/?\s*", line):
                root, stack = line.strip().rstrip("/"), []
                continue
            out.append(line)
            continue
        depth, name = len(branch.group(1)), branch.group(2).split()[0]
        stack = [(d, n) for d, n in stack if d < depth]
        if name.endswith("/"):
            stack.append((depth, name.rstrip("/")))
            continue
        folders = "/".join(n for _, n in stack)
        out.append(f"{root}/{folders}/{name}".replace("//", "/") + " " + " ".join(branch.group(2).split()[1:]))
    return "\n".join(out)


_WROTE = re.compile(
    r"\b(?:creat\w*|writ\w*|wrote|edit\w*|chang\w*|modif\w*|updat\w*|append\w*|add\w*|sav\w*|produc\w*|generat\w*|"
    r"touched|new|output)\b",
    re.IGNORECASE,
)
_READ_ONLY = re.compile(
    r"\b(?:read|reads|reading|opened|viewed|looked at|inspected|consulted|referenced|fetched|reviewed|scanned|checked|"
    r"browsed|listed|inputs?|sources?|only read|read[\s_\-]only)\b",
    re.IGNORECASE,
)
_NOT_WRITTEN = re.compile(
    r"\b(?:not|never|no|without|didn't|did not|wasn't|was not|weren't|haven't|have not|hasn't|has not|not yet|yet to)\b"
    r"[\w\s,]{0,25}?"
    r"\b(?:creat\w*|writ\w*|wrote|edit\w*|chang\w*|modif\w*|updat\w*|touch\w*|alter\w*)|\bunchanged\b|\buntouched\b|"
    r"\bread[\s_\-]only\b|\bonly read\b|"
    r"\b(?:will|going to|plan(?:ned|ning)?(?:\s+to)?|about to|yet to|to do|todo|pending|next|need(?:s)?\s+to|have\s+to|"
    r"tried\s+to|try\s+to|attempted|fail(?:ed|s)?|unable\s+to|could\s*n['’]?o?t|nothing)\b",  # not written (yet)
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PathsReading:
    """The paths an answer says were created or changed (``paths``, in order, each once), and those it names only as
    read or as not changed (``excluded``)."""

    paths: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    how: str = ""
    notes: list[str] = field(default_factory=list, compare=False)


def _mode(text: str) -> str | None:
    """What a piece of text says of the paths it names: "wrote", "read" or None (nothing)."""
    if _NOT_WRITTEN.search(text):
        return "read"
    wrote, read = _WROTE.search(text), _READ_ONLY.search(text)
    if read and not wrote:
        return "read"
    if wrote and not read:
        return "wrote"
    return None  # both or neither: nothing definite


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_LABEL = re.compile(r"([A-Za-z][A-Za-z \-]{0,40}?)\s*[:=]\s*\[?[^:=]*$")


def _path_mode(line: str, start: int, end: int, heading: str | None, before: str | None) -> str | None:
    """What the answer says of the path at ``line[start:end]``: the words between it and the path before it in its
    clause ("I read /a and wrote /b": /b wrote), else what it says of that path ("I read /a and /b": both read), else
    the words after it up to the next path, the label it is listed under on its line ("changed: [...]", "Read only:
    ..."), its sentence, then the heading above its line; the first that says anything definite. ``before``: the mode
    of the path before it in the same clause, if any."""
    a, b = _clause_start(line, start), _clause_end(line, end)
    previous = [m.end() for m in _PATH.finditer(line, a, start)]
    near = _mode(line[previous[-1] if previous else a : start])
    if near in ("read", "wrote"):
        return near
    if previous and before is not None:
        return before
    following = _PATH.search(line, end, b)
    label = _LABEL.search(_PATH.sub(" ", line[:start]))
    s_start = max([m.end() for m in _SENTENCE.finditer(line, 0, start)], default=0)
    s_end = next((m.start() for m in _SENTENCE.finditer(line, end)), len(line))
    contexts = (
        line[end : following.start() if following else b],
        label.group(1) if label else "",
        _PATH.sub(" ", line[s_start:s_end]),
        heading or "",
    )
    for context in contexts:
        mode = _mode(context)
        if mode in ("read", "wrote"):
            return mode
    return None


def read_paths(answer: str) -> PathsReading:
    """The files an answer says were created or changed. A path counts unless what the answer says of it (its clause,
    the label it is listed under, its sentence or the heading above its line, the first that says anything) names it
    only as read or as not changed."""
    text = clean(_expand(answer))
    heading: str | None = None
    paths: list[str] = []
    excluded: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        found = list(_PATH.finditer(line))
        if not found:
            # a heading ("Read only:", "Files I created:") sets the mode of the lines listed under it
            mode = _mode(stripped)
            heading = stripped if mode in ("read", "wrote") else heading
            continue
        before: str | None = None
        prev_at = -1
        for m in found:
            path = m.group(1).rstrip(".,;:")
            at = m.start(1)
            same_clause = before is not None and _clause_start(line, at) <= prev_at
            before = _path_mode(line, at, at + len(path), heading, before if same_clause else None)
            prev_at = at
            if before == "read":
                excluded.append(_absolute(path))
            else:
                paths.append(_absolute(path))
    kept = list(dict.fromkeys(p for p in paths))
    aside = [p for p in dict.fromkeys(excluded) if p not in kept]
    how = f"{len(kept)} path(s) named as created or changed" + (
        f"; named as only read, unchanged or not yet written: {', '.join(aside)}" if aside else ""
    )
    return PathsReading(tuple(kept), tuple(aside), how)
