"""The LangGraph reader on real checkpoints: a harness case run offline on the real deep agent with a `SqliteSaver`,
compaction forced, then its thread imported. What the import says is held against what the recorder saw."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3

import pytest
from langchain_core.messages import messages_from_dict

from harness import _deepagents_adapter as da
from harness.agent.runner import run_case
from harness.cli.main import main
from harness.errors import ConfigError, DatasetError
from harness.scenarios.conversation import load_conversation
from harness.scenarios.generate import generated_case
from harness.sessions import read_session
from harness.sessions.lc_messages import to_openai
from harness.trace.schema import comparable

pytestmark = pytest.mark.slow  # runs a case on the real agent

CASE, THREAD = "todos-ledgers-06", "todos-thread"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, config, models):
    """(database, trace): the todos case (files written, a todo list, forced summaries) checkpointed to SQLite."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path_factory.mktemp("langgraph") / "checkpoints.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        trace = run_case(generated_case(CASE), config, models, checkpointer=SqliteSaver(conn), thread_id=THREAD)
    finally:
        conn.close()
    assert trace.final["error"] is None
    return db, trace


def _summaries(trace):
    return [e for e in trace.events if e["type"] == "summary"]


def test_a_thread_imports_with_every_message_its_files_its_todos_and_each_summary(recorded):
    db, trace = recorded
    session = read_session("langgraph", str(db), thread=THREAD)
    assert (session.format, session.meta["thread"]) == ("langgraph", THREAD)
    assert session.meta["checkpoints"] > 1
    summaries = _summaries(trace)
    assert len(summaries) >= 2, "forced-20 summarizes this case more than once"
    assert len(session.compactions) == len(summaries)
    # the first summary: made when the state held the messages its request came from (no summary before it)
    first = session.compactions[0]
    assert first.at == summaries[0]["messages_before"]
    assert [c.summary for c in session.compactions] == [
        da.summary_body(messages_from_dict([trace.messages[e["summary_key"]]])[0].text) for e in summaries
    ]
    assert all(c.kind == "deepagents-summary" for c in session.compactions)
    assert [c.at for c in session.compactions] == sorted(c.at for c in session.compactions)
    # the last request before the first summary is the session's first messages, exactly as the model saw them
    before = [c for c in trace.calls if c["role"] == "agent" and c["index"] < summaries[0]["call_index"]][-1]
    seen = to_openai(messages_from_dict([trace.messages[k] for k in before["message_keys"]]), "the recorded request", "langgraph")
    assert session.messages[: len(seen)] == seen
    assert session.messages[0]["role"] == "user" and session.messages[0]["content"] == generated_case(CASE).turns[0]
    # no summary message is a message of the session; every agent call answered once
    assert not any(str(m.get("content")).startswith(da.SUMMARY_OPENINGS) for m in session.messages)
    answered = [c for c in trace.calls if c["role"] == "agent" and c["error"] is None]
    assert sum(m["role"] == "assistant" for m in session.messages) == len(answered)
    assert session.messages[-1] == {"role": "assistant", "content": trace.final["answers"][-1]}
    # the thread's files and todos: what the run's final state held
    files = dict(session.files)
    assert trace.final["written_files"] and all(files[p] == text for p, text in trace.final["written_files"].items())
    assert set(files) == set(trace.final["files"])
    assert trace.final["todos"] and list(session.todos) == trace.final["todos"]


def test_the_prefix_before_the_first_summary_is_a_valid_conversation_file(recorded, tmp_path):
    db, _ = recorded
    session = read_session("langgraph", str(db), thread=THREAD)
    path = tmp_path / "prefix.jsonl"
    prefix = session.messages[: session.compactions[0].at]
    path.write_text("".join(json.dumps(m) + "\n" for m in prefix))
    assert load_conversation(path) == list(prefix)


def test_reading_writes_nothing_to_the_database(recorded):
    db, _ = recorded
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    read_session("langgraph", str(db), thread=THREAD)
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before


