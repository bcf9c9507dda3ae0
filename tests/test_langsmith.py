"""LangSmith experiments through the real SDK: locally with no key, and the upload path against a recording server."""

import json
import time

import pytest
from langsmith import Client

from harness.runs.grid import run_experiment
from harness.runs.langsmith_export import export_experiment
from harness.runs.spec import load_spec
from tests._fake_langsmith import FakeLangSmith


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ls")
    spec = tmp / "ls.yaml"
    spec.write_text(
        "name: ls\nvariants: [deepagents-default, minimal]\nthresholds: [20%, 25%]\n"
        "scenarios: {cases: [needle-h24k-d000, goal-ledgers-12]}\ntrials: 2\n"
    )
    return run_experiment(load_spec(spec), out_dir=tmp, progress=lambda _: None).path


def test_offline_export_runs_locally_without_waiting_on_the_network(experiment, monkeypatch):
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    started = time.perf_counter()
    summary = export_experiment(experiment, progress=lambda _: None)
    assert time.perf_counter() - started < 30
    assert summary["uploaded"] is False and len(summary["experiments"]) == 4  # 2 variants x 2 thresholds
    for exp in summary["experiments"]:
        assert exp["runs"] == 4  # 2 cases x 2 trials
        assert {"needle_correct", "goal_preserved", "compacted"} <= set(exp["feedback_means"])
    minimal = next(e for e in summary["experiments"] if e["arm"] == "minimal")
    assert minimal["feedback_means"]["goal_preserved"] == 0.0
    assert json.loads((experiment / "langsmith.json").read_text())["dataset"].startswith("compaction-harness-")


def test_upload_path_sends_dataset_experiments_runs_and_feedback(experiment):
    with FakeLangSmith() as fake:
        client = Client(api_url=fake.url, api_key="test-key", auto_batch_tracing=False)
        summary = export_experiment(experiment, client=client, upload=True, progress=lambda _: None)
        rec = fake.recorder
    assert len(rec.datasets) == 1
    ((dataset_id, examples),) = rec.examples.items()
    assert sorted(e["inputs"]["case_id"] for e in examples) == ["goal-ledgers-12", "needle-h24k-d000"]
    needle = next(e for e in examples if e["inputs"]["kind"] == "needle")
    assert needle["outputs"]["answer"] and "Question:" in needle["inputs"]["followups"][0]
    assert len(rec.sessions) == 4
    for session in rec.sessions.values():
        meta = session["extra"]["metadata"]
        assert session["reference_dataset_id"] == dataset_id
        assert {
            "arm",
            "strategy",
            "trigger",
            "keep",
            "window",
            "model",
            "summary_model",
            "harness_version",
            "git_commit",
            "dataset_hash",
        } <= set(meta)
        assert meta["arm"] in ("deepagents-default", "minimal") and meta["trigger"] in ("20%", "25%")
    names = {sess["name"] for sess in rec.sessions.values()}
    targets = [
        r
        for r in rec.runs.values()
        if r.get("session_name") in names and r.get("reference_example_id") and r.get("name") == "Target"
    ]
    assert len(targets) == 4 * 2 * 2  # experiments x cases x trials
    assert {r["reference_example_id"] for r in targets} == {e["id"] for e in examples}
    keys = {f["key"] for f in rec.feedback}
    assert {"needle_correct", "needle_via_history", "goal_preserved", "compacted", "run_completed"} <= keys
    preserved = [f["score"] for f in rec.feedback if f["key"] == "goal_preserved"]
    assert sorted(set(preserved)) == [0.0, 1.0]  # minimal loses the goal, the default keeps it
    assert summary["comparison_url"].count(",") == 3 and "compare?selectedSessions=" in summary["comparison_url"]
    assert all(path.startswith("/") for _, path, _ in rec.requests)


# -- pytest evals with a key, against the recording server: uploads bounded, outages never fail an eval -----------
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FAKE_KEY = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"
TWO_CASES = "needle-h24k-d000 or needle-h24k-d010"


def _pytest_evals(endpoint: str, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    env.update({"LANGSMITH_API_KEY": FAKE_KEY, "LANGSMITH_ENDPOINT": endpoint})
    started = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/test_needle.py",
            "-k",
            TWO_CASES,
            "-q",
            "-p",
            "no:cacheprovider",
            "--runs-dir",
            str(tmp_path),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    return out, time.perf_counter() - started


def _langsmith_json(tmp_path: Path) -> dict:
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    return json.loads((run / "langsmith.json").read_text())


def test_a_key_alone_makes_an_experiment_with_feedback_per_score_and_a_small_upload(tmp_path):
    with FakeLangSmith() as fake:
        out, _ = _pytest_evals(fake.url, tmp_path)
        assert out.returncode == 0, out.stdout[-2000:]
        assert "2 passed" in out.stdout and FAKE_KEY not in out.stdout + out.stderr
        keys = {f["key"] for f in fake.recorder.feedback}
        assert {"needle_correct", "needle_via_history", "compacted", "pass"} <= keys
        runs = list(fake.recorder.runs.values())
        assert [r["name"] for r in runs] == ["test_needle_recovered_from_history"] * 2  # no agent internals
        assert all(len(json.dumps(r.get("inputs"))) < 5_000 for r in runs)  # a case id, not its 100 KB of documents
        assert fake.recorder.received_bytes < 100_000
        status = _langsmith_json(tmp_path)
        assert status["enabled"] and not status["failures"] and status["requests"] >= 20


def test_full_traces_upload_every_model_call_when_asked(tmp_path):
    with FakeLangSmith() as fake:
        out, _ = _pytest_evals(fake.url, tmp_path, "--langsmith-traces", "full")
        assert out.returncode == 0, out.stdout[-2000:]
        assert len(fake.recorder.runs) > 100 and fake.recorder.received_bytes > 1_000_000


@pytest.mark.parametrize("outage", ["refused", "never answers"])
def test_a_langsmith_outage_never_fails_an_eval_and_is_bounded(outage, tmp_path):
    with FakeLangSmith(hang=outage == "never answers") as fake:
        endpoint = "http://127.0.0.1:9" if outage == "refused" else fake.url
        out, elapsed = _pytest_evals(endpoint, tmp_path)
    assert out.returncode == 0 and "2 passed" in out.stdout, out.stdout[-2000:]
    assert "LangSmith: not uploaded (LangSmith did not answer" in out.stdout
    assert FAKE_KEY not in out.stdout + out.stderr
    assert elapsed < 60  # the plain run takes ~5 s; the preflight waits at most one 10 s read timeout
    assert _langsmith_json(tmp_path)["problem"].startswith("LangSmith did not answer")


@pytest.mark.parametrize("outage", ["refused", "never answers"])
def test_experiment_run_in_an_outage_exits_as_if_langsmith_were_off(outage, experiment, monkeypatch, capsys):
    monkeypatch.setenv("LANGSMITH_API_KEY", FAKE_KEY)
    with FakeLangSmith(hang=outage == "never answers") as fake:
        monkeypatch.setenv("LANGSMITH_ENDPOINT", "http://127.0.0.1:9" if outage == "refused" else fake.url)
        started = time.perf_counter()
        summary = export_experiment(experiment)
        elapsed = time.perf_counter() - started
    printed = capsys.readouterr().out
    assert summary["uploaded"] is False and summary["upload_failed"].startswith("LangSmith did not answer")
    assert len(summary["experiments"]) == 4 and "warning: LangSmith" in printed and elapsed < 30
    assert json.loads((experiment / "langsmith.json").read_text())["upload_failed"] == summary["upload_failed"]
