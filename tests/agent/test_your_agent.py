"""The example assembly (examples/my_agent: a custom tool, a CompositeBackend routing /memories/ to a StoreBackend, a
subagent, an AGENTS.md memory file) run as the needle, goal and probe evals, offline, through `harness run`,
`pytest evals/` and `harness.evaluate`: compaction happens, the outcomes are the reference models' on the harness's own
agent, the run says which assembly it ran on, and what the model was sent carries the assembly's system prompt. A
backend that hides the history file or the evicted results fails the recovery evals with a cause that says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.runs.results import read_rows
from harness.trace.schema import load_trace

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
AGENT = "examples.my_agent.agent:make"
CASES = {
    "needle": ["needle-h24k-d000", "needle-h32k-d025"],
    "goal": ["goal-ledgers-12"],
    "probe": ["probe-buried-constraint-s7-i0"],
}


def _run(out: Path, kind: str, *agent: str) -> Path:
    run_id = f"{kind}-{'agent' if agent else 'own'}"
    data = ["--datasets", str(ROOT / "datasets" / "probes.jsonl")] if kind == "probe" else []  # not a default file
    assert main(["run", "--kind", kind, "--cases", *CASES[kind], *data, *agent, "--out", str(out), "--run-id", run_id]) == 0
    return out / run_id


@pytest.mark.parametrize("kind", list(CASES))
def test_harness_run_runs_the_eval_on_the_example_assembly_as_on_the_harness_own_agent(tmp_path, capsys, kind):
    from examples.my_agent.agent import SYSTEM_PROMPT

    mine, own = _run(tmp_path, kind, "--agent", AGENT), _run(tmp_path, kind)
    rows, own_rows = read_rows(mine / "results.jsonl"), read_rows(own / "results.jsonl")
    assert sorted(r["case_id"] for r in rows) == sorted(CASES[kind])  # rows in start order: the longest case first
    assert [(r["case_id"], r["outcome"]) for r in rows] == [(r["case_id"], r["outcome"]) for r in own_rows]
    assert all(r["outcome"] == "PASS" for r in rows), [(r["case_id"], r["outcome"], r["outcome_keys"]) for r in rows]
    for row in rows:
        trace = load_trace(mine / row["trace"])
        assert trace.events_of("summary"), f"{row['case_id']}: no compaction on the example assembly"
        first = trace.agent_calls()[0]
        assert trace.message_text(first["system_key"]).startswith(SYSTEM_PROMPT)
    meta = json.loads((mine / "meta.json").read_text())
    assert meta["agent"] == AGENT and "agent" not in json.loads((own / "meta.json").read_text())
    assert f"agent assembly: `{AGENT}`" in (mine / "report.md").read_text()
    capsys.readouterr()
    assert main(["compare", str(own), str(mine)]) == 0
    said = f"agent assembly: A the harness's own; B {AGENT} (two different agents: not only the arms differ)"
    assert said in capsys.readouterr().out


def test_pytest_evals_runs_the_needle_eval_on_the_example_assembly(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    env["LANGSMITH_TRACING"] = "false"
    command = [sys.executable, "-m", "pytest", "evals/", "-m", "needle", "-p", "no:cacheprovider", "-q", "--run-ahead", "0"]
    command += ["-k", " or ".join(CASES["needle"]), "--agent", AGENT, "--runs-dir", str(tmp_path)]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "2 passed" in proc.stdout
    (run,) = [p for p in tmp_path.iterdir() if (p / "meta.json").exists()]
    assert json.loads((run / "meta.json").read_text())["agent"] == AGENT
    assert sorted(r["case_id"] for r in read_rows(run / "results.jsonl")) == CASES["needle"]


def test_harness_evaluate_takes_the_factory_itself(tmp_path):
    from examples.my_agent.agent import make
    from harness.api import evaluate

    run = evaluate("needle", cases=CASES["needle"][:1], agent=make, runs_dir=tmp_path, workers=0)
    assert run.outcomes() == {"PASS": 1}
    assert run.path is not None and json.loads((run.path / "meta.json").read_text())["agent"] == AGENT


@pytest.mark.parametrize(
    ("eval_name", "case", "factory", "check", "cause"),
    [
        ("needle", "needle-h24k-d000", "history_hidden", "needle_via_history", "the history file /conversation_history/"),
        ("eviction", None, "evictions_hidden", "needle_via_eviction_file", "the evicted result /large_tool_results/"),
    ],
)
def test_a_backend_that_hides_what_recovery_reads_fails_it_saying_so(tmp_path, eval_name, case, factory, check, cause):
    from harness.api import evaluate
    from harness.suites.execute import eval_case_ids

    case = case or eval_case_ids(eval_name)[0]
    run = evaluate(eval_name, cases=[case], agent=f"tests._assemblies:{factory}", runs_dir=tmp_path, workers=0)
    (row,) = run.rows
    assert row["outcome"] == "FAIL" and check in row["outcome_keys"], (row["outcome"], row["outcome_keys"])
    why = row["explanations"][check]
    assert why.startswith(cause) and "is not readable through the agent's backend: read_file returned" in why, why


def test_a_recorded_session_replays_on_the_example_assembly_with_its_control_on_it_too(tmp_path):
    """The session eval measures the first call on the user's assembly (its tools and prompt count) and its control
    runs on that assembly too (one control per assembly, never shared with the harness's own agent's)."""
    from harness.scenarios.schema import load_scenarios
    from harness.suites import replay
    from harness.suites.execute import Settings, run_eval_case

    (case,) = load_scenarios([ROOT / "datasets" / "mechanisms" / "sessions.jsonl"])
    own = run_eval_case("session", case, Settings.offline(), run_id="r")
    settings = Settings.offline()
    theirs = run_eval_case("session", case, Settings(settings.config, settings.models, agent=AGENT), run_id="r")
    assert own.trace is not None and theirs.trace is not None
    first_own = own.trace.final["session"]["first_call_tokens"]
    assert theirs.trace.final["session"]["first_call_tokens"] > first_own  # the assembly's tools and prompt
    assert len({k for k in replay._CONTROLS if k[0] == "r"}) == 2  # one control each
    assert theirs.trace.final["control"]["answers"] and theirs.trace.compactions()
