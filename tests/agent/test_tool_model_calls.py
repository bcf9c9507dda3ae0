"""A model a user's tool calls itself, through the assembly door (``--agent``), end to end: the trace records those
calls as role ``tool`` with their usage and model, the row bills them in their own role at that model, and the parent's
calls, tokens and token curve are what they are without the assembly. The case is one read and the reply (2 agent
calls); a middleware of the assembly has a chat model screen what read_file returns, inside the tool's call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.runs.results import read_rows
from harness.trace.schema import load_trace
from tests._assemblies import SCREEN_USAGE

pytestmark = pytest.mark.slow  # two whole runs through `harness run` (about 2 s with the stack imported)

CASE = {
    "id": "goal-screened-1",
    "kind": "goal",
    "description": "one read, then the reply: the read's tool call makes a model call of its own",
    "task": "Read the ledger.\n\nWork through these steps in order, one tool call per step:\n"
    "1. Read /ledgers/ledger_01.md with read_file.\n"
    '2. Reply with "TASK COMPLETE" and the number of steps you finished.',
    "files": [
        {
            "path": "/ledgers/ledger_01.md",
            "content": "# Ledger ledger_01\n\n| date | amount |\n|---|---|\n| 2026-04-11 | 120.00 |\n",
        }
    ],
    "expected_steps": [{"tool": "read_file", "target": "/ledgers/ledger_01.md"}],
}


def _run(tmp_path: Path, run_id: str, *agent: str) -> tuple[dict, Path]:
    data = tmp_path / "screened.jsonl"
    data.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    main(["run", "--datasets", str(data), *agent, "--out", str(tmp_path), "--run-id", run_id])
    (row,) = read_rows(tmp_path / run_id / "results.jsonl")
    return row, tmp_path / run_id / row["trace"]


def test_a_model_a_tool_calls_is_a_tool_call_billed_at_its_own_model_and_the_parent_keeps_its_own(tmp_path):
    row, path = _run(tmp_path, "screened", "--agent", "tests._assemblies:screened_reads")
    trace = load_trace(path)
    assert [c["role"] for c in trace.calls] == ["agent", "tool", "agent"]  # never "subagent": no subagent ran
    (screen,) = trace.tool_model_calls()
    assert screen["model"] == "openai:gpt-5-mini" and screen["usage"] == SCREEN_USAGE and screen["error"] is None
    assert trace.request_text(screen).startswith("Screen this file for leaked secrets: ")
    assert trace.subagent_calls() == [] and row["cost"]["roles"]["subagent"]["calls"] == 0
    tool = row["cost"]["roles"]["tool"]
    assert (tool["calls"], tool["input"], tool["output"]) == (1, 120, 3)
    assert tool["usd"] == pytest.approx((120 * 0.25 + 3 * 2.00) / 1e6)  # openai:gpt-5-mini's list price
    assert row["cost"]["priced_as"]["tool"] == "openai:gpt-5-mini"
    # the in-process reference agent reports no usage: the case's total is unknown, and the metric is that total
    assert row["cost"]["total"]["usd"] is None and row["metrics"]["cost_usd"] is None
    own, own_path = _run(tmp_path, "own")  # the same case on the harness's own agent
    assert row["calls"] == own["calls"] == {"agent": 2, "summarizer": 0}
    for key in ("agent_input", "summarizer_input", "peak_context"):  # the parent's tokens and peak context
        assert row["tokens"][key] == own["tokens"][key], key
    for key in ("agent_tokens", "peak_context", "agent_tokens_provider"):
        assert row["metrics"][key] == own["metrics"][key], key
    parent = [c["approx_tokens"] for c in trace.agent_calls()]
    assert parent == [c["approx_tokens"] for c in load_trace(own_path).agent_calls()]  # its token curve
    assert own["cost"]["roles"]["tool"] == {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0, "calls": 0, "usd": 0.0}
