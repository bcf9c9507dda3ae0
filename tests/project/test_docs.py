"""The documentation fits a person and cannot rot: a README of at most 260 lines that links every docs/ page, and
every documented ``harness``, ``make`` and ``pytest`` command names a real subcommand, option, target or marker."""

from __future__ import annotations

import re
import tomllib

from harness.cli.main import build_parser
from tests._docs import (
    README,
    ROOT,
    blocks,
    broken_links,
    command_lines,
    command_problem,
    doc_pages,
    make_targets,
    missing_doc_links,
    page,
    section,
)

README_MAX_LINES = 260


def _markers() -> set[str]:
    lines = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    return {line.split(":", 1)[0] for line in lines}


def test_the_readme_is_short_and_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES, f"README.md has {len(text.splitlines())} lines"
    assert not missing_doc_links(text, doc_pages()), f"README.md does not link {missing_doc_links(text, doc_pages())}"


def test_every_documented_command_names_a_real_subcommand_target_or_marker():
    parser, targets, markers = build_parser(), make_targets((ROOT / "Makefile").read_text()), _markers()
    checked, problems = 0, []
    for path in [README, *doc_pages()]:
        for command in command_lines(path.read_text(encoding="utf-8")):
            problem = command_problem(command, parser, targets, markers)
            checked += command.startswith(("harness ", ".venv/bin/", "make "))
            if problem:
                problems.append(f"{path.relative_to(ROOT)}: {problem}")
    assert checked >= 30, f"only {checked} documented commands found: the bash blocks moved?"
    assert not problems, "\n".join(problems)


def test_the_readme_python_example_is_the_one_docs_python_md_runs():
    """The README's notebook example is a copy of the snippet tests/api/test_api.py runs from docs/python.md."""
    (example,) = blocks(README.read_text(encoding="utf-8"), "python")
    assert example in blocks(page("python"), "python")


def test_every_relative_link_of_the_readme_and_the_docs_pages_names_a_file():
    problems = [
        f"{p.relative_to(ROOT)}: {t}"
        for p in [README, *doc_pages()]
        for t in broken_links(p.read_text(encoding="utf-8"), p.parent)
    ]
    assert not problems, problems


def test_a_link_to_a_heading_that_moved_is_broken():
    """Sections move between pages (design.md's measurements went to the topic pages): a link keeps its heading."""
    docs = ROOT / "docs"
    assert broken_links("[a](design.md#layers) [b](#here)\n## Here", docs) == []
    assert broken_links("[a](design.md#ci-time) [b](#elsewhere) [c](nowhere.md)", docs) == [
        "design.md#ci-time",
        "#elsewhere",
        "nowhere.md",
    ]
    assert broken_links("[a](performance.md#ci-time) [b](quality.md#quality-the-answer-readers)", docs) == []


def test_the_readme_names_every_eval_marker_and_nothing_else():
    from harness.suites.registry import SUITES

    paragraph = section(README.read_text(encoding="utf-8"), "1. pytest evals").split("\n\n", 1)[0]
    assert re.findall(r"`([\w-]+)`", paragraph) == [*SUITES, "validity"], "README's marker list is out of step with SUITES"
