"""The documentation's own commands, run as written in a copy of the repository, and its claims about the CLI.

The commands run with the repository's virtual environment and the copy's code (``PYTHONPATH``), from the copy's
root, so what they write (a needle grid under datasets/, run directories) lands in the copy and is read back the way
a user's next command would read it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._docs import ROOT, blocks, command_line, page, section

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
NIAH, EVALS, PYTHON, EXPERIMENTS, CLI = "data", "evals", "python", "experiments", "cli"  # the pages each part is on


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("checkout") / "repo"
    ignore = shutil.ignore_patterns(".venv", ".git", "reports", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def _sh(checkout: Path, line: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    env.update(PYTHONPATH=str(checkout), LANGSMITH_TRACING="false")
    argv = [str(BIN / word.removeprefix(".venv/bin/")) if word.startswith(".venv/bin/") else word for word in line.split()]
    return subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_needle_grid_example_runs_as_written_and_leaves_the_default_evals_green(checkout):
    """The NIAH example writes its grid into datasets/: it used to join every later default run, and
    `pytest evals/ -m needle` went from 20 passed to 14 failed, 26 passed."""
    generate = command_line(page(NIAH), ".venv/bin/harness generate needle --lengths")
    assert "--out datasets/" in generate
    done = _sh(checkout, generate)
    assert done.returncode == 0, done.stderr[-2000:]
    out = re.search(r"--out (\S+)", generate)[1]
    assert (checkout / out).is_file()

    run = command_line(page(NIAH), f".venv/bin/harness run --datasets {out}")
    done = _sh(checkout, run)
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = (checkout / "reports" / "runs").iterdir()
    assert (run_dir / "needle_depth_length.png").exists() and "20 case runs" in done.stdout

    needle = command_line(page(EVALS), ".venv/bin/pytest evals/ -m needle ")
    assert needle == ".venv/bin/pytest evals/ -m needle"
    done = _sh(checkout, f"{needle} -q -p no:cacheprovider")
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0 and re.search(r"\b20 passed\b", summary) and "failed" not in summary, done.stdout[-2000:]

    # "Using the results from Python", on the needle-grid run
    (code,) = [b for b in blocks(page(PYTHON), "python") if "harness.read_results" in b]
    script = (
        "import matplotlib\nmatplotlib.use('Agg')\n" + code.replace("<run-id>", run_dir.name) + "\nprint(len(frame), len(calls))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows, calls = (int(x) for x in done.stdout.split())
    assert rows == 20 and calls > rows


def test_the_documented_example_spec_is_the_shipped_file():
    shipped = (ROOT / "datasets" / "experiments" / "prompt-comparison.yaml").read_text(encoding="utf-8")
    text = page(EXPERIMENTS)
    assert shipped in blocks(text, "yaml"), "the documented example spec differs from datasets/experiments/prompt-comparison.yaml"
    assert "harness experiment run datasets/experiments/prompt-comparison.yaml" in text


def _subcommands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in parser._actions:  # noqa: SLF001 - argparse keeps subparsers here
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _subcommands(sub, (*path, name))


def test_every_subcommand_has_a_description_and_the_docs_list_every_command():
    from harness.cli.main import build_parser

    commands = dict(_subcommands(build_parser()))
    bare = [" ".join(path) for path, sub in commands.items() if not sub.description]
    assert not bare, f"`harness {bare[0]} --help` has no description"
    (block,) = blocks(section(page(CLI), "The command line"), "")[:1]
    listed = {line.split()[1] for line in block.splitlines() if line.startswith("harness ")}
    top = {path[0] for path in commands}
    assert top <= listed, f"the documented command list lacks {sorted(top - listed)}"
