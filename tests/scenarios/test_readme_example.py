"""datasets/README.md's worked example, a recorded conversation turned by hand into a probe case, cannot rot: its
recording is the shipped file, its row loads without a warning, its facts are the ones the parser finds in the
recording, and the command it gives runs it to a PASS offline."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from harness.scenarios.conversation import recorded_probe_row
from harness.scenarios.schema import load_scenarios, offline_statement_problem
from tests._docs import ROOT, blocks, section

README = ROOT / "datasets" / "README.md"
HEADING = "A recorded conversation as a probe case, by hand"


def _example() -> tuple[str, dict, list[str]]:
    text = section(README.read_text(encoding="utf-8"), HEADING)
    (recording,) = blocks(text, "jsonl")
    (row,) = blocks(text, "json")
    (command,) = blocks(text, "bash")
    return recording, json.loads(row), shlex.split(command.strip())


def _dataset(tmp_path: Path) -> Path:
    """The example row as one line of ``my-cases.jsonl`` beside a conversations/ folder holding the recording."""
    _, row, _ = _example()
    (tmp_path / "conversations").mkdir()
    shutil.copy(ROOT / "datasets" / row["conversation"], tmp_path / row["conversation"])
    path = tmp_path / "my-cases.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def test_the_recording_shown_is_the_shipped_file():
    recording, row, _ = _example()
    assert (ROOT / "datasets" / row["conversation"]).read_text(encoding="utf-8") == recording


def test_the_row_loads_without_a_warning_and_the_reference_agent_can_read_every_fact(tmp_path):
    (case,) = load_scenarios([_dataset(tmp_path)])
    assert case.kind == "probe" and case.warnings == ()
    assert offline_statement_problem(case) is None


def test_the_facts_marked_by_hand_are_those_the_parser_finds_in_the_recording():
    _, row, _ = _example()
    parsed = recorded_probe_row(row["conversation"], ROOT / "datasets", 0)

    def content(facts: list[dict]) -> set[tuple]:
        return {(f["type"], f["key"], f["value"], f["message"], "superseded_by" in f) for f in facts}

    assert content(row["facts"]) == content(parsed["facts"])
    assert row["followups"] == parsed["followups"]  # the probes' exact texts, in the same order of facts


def test_the_command_shown_runs_the_case_to_a_pass_offline(tmp_path):
    from harness.cli.main import main

    _, _, command = _example()
    assert command[:2] == [".venv/bin/harness", "run"]
    args = [str(_dataset(tmp_path)) if a == "datasets/my-cases.jsonl" else a for a in command[2:]]
    assert main(["run", *args, "--out", str(tmp_path / "runs")]) == 0
    (rows_file,) = (tmp_path / "runs").glob("*/results.jsonl")
    (result,) = [json.loads(line) for line in rows_file.read_text().splitlines()]
    assert result["outcome"] == "PASS", result["explanations"]
    assert result["scores"]["questions_valid"] == 3 and result["scores"]["goal_all_steps_done"] is True
    assert result["scores"]["compacted"] >= 1
