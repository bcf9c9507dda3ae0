"""tools/newest_releases.py, the nightly job that tries the newest releases against the lock: the pins it lifts, the
lock diff, the spec it writes (two named pin sets, the newest one made from its own lock), and the report and exit
code from an experiment's rows. No network: the compile is a stand-in, the experiment a stand-in writing rows."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from harness.runs.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("newest_releases", ROOT / "tools" / "newest_releases.py")
assert _SPEC is not None and _SPEC.loader is not None
tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tool)


def test_every_exact_pin_of_the_dependencies_is_lifted_to_a_floor_and_nothing_else():
    pyproject = """[project]
name = "x"
dependencies = [
    "deepagents==0.7.32",
    # a comment
    "langchain-anthropic",
    "pandas>=2",
    "langchain_core == 1.8.3",
]
"""
    assert tool.lifted_pins(pyproject) == "deepagents>=0.7.32\nlangchain_core>=1.8.3\n"
    assert "langchain>=" in tool.lifted_pins((ROOT / "pyproject.toml").read_text())  # the real file's pins are read


def test_the_lock_diff_names_what_moved_came_or_went_sorted():
    old = {"langsmith": "0.15.0", "pandas": "3.0", "gone": "1"}
    new = {"langsmith": "0.15.1", "pandas": "3.0", "added": "2"}
    assert tool.lock_diff(old, new) == [("added", "(none)", "2"), ("gone", "1", "(none)"), ("langsmith", "0.15.0", "0.15.1")]
    assert tool.lock_diff(old, old) == []


def test_the_spec_runs_the_smoke_grid_on_the_lock_and_on_the_newest_lock(tmp_path):
    lock = tmp_path / "newest.lock"
    shutil.copy(ROOT / "requirements.lock", lock)
    spec = load_spec(tool.write_spec(tmp_path, tool.SMOKE, lock))
    assert spec.name == "newest-releases"
    assert list(spec.arms())[:2] == ["deepagents-default+lock", "deepagents-default+newest"]
    assert spec.baseline == "deepagents-default+lock"
    newest = spec.version_of("deepagents-default+newest")
    assert newest is not None and newest.lock == str(lock.resolve())


def _rows(newest_outcome: str) -> list[dict]:
    def row(arm: str, outcome: str) -> dict:
        return {
            "arm": arm,
            "eval": None,
            "kind": "needle",
            "case_id": "needle-h24k-d000",
            "threshold": "20%",
            "trial": 0,
            "outcome": outcome,
            "outcome_keys": [] if outcome == "PASS" else ["needle_correct"],
            "calls": {"agent": 9},
            "events": {"summary": 2},
            "tokens": {"peak_context": 100},
        }

    return [row("a+lock", "PASS"), row("a+newest", newest_outcome)]


@pytest.mark.parametrize(("newest", "code"), [("PASS", 0), ("FAIL", 1)])
def test_main_compiles_runs_and_reports_exiting_1_when_an_outcome_moved(tmp_path, monkeypatch, newest, code):
    compiled: list[list[str]] = []

    def fake_uv(command: list[str]) -> None:  # uv pip compile ... -o FILE: the lock with langsmith moved
        compiled.append(command)
        text = (ROOT / "requirements.lock").read_text().replace("langsmith==0.15.0", "langsmith==0.15.1")
        Path(command[command.index("-o") + 1]).write_text(text)

    def fake_harness(argv: list[str]) -> int:
        out = Path(argv[argv.index("--out") + 1]) / "newest-releases"
        out.mkdir(parents=True)
        (out / "cells.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _rows(newest)))
        (out / "meta.json").write_text(json.dumps({"baseline": "a+lock"}))
        return 0

    import harness.cli.main

    monkeypatch.setattr(harness.cli.main, "main", fake_harness)
    assert tool.main(["--out", str(tmp_path)], run=fake_uv) == code
    (command,) = compiled
    assert command[1:4] == ["pip", "compile", str(ROOT / "pyproject.toml")] and "--upgrade" in command
    assert "langchain>=" in (tmp_path / "lifted.txt").read_text() and "--overrides" in command
    text = (tmp_path / "report.md").read_text()
    assert "| langsmith | 0.15.0 | 0.15.1 |" in text
    assert "| a+newest | " + ("PASS 1" if newest == "PASS" else "FAIL 1") + " |" in text
    assert ("PASS -> FAIL (needle_correct)" in text) == (newest == "FAIL")


def test_a_missing_spec_exits_2_and_writes_nothing(tmp_path, capsys):
    assert tool.main(["--out", str(tmp_path / "out"), "--spec", str(tmp_path / "nope.yaml")], run=lambda c: None) == 2
    assert "nope.yaml: no such file" in capsys.readouterr().err and not (tmp_path / "out").exists()
