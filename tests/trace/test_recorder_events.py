"""The recorder's compaction events, driven with hand-built requests (no agent runs).

Each test builds the request the recorder middleware would see (messages as sent, the agent state before the call)
and checks the exact event dicts: summaries (threshold and overflow), LangChain's state rewrite, masks, trims,
evictions and clipped arguments, each reported once, in the call where it first appears.
"""

from __future__ import annotations

from langchain_core.exceptions import ContextOverflowError
from langchain_core.messages import HumanMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness.trace.recorder import Recorder
from tests._recorder_inputs import (
    HISTORY,
    clipped,
    deepagents_summary,
    evicted,
    fetch,
    langchain_summary,
    masked,
    overhead,
    request,
    summarized_state,
    tokens,
    write,
)

TASK = HumanMessage("Review the archive and report the vault code.")
A1, T1 = fetch("c1", "document one " * 40)
A2, T2 = fetch("c2", "document two " * 40)
A3, T3 = fetch("c3", "document three " * 40)
A4, T4 = fetch("c4", "document four " * 40)
HISTORY_MSGS = [TASK, A1, T1, A2, T2, A3, T3]


def key_of(rec: Recorder, msg) -> str:  # noqa: ANN001
    return rec._entry(msg)[0]


def base(rec: Recorder, kind: str, call: dict, **fields) -> dict:  # noqa: ANN003
    """An event dict as the recorder writes it: the common fields, then the event's own."""
    return {
        "type": kind,
        "strategy": rec.strategy,
        "call_index": call["index"],
        "turn": call["turn"],
        "tokens_before": None,
        "tokens_after": None,
        "dropped": {},
        **fields,
    }


# -- plain calls ------------------------------------------------------------------------------------------------------
def test_a_request_nothing_compacted_is_an_agent_call_with_its_tokens_and_no_event():
    rec = Recorder()
    rec.now = lambda: 1.23456789
    call = rec.before_agent_call(request([TASK, A1, T1]))
    assert rec.calls == [call]
    assert call["role"] == "agent" and call["index"] == 0 and call["turn"] == 0
    assert call["started_s"] == 1.234568
    assert call["message_keys"] == [key_of(rec, TASK), key_of(rec, A1), key_of(rec, T1)]
    assert call["overhead_tokens"] == overhead() > 0
    assert call["approx_tokens"] == overhead() + tokens(TASK, A1, T1)
    assert call["summary_at_head"] is False
    assert rec.events == []


def test_the_agent_state_is_not_read_when_no_event_needs_it_but_is_for_a_trimming_strategy():
    """deepagents' summarization only reads the conversation's size for a summary; a trimming strategy reads it on
    every call (the state's private summarization event is what effective_messages reads)."""

    class Watched(dict):
        read: list

        def get(self, key, default=None):  # noqa: ANN001, ANN202
            self.read.append(key)
            return super().get(key, default)

    for strategy, reads_event in [("deepagents-summarization", False), ("sliding-window", True), ("my-own-function", True)]:
        state = Watched(messages=[TASK, A1, T1])
        state.read = []
        Recorder(strategy=strategy).before_agent_call(request([TASK, A1, T1], state=state))
        assert (da.EVENT_KEY in state.read) is reads_event, strategy


def test_a_state_without_messages_is_read_as_an_empty_conversation():
    rec = Recorder(strategy="sliding-window")
    rec.before_agent_call(request([TASK], state={}))
    assert rec.events == []


def test_the_turn_in_progress_is_stamped_on_calls_and_events():
    rec = Recorder()
    rec.turn = 3
    call = rec.before_agent_call(request([TASK, evicted("c1")]))
    assert call["turn"] == 3 and rec.events[0]["turn"] == 3


# -- summaries (deepagents: the state keeps everything, the request is rebuilt) ---------------------------------------------
def test_a_summary_made_in_this_call_is_an_event_with_the_conversation_before_and_the_request_after():
    rec = Recorder()
    rec.before_agent_call(request(HISTORY_MSGS))
    summ = deepagents_summary("Fetched c1..c3; nothing found yet.")
    msgs = [summ, A3, T3]  # cutoff at index 5: A3, T3 kept
    call = rec.before_agent_call(request(msgs, state={"messages": HISTORY_MSGS}))
    assert call["summary_at_head"] is True
    assert call["approx_tokens"] == overhead() + tokens(*msgs)
    assert rec.events == [
        base(
            rec,
            "summary",
            call,
            tokens_before=overhead() + tokens(*HISTORY_MSGS),
            tokens_after=call["approx_tokens"],
            messages_before=7,
            messages_after=3,
            history_path=HISTORY,
            summary_key=key_of(rec, summ),
            cause="threshold",
            dropped={"messages": 5},
        )
    ]
    assert rec.events[0]["strategy"] == "deepagents-summarization"


