"""A live case's provider retries are recorded and reported: through `harness serve` with two 429s on agent requests and
a context rejection of a summary request (a new user's ``--fault 429:2@agent --fault context:1@summary``), the case that
met them says 2 SDK retries (its trace by role, its row, the run report and the console line) and 1 failed model call
(the rejected summary, asked again by deepagents), and the case that met none says 0 and 0. Before, both rows and the
report were those of a run that met no fault at all."""

from __future__ import annotations

import json

import pytest

from harness.reference.serve import Fault, serving
from harness.trace.schema import load_trace

pytestmark = [pytest.mark.live, pytest.mark.slow]

CASES = ("chain-s1-d000", "chain-s1-d025")  # the two smallest default cases: 9 model calls each
RETRY_AFTER_S = 0.2  # the 429's Retry-After, which the SDK honours: the backoff it logs


def test_a_served_run_records_and_reports_the_sdks_retries_per_case(tmp_path, capsys):
    from harness.cli.main import main

    with serving(max_seconds=300) as server:
        server.add_fault(Fault("429", count=2, scope="agent", retry_after=RETRY_AFTER_S))  # --fault 429:2@agent
        server.add_fault(Fault("context", count=1, scope="summary"))  # --fault context:1@summary
        live = ["--model", "openai:reference-agent", "--summary-model", "openai:reference-summarizer", "--base-url", server.url]
        code = main(["run", *live, "--cases", *CASES, "--concurrency", "1", "--out", str(tmp_path), "--run-id", "r"])
        stats = server.state.stats()
    out = capsys.readouterr().out
    assert code == 0 and stats["faults_injected"] == {"429@agent": 2, "context@summary": 1}
    rows = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in rows] == ["PASS", "PASS"]
    # one case at a time, in the order the rows are written: the first case's first agent request met both 429s
    first, second = rows
    assert first["metrics"]["provider_retries"] == 2 and second["metrics"]["provider_retries"] == 0
    assert first["metrics"]["provider_retry_backoff_s"] == pytest.approx(2 * RETRY_AFTER_S, abs=0.01)
    assert second["metrics"]["provider_retry_backoff_s"] == 0
    assert (first["metrics"]["failed_model_calls"], second["metrics"]["failed_model_calls"]) == (1, 0)
    trace = load_trace(tmp_path / "r" / first["trace"])
    assert trace.provider_retries == {
        "count": 2,
        "backoff_s": first["metrics"]["provider_retry_backoff_s"],
        "by_role": {"agent": {"count": 2, "backoff_s": first["metrics"]["provider_retry_backoff_s"]}},
    }
    assert [c["role"] for c in trace.calls if c["error"]] == ["summarizer"]  # the rejected summary, recorded as it failed
    line = (
        f"provider SDK retries: 2 in 1 of 2 cases, {2 * RETRY_AFTER_S:.1f} s of backoff; "
        "1 failed model call in 1 case, re-sent or ended the case"
    )
    assert f"- {line}" in (tmp_path / "r" / "report.md").read_text()
    assert line in out
