"""The scorers that read deepagents' state and files (issue 20): history file validity, long tool-call-id eviction and
pasted content, each over a hand-built trace that passes and over bad traces that must fail it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_buffer_string, messages_to_dict

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers import scores_by_key
from harness.scoring.scorers.state import (
    history_scores,
    long_id_scores,
    pasted_scores,
    shows_todo,
    summarized_span,
    todo_scores,
)
from harness.trace.schema import Trace
from tests._messages import summary_message

PATH = "/conversation_history/session_" + "ab" * 16 + ".md"
SAVED = "/conversation_history/0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.md"


def _summary_event(call_index: int, path: str | None, turn: int = 0) -> dict[str, Any]:
    return {
        "type": "summary",
        "call_index": call_index,
        "turn": turn,
        "history_path": path,
        "tokens_before": 900,
        "tokens_after": 300,
    }


def _keyed(messages: list) -> dict[str, dict[str, Any]]:
    return {f"m{i}": d for i, d in enumerate(messages_to_dict(messages))}


def _agent_call(index: int, keys: list[str], turn: int = 0, tool_calls: list | None = None, text: str = "") -> dict[str, Any]:
    return {
        "index": index,
        "role": "agent",
        "turn": turn,
        "message_keys": keys,
        "response": {"text": text, "tool_calls": tool_calls or []},
        "error": None,
    }


# -- history file validity ------------------------------------------------------------------
def _history_trace(*, path: str | None = PATH, stored: bool = True, offloaded: int = 3) -> Trace:
    """Five messages; a summary takes the first three out of view and names ``path``; the backend holds the first
    ``offloaded`` of them at ``path`` (when ``stored``)."""
    span = [
        HumanMessage("Review the ledgers <all of them> & note each."),
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "/l/a.md"}, "id": "c1"}]),
        ToolMessage("| total | 1,200 |", tool_call_id="c1"),
    ]
    kept = [
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "/l/b.md"}, "id": "c2"}]),
        ToolMessage("| total | 3,400 |", tool_call_id="c2"),
    ]
    messages = _keyed([*span, *kept, summary_message("The review is under way.", path)])
    history = "## Summarized at <time>\n\n" + get_buffer_string(span[:offloaded], format="xml")
    trace = Trace(case_id="goal-x", kind="goal")
    trace.messages = messages
    trace.calls = [_agent_call(0, ["m0", "m1", "m2", "m3", "m4"]), _agent_call(1, ["m5", "m3", "m4"])]
    trace.events = [_summary_event(1, path)]
    trace.final = {"files": {PATH: len(history)} if stored else {}, "history_texts": {PATH: history} if stored else {}}
    return trace


def _history(trace: Trace) -> dict:
    return scores_by_key(history_scores(trace, Scenario(id="goal-x", kind="goal", description="", task="")))


def test_a_summary_whose_named_file_holds_its_span_passes_every_history_check():
    trace = _history_trace()
    assert summarized_span(trace, trace.events[0]) == ["m0", "m1", "m2"]
    scores = _history(trace)
    assert scores["compacted"].value
    assert scores["history_path_named"].value and scores["history_file_exists"].value and scores["history_holds_span"].value
    assert scores["history_files"].value == 1 and "naming scheme: session" in scores["history_files"].explanation


def test_a_summary_that_names_no_file_fails_history_path_named():
    scores = _history(_history_trace(path=None))
    assert not scores["history_path_named"].value
    assert not scores["history_file_exists"].value and not scores["history_holds_span"].value


def test_a_named_file_missing_from_the_backend_fails_history_file_exists():
    scores = _history(_history_trace(stored=False))
    assert scores["history_path_named"].value
    assert not scores["history_file_exists"].value and "named but not in the backend" in scores["history_file_exists"].explanation
    assert not scores["history_holds_span"].value


def test_a_file_missing_a_summarized_message_fails_history_holds_span():
    scores = _history(_history_trace(offloaded=2))
    assert scores["history_file_exists"].value
    assert not scores["history_holds_span"].value and "lacks 1 of the 3" in scores["history_holds_span"].explanation


def test_a_summary_that_took_nothing_out_of_view_fails_history_holds_span():
    # The request after the summary still carries every message of the one before it: the summary summarized nothing,
    # so its file, however complete, holds no span. An empty span must not pass as a span held whole.
    trace = _history_trace()
    trace.calls[1]["message_keys"] = ["m5", "m0", "m1", "m2", "m3", "m4"]
    assert summarized_span(trace, trace.events[0]) == []
    scores = _history(trace)
    assert scores["history_path_named"].value and scores["history_file_exists"].value
    assert not scores["history_holds_span"].value
    assert scores["history_holds_span"].explanation == (
        f"1 summaries' spans are not in their file; first: call 1, {PATH} lacks 0 of the 0 message(s) summarized away"
    )


def test_a_summary_with_no_agent_call_before_it_summarized_nothing():
    trace = _history_trace()
    trace.calls = [trace.calls[1]]
    trace.events = [_summary_event(1, PATH)]
    assert summarized_span(trace, trace.events[0]) == []
    assert not _history(trace)["history_holds_span"].value


def test_without_a_summary_the_case_is_invalid_and_no_history_check_passes():
    trace = _history_trace()
    trace.events = []
    scores = _history(trace)
    assert not scores["compacted"].value
    assert not any(scores[k].value for k in ("history_path_named", "history_file_exists", "history_holds_span"))


def test_the_naming_scheme_is_read_from_the_path_whatever_the_version():
    assert da.history_naming("/conversation_history/session_0123abcd.md") == "session"
    assert da.history_naming("/conversation_history/goal-ledgers-12-1a2b3c4d.md") == "thread"
    assert da.history_naming("/elsewhere/session_0123abcd.md") == "other"


# -- long tool-call ids ---------------------------------------------------------------------
LONG = "call_" + "a" * 235
EVICTED = "/large_tool_results/call-" + "f" * 64
DOC = "For the record, the access code is TANGO-7.\n" + "filler line of the archive\n" * 300


def _long_id_trace(*, call_id: str = LONG, evicted: bool = True, stored: int = len(DOC), answer: str = "TANGO-7") -> Trace:
    page = "@@ lines 1-200 of 301 | next offset 200 @@\nFor the record, the access code is TANGO-7."
    trace = Trace(case_id="longid-x", kind="needle", config={"eviction_tokens": 1000})
    trace.calls = [
        _agent_call(0, [], tool_calls=[{"name": "fetch_document", "args": {"doc_id": "DOC-001"}, "id": call_id}]),
        _agent_call(1, [], turn=1, tool_calls=[{"name": "read_file", "args": {"file_path": EVICTED}, "id": "r1"}]),
    ]
    trace.messages = {"t1": {"type": "tool", "data": {"content": page, "tool_call_id": "r1"}}}
    trace.events = [{"type": "evict", "call_index": 1, "turn": 0, "tool_call_id": call_id, "path": EVICTED}] if evicted else []
    trace.final = {"files": {EVICTED: stored} if evicted else {}, "answers": ["TASK COMPLETE", answer]}
    return trace


def _long_id(trace: Trace) -> dict:
    scenario = Scenario(
        id="longid-x",
        kind="needle",
        description="",
        task="",
        documents=(("DOC-001", DOC),),
        needles=(Needle("access code", "TANGO-7", "DOC-001", 0.0, 1),),
    )
    return scores_by_key(long_id_scores(trace, scenario))


def test_a_long_id_result_evicted_whole_and_paged_back_passes():
    scores = _long_id(_long_id_trace())
    assert scores["long_ids_oversized"].value == 1
    assert scores["long_id_evicted"].value and scores["needle_correct"].value and scores["needle_via_eviction_file"].value
    assert "evicted" not in scores  # its validity is what long_id_evicted asks: a kept result is a FAIL, not INVALID


def test_a_long_id_result_kept_whole_in_the_request_fails_long_id_evicted():
    scores = _long_id(_long_id_trace(evicted=False))
    assert scores["long_ids_oversized"].value
    assert not scores["long_id_evicted"].value and "kept whole" in scores["long_id_evicted"].explanation
    assert not scores["needle_via_eviction_file"].value


def test_a_notice_whose_file_is_not_whole_in_the_backend_fails_long_id_evicted():
    scores = _long_id(_long_id_trace(stored=100))
    assert not scores["long_id_evicted"].value and "does not hold whole" in scores["long_id_evicted"].explanation


def test_short_ids_make_the_case_invalid():
    scores = _long_id(_long_id_trace(call_id="call_0123456789abcdef"))
    assert not scores["long_ids_oversized"].value and not scores["long_id_evicted"].value


# -- pasted content -------------------------------------------------------------------------
NOTICE = f"Message content too large and was saved to the filesystem at: {SAVED}\n\nYou can read the full content ..."


def _pasted_trace(*, saved: bool = True, in_view: bool = False, stored: bool = True, answer: str = "TANGO-7") -> Trace:
    trace = Trace(case_id="pasted-x", kind="needle")
    trace.messages = {
        "notice": {"type": "human", "data": {"content": NOTICE if saved else "I am pasting a brief: " + "x " * 50}},
        "summary": {"type": "human", "data": {"content": "You are in the middle of a conversation that has been summarized."}},
        "question": {"type": "human", "data": {"content": "Question: What is the access code? Reply with the value only."}},
        "page": {"type": "tool", "data": {"content": "@@ lines 1-40 of 40 @@\nthe access code is TANGO-7", "tool_call_id": "r1"}},
    }
    trace.calls = [
        _agent_call(0, ["notice"]),
        _agent_call(
            1,
            ["summary", *(["notice"] if in_view else []), "question"],
            turn=1,
            tool_calls=[{"name": "read_file", "args": {"file_path": SAVED}, "id": "r1"}],
        ),
    ]
    trace.events = [_summary_event(1, PATH, turn=0)]
    texts = {SAVED: "I am pasting ... For the record, the access code is TANGO-7. ..." if stored else "a preview only"}
    trace.final = {"history_texts": texts, "answers": ["noted", answer]}
    return trace


def _pasted(trace: Trace) -> dict:
    needle = Needle("access code", "TANGO-7", "PASTED", 0.0, 1)
    return scores_by_key(pasted_scores(trace, Scenario(id="pasted-x", kind="needle", description="", task="", needles=(needle,))))


def test_a_pasted_fact_read_back_from_the_saved_message_passes():
    scores = _pasted(_pasted_trace())
    assert scores["compacted"].value and scores["pasted_evicted"].value and scores["pasted_out_of_view"].value
    assert scores["pasted_in_workspace"].value and scores["needle_correct"].value and scores["pasted_via_file"].value


def test_a_paste_that_was_never_saved_makes_the_case_invalid():
    assert not _pasted(_pasted_trace(saved=False))["pasted_evicted"].value


def test_a_paste_still_in_view_at_the_question_makes_the_case_invalid():
    assert not _pasted(_pasted_trace(in_view=True))["pasted_out_of_view"].value


def test_a_fact_in_no_workspace_file_fails_pasted_in_workspace():
    assert not _pasted(_pasted_trace(stored=False))["pasted_in_workspace"].value


def test_a_wrong_reply_after_reading_the_fact_fails_pasted_via_file():
    scores = _pasted(_pasted_trace(answer="I don't know"))
    assert not scores["needle_correct"].value
    assert not scores["pasted_via_file"].value and "did not carry it" in scores["pasted_via_file"].explanation


def test_offloaded_in_history_reads_deepagents_xml_escaping():
    text = get_buffer_string([HumanMessage("a <b> & c")], format="xml")
    [data] = messages_to_dict([HumanMessage("a <b> & c")])
    assert da.offloaded_in_history(data, text)
    assert not da.offloaded_in_history(data, '<message type="human">a b c</message>')


# -- the todo list across summaries ---------------------------------------------------------
ITEMS = ["1. Read /l/a.md with read_file.", "2. Write /n/a.md with write_file: a one-line note on /l/a.md."]


def _todos(*statuses: str) -> list[dict[str, str]]:
    return [{"content": c, "status": s} for c, s in zip(ITEMS, statuses)]


def _todo_trace(*, shown: bool = True, final: list | None = None, second: tuple = ("completed", "in_progress")) -> Trace:
    """write_todos (plan) -> a summary (the list in its request when ``shown``) -> write_todos (``second``) -> the
    last write_todos; the final state holds ``final`` (default: both completed)."""
    writes = [_todos("in_progress", "pending"), _todos(*second), _todos("completed", "completed")]
    trace = Trace(case_id="todos-x", kind="goal")
    trace.messages = {
        "summary": {"type": "human", "data": {"content": "You are in the middle of a conversation that has been summarized."}},
        "call": {
            "type": "ai",
            "data": {"content": "", "tool_calls": [{"name": "write_todos", "args": {"todos": writes[0]}, "id": "w1"}]},
        },
        **{f"r{i}": {"type": "tool", "data": {"content": "Updated todo list", "tool_call_id": f"w{i}"}} for i in (1, 2, 3)},
    }
    trace.calls = [
        _agent_call(0, [], tool_calls=[{"name": "write_todos", "args": {"todos": writes[0]}, "id": "w1"}]),
        _agent_call(
            1,
            ["summary", *(["call", "r1"] if shown else [])],
            tool_calls=[{"name": "write_todos", "args": {"todos": writes[1]}, "id": "w2"}],
        ),
        _agent_call(2, ["summary"], tool_calls=[{"name": "write_todos", "args": {"todos": writes[2]}, "id": "w3"}]),
    ]
    trace.events = [_summary_event(1, PATH)]
    trace.final = {"todos": _todos("completed", "completed") if final is None else final, "answers": ["TASK COMPLETE"]}
    return trace


def _todo(trace: Trace) -> dict:
    return scores_by_key(todo_scores(trace, Scenario(id="todos-x", kind="goal", description="", task="")))


def test_a_plan_in_view_after_the_summary_and_finished_passes():
    scores = _todo(_todo_trace())
    assert scores["todos_planned"].value and scores["todos_reach_model"].value and scores["todos_continued"].value
    assert scores["todo_writes"].value == 3


def test_a_plan_out_of_the_request_after_a_summary_fails_todos_reach_model():
    scores = _todo(_todo_trace(shown=False))
    assert not scores["todos_reach_model"].value and "plan lives in state only" in scores["todos_reach_model"].explanation


def test_the_step_list_without_statuses_does_not_count_as_the_plan_reaching_the_model():
    assert shows_todo('{"content": "1. Read /l/a.md with read_file.", "status": "completed"}', _todos("completed")[0])
    assert not shows_todo("1. Read /l/a.md with read_file.\n2. Write /n/a.md ...", _todos("completed")[0])


def test_an_item_lost_from_the_final_state_fails_todos_continued():
    scores = _todo(_todo_trace(final=_todos("completed")[:1]))
    assert not scores["todos_continued"].value and "missing from the final state" in scores["todos_continued"].explanation


def test_an_unfinished_item_fails_todos_continued():
    scores = _todo(_todo_trace(final=_todos("completed", "pending")))
    assert not scores["todos_continued"].value and "not completed" in scores["todos_continued"].explanation


def test_a_completed_item_set_back_is_a_restart_and_fails_todos_continued():
    scores = _todo(_todo_trace(second=("in_progress", "pending")))
    assert scores["todos_continued"].value  # never completed before: no restart
    writes_back = _todo_trace()
    writes_back.calls[1]["response"]["tool_calls"][0]["args"]["todos"] = _todos("completed", "in_progress")
    writes_back.calls[2]["response"]["tool_calls"][0]["args"]["todos"] = _todos("pending", "completed")
    scores = _todo(writes_back)
    assert not scores["todos_continued"].value and "set back" in scores["todos_continued"].explanation


def test_no_plan_before_the_first_summary_makes_the_case_invalid():
    trace = _todo_trace()
    trace.calls[0]["response"]["tool_calls"] = []
    scores = _todo(trace)
    assert not scores["todos_planned"].value and not scores["todos_reach_model"].value