def test_a_summary_sent_again_in_later_calls_is_not_a_new_event():
    rec = Recorder()
    summ = deepagents_summary("Fetched c1..c3.")
    rec.before_agent_call(request([summ, A3, T3], state={"messages": HISTORY_MSGS}))
    assert [e["type"] for e in rec.events] == ["summary"]
    later = summarized_state([*HISTORY_MSGS, A4, T4], summ, cutoff=5)
    call = rec.before_agent_call(request([summ, A3, T3, A4, T4], state=later))
    assert call["summary_at_head"] is True
    assert [e["type"] for e in rec.events] == ["summary"]


def test_a_new_summary_as_long_as_the_last_one_is_still_a_new_event():
    rec = Recorder()
    first = deepagents_summary("Fetched c1..c3.")
    rec.before_agent_call(request([first, A3, T3], state={"messages": HISTORY_MSGS}))
    second = deepagents_summary("Fetched c1..c4.")
    assert tokens(first) == tokens(second)
    state = summarized_state([*HISTORY_MSGS, A4, T4], first, cutoff=5)
    rec.before_agent_call(request([second, T4], state=state))
    assert [e["type"] for e in rec.events] == ["summary", "summary"]


def test_a_second_summary_counts_the_previous_summary_and_what_followed_it_as_before():
    rec = Recorder()
    first = deepagents_summary("Fetched c1..c3.")
    rec.before_agent_call(request([first, A3, T3], state={"messages": HISTORY_MSGS}))
    second = deepagents_summary("Fetched c1..c4; still looking.")
    state = summarized_state([*HISTORY_MSGS, A4, T4], first, cutoff=5)  # effective: first, A3, T3, A4, T4
    call = rec.before_agent_call(request([second, T4], state=state))
    assert len(rec.events) == 2
    assert rec.events[1] == base(
        rec,
        "summary",
        call,
        tokens_before=overhead() + tokens(first, A3, T3, A4, T4),
        tokens_after=overhead() + tokens(second, T4),
        messages_before=5,
        messages_after=2,
        history_path=HISTORY,
        summary_key=key_of(rec, second),
        cause="threshold",
        dropped={"messages": 4},
    )


def test_a_summary_that_drops_nothing_records_zero_dropped_never_a_negative_count():
    rec = Recorder()
    summ = deepagents_summary("Nothing yet.")
    rec.before_agent_call(request([summ, TASK, A1], state={"messages": [TASK]}))
    (event,) = rec.events
    assert (event["messages_before"], event["messages_after"], event["dropped"]) == (1, 3, {"messages": 0})


def test_a_summary_that_keeps_exactly_what_it_was_given_drops_zero_messages():
    rec = Recorder()
    summ = deepagents_summary("Nothing yet.")
    rec.before_agent_call(request([summ, TASK, A1], state={"messages": [TASK, A1]}))
    assert rec.events[0]["dropped"] == {"messages": 0}


def test_a_summary_whose_history_offload_failed_has_no_history_path():
    rec = Recorder()
    rec.before_agent_call(request([deepagents_summary("s", path=None), T3], state={"messages": HISTORY_MSGS}))
    assert rec.events[0]["history_path"] is None


def test_a_summary_in_the_very_first_call_is_a_threshold_summary():
    rec = Recorder()
    call = rec.before_agent_call(request([deepagents_summary("s"), T3], state={"messages": HISTORY_MSGS}))
    assert call["index"] == 0
    assert [(e["type"], e["cause"]) for e in rec.events] == [("summary", "threshold")]


def test_a_message_that_is_a_summary_only_further_down_does_not_head_the_request():
    rec = Recorder()
    call = rec.before_agent_call(request([TASK, deepagents_summary("s")]))
    assert call["summary_at_head"] is False and rec.events == []