def test_a_checkpointer_leaves_the_offline_run_as_it_was(recorded, config, models):
    _, trace = recorded
    assert comparable(run_case(generated_case(CASE), config, models)) == comparable(trace)


def test_a_thread_not_in_the_database_is_named_with_the_threads_it_holds(recorded):
    db, _ = recorded
    with pytest.raises(DatasetError) as caught:
        read_session("langgraph", str(db), thread="no-such-thread")
    assert (caught.value.path, caught.value.field) == (str(db), "thread")
    assert "'no-such-thread'" in str(caught.value) and repr(THREAD) in str(caught.value)
    with pytest.raises(DatasetError, match="name one") as caught:
        read_session("langgraph", str(db))
    assert caught.value.field == "thread"


def test_a_file_that_is_not_a_checkpoint_database_is_refused_and_left_as_it_was(tmp_path):
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database\n" * 100)
    with pytest.raises(DatasetError, match="not a SQLite database") as caught:
        read_session("langgraph", str(text), thread="t")
    assert caught.value.path == str(text)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    before = other.read_bytes()
    with pytest.raises(DatasetError, match="not a LangGraph checkpoint database: no checkpoints and writes tables"):
        read_session("langgraph", str(other), thread="t")
    assert other.read_bytes() == before  # no table made in it
    with pytest.raises(DatasetError, match="no such file"):
        read_session("langgraph", str(tmp_path / "missing.sqlite"), thread="t")
    with pytest.raises(ConfigError, match="--thread only"):
        read_session("langgraph", str(text), thread="t", project="p")


def test_without_created_at_index_a_summary_is_placed_from_the_state_its_step_started_from(recorded, monkeypatch):
    """A deepagents release that did not record ``created_at_index``: the reader counts the messages of the checkpoint
    the summarizing step started from, and finds the same positions."""
    db, _ = recorded
    recorded_at = [c.at for c in read_session("langgraph", str(db), thread=THREAD).compactions]
    real = da.thread_summary
    monkeypatch.setattr(da, "thread_summary", lambda values: (s := real(values)) and dataclasses.replace(s, at=None))
    assert [c.at for c in read_session("langgraph", str(db), thread=THREAD).compactions] == recorded_at


def test_a_thread_whose_subagents_ran_says_their_runs_are_not_imported(recorded, tmp_path, config, models, capsys):
    """A deep agent's ``task`` subagent checkpoints its own run in a namespace of its own (``tools:<task id>``); the
    session is the parent's conversation, so the import names the namespaces it leaves out (meta and a warning)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "delegate.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        trace = run_case(generated_case("delegate-2x1"), config, models, checkpointer=SqliteSaver(conn), thread_id="boss")
        listed = SqliteSaver(conn).list({"configurable": {"thread_id": "boss"}})  # every namespace of the thread
        namespaces = sorted({tup.config["configurable"]["checkpoint_ns"] for tup in listed} - {""})
    finally:
        conn.close()
    assert trace.final["error"] is None and any(c["role"] == "subagent" for c in trace.calls)
    session = read_session("langgraph", str(db), thread="boss")
    tasks = [c for m in session.messages for c in m.get("tool_calls", ()) if c["function"]["name"] == "task"]
    assert len(namespaces) == len(tasks) == 2  # one subagent run per task call
    assert session.meta["subagent_namespaces"] == namespaces
    (warning,) = session.warnings
    assert "2 subagent run(s) that are not imported" in warning and all(ns in warning for ns in namespaces)
    probes = tmp_path / "probes.json"
    probes.write_text(
        json.dumps([{"question": "Which document went first?", "expected": ["DOC-001"], "type": "fact", "message": 0}])
    )
    out = tmp_path / "cases"
    assert main(["import", "langgraph", str(db), "--thread", "boss", "--out", str(out), "--probes", str(probes)]) == 0
    assert f"warning: {warning}" in capsys.readouterr().err  # the command says it
    # a thread without subagents says nothing of them
    plain = read_session("langgraph", str(recorded[0]), thread=THREAD)
    assert plain.warnings == () and "subagent_namespaces" not in plain.meta
