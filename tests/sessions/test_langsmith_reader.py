"""The LangSmith reader against the recording stand-in: a harness case run offline on the real agent and traced to the
stand-in by LangChain's own tracer, then read back by run id, by project and filter, and from the run's export."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import messages_from_dict
from langsmith import Client
from langsmith import utils as ls_utils
from langsmith.run_helpers import tracing_context

from harness import _deepagents_adapter as da
from harness.agent.runner import run_case
from harness.errors import ConfigError, DatasetError, EndpointUnreachable
from harness.langsmith import session as langsmith_session
from harness.scenarios.conversation import load_conversation
from harness.scenarios.generate import generated_case
from harness.sessions import read_session
from harness.sessions.lc_messages import to_openai
from tests._fake_langsmith import FakeLangSmith, _stored_run

pytestmark = pytest.mark.slow  # a server (the stand-in) and a case on the real agent

CASE, PROJECT = "todos-ledgers-06", "sessions-import"
KEY = "test-key-not-a-secret"


@pytest.fixture(scope="module")
def traced(config, models):
    """(stand-in, trace, root run id): the todos case traced to the stand-in's project ``sessions-import``."""
    with FakeLangSmith() as fake:
        client = Client(api_url=fake.url, api_key=KEY)
        with tracing_context(enabled=True, client=client, project_name=PROJECT):
            trace = run_case(generated_case(CASE), config, models)
        from langchain_core.tracers.langchain import wait_for_all_tracers

        wait_for_all_tracers()
        client.flush()
        roots = [r for r in fake.recorder.runs.values() if r.get("run_type") and not r.get("parent_run_id")]
        assert len(roots) == 1, "one user turn: one root run"
        yield fake, trace, str(roots[0]["id"])


@pytest.fixture
def langsmith(traced, monkeypatch):
    """The harness's LangSmith client pointed at the stand-in, made afresh for the test (the SDK caches what it read of
    the environment: cleared before and after)."""
    fake = traced[0]
    _point_at(monkeypatch, fake.url)
    yield fake
    monkeypatch.undo()
    ls_utils.get_env_var.cache_clear()


def _point_at(monkeypatch, url: str) -> None:
    monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setattr(langsmith_session, "_CONNECTED", {})
    ls_utils.get_env_var.cache_clear()


def _expected(trace):
    """What the reader must return for this trace: the request before the first summary (the largest call not headed
    by a summary), and that summary's text."""
    first = next(e for e in trace.events if e["type"] == "summary")
    before = [c for c in trace.calls if c["role"] == "agent" and c["index"] < first["call_index"]][-1]
    messages = to_openai(
        messages_from_dict([trace.messages[k] for k in before["message_keys"]]), "the recorded request", "langsmith"
    )
    return messages, da.summary_body(messages_from_dict([trace.messages[first["summary_key"]]])[0].text)


def _check(session, trace):
    messages, summary = _expected(trace)
    assert session.messages[0]["role"] == "system"  # the call's system prompt, as LangChain's tracer recorded it
    assert session.messages[1:] == messages
    ((compaction),) = session.compactions
    assert (compaction.at, compaction.kind, compaction.summary) == (len(session.messages), "deepagents-summary", summary)
    assert session.meta["llm_calls"] == sum(c["role"] == "agent" for c in trace.calls)


def test_a_run_by_id_gives_the_largest_call_before_the_first_summary(traced, langsmith, tmp_path):
    _, trace, root = traced
    session = read_session("langsmith", root)
    assert (session.format, session.meta["run"]) == ("langsmith", root)
    _check(session, trace)
    path = tmp_path / "session.jsonl"  # every message as a case's conversation file holds it: the call's results included
    path.write_text("".join(json.dumps(m) + "\n" for m in session.messages))
    assert load_conversation(path) == list(session.messages)
    assert KEY not in json.dumps(session.messages) + session.source


