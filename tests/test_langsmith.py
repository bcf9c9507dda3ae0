"""LangSmith experiments through the real SDK: locally with no key, and the upload path against a recording server."""

import json
import time

import pytest
from langsmith import Client

from harness.experiment import run_experiment
from harness.experiment_spec import load_spec
from harness.langsmith_export import export_experiment
from tests._fake_langsmith import FakeLangSmith


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ls")
    spec = tmp / "ls.yaml"
    spec.write_text("name: ls\nvariants: [deepagents-default, minimal]\nthresholds: [20%, 25%]\n"
                    "scenarios: {cases: [needle-h24k-d000, goal-ledgers-12]}\ntrials: 2\n")
    return run_experiment(load_spec(spec), out_dir=tmp, progress=lambda _: None).path


def test_offline_export_runs_locally_without_waiting_on_the_network(experiment, monkeypatch):
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    started = time.perf_counter()
    summary = export_experiment(experiment, progress=lambda _: None)
    assert time.perf_counter() - started < 30
    assert summary["uploaded"] is False and len(summary["experiments"]) == 4  # 2 variants x 2 thresholds
    for exp in summary["experiments"]:
        assert exp["runs"] == 4  # 2 cases x 2 trials
        assert {"needle_correct", "goal_preserved", "compressed"} <= set(exp["feedback_means"])
    minimal = next(e for e in summary["experiments"] if e["variant"] == "minimal")
    assert minimal["feedback_means"]["goal_preserved"] == 0.0
    assert json.loads((experiment / "langsmith.json").read_text())["dataset"].startswith("compaction-harness-")


def test_upload_path_sends_dataset_experiments_runs_and_feedback(experiment):
    with FakeLangSmith() as fake:
        client = Client(api_url=fake.url, api_key="test-key", auto_batch_tracing=False)
        summary = export_experiment(experiment, client=client, upload=True, progress=lambda _: None)
        rec = fake.recorder
    assert len(rec.datasets) == 1
    (dataset_id, examples), = rec.examples.items()
    assert sorted(e["inputs"]["case_id"] for e in examples) == ["goal-ledgers-12", "needle-h24k-d000"]
    needle = next(e for e in examples if e["inputs"]["kind"] == "needle")
    assert needle["outputs"]["answer"] and "Question:" in needle["inputs"]["followups"][0]
    assert len(rec.sessions) == 4
    for session in rec.sessions.values():
        meta = session["extra"]["metadata"]
        assert session["reference_dataset_id"] == dataset_id
        assert {"variant", "trigger", "keep", "window", "model", "summary_model", "harness_version", "git_commit", "dataset_hash"} <= set(meta)
        assert meta["variant"] in ("deepagents-default", "minimal") and meta["trigger"] in ("20%", "25%")
    names = {sess["name"] for sess in rec.sessions.values()}
    targets = [r for r in rec.runs.values() if r.get("session_name") in names and r.get("reference_example_id") and r.get("name") == "Target"]
    assert len(targets) == 4 * 2 * 2  # experiments x cases x trials
    assert {r["reference_example_id"] for r in targets} == {e["id"] for e in examples}
    keys = {f["key"] for f in rec.feedback}
    assert {"needle_correct", "needle_via_history", "goal_preserved", "compressed", "run_completed"} <= keys
    preserved = [f["score"] for f in rec.feedback if f["key"] == "goal_preserved"]
    assert sorted(set(preserved)) == [0.0, 1.0]  # minimal loses the goal, the default keeps it
    assert summary["comparison_url"].count(",") == 3 and "compare?selectedSessions=" in summary["comparison_url"]
    assert all(path.startswith("/") for _, path, _ in rec.requests)
