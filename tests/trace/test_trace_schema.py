"""Trace schema 3: one general compaction event, and a subagent's model calls as calls of their own; schema-1 traces
(written before strategies) and schema-2 ones (before subagent calls were recorded) still load and score."""

from pathlib import Path

from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import outcome, score_case, scores_by_key
from harness.trace.schema import EVENT_TYPES, SCHEMA_VERSION, load_trace

V1 = Path(__file__).resolve().parents[1] / "data" / "trace_v1_needle.json.gz"  # harness run, 2026-11-22, schema 1


def test_a_schema_1_trace_loads_as_the_current_schema_and_scores_as_it_did():
    trace = load_trace(V1)
    assert trace.schema_version == SCHEMA_VERSION == 3 and trace.upgraded_from == 1
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
    assert plain.schema_version == 3 and plain.upgraded_from == 2
    assert not plain.unrecorded_subagent_calls() and plain.subagent_calls() == []
    call["response"]["tool_calls"] = [{"name": "task", "args": {}, "id": "t1"}]  # it delegated
    delegated = _saved(tmp_path, {"schema_version": 2, "case_id": "x", "kind": "goal", "calls": [call]})
    assert delegated.unrecorded_subagent_calls()
    current = _saved(tmp_path, {"schema_version": 3, "case_id": "x", "kind": "goal", "calls": [call]})
    assert current.upgraded_from is None and not current.unrecorded_subagent_calls()  # schema 3 records them
