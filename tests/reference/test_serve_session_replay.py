"""The shipped recorded session (datasets/sessions/sessions.jsonl) replayed as the session eval by the reference agent
through `harness serve` (ChatOpenAI on chat completions, as the live rehearsal of 2026-11-29 ran it) and in process.

The rehearsal ended in FAIL ``run_completed``, arm and control alike: the session's next step reads a ledger the
replay's filesystem does not hold, and the agent read it again at every call, until the continuation turn's call limit
and then LangGraph's recursion limit in the first probe turn. Offline the case is skipped (its prose probes are outside
the reference agent's grammar), so the loop never showed there; here the in-process agent is given the same turns as
the served one (the continuation and the prose probes), and both must complete, having seen the same messages: what
every request carried that a provider receives (role, text, tool calls and ids, which results failed)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness._paths import DATASETS_DIR
from harness.agent.models import Endpoint, choose_models
from harness.compaction.variants import make_config
from harness.reference import policy
from harness.reference.models import ReferenceAgentModel
from harness.reference.policy import GIVE_UP_AFTER
from harness.reference.serve import serving
from harness.reference.view import is_error
from harness.scenarios.schema import load_scenarios
from harness.suites.execute import Settings, run_eval_case

pytestmark = [pytest.mark.live, pytest.mark.slow]


def _seen(messages: list[BaseMessage]) -> list[tuple[Any, ...]]:
    """What a provider receives of each message (a ToolMessage's name and status are LangChain's alone: langchain-openai
    sends a tool message's content and id), the run's random history-file name made stable."""
    return [
        (
            m.type,
            da.run_stable_text(m.text),
            [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])],
            getattr(m, "tool_call_id", None),
            is_error(m) if isinstance(m, ToolMessage) else None,
        )
        for m in messages
    ]


@pytest.fixture(scope="module")
def replays():
    """(result, what the agent saw at each call) for the shipped session, in process and served."""
    (case,) = load_scenarios([DATASETS_DIR / "sessions" / "sessions.jsonl"])
    config = make_config("forced-20")
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        decide = policy.decide
        seen: list[list[tuple[Any, ...]]] = []

        def recording(messages, **faults):
            seen.append(_seen(messages))
            return decide(messages, **faults)

        mp.setattr(policy, "decide", recording)
        # the in-process agent is given the turns the served one gets (it would be asked nothing: the case is skipped)
        mp.setattr(ReferenceAgentModel, "cannot_follow", lambda self, task: None)
        out["in process"] = (
            run_eval_case("session", case, Settings(config, choose_models(None, None, window=config.window))),
            seen[:],
        )
        seen.clear()
        with serving(max_seconds=300) as server:
            endpoint = Endpoint(server.url[: -len("/v1")], {"timeout": 10, "max_retries": 0})
            models = choose_models(
                "openai:reference-agent",
                "openai:reference-summarizer",
                window=config.window,
                agent_endpoint=endpoint,
                summary_endpoint=endpoint,
            )
            out["served"] = (run_eval_case("session", case, Settings(config, models)), seen[:])
    return out


@pytest.mark.parametrize("path", ["in process", "served"])
def test_the_replay_completes_without_the_read_file_loop(replays, path):
    result, _ = replays[path]
    assert result.trace is not None and result.trace.error is None, result.trace.error if result.trace else None
    assert result.scores["run_completed"].value is True
    assert result.trace.final["control"]["error"] is None  # the full-context control completes too
    reads = Counter(
        c["args"]["file_path"]
        for call in result.trace.calls
        if call["role"] == "agent"
        for c in (call.get("response") or {}).get("tool_calls") or []
        if c["name"] == "read_file"
    )
    assert reads and max(reads.values()) <= GIVE_UP_AFTER, reads  # the missing ledger is tried, then given up


def test_the_agent_sees_the_same_messages_served_and_in_process(replays):
    (_, offline), (_, served) = replays["in process"], replays["served"]
    assert len(offline) == len(served)
    for k, (a, b) in enumerate(zip(offline, served)):
        assert a == b, f"agent call {k}: the requests differ"
