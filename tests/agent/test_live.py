"""The live tier: the real OpenAI client against `harness serve`, every fault mode on agent and summary requests.

No key is needed: the server runs the reference models on loopback. Each fault fires
either once (a transient fault the retries must ride out: PASS) or on every request of
its scope (exhausted: ERROR with its cause, or FAIL where the fault is a finding about
compaction, as an irreducible context overflow is). Client settings keep the suite short:
a 1.5 s timeout and 2 SDK retries; the defaults (120 s, 6 retries) are tested in
tests/agent/test_models.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from harness.agent.models import Endpoint, choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.reference.serve import Fault, serving
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import ERROR, FAIL, PASS, outcome, score_case, scores_by_key

pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
CASE = "needle-h24k-d010"  # 3 summaries, a history read: every request kind is exercised
SETTINGS = {"timeout": 1.5, "max_retries": 2}


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=900) as srv:
        yield srv


@pytest.fixture(scope="module")
def scenarios():
    return {s.id: s for s in load_scenarios(all_scenario_files())}


def run_served(server, scenario, **settings):
    config = make_config("forced-20")
    models = choose_models(
        "openai:reference-agent",
        "openai:reference-summarizer",
        window=config.window,
        agent_endpoint=Endpoint(server.url, {**SETTINGS, **settings}),
    )
    started = time.perf_counter()
    trace = run_case(scenario, config, models)
    scores = score_case(trace, scenario)
    return trace, scores, outcome(scores, trace.error), time.perf_counter() - started


# mode, scope, count (None: every request), expected outcome, expected cause (ERROR) or failed keys (FAIL)
MATRIX = [
    ("429", "agent", 1, PASS, None),
    ("429", "agent", None, ERROR, "agent: HTTP 429 RateLimitError"),
    ("429", "summary", 1, PASS, None),
    ("429", "summary", None, ERROR, "summarizer: HTTP 429 RateLimitError"),
    ("500", "agent", 1, PASS, None),
    ("500", "agent", None, ERROR, "agent: HTTP 500 InternalServerError"),
    ("500", "summary", 1, PASS, None),
    ("500", "summary", None, ERROR, "summarizer: HTTP 500 InternalServerError"),
    ("503", "agent", 1, PASS, None),
    ("503", "agent", None, ERROR, "agent: HTTP 503 InternalServerError"),
    ("503", "summary", 1, PASS, None),
    ("503", "summary", None, ERROR, "summarizer: HTTP 503 InternalServerError"),
    ("stall", "agent", 1, PASS, None),
    ("stall", "agent", None, ERROR, "agent: APITimeoutError"),
    ("stall", "summary", 1, PASS, None),
    ("stall", "summary", None, ERROR, "summarizer: APITimeoutError"),
    ("malformed", "agent", 1, PASS, None),
    ("malformed", "agent", None, ERROR, "agent: JSONDecodeError"),
    ("malformed", "summary", 1, PASS, None),
    ("malformed", "summary", None, ERROR, "summarizer: JSONDecodeError"),
    ("empty", "agent", 1, PASS, None),
    ("empty", "agent", None, ERROR, "agent: IndexError"),
    ("empty", "summary", 1, PASS, None),
    ("empty", "summary", None, ERROR, "summarizer: IndexError"),
    # A context rejection is answered by deepagents: a summary and a retry (agent), a shorter summary prompt
    # (summary). When every request is rejected there is nothing left to cut: a finding (FAIL), not an outage.
    ("context", "agent", 1, PASS, None),
    ("context", "agent", None, FAIL, "run_completed"),
    ("context", "summary", 1, PASS, None),
    ("context", "summary", None, FAIL, "run_completed"),
    ("auth", "agent", 1, ERROR, "agent: HTTP 401 AuthenticationError"),
    ("auth", "summary", 1, ERROR, "summarizer: HTTP 401 AuthenticationError"),
]


@pytest.mark.parametrize(
    "mode, scope, count, expected, detail", MATRIX, ids=[f"{m}-{s}-{'once' if c else 'always'}" for m, s, c, _, _ in MATRIX]
)
def test_fault_mode_gives_its_outcome(server, scenarios, mode, scope, count, expected, detail):
    server.state.reset()
    # A context rejection of the first agent request could not be cut (nothing to summarize yet): fire it later.
    after = 4 if (mode, scope) == ("context", "agent") else 0
    server.add_fault(Fault(mode, count=count, scope=scope, after=after, retry_after=0.2, sleep=4))
    trace, scores, (result, keys), elapsed = run_served(server, scenarios[CASE])
    stats = server.state.stats()
    assert stats["faults_injected"].get(f"{mode}@{scope}", 0) >= 1, stats
    assert result == expected, (result, keys, trace.error)
    if expected == ERROR:
        assert keys == [detail] and trace.error["provider_error"]["model"] == detail.split(":")[0]
        assert not scores_by_key(scores)["run_completed"].value
    elif expected == FAIL:
        assert detail in keys and trace.error["type"] == "ContextOverflowError" and "provider_error" not in trace.error
    else:
        assert trace.error is None and trace.simulated
    assert elapsed < 120  # bounded: every wait has a limit (a hang would hit pytest's own timeout far later)


def test_a_transient_summary_fault_is_recovered_and_recorded(server, scenarios):
    server.state.reset()
    server.add_fault(Fault("503", count=3, scope="summary"))  # more than the SDK's 2 retries: deepagents' with_retry re-asks
    trace, scores, (result, _), _ = run_served(server, scenarios[CASE])
    by_key = scores_by_key(scores)
    assert result == PASS and "recovered after 2 attempts" in by_key["summaries_ok"].explanation


def test_a_context_rejected_summary_is_retried_shorter_by_deepagents(server, scenarios):
    server.state.reset()
    server.add_fault(Fault("context", count=1, scope="summary"))
    trace, _, (result, _), _ = run_served(server, scenarios[CASE])
    summaries = trace.summarizer_calls()
    first_error = next(c["error"] for c in summaries if c.get("error"))
    assert result == PASS and first_error["context_overflow"] and first_error["type"] == "ContextOverflowError"
    rejected, retried = next((a, b) for a, b in zip(summaries, summaries[1:]) if a.get("error"))
    assert retried["approx_tokens"] < rejected["approx_tokens"]  # the shorter prompt deepagents sends after the overflow


def test_without_the_translation_the_summary_rejection_kills_the_case(server, scenarios, monkeypatch):
    """The seeded fault for the translation: unwrapped, OpenAI's 400 reaches deepagents as a BadRequestError, its
    shorter retry never runs and the case dies (a FAIL: a context overflow is a finding, never an outage)."""
    from harness.agent import live

    monkeypatch.setattr(live.SummaryOverflowTranslation, "around", classmethod(lambda cls, model, token_budget=None: model))
    server.state.reset()
    server.add_fault(Fault("context", count=1, scope="summary"))
    trace, _, (result, _), _ = run_served(server, scenarios[CASE])
    assert (
        result == FAIL
        and trace.error["type"] == "OpenAIInvalidRequestError"
        and "maximum context length" in trace.error["message"]
    )


def _served_models(url: str, window: int):  # noqa: ANN202
    """The reference agent and summarizer over HTTP at ``url`` (the agent's endpoint; the summarizer shares it)."""
    return choose_models(
        "openai:reference-agent", "openai:reference-summarizer", window=window, agent_endpoint=Endpoint(url, SETTINGS)
    )


def test_a_case_through_the_server_scores_as_in_process(scenarios):
    """The wire adds nothing: with usage off the scores equal the in-process run's, case by case."""
    config = make_config("forced-20")
    cases = [scenarios[i] for i in (CASE, "needle-h32k-d050", "goal-ledgers-14", "chain-s2-d025")]
    local = choose_models(None, None, window=config.window)
    with serving(usage=False) as srv:
        served = _served_models(srv.url, config.window)
        for case in cases:
            a = {s.key: s.value for s in score_case(run_case(case, config, local), case)}
            b = {s.key: s.value for s in score_case(run_case(case, config, served), case)}
            assert a == b, case.id


def test_media_cases_through_the_server_score_as_in_process():
    """Media over the wire (issue 20): images and a PDF read with read_file travel as langchain-openai sends them (image
    and file parts), the compact_conversation tool is called through the server, and the parity and blob evals score
    as in process (the manual parity arm fails as deepagents#6503 says, here as there)."""
    from harness.compaction.config import get_preset
    from harness.scenarios.generate import generated_case

    for case_id, preset, scorers in (("media-parity-manual", "media", "parity"), ("media-blob-recovery", "media-blobs", "blobs")):
        config, case = get_preset(preset), generated_case(case_id)
        with serving(usage=False) as srv:
            ta = run_case(case, config, choose_models(None, None, window=config.window))
            tb = run_case(case, config, _served_models(srv.url, config.window))
        a = {s.key: s.value for s in score_case(ta, case, scorers)}
        assert a == {s.key: s.value for s in score_case(tb, case, scorers)}, case_id
        assert tb.simulated and tb.error is None and (a.get("media_compacted") or a.get("blob_offloaded")), case_id


def test_probe_cases_through_the_server_score_as_in_process(scenarios):
    """Typed facts over the wire: the system prompt, scripted assistant turns, a recorded conversation with its tool
    calls and the four probe kinds give the same probe and retention scores and per-fact records as in process."""
    from harness.scoring.scorers.probes import fact_records

    config = make_config("typed")
    ids = (
        "probe-decision-override-s7-i1",
        "probe-standing-rule-s7-i0",
        "probe-artifact-trail-s7-i0",
        "recorded-billing-migration",
    )
    local = choose_models(None, None, window=config.window)
    with serving(usage=False) as srv:
        served = _served_models(srv.url, config.window)
        for case in (scenarios[i] for i in ids):
            ta, tb = run_case(case, config, local), run_case(case, config, served)
            for scorers in ("default", "retention"):
                a = {s.key: s.value for s in score_case(ta, case, scorers)}
                assert a == {s.key: s.value for s in score_case(tb, case, scorers)}, (case.id, scorers)
            assert fact_records(ta, case) == fact_records(tb, case), case.id
            assert a["run_completed"] and tb.answer(len(case.turns) - 1), case.id


def test_usage_reported_by_the_server_reaches_the_trace(server, scenarios):
    server.state.reset()
    trace, _, (result, _), _ = run_served(server, scenarios[CASE])
    usage = [c["usage"] for c in trace.agent_calls() if c.get("usage")]
    assert result == PASS and len(usage) == len(trace.agent_calls()) and all(u["input_tokens"] > 0 for u in usage)


def test_models_endpoint_admin_and_bad_faults(server):
    with urllib.request.urlopen(server.url + "/models", timeout=5) as r:
        ids = [m["id"] for m in json.load(r)["data"]]
    assert ids == ["reference-agent", "reference-summarizer", "reference-judge"]
    base = server.url.removesuffix("/v1")
    bad = urllib.request.Request(base + "/admin/faults", data=b'{"mode": "418"}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(bad, timeout=5)
    assert info.value.code == 400 and "known modes" in info.value.read().decode()
    with pytest.raises(Exception, match="COUNT"):
        Fault.parse("503:x@agent")


def _cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


def test_harness_run_exits_4_on_errors_and_the_report_counts_them(server, tmp_path):
    server.state.reset()
    server.add_fault(Fault("503", count=None, scope="agent", after=20))  # the first case finishes, later ones hit the outage
    out = _cli(
        "run",
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        server.url,
        "--model-kwargs",
        "max_retries=1",
        "--model-kwargs",
        "timeout=2",
        "--cases",
        "needle-h24k-d00*",
        "needle-h24k-d01*",
        "--out",
        str(tmp_path),
        "--run-id",
        "r",
    )
    assert out.returncode == 4, out.stderr
    assert "ERROR" in out.stdout and "agent: HTTP 503 InternalServerError" in out.stdout
    rows = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in rows] == ["PASS", "ERROR"]
    report = (tmp_path / "r" / "report.md").read_text()
    assert "1 ERROR" in report and "excluded as ERROR" in report and "served over HTTP" in report
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["endpoints"]["agent"]["settings"] == {"timeout": 2, "max_retries": 1}


def test_pytest_reports_an_outage_as_an_error_not_a_failure(server, tmp_path):
    server.state.reset()
    server.add_fault(Fault("503", count=None, scope="agent"))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/test_evals.py",
            "-m",
            "needle",
            "-k",
            "needle-h24k-d010",
            "-p",
            "no:cacheprovider",
            "-q",
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--model-kwargs",
            "max_retries=0",
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    tail = out.stdout.strip().splitlines()[-1]
    assert "1 error" in tail and "failed" not in tail, out.stdout[-2000:]


def _spec(tmp_path: Path, url: str, **extra) -> Path:
    import yaml

    spec = {
        "name": "live-errors",
        "model": "openai:reference-agent",
        "summary_model": "openai:reference-summarizer",
        "base_url": url,
        "model_kwargs": {"max_retries": 0, "timeout": 2},
        "variants": ["deepagents-default"],
        "thresholds": ["20%"],
        "scenarios": {"cases": ["needle-h24k-d000", "needle-h24k-d010"]},
        **extra,
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return path


def test_an_experiment_reruns_errored_cells_on_resume_and_keeps_the_earlier_attempt(server, tmp_path, capsys):
    from harness.cli.main import main
    from harness.runs.results import read_cells, read_rows

    spec, out = _spec(tmp_path, server.url), tmp_path / "out"
    server.state.reset()
    server.add_fault(Fault("503", count=None, scope="agent", after=20))  # the second cell meets the outage
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == 4
    assert "1 cell(s) ended in ERROR (1 x agent: HTTP 503 InternalServerError)" in capsys.readouterr().err
    report = (out / "live-errors" / "report.md").read_text()
    assert "agent: HTTP 503 InternalServerError (1)" in report  # the coverage table's error causes

    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith", "--no-retry-errors"]) == 4  # kept
    server.state.reset()  # the outage is over
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == 0
    assert "1 to run (1 again after ERROR)" in capsys.readouterr().out
    raw = read_rows(out / "live-errors" / "cells.jsonl")
    current = read_cells(out / "live-errors" / "cells.jsonl")
    assert [r["outcome"] for r in raw] == ["PASS", "ERROR", "PASS"]  # nothing rewritten
    assert [(r["outcome"], r.get("earlier_attempts")) for r in current] == [("PASS", None), ("PASS", 1)]
    assert len({r["trace"] for r in raw}) == 3 and all((out / "live-errors" / r["trace"]).exists() for r in raw)


def test_regress_never_reads_errors_as_a_regression_and_fails_on_the_error_rate(server, tmp_path, capsys):
    from harness.cli.main import main

    spec, out = _spec(tmp_path, server.url), tmp_path / "out"
    server.state.reset()
    assert main(["experiment", "run", str(spec), "--out", str(out / "a"), "--no-langsmith"]) == 0
    baseline = tmp_path / "baseline.json"
    assert main(["regress", str(out / "a" / "live-errors"), "--baseline", str(baseline), "--update"]) == 0
    server.add_fault(Fault("503", count=None, scope="agent", after=20))
    assert main(["experiment", "run", str(spec), "--out", str(out / "b"), "--no-langsmith"]) == 4
    capsys.readouterr()
    assert main(["regress", str(out / "b" / "live-errors"), "--baseline", str(baseline)]) == 4
    printed = capsys.readouterr().out
    assert "REGRESSION" not in printed.replace("not a regression", "").replace("Not a regression", "")
    assert "ERROR RATE 1/2 cells (50.0%)" in printed
    assert main(["regress", str(out / "b" / "live-errors"), "--baseline", str(baseline), "--max-error-rate", "0.5"]) == 0


def _rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in (path / "results.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if k not in ("run_id", "wall_time_s", "trace")} for r in rows]


def test_concurrent_cases_write_the_same_rows_in_plan_order(server, tmp_path):
    from harness.cli.main import main

    server.state.reset()
    common = [
        "run",
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        server.url,
        "--kind",
        "needle",
        "--limit",
        "6",
        "--out",
        str(tmp_path),
    ]
    assert main([*common, "--run-id", "one"]) == 0
    server.state.latency = 0.1  # requests that take time, as a provider's do, so that cases overlap for sure
    try:
        assert main([*common, "--run-id", "six", "--concurrency", "6"]) == 0
    finally:
        server.state.latency = 0.0
    assert server.state.stats()["peak_in_flight"] >= 4  # they really were in flight together
    one, six = _rows(tmp_path / "one"), _rows(tmp_path / "six")
    assert [r["case_id"] for r in six] == [r["case_id"] for r in one]
    assert [(r["outcome"], r["scores"]) for r in six] == [(r["outcome"], r["scores"]) for r in one]


def test_a_case_past_its_budget_ends_in_error_not_a_hang(server, tmp_path):
    from harness.cli.main import main

    server.state.reset()
    server.add_fault(
        Fault("stall", count=1, scope="agent", sleep=20)
    )  # under the client's 30 s timeout: only the budget stops it
    started = time.perf_counter()
    code = main(
        [
            "run",
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--model-kwargs",
            "timeout=30",
            "--cases",
            CASE,
            "--case-budget",
            "2",
            "--out",
            str(tmp_path),
            "--run-id",
            "b",
        ]
    )
    elapsed = time.perf_counter() - started
    (row,) = [json.loads(line) for line in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    assert code == 4 and row["outcome"] == "ERROR" and row["outcome_keys"] == ["case: CaseBudgetExceeded"]
    assert elapsed < 15


def test_max_rps_bounds_the_request_rate_of_the_whole_run(server, tmp_path):
    from harness.cli.main import main

    common = [
        "run",
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        server.url,
        "--kind",
        "needle",
        "--limit",
        "3",
        "--concurrency",
        "3",
        "--out",
        str(tmp_path),
    ]

    def rate(run_id: str, *extra: str) -> float:
        server.state.reset()
        assert main([*common, "--run-id", run_id, *extra]) == 0
        stats = server.state.stats()
        return (sum(stats["requests"].values()) - 1) / stats["window_s"]

    free = rate("free")
    limit = max(2, int(free / 3))  # well under what this machine reaches unlimited, however fast it is
    limited = rate("limited", "--max-rps", str(limit))
    # the limit binds, and it is the run's (agent and summarizer together), not each model's
    assert limited <= limit * 1.1 < free, (free, limit, limited)
    meta = json.loads((tmp_path / "limited" / "meta.json").read_text())
    assert meta["endpoints"]["agent"]["settings"]["max_rps"] == limit


def _prose_dataset(tmp_path: Path) -> Path:
    row = json.loads((ROOT / "datasets" / "goal.jsonl").read_text().splitlines()[0])
    row.update(id="goal-prose", task="Please audit the Halvorsen Freight ledgers and leave a short note on each one, as usual.")
    path = tmp_path / "prose.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def test_a_prose_task_is_skipped_offline_with_the_reason_and_runs_as_written_live(server, tmp_path, capsys):
    from harness.cli.main import main

    data = _prose_dataset(tmp_path)
    assert main(["run", "--datasets", str(data), "--out", str(tmp_path), "--run-id", "offline"]) == 3  # nothing else to run
    assert "skipped goal-prose: needs a live model" in capsys.readouterr().out
    meta = json.loads((tmp_path / "offline" / "meta.json").read_text())
    assert meta["skipped"][0]["case_id"] == "goal-prose" and not (tmp_path / "offline" / "results.jsonl").exists()
    server.state.reset()
    code = main(
        [
            "run",
            "--datasets",
            str(data),
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--out",
            str(tmp_path),
            "--run-id",
            "live",
        ]
    )
    (row,) = [json.loads(line) for line in (tmp_path / "live" / "results.jsonl").read_text().splitlines()]
    # Run as written: the reference agent over HTTP cannot follow prose either, asks for clarification, and is scored for it.
    assert code == 0 and row["case_id"] == "goal-prose" and row["outcome"] in ("FAIL", "INVALID")


def test_consecutive_live_runs_in_one_process_need_no_retry(server, tmp_path):
    """langchain-openai keeps one async client per process: a second run on a fresh event loop used to fail its
    first request ("Event loop is closed") and pass only thanks to a silent retry. With no retries it must be clean."""
    from harness.cli.main import main
    from harness.trace.schema import load_trace

    server.state.reset()
    for run_id in ("first", "second"):
        assert (
            main(
                [
                    "run",
                    "--model",
                    "openai:reference-agent",
                    "--summary-model",
                    "openai:reference-summarizer",
                    "--base-url",
                    server.url,
                    "--model-kwargs",
                    "max_retries=0",
                    "--cases",
                    CASE,
                    "--out",
                    str(tmp_path),
                    "--run-id",
                    run_id,
                ]
            )
            == 0
        )
        (row,) = [json.loads(line) for line in (tmp_path / run_id / "results.jsonl").read_text().splitlines()]
        trace = load_trace(tmp_path / run_id / row["trace"])
        assert row["outcome"] == "PASS" and not [c["error"] for c in trace.calls if c.get("error")]


def test_audit_reads_the_served_context_length_and_flags_a_larger_window(tmp_path, capsys):
    from harness.cli.main import main

    with serving(max_model_len=32_000) as srv:
        code = main(["audit", "--model", "openai:reference-agent", "--base-url", srv.url, "--window", "64000"])
        out = capsys.readouterr().out
        assert code == 1 and "WARNING [window-exceeds-served-length]" in out and "32,000" in out and "max_model_len" in out
        main(["audit", "--model", "openai:reference-agent", "--base-url", srv.url, "--window", "32000"])
        out = capsys.readouterr().out  # (other findings, such as no profile for this name, still apply)
        assert "INFO [served-length]" in out and "window-exceeds-served-length" not in out


def test_pytest_xdist_runs_live_evals_in_parallel_each_worker_its_own_run_directory(server, tmp_path):
    server.state.reset()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals/test_evals.py",
            "-m",
            "needle",
            "-k",
            "needle-h24k",
            "-n",
            "2",
            "-p",
            "no:cacheprovider",
            "-q",
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert "5 passed" in out.stdout, out.stdout[-2000:]
    runs = sorted(p.name for p in tmp_path.iterdir())
    assert sorted(run.rsplit("-", 1)[1] for run in runs) == ["gw0", "gw1"]
    rows = [line for run in runs for line in (tmp_path / run / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and out.stdout.count("one directory per xdist worker") == 2


def test_cases_spread_over_processes_write_the_same_rows(server, tmp_path):
    from harness.cli.main import main

    server.state.reset()
    common = [
        "run",
        "--model",
        "openai:reference-agent",
        "--summary-model",
        "openai:reference-summarizer",
        "--base-url",
        server.url,
        "--kind",
        "needle",
        "--limit",
        "4",
        "--out",
        str(tmp_path),
    ]
    assert main([*common, "--run-id", "one"]) == 0
    assert main([*common, "--run-id", "two", "--concurrency", "4", "--processes", "2", "--max-rps", "200"]) == 0
    one, two = _rows(tmp_path / "one"), _rows(tmp_path / "two")
    assert [(r["case_id"], r["outcome"], r["scores"]) for r in two] == [(r["case_id"], r["outcome"], r["scores"]) for r in one]
    assert main([*common, "--run-id", "bad", "--concurrency", "2", "--processes", "3"]) == 2


def test_a_token_budget_makes_requests_wait_for_their_tokens(server, scenarios):
    """--max-tpm: one bucket of input tokens per minute for the agent and the summarizer together."""
    from harness.agent.live import TokenBudget

    budget = TokenBudget(600_000)
    budget.acquire(600_000)  # empty the bucket: 10,000 tokens a second from now on
    started = time.perf_counter()
    budget.acquire(15_000)
    assert 1.3 < time.perf_counter() - started < 3 and budget.waited_s >= 1.3
    assert 0 < budget._take(10**9) <= 60  # more than a minute's worth waits for a full bucket at most, never forever

    server.state.reset()
    config = make_config("forced-20")
    counting = TokenBudget(10**12)
    models = choose_models(
        "openai:reference-agent",
        "openai:reference-summarizer",
        window=config.window,
        agent_endpoint=Endpoint(server.url, SETTINGS, counting),
    )
    started = time.perf_counter()
    assert run_case(scenarios[CASE], config, models).error is None and counting.taken > 0
    ran_s = time.perf_counter() - started
    # A bucket that, with what refills while the case runs (ran_s, measured on this machine), falls 3 s short of what
    # the case asks for: the case must wait about 3 s however fast the machine is.
    tpm = counting.taken / (1 + (ran_s + 3) / 60)
    budget = TokenBudget(tpm)
    endpoint = Endpoint(server.url, SETTINGS, budget)
    models = choose_models("openai:reference-agent", "openai:reference-summarizer", window=config.window, agent_endpoint=endpoint)
    assert models.token_budget is budget and models.summarizer.token_budget is budget
    trace = run_case(scenarios[CASE], config, models)
    assert budget.taken == counting.taken  # every agent and summary request went through the one budget
    assert trace.error is None and budget.waited_s > 1.0, budget.waited_s
    assert models.endpoints["agent"]["settings"]["max_tpm"] == tpm


def test_the_shipped_strategies_spec_runs_live_and_agrees_with_offline_cell_by_cell(tmp_path):
    """datasets/experiments/strategies.yaml with `model: openai:...` and a base_url is the live comparison; through
    `harness serve` (usage off, as in the test above) every strategy's cell scores as it does offline."""
    import yaml

    from harness.runs.grid import run_experiment
    from harness.runs.results import read_cells
    from harness.runs.spec import load_spec

    shipped = yaml.safe_load((ROOT / "datasets" / "experiments" / "strategies.yaml").read_text())
    shipped["scenarios"] = {**shipped["scenarios"], "cases": ["needle-h24k-d010", "goal-ledgers-12"]}
    # An OpenAI model cannot carry Anthropic's context management (exit 2): the live copy leaves the anthropic-* arm out
    shipped["strategies"] = [s for s in shipped["strategies"] if not s.startswith("anthropic-")]
    offline = tmp_path / "offline.yaml"
    offline.write_text(yaml.safe_dump(shipped))
    with serving(usage=False, max_seconds=600) as srv:
        live = tmp_path / "live.yaml"
        live.write_text(
            yaml.safe_dump(
                {
                    **shipped,
                    "model": "openai:reference-agent",
                    "summary_model": "openai:reference-summarizer",
                    "base_url": srv.url,
                    "model_kwargs": SETTINGS,
                }
            )
        )
        served = run_experiment(load_spec(live), out_dir=tmp_path / "live", progress=lambda _: None)
        assert srv.state.stats()["requests"].get("agent", 0) > 0 and srv.state.stats()["requests"].get("summary", 0) > 0
    local = run_experiment(load_spec(offline), out_dir=tmp_path / "offline", progress=lambda _: None)
    a = {r["cell_id"]: r for r in read_cells(local.path / "cells.jsonl")}
    b = {r["cell_id"]: r for r in read_cells(served.path / "cells.jsonl")}
    assert set(a) == set(b) and len(a) == 14  # seven strategies (openai-compaction among them) x two cases
    assert {r["strategy"] for r in b.values()} == set(shipped["strategies"])
    assert {r["agent_model"] for r in b.values()} == {"openai:reference-agent"}
    for cell, row in a.items():
        assert (row["outcome"], row["scores"]) == (b[cell]["outcome"], b[cell]["scores"]), cell


def _run_with_a_429(server, tmp_path, run_id, *, scope, retry_after, budget, count=1):
    """`harness run` (in process) on CASE with ``count`` 429s of ``scope`` carrying ``retry_after``; (exit code, row,
    stats)."""
    from harness.cli.main import main

    server.state.reset()
    server.add_fault(Fault("429", count=count, scope=scope, retry_after=retry_after))
    live = ["--model", "openai:reference-agent", "--summary-model", "openai:reference-summarizer", "--base-url", server.url]
    argv = [*live, "--model-kwargs", "max_retries=2", "--cases", CASE, "--case-budget", str(budget)]
    code = main(["run", *argv, "--out", str(tmp_path), "--run-id", run_id])
    (row,) = _rows(tmp_path / run_id)
    return code, row, server.state.stats()


@pytest.mark.parametrize("scope", ["agent", "summary"])
def test_a_retry_after_above_the_sdks_cap_is_waited_out_when_it_fits_the_case_budget(server, tmp_path, monkeypatch, scope):
    """The OpenAI SDK does not retry a 429 whose Retry-After is above its cap (MAX_RETRY_AFTER_DELAY, 120 s): the case
    ended in ERROR at once though its budget had room. The cap is scaled down to 1 s here so that a 2 s Retry-After is
    above it (a real one would cost this test two minutes); the harness reads the same constant the SDK does. Three
    in a row: deepagents' own 3 attempts at a summary would otherwise ride out one."""
    from openai import _base_client

    monkeypatch.setattr(_base_client, "MAX_RETRY_AFTER_DELAY", 1)
    code, row, stats = _run_with_a_429(server, tmp_path, scope, scope=scope, retry_after=2, budget=60, count=3)
    assert stats["faults_injected"] == {f"429@{scope}": 3}
    assert code == 0 and row["outcome"] == "PASS", row.get("outcome_keys")


def test_a_retry_after_that_does_not_fit_the_case_budget_is_not_waited_and_says_so(server, tmp_path):
    """With the SDK's real cap: a 300 s Retry-After (above 120 s) and a 100 s case budget."""
    import re

    code, row, stats = _run_with_a_429(server, tmp_path, "late", scope="agent", retry_after=300, budget=100)
    assert stats["faults_injected"] == {"429@agent": 1} and code == 4 and row["outcome"] == "ERROR"
    (cause,) = row["outcome_keys"]
    assert re.fullmatch(
        r"agent: HTTP 429 RateLimitError \(Retry-After 300 s exceeds the remaining case budget (9\d|100) s; not waited\)", cause
    ), cause


def test_the_preflight_goes_on_for_any_http_answer_and_stops_on_silence(server):
    import socket

    from harness.agent.models import check_endpoints_answer
    from harness.errors import EndpointUnreachable

    check_endpoints_answer(Endpoint(server.url))  # 200
    check_endpoints_answer(Endpoint(server.url.removesuffix("/v1") + "/nowhere"))  # a 404 is an answer: something listens
    with socket.socket() as silent:  # takes connections into its backlog and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        with pytest.raises(EndpointUnreachable) as info:
            check_endpoints_answer(Endpoint(url), timeout=0.5)
    assert str(info.value).startswith(f"nothing answers at {url} (TimeoutError")
