"""An offline grid without evals skips a case by the one rule every door reads (`harness.suites.execute.offline_problem`):
a session case with probes the reference agent answers is planned (as `harness run` runs it), one with prose probes
is skipped naming them. A grid in which no cell ran (each not run, or its case skipped) still writes its report, with
the reasons, and exits 3 as `harness run` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.main import main
from harness.errors import EXIT_SKIPPED
from harness.rows import read_experiment_meta
from harness.runs import grid
from harness.runs.spec import load_spec
from tests._sessions import billing_runbook_messages, billing_runbook_row, write_session

PROSE = {"id": "bug", "question": "Which function holds the bug?", "expected": ["_cstack"], "type": "fact", "message": 1}


def _spec(tmp_path: Path, probes: list[dict] | None = None, evals: str = "") -> Path:
    """A spec over the shipped session (``probes`` in place of its own), offline, with ``evals`` (a YAML line)."""
    messages = billing_runbook_messages()
    row = billing_runbook_row(messages, "conversations/billing-runbook.jsonl")
    dataset = write_session(tmp_path, messages, {**row, "id": "mine", **({"probes": probes} if probes else {})})
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"name: mine\nvariants: [deepagents-default]\nstrategies: [deepagents-summarization]\nthresholds: [20%]\n"
        f"scenarios: {{datasets: [{dataset}]}}\n{evals}"
    )
    return spec


def _plan(tmp_path: Path, probes: list[dict] | None = None) -> dict:
    """The meta.json of a no-eval offline grid over the shipped session (``probes`` in place of its own), none run."""
    run = grid.run_experiment(load_spec(_spec(tmp_path, probes)), out_dir=tmp_path / "out", progress=lambda _: None, max_cells=0)
    return dict(read_experiment_meta(run.path))


def test_a_session_the_reference_agent_answers_is_planned_not_skipped(tmp_path):
    meta = _plan(tmp_path)
    assert meta.get("skipped", []) == [] and meta["planned_cells"] == 1  # was skipped for its continuation task's prose


def test_a_session_with_a_prose_probe_is_skipped_naming_it(tmp_path):
    meta = _plan(tmp_path, [PROSE])
    assert meta["planned_cells"] == 0
    (skip,) = meta["skipped"]
    assert skip["case_id"] == "mine" and skip["reason"].startswith("needs a live model: 1 of its 1 probe(s) are free text")
    assert "bug ('Which function holds the bug?')" in skip["reason"]


@pytest.mark.parametrize("evals", ["", "evals: [session]\n"], ids=["skipped at the plan", "cell not run"])
def test_a_grid_where_no_cell_ran_reports_why_and_exits_3(tmp_path, capsys, evals):
    spec = _spec(tmp_path, [PROSE], evals)
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path / "out"), "--no-langsmith"]) == EXIT_SKIPPED
    assert "exit 3: no cell ran" in capsys.readouterr().err
    report = (tmp_path / "out" / "mine" / "report.md").read_text()
    assert "counted nowhere:**" in report and "needs a live model: 1 of its 1 probe(s) are free text" in report
    assert "bug ('Which function holds the bug?')" in report
