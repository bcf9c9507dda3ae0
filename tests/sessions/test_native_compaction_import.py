"""A provider's server-side compaction imported from where a LangChain deep agent keeps it: the real deep agent on
``ChatAnthropic`` (``anthropic-compaction``) behind `harness serve` (the reference models behind Anthropic's Messages
API, as ``harness run --model anthropic:reference-agent --base-url URL`` runs them), recorded by a `SqliteSaver` and by
LangChain's tracer writing to the LangSmith stand-in at once, then imported by the ``langgraph``, ``langsmith`` and
``langchain`` readers; OpenAI's Responses compaction item (``openai-compaction``, ``ChatOpenAI``) from a thread too.

Held against what the recorder saw: each compaction at the number of messages the compacted request held (its
``summary`` event's ``messages_before``), of the provider's kind, with the summary the server returned; the imported
session replays as the session eval cut just there. ``goal-ledgers-28`` at a 50,000-token trigger (Anthropic's minimum)
is the smallest shipped case that reaches it: it compacts once, two calls before its end."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import messages_to_dict
from langsmith import Client
from langsmith import utils as ls_utils
from langsmith.run_helpers import tracing_context

from harness.agent.runner import run_case
from harness.cli.main import main
from harness.compaction.variants import make_config
from harness.errors import EXIT_OK
from harness.langsmith import session as langsmith_session
from harness.reference.serve import serving
from harness.runs.results import read_rows
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.session_format import render_session_question
from harness.sessions import read_session
from harness.trace.native import NATIVE_SUMMARY_OPENING
from tests._fake_langsmith import FakeLangSmith, _stored_run
from tests._wire import served_reference_models

pytestmark = [pytest.mark.live, pytest.mark.slow]  # harness serve and the LangSmith stand-in; two cases on the real agent

CASE, THREAD, PROJECT = "goal-ledgers-28", "native-thread", "native-import"
KEY = "test-key-not-a-secret"


@dataclass(frozen=True)
class Recorded:
    db: Path
    trace: Any
    fake: FakeLangSmith
    root: str  # the one root run (one user turn)


def _scenario(case_id: str):  # noqa: ANN202
    (scenario,) = [s for s in load_scenarios(all_scenario_files()) if s.id == case_id]
    return scenario


def _run(provider: str, strategy: str, trigger: str, case_id: str, db: Path, server: Any) -> Any:  # noqa: ANN401
    """``case_id`` run on the real agent through ``server`` as ``provider``'s API, checkpointed to ``db``."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    config = make_config("forced-20", trigger=[trigger], strategy=strategy)
    models = served_reference_models(provider, server, config.window, timeout=30)
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        trace = run_case(_scenario(case_id), config, models, checkpointer=SqliteSaver(conn), thread_id=THREAD)
    finally:
        conn.close()
    assert trace.error is None and trace.simulated
    return trace


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Any:  # noqa: ANN401
    """The Anthropic case checkpointed and traced in one run (both recordings of the same session)."""
    from langchain_core.tracers.langchain import wait_for_all_tracers

    db = tmp_path_factory.mktemp("native") / "checkpoints.sqlite"
    with serving(max_seconds=600) as server, FakeLangSmith() as fake:
        client = Client(api_url=fake.url, api_key=KEY)
        with tracing_context(enabled=True, client=client, project_name=PROJECT):
            trace = _run("anthropic", "anthropic-compaction", "tokens:50000", CASE, db, server)
        wait_for_all_tracers()
        client.flush()
        roots = [r for r in fake.recorder.runs.values() if r.get("run_type") and not r.get("parent_run_id")]
        assert len(roots) == 1, "one user turn: one root run"
        yield Recorded(db, trace, fake, str(roots[0]["id"]))


@pytest.fixture
def langsmith(recorded, monkeypatch):  # noqa: ANN001, ANN201
    """The harness's LangSmith client pointed at the stand-in (the SDK's cached environment cleared before and after)."""
    monkeypatch.setenv("LANGSMITH_ENDPOINT", recorded.fake.url)
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setattr(langsmith_session, "_CONNECTED", {})
    ls_utils.get_env_var.cache_clear()
    yield recorded.fake
    monkeypatch.undo()
    ls_utils.get_env_var.cache_clear()


def _served(trace: Any) -> list[tuple[int, str]]:  # noqa: ANN401
    """(messages_before, summary) of each compaction the recorder saw, the summary as the server returned it."""
    events = [e for e in trace.events if e["type"] == "summary"]
    assert events and all(e["native"] for e in events)
    return [
        (e["messages_before"], trace.message_text(e["summary_key"]).removeprefix(f"{NATIVE_SUMMARY_OPENING}\n\n")) for e in events
    ]


def test_a_thread_on_anthropic_compaction_imports_its_compaction_where_the_server_made_it(recorded) -> None:
    ((before, summary),) = _served(recorded.trace)  # this case compacts once
    session = read_session("langgraph", str(recorded.db), thread=THREAD)
    ((compaction),) = session.compactions
    assert (compaction.at, compaction.kind, compaction.summary) == (before, "anthropic-compaction", summary)
    # the answer the model gave from the summary stays a message (its tool call), the block is not in its text
    answered = session.messages[before]
    assert answered["role"] == "assistant" and answered["tool_calls"] and summary not in json.dumps(answered)
    agent_calls = [c for c in recorded.trace.calls if c["role"] == "agent"]
    assert sum(m["role"] == "assistant" for m in session.messages) == len(agent_calls)
    assert session.messages[-1] == {"role": "assistant", "content": recorded.trace.final["answers"][-1]}
    assert "failed_compactions" not in session.meta
    # the same state as LangChain's message dicts (`harness import langchain`): the same session
    state = recorded.db.with_name("state.json")
    from harness.sessions.langgraph import _open, _reader

    conn = _open(str(recorded.db))
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver

        values = _reader(SqliteSaver(conn)).get_state({"configurable": {"thread_id": THREAD, "checkpoint_ns": ""}}).values
    finally:
        conn.close()
    state.write_text(json.dumps(messages_to_dict(values["messages"])))
    dicts = read_session("langchain", str(state))
    assert (dicts.messages, dicts.compactions) == (session.messages, session.compactions)


