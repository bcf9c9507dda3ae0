"""Trace schema 5: one general compaction event, a subagent's model calls and a tool's own model calls as calls of their
own, the provider SDKs' retries; schema-1 traces (written before strategies), schema-2 ones (before subagent calls were
recorded), schema-3 ones (before a tool's model calls had their own role) and schema-4 ones (before the SDKs' retries
were counted) still load and score."""

from pathlib import Path

from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import outcome, score_case, scores_by_key
from harness.trace.schema import EVENT_TYPES, SCHEMA_VERSION, load_trace

V1 = Path(__file__).resolve().parents[1] / "data" / "trace_v1_needle.json.gz"  # harness run, 2026-11-22, schema 1


def test_a_schema_1_trace_loads_as_the_current_schema_and_scores_as_it_did():
    trace = load_trace(V1)
    assert trace.schema_version == SCHEMA_VERSION == 5 and trace.upgraded_from == 1
    assert [e["type"] for e in trace.events] == ["summary"] * 3
    for event in trace.events:
        assert event["strategy"] == "deepagents-summarization"
        assert event["tokens_before"] > event["tokens_after"] and event["dropped"]["messages"] > 0
    scenario = {s.id: s for s in load_scenarios(all_scenario_files())}[trace.case_id]
    scores = score_case(trace, scenario)
    by_key = scores_by_key(scores)
    assert by_key["compacted"].value == 2 and by_key["needle_via_history"].value  # 2 of the 3 came before the question
    assert outcome(scores, trace.error) == ("PASS", [])


def test_every_recorded_event_has_the_common_fields(needle_trace):
    assert needle_trace.events
    for event in needle_trace.events:
        assert event["type"] in EVENT_TYPES
        assert {"strategy", "call_index", "turn", "tokens_before", "tokens_after", "dropped"} <= set(event)


def test_an_unknown_schema_version_is_refused(tmp_path):
    import gzip
    import json

    import pytest

    path = tmp_path / "t.json.gz"
    with gzip.open(path, "wt") as fh:
        json.dump({"schema_version": 99, "case_id": "x", "kind": "needle"}, fh)
    with pytest.raises(ValueError, match="schema_version 99 is not supported"):
        load_trace(path)


def _saved(tmp_path, data):
    import gzip
    import json

    path = tmp_path / "t.json.gz"
    with gzip.open(path, "wt") as fh:
        json.dump(data, fh)
    return load_trace(path)


def test_a_schema_2_trace_loads_and_says_its_subagent_calls_were_not_recorded_only_when_it_delegated(tmp_path):
    call = {"index": 0, "role": "agent", "turn": 0, "message_keys": [], "response": {"text": "", "tool_calls": []}}
    plain = _saved(tmp_path, {"schema_version": 2, "case_id": "x", "kind": "goal", "calls": [call]})
    assert plain.schema_version == 5 and plain.upgraded_from == 2
    assert not plain.unrecorded_subagent_calls() and plain.subagent_calls() == []
    call["response"]["tool_calls"] = [{"name": "task", "args": {}, "id": "t1"}]  # it delegated
    delegated = _saved(tmp_path, {"schema_version": 2, "case_id": "x", "kind": "goal", "calls": [call]})
    assert delegated.unrecorded_subagent_calls()
    recorded = _saved(tmp_path, {"schema_version": 3, "case_id": "x", "kind": "goal", "calls": [call]})
    assert recorded.upgraded_from == 3 and not recorded.unrecorded_subagent_calls()  # schema 3 records them
    current = _saved(tmp_path, {"schema_version": 5, "case_id": "x", "kind": "goal", "calls": [call]})
    assert current.upgraded_from is None and not current.unrecorded_subagent_calls()


def test_a_schema_3_trace_loads_as_the_current_schema_with_its_calls_as_recorded(tmp_path):
    """Schema 3 recorded a tool's own model call as a ``subagent`` call: it loads as it was recorded (the case's total
    is the same, each such call priced at the model it was made on) and says where it came from."""
    calls = [
        {"index": 0, "role": "agent", "turn": 0, "message_keys": [], "response": None},
        {"index": 1, "role": "subagent", "turn": 0, "message_keys": [], "model": "openai:gpt-5-mini", "response": None},
    ]
    old = _saved(tmp_path, {"schema_version": 3, "case_id": "x", "kind": "goal", "calls": calls})
    assert (old.schema_version, old.upgraded_from) == (5, 3)
    assert old.subagent_calls() == [calls[1]] and old.tool_model_calls() == [] and old.agent_calls() == [calls[0]]


def test_a_schema_4_trace_loads_with_its_provider_retries_not_recorded(tmp_path):
    """Schema 4 did not count the provider SDKs' retries: a live schema-4 trace loads with ``provider_retries`` None (no
    count, never a 0 it did not measure) and says where it came from; a schema-5 trace keeps what it counted."""
    from harness.scoring.metrics import provider_retry_metrics

    call = {"index": 0, "role": "agent", "turn": 0, "message_keys": [], "response": None}
    old = _saved(tmp_path, {"schema_version": 4, "case_id": "x", "kind": "goal", "calls": [call], "agent_model": "openai:gpt-5"})
    assert (old.schema_version, old.upgraded_from, old.provider_retries) == (5, 4, None)
    assert provider_retry_metrics(old) == {"provider_retries": None, "provider_retry_backoff_s": None, "failed_model_calls": 0}
    counted = {"count": 2, "backoff_s": 1.5, "by_role": {"agent": {"count": 2, "backoff_s": 1.5}}}
    new = _saved(tmp_path, {"schema_version": 5, "case_id": "x", "kind": "goal", "calls": [call], "provider_retries": counted})
    assert new.upgraded_from is None and new.provider_retries == counted
    assert provider_retry_metrics(new) == {"provider_retries": 2, "provider_retry_backoff_s": 1.5, "failed_model_calls": 0}