def test_a_project_and_a_filter_choose_the_newest_matching_root_run(traced, langsmith):
    _, trace, root = traced
    name = langsmith.recorder.runs[root]["name"]
    session = read_session("langsmith", "", project=PROJECT, filter=f'eq(name, "{name}")')
    assert session.meta["run"] == root
    _check(session, trace)
    with pytest.raises(DatasetError, match="no root run matches") as caught:
        read_session("langsmith", "", project=PROJECT, filter='eq(name, "no-such-run")')
    assert caught.value.field == "filter"
    with pytest.raises(ConfigError, match="refused the query"):
        read_session("langsmith", "", project=PROJECT, filter="gt(latency, ")
    with pytest.raises(DatasetError, match="no such project"):
        read_session("langsmith", "", project="no-such-project")


def _export(fake, root: str, *, tree: bool = False) -> list[dict]:
    """The run ``root`` as exported: every run of its trace (``tree``: the chain runs of every node too, each carrying
    the whole state: 66 MB for the 12-ledger case), or the root and its LLM runs only (what the reader reads)."""
    runs = [_stored_run(fake.recorder, r) for r in fake.recorder.runs.values() if str(r.get("trace_id")) == root]
    return [r for r in runs if tree or r["id"] == root or r["run_type"] == "llm"]


def test_an_exported_run_reads_as_the_run_itself_nested_flat_or_as_json_lines(traced, tmp_path, monkeypatch):
    fake, trace, root = traced
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)  # a file needs no key
    by_id = {r["id"]: {**r, "child_runs": []} for r in _export(fake, root, tree=True)}
    for run in by_id.values():
        if run["parent_run_id"]:
            by_id[run["parent_run_id"]]["child_runs"].append(run)
    nested = tmp_path / "nested.json"  # the whole tree, each run under its parent
    nested.write_text(json.dumps(by_id[root]))
    runs = _export(fake, root)
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps(runs))
    lines = tmp_path / "runs.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in runs))
    for path in (nested, flat, lines):
        session = read_session("langsmith", str(path))
        _check(session, trace)
        assert session.source == str(path)


def test_bad_exports_are_refused_naming_file_line_and_field(traced, tmp_path):
    fake, _, root = traced
    runs = _export(fake, root)
    truncated = tmp_path / "truncated.json"
    truncated.write_text(json.dumps(runs, indent=1)[:5000])
    with pytest.raises(DatasetError, match="invalid JSON") as caught:
        read_session("langsmith", str(truncated))
    assert caught.value.path == str(truncated) and caught.value.row is not None and caught.value.row > 1
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'[{"run_type": "chain", "name": "caf\xe9"}]')
    with pytest.raises(DatasetError, match=r"not UTF-8 text \(byte 0xe9"):
        read_session("langsmith", str(latin))
    no_llm = tmp_path / "chain.json"
    no_llm.write_text(json.dumps([r for r in runs if r["run_type"] != "llm"]))
    with pytest.raises(DatasetError, match="no LLM call with messages under it") as caught:
        read_session("langsmith", str(no_llm))
    assert caught.value.field == "run_type"
    two = tmp_path / "two.json"
    two.write_text(json.dumps([*runs, {**runs[0], "id": "x", "trace_id": "another"}]))
    with pytest.raises(DatasetError, match="runs of 2 traces"):
        read_session("langsmith", str(two))
    not_runs = tmp_path / "messages.json"
    not_runs.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    with pytest.raises(DatasetError, match="expected a LangSmith run") as caught:
        read_session("langsmith", str(not_runs))
    assert (caught.value.row, caught.value.field) == (1, "run_type")


def test_an_unknown_run_a_missing_key_and_langsmith_down_say_what(traced, langsmith, monkeypatch):
    unknown = "00000000-0000-4000-8000-000000000000"
    with pytest.raises(DatasetError, match="no such run") as caught:
        read_session("langsmith", unknown)
    assert caught.value.field == "run"
    with pytest.raises(ConfigError, match="give --project too"):
        read_session("langsmith", unknown, filter='eq(name, "x")')
    with pytest.raises(ConfigError, match="not both"):
        read_session("langsmith", unknown, project=PROJECT)
    monkeypatch.delenv("LANGSMITH_API_KEY")
    with pytest.raises(ConfigError, match="needs LANGSMITH_API_KEY"):
        read_session("langsmith", unknown)
    _point_at(monkeypatch, "http://127.0.0.1:9")  # nothing listens: refused at once
    with pytest.raises(EndpointUnreachable, match="LangSmith did not answer") as caught:
        read_session("langsmith", unknown)
    assert KEY not in str(caught.value)