# -- overflow recovery ------------------------------------------------------------------------------------------------------
def _failed_then_summarized(error: BaseException) -> Recorder:
    """An agent call rejected with ``error``, the summarizer's call, then the retry headed by a new summary."""
    rec = Recorder()
    failed = rec.before_agent_call(request(HISTORY_MSGS))
    rec.finish_call(failed, rec.now(), error=error)
    rec.callback.on_chat_model_start(
        {}, [[HumanMessage("Summarize this.")]], run_id="s1", metadata={"lc_source": "summarization"}
    )
    rec.before_agent_call(request([deepagents_summary("s"), A3, T3], state={"messages": HISTORY_MSGS}))
    return rec


def test_a_summary_right_after_a_context_overflow_is_an_overflow_summary_and_a_recovery_event():
    rec = _failed_then_summarized(ContextOverflowError("prompt is too long: context_length_exceeded"))
    assert [c["role"] for c in rec.calls] == ["agent", "summarizer", "agent"]
    summary, recovery = rec.events
    assert summary["type"] == "summary" and summary["cause"] == "overflow"
    assert recovery == base(rec, "overflow-recovery", rec.calls[2], failed_call_index=0)


def test_a_summary_after_a_call_that_failed_for_another_reason_is_a_threshold_summary():
    rec = _failed_then_summarized(ValueError("bad request"))
    assert [(e["type"], e["cause"]) for e in rec.events] == [("summary", "threshold")]


def test_only_the_agent_call_just_before_decides_an_overflow_summary():
    rec = Recorder()
    failed = rec.before_agent_call(request(HISTORY_MSGS))
    rec.finish_call(failed, rec.now(), error=ContextOverflowError("prompt is too long"))
    rec.before_agent_call(request(HISTORY_MSGS[:3]))  # a later call that went through
    rec.before_agent_call(request([deepagents_summary("s"), A3, T3], state={"messages": HISTORY_MSGS}))
    assert [(e["type"], e["cause"]) for e in rec.events] == [("summary", "threshold")]


# -- LangChain's summarization: the state itself is rewritten -----------------------------------------------------------------
def test_a_rewritten_state_counts_before_as_the_previous_request_plus_what_came_since():
    rec = Recorder(strategy="langchain-summarization")
    previous = rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    summ = langchain_summary("Fetched c1, c2.")
    msgs = [summ, A2, T2, A3, T3]
    call = rec.before_agent_call(request(msgs, state={"messages": msgs}))  # the same objects: the state was rewritten
    assert rec.events == [
        base(
            rec,
            "summary",
            call,
            tokens_before=previous["approx_tokens"] + tokens(A3, T3),
            tokens_after=overhead() + tokens(*msgs),
            messages_before=7,
            messages_after=5,
            history_path=None,
            summary_key=key_of(rec, summ),
            cause="threshold",
            dropped={"messages": 3},
        )
    ]


def test_a_rewritten_state_in_the_first_call_has_an_unknown_size_before():
    """What LangChain summarized before the first request was never sent: its size is unknown, not the kept messages'
    alone (a replayed session read 8,100 -> 9,978 tokens that way, a summary that seemed to grow the request)."""
    rec = Recorder(strategy="langchain-summarization")
    summ = langchain_summary("Fetched c1, c2.")
    msgs = [summ, A2, T2]
    rec.before_agent_call(request(msgs, state={"messages": msgs}))
    (event,) = rec.events
    assert event["tokens_before"] is None and event["tokens_after"] == overhead() + tokens(*msgs)
    assert (event["messages_before"], event["dropped"]) == (None, {})


def test_a_summary_not_from_the_state_is_not_read_as_a_rewrite():
    """The request's head is a new message object (deepagents' rebuild), so before is the state's conversation."""
    rec = Recorder(strategy="langchain-summarization")
    rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    summ = langchain_summary("Fetched c1, c2.")
    state_msgs = [langchain_summary("Fetched c1, c2."), A2, T2]  # equal content, another object
    rec.before_agent_call(request([summ, A2, T2], state={"messages": state_msgs}))
    assert (rec.events[0]["messages_before"], rec.events[0]["tokens_before"]) == (3, overhead() + tokens(*state_msgs))


