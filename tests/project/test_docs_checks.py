"""The checks tests/project/test_docs.py holds the documentation to, on good and bad inputs."""

from __future__ import annotations

import argparse
from pathlib import Path

from tests._docs import broken_links, command_lines, command_problem, make_targets, missing_doc_links, section

MAKEFILE = "VENV := .venv\nrun: install\n\t$(BIN)/harness run\ntest: lint\ntest-unit: install-dev\n"
MARKERS = {"needle", "goal", "chain"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run")
    run.add_argument("--variant")
    experiment = commands.add_parser("experiment").add_subparsers(dest="sub", required=True)
    experiment.add_parser("run").add_argument("spec")
    return parser


def _problem(command: str) -> str | None:
    return command_problem(command, _parser(), make_targets(MAKEFILE), MARKERS)


def test_make_targets_are_the_rule_names_not_the_variables():
    assert make_targets(MAKEFILE) == {"run", "test", "test-unit"}


def test_a_real_harness_command_passes_and_an_unknown_subcommand_or_option_is_named():
    assert _problem(".venv/bin/harness run --variant forced-10") is None
    assert _problem("harness experiment run datasets/experiments/x.yaml") is None
    assert "invalid choice" in _problem(".venv/bin/harness frobnicate")
    assert "invalid choice" in _problem("harness experiment walk x.yaml")
    assert "unrecognized arguments: --colour" in _problem("harness run --colour red")


def test_make_commands_name_existing_targets_and_may_set_variables():
    assert _problem('make run ARGS="--variant forced-10"') is None
    assert _problem("make test-unit") is None
    assert "no make target ['test-everything']" in _problem("make test-everything")


def test_pytest_marker_expressions_name_existing_markers():
    assert _problem('.venv/bin/pytest evals/ -m "needle or (goal and not chain)" -n 2') is None
    assert _problem(".venv/bin/pytest evals/") is None
    assert "no pytest marker ['needles']" in _problem(".venv/bin/pytest evals/ -m needles")
    assert "['fact-loss']" in _problem('.venv/bin/pytest evals/ -m "goal or fact-loss"')


def test_other_commands_are_not_checked():
    assert _problem("curl -s -X POST http://127.0.0.1:8765/admin/reset") is None
    assert _problem("pytest --compaction-strategy mypkg:make") is None


def test_command_lines_split_chains_and_drop_comments_and_background():
    text = "```bash\nharness serve &   # stops\na && b; c  # d\n```\n```python\nharness run\n```\n"
    assert command_lines(text) == ["harness serve", "a", "b", "c"]


def test_missing_doc_links_names_the_pages_the_readme_does_not_link():
    pages = [Path("docs/live.md"), Path("docs/cli.md")]
    assert missing_doc_links("see [Live](docs/live.md) and [CLI](docs/cli.md#exit)", pages) == []
    assert missing_doc_links("see [Live](docs/live.md); docs/cli.md unlinked", pages) == ["cli.md"]


def test_a_section_ends_at_the_next_heading_of_its_level_but_not_inside_code():
    text = "# A\n## B\nb\n```yaml\n# comment\n```\n### C\nc\n## D\nd\n"
    assert section(text, "B") == "b\n```yaml\n# comment\n```\n### C\nc\n"
    assert section(text, "C") == "c\n"


def test_broken_links_names_relative_targets_that_do_not_exist(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "live.md").write_text("# Live\n\n## Errors: what they are\n")
    text = "[a](live.md#errors-what-they-are) [b](https://example.com/x) [c](#here) [d](../README.md) ![e](img/x.png)\n## Here"
    (tmp_path / "README.md").write_text("")
    assert broken_links(text, tmp_path / "docs") == ["img/x.png"]
    assert broken_links("[a](live.md)", tmp_path / "docs") == []
    assert broken_links("[a](live.md#errors) [b](#there)", tmp_path / "docs") == ["live.md#errors", "#there"]
