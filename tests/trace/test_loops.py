"""harness.trace.loops: each compaction's ratio, the summaries left above the trigger, and runs of compactions without
progress (a new tool call or a reply), read from traces the real recorder made."""

from __future__ import annotations

from harness.trace.frames import calls_frame
from harness.trace.loops import COMPACTION_LOOP_LIMIT, above_trigger, longest_streak, loop_calls, not_shrinking, ratio, streaks
from tests._traces import Conversation

READ = ("read_file", {"file_path": "/ledgers/ledger_01.md"}, "ledger text " * 200)


def _looping(compactions: int, *, repeat: bool):
    """A read, then ``compactions`` calls each headed by a new summary, each reading the same file again (``repeat``)
    or the next one."""
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[READ])
    for k in range(compactions):
        conv.summarize(f"Summary {k}: ledger 1 was read.")
        path = "/ledgers/ledger_01.md" if repeat else f"/ledgers/ledger_{k + 2:02d}.md"
        conv.agent(tools=[("read_file", {"file_path": path}, "ledger text " * 200)])
    conv.answer("TASK COMPLETE")
    return conv.trace(kind="goal")


def test_a_ratio_is_after_over_before_and_unknown_without_both():
    assert ratio({"tokens_before": 200, "tokens_after": 50}) == 0.25
    assert ratio({"tokens_before": None, "tokens_after": 50}) is None
    assert ratio({"tokens_before": 0, "tokens_after": 50}) is None
    assert ratio({"tokens_before": 100, "tokens_after": None}) is None


def test_a_summary_bigger_than_what_it_replaced_does_not_shrink():
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[READ])
    conv.summarize("padding " * 2000)
    conv.answer("TASK COMPLETE")
    trace = conv.trace(kind="goal")
    (event,) = trace.events_of("summary")
    assert ratio(event) > 1 and not_shrinking(trace) == [event]
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[READ])
    conv.summarize("Ledger 1 was read.")
    conv.answer("TASK COMPLETE")
    assert not_shrinking(conv.trace(kind="goal")) == []


def test_a_summary_at_or_above_the_trigger_is_found_and_none_without_a_token_trigger():
    trace = _looping(1, repeat=False)
    (event,) = trace.events_of("summary")
    assert above_trigger(trace, event["tokens_after"]) == [event]
    assert above_trigger(trace, event["tokens_after"] + 1) == []
    assert above_trigger(trace, None) == []


def test_compactions_repeating_the_same_call_are_a_loop_and_new_calls_are_progress():
    looping = _looping(COMPACTION_LOOP_LIMIT, repeat=True)
    worst = longest_streak(looping)
    assert len(worst) == COMPACTION_LOOP_LIMIT
    assert loop_calls(looping) == set(worst.calls) == {e["call_index"] for e in looping.events_of("summary")}
    working = _looping(COMPACTION_LOOP_LIMIT, repeat=False)
    assert [len(s) for s in streaks(working)] == [1] * COMPACTION_LOOP_LIMIT and loop_calls(working) == set()
    assert len(longest_streak(_looping(COMPACTION_LOOP_LIMIT - 1, repeat=True))) == COMPACTION_LOOP_LIMIT - 1
    assert loop_calls(_looping(COMPACTION_LOOP_LIMIT - 1, repeat=True)) == set()


def test_a_failed_call_is_no_progress_and_a_reply_is():
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.agent(tools=[READ])
    conv.summarize("Summary 1.")
    conv.fail(RuntimeError("boom"))
    conv.summarize("Summary 2.")
    conv.agent(tools=[READ])  # the same call again: no progress
    conv.summarize("Summary 3.")
    conv.answer("TASK COMPLETE")  # a reply: progress
    trace = conv.trace(kind="goal")
    assert [len(s) for s in streaks(trace)] == [3]


def test_the_calls_frame_marks_the_calls_of_a_loop():
    frame = calls_frame([_looping(COMPACTION_LOOP_LIMIT, repeat=True)])
    agent = frame[frame["role"] == "agent"]
    assert agent["loop"].sum() == COMPACTION_LOOP_LIMIT
    assert not calls_frame([_looping(COMPACTION_LOOP_LIMIT, repeat=False)])["loop"].any()
