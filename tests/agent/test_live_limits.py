"""The live limits (--case-budget, --max-rps, --max-tpm) hold for every way a live grid runs, not only `harness run`:
an experiment spec (and `experiment run`'s options over it) and `pytest evals/`, against `harness serve`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.reference.serve import Fault, serving

pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CASES = ["needle-h24k-d000", "needle-h24k-d010", "needle-h32k-d000"]


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=600) as srv:
        yield srv


def _spec(tmp_path: Path, url: str, name: str, **extra) -> Path:
    spec = {
        "name": name,
        "model": "openai:reference-agent",
        "summary_model": "openai:reference-summarizer",
        "base_url": url,
        "variants": ["deepagents-default"],
        "thresholds": ["20%"],
        "scenarios": {"cases": CASES},
        "concurrency": 3,
        **extra,
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def _rate(server) -> float:
    stats = server.state.stats()
    return (sum(stats["requests"].values()) - 1) / stats["window_s"]


def test_an_experiment_spec_and_its_command_line_bound_the_request_rate_of_the_grid(server, tmp_path):
    from harness.cli.main import main

    server.state.reset()
    assert main(["experiment", "run", str(_spec(tmp_path, server.url, "free")), "--out", str(tmp_path), "--no-langsmith"]) == 0
    free = _rate(server)
    limit = max(2, int(free / 3))  # well under what this machine reaches unlimited, however fast it is

    server.state.reset()
    spec = _spec(tmp_path, server.url, "limited", max_rps=limit)
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path), "--no-langsmith"]) == 0
    limited = _rate(server)
    assert limited <= limit * 1.1 < free, (free, limit, limited)  # one limiter for every cell and both models
    meta = json.loads((tmp_path / "limited" / "meta.json").read_text())
    assert meta["limits"]["max_rps"] == limit and meta["endpoints"]["agent"]["settings"]["max_rps"] == limit

    server.state.reset()  # the command line wins over the spec
    spec = _spec(tmp_path, server.url, "overridden", max_rps=1000)
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path), "--no-langsmith", "--max-rps", str(limit)]) == 0
    assert _rate(server) <= limit * 1.1, (free, limit)


def test_an_experiment_cell_past_its_case_budget_ends_in_error(server, tmp_path):
    from harness.cli.main import main

    server.state.reset()
    server.add_fault(Fault("stall", count=1, scope="agent", sleep=20))  # under the client's timeout: only the budget stops it
    spec = _spec(tmp_path, server.url, "budget", case_budget=2, model_kwargs={"timeout": 30}, scenarios={"cases": CASES[:1]})
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path), "--no-langsmith"]) == 4
    (row,) = [json.loads(line) for line in (tmp_path / "budget" / "cells.jsonl").read_text().splitlines()]
    assert row["outcome"] == "ERROR" and row["outcome_keys"] == ["case: CaseBudgetExceeded"]


def test_pytest_evals_take_the_case_budget_and_the_rate_limits(server, tmp_path):
    server.state.reset()
    server.add_fault(Fault("stall", count=1, scope="agent", sleep=20))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/",
            "-m",
            "needle",
            "-k",
            CASES[0],
            "-q",
            "-p",
            "no:cacheprovider",
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--model-kwargs",
            "timeout=30",
            "--case-budget",
            "2",
            "--max-rps",
            "50",
            "--max-tpm",
            "10000000",
            "--runs-dir",
            str(tmp_path),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "1 error" in done.stdout and "CaseBudgetExceeded" in done.stdout, done.stdout[-3000:]
    (meta,) = [json.loads(p.read_text()) for p in tmp_path.glob("*/meta.json")]
    settings = meta["endpoints"]["agent"]["settings"]
    assert settings["max_rps"] == 50 and settings["max_tpm"] == 10_000_000