# -- masks ----------------------------------------------------------------------------------------------------------------
def test_a_tool_result_masked_for_the_first_time_is_a_mask_event_once():
    rec = Recorder(strategy="observation-masking")
    rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    state = {"messages": [TASK, A1, T1, A2, T2]}
    msgs = [TASK, A1, masked(T1), A2, T2]
    call = rec.before_agent_call(request(msgs, state=state))
    assert rec.events == [
        base(
            rec,
            "mask",
            call,
            tool_call_ids=["c1"],
            masked_now=1,
            tokens_before=overhead() + tokens(TASK, A1, T1, A2, T2),
            tokens_after=overhead() + tokens(*msgs),
            dropped={"tool_results": ["c1"]},
        )
    ]
    state = {"messages": [TASK, A1, T1, A2, T2, A3, T3]}
    call = rec.before_agent_call(request([TASK, A1, masked(T1), A2, masked(T2), A3, T3], state=state))
    assert len(rec.events) == 2
    assert (rec.events[1]["call_index"], rec.events[1]["tool_call_ids"], rec.events[1]["masked_now"]) == (2, ["c2"], 2)
    rec.before_agent_call(request([TASK, A1, masked(T1), A2, masked(T2), A3, T3, A4, T4], state=state))
    assert len(rec.events) == 2  # nothing newly masked


def test_a_new_summary_and_a_new_mask_in_one_call_are_two_events_and_no_trim():
    rec = Recorder(strategy="hybrid")
    summ = deepagents_summary("s")
    msgs = [summ, A3, masked(T3)]
    call = rec.before_agent_call(request(msgs, state={"messages": HISTORY_MSGS}))
    assert [e["type"] for e in rec.events] == ["summary", "mask"]
    before = overhead() + tokens(*HISTORY_MSGS)
    assert [(e["call_index"], e["tokens_before"], e["tokens_after"]) for e in rec.events] == [
        (0, before, call["approx_tokens"]),
        (0, before, call["approx_tokens"]),
    ]


# -- trims ----------------------------------------------------------------------------------------------------------------
def test_a_window_that_drops_one_message_is_a_trim_event():
    rec = Recorder(strategy="sliding-window")
    note = HumanMessage("Also check the ledgers.")
    state = {"messages": [TASK, note, A1, T1]}
    call = rec.before_agent_call(request([TASK, A1, T1], state=state))
    assert rec.events == [
        base(
            rec,
            "trim",
            call,
            messages_dropped=1,
            tokens_before=overhead() + tokens(TASK, note, A1, T1),
            tokens_after=overhead() + tokens(TASK, A1, T1),
            messages_before=4,
            messages_after=3,
            dropped={"messages": 1},
        )
    ]


def test_a_trim_event_is_recorded_only_when_the_window_reaches_further_back():
    rec = Recorder(strategy="sliding-window")
    full = [TASK, A1, T1, A2, T2, A3, T3, A4, T4]

    def send(n_state: int, dropped: int) -> None:
        state = full[:n_state]
        rec.before_agent_call(request([TASK, *state[1 + dropped :]], state={"messages": state}))

    send(3, 0)  # nothing dropped: no event
    send(5, 2)  # first trim
    send(5, 2)  # the same reach: no event
    send(5, 0)  # nothing dropped now: the reach stays 2
    send(7, 2)  # no further than before
    send(9, 4)  # further: an event
    send(9, 1)  # the window grew back: its reach is now 1
    send(9, 2)  # further than 1: an event
    assert [(e["call_index"], e["messages_dropped"]) for e in rec.events] == [(1, 2), (5, 4), (7, 2)]


def test_a_strategy_that_does_not_trim_records_no_trim_when_nothing_else_happens():
    rec = Recorder()  # deepagents-summarization: the state is not even read
    rec.before_agent_call(request([TASK, A3, T3], state={"messages": HISTORY_MSGS}))
    assert rec.events == []


def test_a_custom_function_that_drops_every_message_is_a_trim_of_all_of_them():
    """Regression: an empty request used to raise IndexError inside the recorder (msgs[0] read before the test)."""
    rec = Recorder(strategy="custom")
    call = rec.before_agent_call(request([], state={"messages": [TASK, A1]}))
    assert call["message_keys"] == [] and call["approx_tokens"] == overhead() and call["summary_at_head"] is False
    assert [(e["type"], e["messages_dropped"], e["messages_after"]) for e in rec.events] == [("trim", 2, 0)]


