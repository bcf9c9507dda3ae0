"""Sessions as a spec axis: ``evals: [session]`` over a user's session dataset (``scenarios.datasets``) compares every
arm on the same sessions behind one control, with the report's section; and ``harness run --kind session --datasets``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.errors import ConfigError
from harness.report.experiment_report import write_experiment_report
from harness.report.sessions_report import replay_table, retention_by_type
from harness.runs import grid
from harness.runs.results import read_cells, read_rows
from harness.runs.spec import load_spec
from harness.suites.replay import forget_controls
from tests._sessions import (
    SHARED_MISSING,
    SHARED_PROBES,
    SHARED_SESSION,
    billing_runbook_messages,
    billing_runbook_row,
    shared_session_messages,
    write_session,
)

pytestmark = pytest.mark.slow

ARMS = ("deepagents-summarization", "observation-masking", "sliding-window")


def _dataset(tmp_path: Path) -> Path:
    messages = billing_runbook_messages()
    row = billing_runbook_row(messages, "conversations/billing-runbook.jsonl")
    return write_session(tmp_path, messages, {**row, "id": "my-session"}, "my-sessions.jsonl")


def _spec(tmp_path: Path, dataset: Path, evals: str = "[session]") -> Path:
    path = tmp_path / "sessions.yaml"
    path.write_text(
        "variants: [deepagents-default]\n"
        f"strategies: [{', '.join(ARMS)}]\n"
        "thresholds: [20%]\n"
        f"evals: {evals}\n"
        f"scenarios: {{datasets: [{dataset}]}}\n"
    )
    return path


def test_a_spec_over_sessions_compares_three_arms_behind_one_control_with_its_report_section(tmp_path):
    spec = load_spec(_spec(tmp_path, _dataset(tmp_path)))
    assert [(name, s.id) for name, s in grid.spec_eval_cases(spec)] == [("session", "my-session")]
    forget_controls()
    run = grid.run_experiment(spec, out_dir=tmp_path / "out", workers=1, progress=lambda _: None)
    rows = read_cells(run.path / "cells.jsonl")
    assert sorted(r["arm"] for r in rows) == sorted(ARMS) and {r["eval"] for r in rows} == {"session"}
    controls = [json.dumps(r["session"]["control"], sort_keys=True) for r in rows]
    assert len(set(controls)) == 1 and rows[0]["session"]["control"]["right"] == 5  # one control, the same gold for all
    for row in rows:
        assert row["config"]["window"] == row["session"]["window"] != 64_000, row["arm"]  # the window chosen for the cut
        assert row["session"]["compactions"] and row["passed"]["compacted_at_cut"], row["explanations"]["compacted_at_cut"]
    table = replay_table(rows)
    assert list(table["arm"]) == [f"{r['arm']} @ 20%" for r in rows] and set(table["control right"]) == {"5/5"}
    by_type = retention_by_type(rows)
    assert set(by_type["probe type"]) == {"constraint", "value", "decision"}
    assert set(by_type["n asked"]) == {1, 2}  # per arm: 2 constraints, 1 value, 2 decisions
    report = write_experiment_report(run.path).read_text()
    assert "## Recorded sessions replayed" in report and "### Retention and recovery per fact type" in report
    baseline = tmp_path / "baseline.json"  # the nightly gate holds the session eval's gated checks like any eval's
    assert main(["regress", str(run.path), "--baseline", str(baseline), "--update"]) == 0
    assert main(["regress", str(run.path), "--baseline", str(baseline)]) == 0
    assert "session_probes_correct" in baseline.read_text()


def test_only_the_session_eval_reads_a_specs_datasets(tmp_path):
    with pytest.raises(ConfigError, match=r"scenarios.datasets: an eval runs its own cases .*only the session eval"):
        load_spec(_spec(tmp_path, _dataset(tmp_path), "[session, needle]"))


def test_harness_run_kind_session_replays_a_session_file_as_the_session_eval(tmp_path, capsys):
    dataset = _dataset(tmp_path)
    forget_controls()
    code = main(["run", "--kind", "session", "--datasets", str(dataset), "--out", str(tmp_path / "runs")])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "a session case's window is chosen for its cut" in printed.out  # not the arm's window the first line names
    (run_dir,) = (tmp_path / "runs").iterdir()
    (row,) = read_rows(run_dir / "results.jsonl")
    assert (row["eval"], row["kind"], row["outcome"]) == ("session", "session", "PASS")
    assert [p["valid"] for p in row["session"]["probes"]] == [True] * 5
    report = (run_dir / "report.md").read_text()
    assert "## Recorded sessions replayed" in report
    assert "config: forced-20" in report and "a session case's window is chosen for its cut" in report


def test_the_shared_real_session_replays_under_three_arms_with_the_control_as_gold(tmp_path):
    if not SHARED_SESSION.is_file():
        pytest.skip(SHARED_MISSING)
    messages = shared_session_messages(60)
    row = {
        **billing_runbook_row(messages, "conversations/astropy.jsonl"),
        "id": "astropy-12907",
        "description": "The shared real session (mini-swe-agent solving astropy-12907), cut at 60 messages.",
        "probes": SHARED_PROBES,
    }
    row["session"] = {**row["session"], "format": "mini-swe-agent", "source": SHARED_SESSION.name}
    dataset = write_session(tmp_path, messages, row)
    spec = load_spec(_spec(tmp_path, dataset))
    forget_controls()
    run = grid.run_experiment(spec, out_dir=tmp_path / "out", workers=1, progress=lambda _: None)
    rows = read_cells(run.path / "cells.jsonl")
    assert len(rows) == 3
    probes = {}
    for r in rows:
        (probe,) = r["session"]["probes"]
        assert probe["control"]["verdict"] == "right" and r["passed"]["compacted_at_cut"], r["session"]
        probes[r["arm"]] = (r["outcome"], probe)
    outcome, probe = probes["deepagents-summarization"]  # the task message was summarized: the probe counts
    assert probe["valid"] and outcome in ("PASS", "FAIL") and probe["verdict"] in ("right", "stale", "lost")
    for arm in ("observation-masking", "sliding-window"):  # masking clears tool results; the window pins the task
        outcome, probe = probes[arm]
        assert outcome == "INVALID" and probe["why"].startswith("its answer was still in view"), (arm, probe)


def test_a_session_run_scores_again_from_its_traces_alone_and_runs_again_byte_identical(tmp_path, capsys):
    from harness.runs.results import VOLATILE_ROW_FIELDS

    dataset = _dataset(tmp_path)
    rows = []
    for out in ("a", "b"):
        forget_controls()  # a second process would remember nothing either
        assert main(["run", "--kind", "session", "--datasets", str(dataset), "--out", str(tmp_path / out)]) == 0
        (run_dir,) = (tmp_path / out).iterdir()
        rows.append(read_rows(run_dir / "results.jsonl")[0])
    same = [{k: v for k, v in r.items() if k not in VOLATILE_ROW_FIELDS} for r in rows]
    assert same[0] == same[1]
    assert main(["score", str(run_dir), "--datasets", str(dataset)]) == 0, capsys.readouterr().err
    (again,) = read_rows(run_dir / "rescored.jsonl")
    assert again["session"] == rows[1]["session"] and again["outcome"] == rows[1]["outcome"] == "PASS"