def test_a_langsmith_run_on_anthropic_compaction_imports_its_compaction_where_it_stood(recorded, langsmith) -> None:
    ((before, summary),) = _served(recorded.trace)
    session = read_session("langsmith", recorded.root)
    thread = read_session("langgraph", str(recorded.db), thread=THREAD)
    # the largest call is the last: LangChain sends the whole state, the provider drops what it compacted. This case
    # has no system prompt: the empty system message the tracer recorded is left out (no conversation can hold it)
    assert session.messages == thread.messages[:-1] and session.meta["empty_system_dropped"] is True
    ((compaction),) = session.compactions
    assert (compaction.at, compaction.kind, compaction.summary) == (before, "anthropic-compaction", summary)


def _export(recorded: Recorded, calls: int) -> list[dict]:
    """The root run and its first ``calls`` LLM runs, as exported."""
    runs = [_stored_run(recorded.fake.recorder, r) for r in recorded.fake.recorder.runs.values()]
    llm = sorted((r for r in runs if r["run_type"] == "llm"), key=lambda r: r["dotted_order"])
    assert len(llm) == sum(c["role"] == "agent" for c in recorded.trace.calls)  # one LLM run per agent call
    return [r for r in runs if r["id"] == recorded.root] + llm[:calls]


def test_a_run_whose_largest_call_the_provider_compacted_ends_in_that_compaction(recorded, tmp_path) -> None:
    """The export cut after the compacting call: its request is the largest, and its answer opens with the compaction
    block (the equivalent of a later call headed by a new summary): a compaction after the last message."""
    ((before, summary),) = _served(recorded.trace)
    (event,) = [e for e in recorded.trace.events if e["type"] == "summary"]
    path = tmp_path / "runs.json"
    path.write_text(json.dumps(_export(recorded, event["call_index"] + 1)))
    session = read_session("langsmith", str(path))
    assert len(session.messages) == before  # the request the provider compacted
    assert [(c.at, c.kind, c.summary) for c in session.compactions] == [(before, "anthropic-compaction", summary)]


def test_an_imported_native_session_replays_as_the_session_eval_cut_at_its_compaction(recorded, langsmith, tmp_path) -> None:
    ((before, _),) = _served(recorded.trace)
    out = tmp_path / "cases"
    probes = tmp_path / "probes.yaml"  # the case states no value the generator asks about: a path, asked by hand
    question = render_session_question("path", "ledger_05.md")
    probes.write_text(json.dumps([{"question": question, "expected": ["/ledgers/ledger_05.md"], "type": "path", "message": 0}]))
    for fmt, source, options in (("langgraph", str(recorded.db), ["--thread", THREAD]), ("langsmith", recorded.root, [])):
        assert main(["import", fmt, source, "--out", str(out), "--id", fmt, "--probes", str(probes), *options]) == EXIT_OK
    cases = {c.id: c for c in load_scenarios([out / "sessions.jsonl"])}
    for case in cases.values():
        assert (case.session.cut, case.session.cut_by) == (before, "compaction")
    args = ["run", "--kind", "session", "--datasets", str(out / "sessions.jsonl"), "--out", str(tmp_path / "runs")]
    assert main([*args, "--run-id", "replay"]) == EXIT_OK
    rows = {r["case_id"]: r for r in read_rows(tmp_path / "runs" / "replay" / "results.jsonl")}
    assert set(rows) == {"langgraph", "langsmith"}
    for row in rows.values():
        assert row["passed"]["compacted_at_cut"], row["explanations"]["compacted_at_cut"]
        assert row["session"]["control"]["error"] is None and row["outcome"] in ("PASS", "FAIL")


def test_a_thread_on_openai_responses_compaction_imports_each_compaction_item(tmp_path) -> None:
    """LangChain keeps a Responses compaction item among the AI message's content blocks (``encrypted_content``; the
    server's envelope decodes to its summary). ``goal-ledgers-12`` at 20 % compacts twice: each where the thread held
    the compacted request (the recorder counts the second from the first compaction's answer on)."""
    db = tmp_path / "openai.sqlite"
    with serving(max_seconds=600) as server:
        trace = _run("openai", "openai-compaction", "20%", "goal-ledgers-12", db, server)
    served = _served(trace)
    assert len(served) == 2
    session = read_session("langgraph", str(db), thread=THREAD)
    at, expected = 0, []
    for n, (before, summary) in enumerate(served):
        at = before if n == 0 else at + before - 1  # after the first, the request opened with the answer at ``at``
        expected.append((at, "openai-compaction", summary))
    assert [(c.at, c.kind, c.summary) for c in session.compactions] == expected
    assert all(m["role"] == "assistant" for m in (session.messages[c.at] for c in session.compactions))