# -- evictions ----------------------------------------------------------------------------------------------------------------
def test_an_evicted_tool_result_is_an_evict_event_with_its_path_once():
    rec = Recorder()
    call = rec.before_agent_call(request([TASK, A1, evicted("c1")]))
    assert rec.events == [
        base(rec, "evict", call, tool_call_id="c1", path="/large_tool_results/c1", dropped={"tool_results": ["c1"]})
    ]
    call = rec.before_agent_call(request([TASK, A1, evicted("c1"), A2, evicted("c2"), A3, evicted("c3", "/big/c3")]))
    assert [(e["call_index"], e["tool_call_id"], e["path"]) for e in rec.events] == [
        (0, "c1", "/large_tool_results/c1"),
        (1, "c2", "/large_tool_results/c2"),
        (1, "c3", "/big/c3"),
    ]


def test_a_tool_result_that_only_quotes_an_eviction_notice_is_not_an_eviction():
    rec = Recorder()
    quoted = ToolMessage("The log said: " + evicted("c9").text, tool_call_id="c1")
    rec.before_agent_call(request([TASK, A1, quoted]))
    assert rec.events == []


# -- clipped arguments ----------------------------------------------------------------------------------------------------------
def test_clipped_write_and_edit_arguments_are_one_truncate_event_counting_messages_and_arguments():
    rec = Recorder()
    w1 = write("w1", clipped("ledger line " * 10))
    w2 = write("w2", clipped("x" * 50), name="edit_file").model_copy(
        update={
            "tool_calls": [
                {"name": "edit_file", "args": {"old_string": clipped("a" * 30), "new_string": clipped("b" * 30)}, "id": "w2"}
            ]
        }
    )
    call = rec.before_agent_call(request([TASK, w1, ToolMessage("ok", tool_call_id="w1"), w2]))
    assert rec.events == [
        base(
            rec,
            "truncate-args",
            call,
            messages=2,
            args=3,
            tool_call_ids=["w1", "w2"],
            dropped={"args": 3, "tool_call_ids": ["w1", "w2"]},
        )
    ]
    w3 = write("w3", clipped("third file " * 5))
    call = rec.before_agent_call(request([TASK, w1, ToolMessage("ok", tool_call_id="w1"), w2, w3]))
    assert rec.events[1] == base(
        rec, "truncate-args", call, messages=1, args=1, tool_call_ids=["w3"], dropped={"args": 1, "tool_call_ids": ["w3"]}
    )
    rec.before_agent_call(request([TASK, w1, w2, w3]))
    assert len(rec.events) == 2


def test_an_argument_is_clipped_only_by_the_configured_suffix():
    rec = Recorder(truncation_text=" [cut]")
    rec.before_agent_call(request([TASK, write("w1", clipped("abc" * 20)), write("w2", clipped("abc" * 20, " [cut]"))]))
    assert [e["tool_call_ids"] for e in rec.events] == [["w2"]]


def test_by_default_the_suffix_is_deepagents_own():
    rec = Recorder()
    assert rec.truncation_text == da.TRUNCATION_TEXT == "...(argument truncated)"
    rec.before_agent_call(request([TASK, write("w1", clipped("abc" * 20))]))
    assert [e["tool_call_ids"] for e in rec.events] == [["w1"]]


def test_a_write_whose_arguments_are_whole_is_not_an_event():
    rec = Recorder()
    rec.before_agent_call(request([TASK, write("w1", "short file")]))
    assert rec.events == []


# -- all together -------------------------------------------------------------------------------------------------------------------
def test_events_of_one_call_come_in_order_summary_evict_truncate():
    rec = Recorder()
    msgs = [deepagents_summary("s"), A3, evicted("c3"), write("w1", clipped("y" * 40))]
    rec.before_agent_call(request(msgs, state={"messages": HISTORY_MSGS}))
    assert [e["type"] for e in rec.events] == ["summary", "evict", "truncate-args"]
    assert {e["call_index"] for e in rec.events} == {0}


def test_event_with_nothing_dropped_records_an_empty_dropped_dict_and_extra_fields():
    rec = Recorder(strategy="sliding-window")
    call = rec.new_call("agent", [], 0)
    rec.event("custom-kind", call, reason="test")
    assert rec.events == [
        {
            "type": "custom-kind",
            "strategy": "sliding-window",
            "call_index": 0,
            "turn": 0,
            "tokens_before": None,
            "tokens_after": None,
            "dropped": {},
            "reason": "test",
        }
    ]
