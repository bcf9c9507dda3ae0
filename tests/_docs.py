"""Where the documentation lives, for the tests that read it: README.md and one page per topic under docs/.

The tests that check a command, a table or a snippet of the documentation name the page it is on (``page("cli")``
is docs/cli.md, ``page("README")`` the README), so moving text between pages is one edit here or in the test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
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


# -- checking the documented commands without running them ----------------------------------------------------------
HARNESS_PREFIXES = (".venv/bin/harness ", "harness ")
CHECKED_PREFIXES = (*HARNESS_PREFIXES, "make ", ".venv/bin/pytest ")
PYTEST_MARK_WORDS = {"and", "or", "not", "(", ")"}


def make_targets(makefile: str) -> set[str]:
    """The targets a Makefile's text defines (``name:`` at the start of a line, not ``NAME :=``)."""
    return set(re.findall(r"^([A-Za-z0-9_.-]+):(?!=)", makefile, flags=re.M))


def command_problem(command: str, parser: argparse.ArgumentParser, targets: set[str], markers: set[str]) -> str | None:
    """What is wrong with one documented command, or None: a ``harness`` command must parse with the real parser
    (its subcommands and options exist), a ``make`` command name existing targets, a ``pytest`` command's ``-m``
    expression existing markers. Commands with another prefix are not checked."""
    if not command.startswith(CHECKED_PREFIXES):
        return None
    words = shlex.split(command)
    if command.startswith(HARNESS_PREFIXES):
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(words[1:])
        except SystemExit as exc:
            if exc.code:
                return f"{command!r}: {err.getvalue().strip().splitlines()[-1]}"
        return None
    if command.startswith("make "):
        unknown = [w for w in words[1:] if "=" not in w and w not in targets]
        return f"{command!r}: no make target {unknown}" if unknown else None
    expressions = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "-m"]
    names = {name for expr in expressions for name in re.findall(r"[\w-]+|[()]", expr)} - PYTEST_MARK_WORDS
    unknown = sorted(names - markers)
    return f"{command!r}: no pytest marker {unknown}" if unknown else None


def missing_doc_links(readme: str, pages: list[Path]) -> list[str]:
    """The docs/ pages (by file name) that the README text does not link to as ``](docs/NAME.md``."""
    return [p.name for p in pages if f"](docs/{p.name}" not in readme]


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of the Markdown ``text``: lower case, punctuation dropped, spaces as
    hyphens (``## Judge: free text, calibrated`` is ``#judge-free-text-calibrated``); fenced code is skipped."""
    out, fenced = set(), False
    for line in text.splitlines():
        fenced ^= line.startswith("```")
        heading = None if fenced else re.match(r"#{1,6} (.*)", line)
        if heading:
            out.add(re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-"))
    return out


def broken_links(text: str, base: Path) -> list[str]:
    """The relative link targets in the Markdown ``text`` (a page in the folder ``base``) that name no existing file, or
    a heading that page does not have (``design.md#layers``, ``#layers``); web addresses are not checked."""
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http:", "https:", "mailto:")):
            continue
        name, _, anchor = target.partition("#")
        path = base / name if name else None
        if path is not None and not path.exists():
            broken.append(target)
        elif anchor and (path is None or path.suffix == ".md"):
            page_text = text if path is None else path.read_text(encoding="utf-8")
            if anchor not in anchors(page_text):
                broken.append(target)
    return broken
