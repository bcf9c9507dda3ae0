"""The recorder logs what the model saw at every call, and each compression event."""

import json
from dataclasses import replace

import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from harness.agent.models import ModelChoice
from harness.agent.runner import run_case
from harness.compaction.config import ArgTruncation, ContextSize
from harness.compaction.variants import make_config
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from harness.trace.frames import calls_frame, events_frame
from harness.trace.schema import SCHEMA_VERSION, load_trace


def test_summarization_events_carry_tokens_before_and_after(needle_trace, config):
    events = needle_trace.events_of("summary")
    assert len(events) >= 2
    trigger = config.trigger_tokens()
    for ev in events:
        call = needle_trace.call(ev["call_index"])
        assert ev["tokens_before"] >= trigger > ev["tokens_after"] == call["approx_tokens"]
        assert call["summary_at_head"] and ev["history_path"].startswith("/conversation_history/session_")
        assert da.is_summary_message(needle_trace.request(call)[0])
        assert ev["cause"] == "threshold"


def test_each_summary_is_preceded_by_its_summarizer_call(needle_trace):
    for ev in needle_trace.events_of("summary"):
        before = needle_trace.call(ev["call_index"] - 1)
        assert before["role"] == "summarizer" and before["response"]["text"]
        assert before["response"]["text"] in needle_trace.message_text(ev["summary_key"])


def test_every_agent_call_records_the_request_as_sent(needle_trace):
    calls = needle_trace.agent_calls()
    assert [c["index"] for c in needle_trace.calls] == list(range(len(needle_trace.calls)))
    for call in calls:
        msgs = needle_trace.request(call)
        assert call["approx_tokens"] == call["overhead_tokens"] + count_tokens_approximately(msgs)
        assert call["duration_s"] is not None and (call["response"] or call["error"])
    assert 2000 < calls[0]["overhead_tokens"] < 4000  # deepagents' tool schemas
    assert {c["turn"] for c in calls} == {0, 1}


def test_messages_are_stored_once(needle_trace):
    referenced = [k for c in needle_trace.calls for k in c["message_keys"]]
    systems = {c["system_key"] for c in needle_trace.agent_calls()}
    assert len(systems) == 1 and None not in systems  # the system prompt, stored once, named by every agent call
    assert set(referenced) | systems == set(needle_trace.messages)  # no orphans, nothing missing
    assert len(needle_trace.messages) < len(referenced) / 2  # each message stored once, sent many times


def test_trace_round_trips_through_disk(needle_trace, tmp_path):
    path = needle_trace.save(tmp_path / "t.json.gz")
    loaded = load_trace(path)
    assert loaded.to_dict() == json.loads(json.dumps(needle_trace.to_dict()))
    assert loaded.schema_version == SCHEMA_VERSION


def test_an_unknown_schema_version_is_refused(needle_trace, tmp_path):
    data = needle_trace.to_dict()
    data["schema_version"] = 99
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="schema_version 99"):
        load_trace(path)


def test_long_frames(needle_trace, goal_trace):
    frame = calls_frame([needle_trace, goal_trace])
    assert len(frame) == len(needle_trace.calls) + len(goal_trace.calls)
    assert set(frame["case_id"]) == {needle_trace.case_id, goal_trace.case_id}
    summ = frame[frame["event"].fillna("").str.contains("summary")]
    assert (summ["tokens_before"] > summ["tokens_after"]).all()
    assert frame["trigger_tokens"].dropna().unique().tolist() == [12800]
    events = events_frame([needle_trace])
    assert set(events["type"]) == {"summary"}


def test_eviction_of_a_large_tool_result_is_recorded(scenarios, config, models):
    cfg = replace(config, eviction_tokens=1000)  # 4,000 characters: every 8,000-character document is evicted
    trace = run_case(scenarios["needle-h24k-d000"], cfg, models)
    evictions = trace.events_of("evict")
    assert evictions and all(e["path"].startswith("/large_tool_results/") for e in evictions)
    assert len({e["tool_call_id"] for e in evictions}) == len(evictions)


def test_argument_truncation_is_recorded(scenarios, config, models):
    clip = ArgTruncation(trigger=ContextSize("fraction", 0.1), keep=ContextSize("messages", 4), max_length=40)
    trace = run_case(scenarios["goal-ledgers-12"], replace(config, arg_truncation=clip), models)
    events = trace.events_of("truncate-args")
    assert events and sum(e["args"] for e in events) >= 5
    clipped = [m for c in trace.agent_calls() for m in trace.request(c) if da.truncated_call_ids(m, clip.truncation_text)]
    assert clipped
    # Each event names the calls first seen clipped, each once: scorers match them to the writes.
    ids = [i for e in events for i in e["tool_call_ids"]]
    writes = {tc["id"] for _, tc in trace.tool_calls() if tc["name"] == "write_file"}
    assert ids and len(ids) == len(set(ids)) and set(ids) <= writes


class HardLimitAgent(ReferenceAgentModel):
    """A reference agent whose provider rejects requests above a hard input limit."""

    limit: int = 0

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if count_tokens_approximately(messages) > self.limit:
            raise ContextOverflowError("prompt is too long: context_length_exceeded")
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_overflow_fallback_is_recorded_as_such(scenarios):
    cfg = make_config("deepagents-85")  # 85 % trigger: only the overflow can cause a summary
    agent = HardLimitAgent(limit=14000, profile={"max_input_tokens": cfg.window})
    models = ModelChoice(agent, ReferenceSummarizerModel(), "hard-limit", "reference-summarizer", True)
    trace = run_case(scenarios["goal-ledgers-12"], cfg, models)
    failed = [c for c in trace.agent_calls() if c["error"]]
    assert failed and all(c["error"]["context_overflow"] for c in failed)
    recoveries = trace.events_of("overflow-recovery")
    assert [r["failed_call_index"] for r in recoveries] == [c["index"] for c in failed]
    assert {e["cause"] for e in trace.events_of("summary")} == {"overflow"}
    assert trace.error is None
