"""Where the documentation lives, for the tests that read it: README.md and one page per topic under docs/.

The tests that check a command, a table or a snippet of the documentation name the page it is on (``page("cli")``
is docs/cli.md, ``page("README")`` the README), so moving text between pages is one edit here or in the test.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"


def page_path(name: str) -> Path:
    """The file of the page ``name``: ``README`` is README.md, anything else docs/<name>.md."""
    return README if name == "README" else DOCS / f"{name}.md"


def page(name: str) -> str:
    """The text of the page ``name`` (see `page_path`)."""
    return page_path(name).read_text(encoding="utf-8")


def doc_pages() -> list[Path]:
    """Every docs/ page, sorted by name."""
    return sorted(DOCS.glob("*.md"))


def blocks(text: str, lang: str) -> list[str]:
    """The bodies of the fenced code blocks of language ``lang`` in ``text`` (``""``: blocks with no language)."""
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def section(text: str, heading: str) -> str:
    """The text after the heading ``heading`` (at any level) up to the next heading of the same or a higher level
    (a ``#`` line inside a fenced code block is not a heading)."""
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, flags=re.M)
    assert match, f"no heading {heading!r}"
    level, kept, fenced = len(match[1]), [], False
    for line in text[match.end() :].splitlines(keepends=True):
        fenced ^= line.startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        kept.append(line)
    return "".join(kept)


def command_lines(text: str) -> list[str]:
    """Every command of the ``bash`` blocks in ``text``: one line each, without its trailing comment, split at
    ``&&`` and ``;`` and without a trailing ``&``."""
    commands = []
    for block in blocks(text, "bash"):
        for line in block.splitlines():
            for part in re.split(r"&&|;", line.split("  #")[0]):
                part = part.strip().removesuffix("&").strip()
                if part:
                    commands.append(part)
    return commands


def command_line(text: str, prefix: str) -> str:
    """The first command of ``text``'s bash blocks that starts with ``prefix`` (a trailing space in ``prefix`` also
    matches the command's end: ``"-m needle "`` finds ``-m needle`` and ``-m needle -n 2``, never ``-m needles``)."""
    lines = [line for line in command_lines(text) if line.startswith(prefix) or line == prefix.rstrip()]
    assert lines, f"the documentation no longer has a command starting {prefix!r}"
    return lines[0]
