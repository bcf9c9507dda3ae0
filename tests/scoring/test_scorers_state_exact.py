"""Every score the state scorers write, key, value, role and explanation, on each path through them: the history
file checks, long tool-call ids, pasted content and the todo list (the traces of test_scorers_state.py, varied at
the edges: a limit reached exactly, a default used, several summaries or files joined)."""

from __future__ import annotations

from typing import Any

import pytest

from harness import _deepagents_adapter as da
from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers.state import history_scores, long_id_scores, pasted_scores, todo_scores
from harness.trace.schema import Trace
from tests.scoring.test_scorers_state import (
    DOC,
    LONG,
    PATH,
    SAVED,
    _agent_call,
    _history_trace,
    _long_id_trace,
    _pasted_trace,
    _summary_event,
    _todo_trace,
    _todos,
)

H = da.HISTORY_PREFIX
OK, NO = (
    "1 compaction event(s) (summary 900->300)",
    "no compaction happened: the case is invalid, not passed (raise the trigger pressure or the haystack)",
)


def _rows(scores: list) -> list[tuple[str, Any, str, str]]:
    return [(s.key, s.value, s.role, s.explanation) for s in scores]


# -- history ----------------------------------------------------------------------------------------------------------
def _history(trace: Trace) -> list[tuple[str, Any, str, str]]:
    return _rows(history_scores(trace, Scenario(id="goal-x", kind="goal", description="", task="")))


def test_history_every_check_holding():
    assert _history(_history_trace()) == [
        ("compacted", 1, "validity", OK),
        ("history_path_named", True, "check", "each of the 1 summaries names a history file"),
        ("history_file_exists", True, "check", f"every named history file is in the backend ({PATH})"),
        ("history_holds_span", True, "check", "each named file holds every message its summary took out of view (1 summaries)"),
        ("history_files", 1, "measure", "history files named by the summaries; naming scheme: session"),
    ]


def test_history_without_a_summary():
    trace = _history_trace()
    trace.events = []
    assert _history(trace) == [
        ("compacted", 0, "validity", NO),
        ("history_path_named", False, "check", "no summary to name one"),
        ("history_file_exists", False, "check", "no summary names a history file"),
        ("history_holds_span", False, "check", "no history file to hold the span"),
        ("history_files", 0, "measure", "history files named by the summaries; naming scheme: none"),
    ]


def test_history_a_summary_naming_no_file():
    assert _history(_history_trace(path=None))[1:] == [
        ("history_path_named", False, "check", "1 of 1 summaries name no history file (first at call 1)"),
        ("history_file_exists", False, "check", "no summary names a history file"),
        ("history_holds_span", False, "check", "no history file to hold the span"),
        ("history_files", 0, "measure", "history files named by the summaries; naming scheme: none"),
    ]


def test_history_a_named_file_missing_lists_the_history_files_there():
    trace = _history_trace(stored=False)
    trace.final["files"] = {f"{H}b.md": 1, f"{H}a.md": 1, "/l/a.md": 1}
    assert _history(trace)[2:4] == [
        (
            "history_file_exists",
            False,
            "check",
            f"named but not in the backend: {PATH} (files there: {H}a.md, {H}b.md)",
        ),
        ("history_holds_span", False, "check", "no history file to hold the span"),
    ]
    trace.final["files"] = {"/l/a.md": 1}
    assert _history(trace)[2][3] == f"named but not in the backend: {PATH} (files there: none under {H})"


def test_history_a_file_without_its_text_holds_none_of_the_span():
    trace = _history_trace()
    trace.final["history_texts"] = {}
    assert _history(trace)[3] == (
        "history_holds_span",
        False,
        "check",
        f"1 summaries' spans are not in their file; first: call 1, {PATH} lacks 3 of the 3 message(s) summarized away",
    )


def test_history_two_summaries_two_files_two_naming_schemes():
    thread = f"{H}goal-x-1a2b3c4d.md"
    trace = _history_trace()
    history = trace.final["history_texts"][PATH]
    trace.final = {"files": {PATH: 1, thread: 1}, "history_texts": {PATH: history, thread: history}}
    trace.events = [_summary_event(1, PATH), _summary_event(1, thread), _summary_event(1, PATH)]
    assert _history(trace)[1:] == [
        ("history_path_named", True, "check", "each of the 3 summaries names a history file"),
        ("history_file_exists", True, "check", f"every named history file is in the backend ({thread}, {PATH})"),
        ("history_holds_span", True, "check", "each named file holds every message its summary took out of view (3 summaries)"),
        ("history_files", 2, "measure", "history files named by the summaries; naming scheme: session, thread"),
    ]
    trace.events[2] = _summary_event(1, None)
    assert _history(trace)[1] == (
        "history_path_named",
        False,
        "check",
        "1 of 3 summaries name no history file (first at call 1)",
    )


# -- long tool-call ids -----------------------------------------------------------------------------------------------
def _long(trace: Trace, doc: str = DOC) -> list[tuple[str, Any, str, str]]:
    scenario = Scenario(
        id="longid-x",
        kind="needle",
        description="",
        task="",
        documents=(("DOC-001", doc),),
        needles=(Needle("access code", "TANGO-7", "DOC-001", 0.0, 1),),
    )
    return _rows(long_id_scores(trace, scenario))[:2]


OVERSIZED = (
    "long_ids_oversized",
    1,
    "validity",
    f"1 result(s) over the 4,000-character eviction limit answered tool calls with ids over "
    f"{da.TOOL_CALL_PATH_COMPONENT_BYTES} bytes (longest {len(LONG)} characters)",
)
INVALID = (
    "long_ids_oversized",
    0,
    "validity",
    "no over-large result answered a long tool-call id: the case is invalid (is the id style in the task?)",
)


def test_long_id_evicted_whole():
    assert _long(_long_id_trace()) == [
        OVERSIZED,
        ("long_id_evicted", True, "check", "all 1 were replaced by the eviction notice, their whole text in the backend"),
    ]


def test_long_id_kept_whole_names_the_id_cut_to_40_characters():
    assert _long(_long_id_trace(evicted=False))[1] == (
        "long_id_evicted",
        False,
        "check",
        f"1 kept whole in the request (no eviction notice), first id {LONG[:40]}...",
    )


def test_long_id_notice_whose_file_is_short_or_absent():
    expected = (
        "long_id_evicted",
        False,
        "check",
        "the notice names /large_tool_results/call-" + "f" * 64 + ", which the backend does not hold whole",
    )
    assert _long(_long_id_trace(stored=100))[1] == expected
    trace = _long_id_trace()
    trace.final["files"] = {}
    assert _long(trace)[1] == expected


def test_long_id_nothing_to_evict():
    assert _long(_long_id_trace(call_id="call_0123456789abcdef")) == [
        INVALID,
        ("long_id_evicted", False, "check", "nothing to evict"),
    ]


def test_long_id_limits_are_exclusive_and_the_limit_is_four_characters_a_token():
    at_limit = "a" * da.TOOL_CALL_PATH_COMPONENT_BYTES
    assert _long(_long_id_trace(call_id=at_limit))[0] == INVALID  # an id of exactly the component limit fits
    assert _long(_long_id_trace(), doc=DOC[:4000])[0] == INVALID  # exactly the eviction limit is not over it
    assert _long(_long_id_trace(), doc=DOC[:4001])[0] == OVERSIZED
    trace = _long_id_trace()
    trace.config = {"eviction_tokens": 1800}  # 7,200 characters: DOC is over it, though not over 5 a token
    assert len(DOC) < 5 * 1800 and _long(trace)[0][1] == 1


def test_long_id_without_an_eviction_setting_any_result_is_over_the_limit():
    trace = _long_id_trace()
    trace.config = {}
    trace.final["files"] = {}
    assert _long(trace, doc="x") == [
        (
            "long_ids_oversized",
            1,
            "validity",
            f"1 result(s) over the 0-character eviction limit answered tool calls with ids over "
            f"{da.TOOL_CALL_PATH_COMPONENT_BYTES} bytes (longest {len(LONG)} characters)",
        ),
        (
            "long_id_evicted",
            False,
            "check",
            "the notice names /large_tool_results/call-" + "f" * 64 + ", which the backend does not hold whole",
        ),
    ]


# -- pasted content ---------------------------------------------------------------------------------------------------
def _pasted(trace: Trace) -> list[tuple[str, Any, str, str]]:
    needle = Needle("access code", "TANGO-7", "PASTED", 0.0, 1)
    return _rows(pasted_scores(trace, Scenario(id="pasted-x", kind="needle", description="", task="", needles=(needle,))))


OK_BEFORE_1 = "1 compaction event(s) before turn 1 (summary 900->300)"


def test_pasted_read_back():
    saved = da.run_stable_text(SAVED)
    assert _pasted(_pasted_trace()) == [
        ("compacted", 1, "validity", OK_BEFORE_1),
        ("pasted_evicted", 1, "validity", f"the pasted message was saved to {saved} and replaced by a notice in the request"),
        ("pasted_out_of_view", True, "validity", "at the question, neither the pasted fact nor its notice is in the request"),
        ("pasted_in_workspace", True, "check", f"the pasted fact is in {saved}"),
        ("needle_correct", True, "check", "expected 'TANGO-7'; the agent replied 'TANGO-7'"),
        ("pasted_via_file", True, "check", f"read_file on {saved} returned the pasted fact and the reply carried it"),
    ]


def test_pasted_never_saved_still_in_view_not_stored():
    assert _pasted(_pasted_trace(saved=False))[1] == (
        "pasted_evicted",
        0,
        "validity",
        "no user message was replaced by the 'Message content too large' notice: the case is invalid",
    )
    assert _pasted(_pasted_trace(in_view=True))[2] == (
        "pasted_out_of_view",
        False,
        "validity",
        "the pasted content (or its notice) is still in view at the question: the case is invalid",
    )
    assert _pasted(_pasted_trace(stored=False))[3] == (
        "pasted_in_workspace",
        False,
        "check",
        f"no file under {H} holds the pasted fact (1 file(s) there)",
    )


def test_pasted_a_wrong_or_missing_reply_cut_to_160_characters():
    saved = da.run_stable_text(SAVED)
    long_reply = "I do not know. " * 20
    assert _pasted(_pasted_trace(answer=long_reply))[4:] == [
        ("needle_correct", False, "check", f"expected 'TANGO-7'; the agent replied {long_reply[:160]!r}"),
        ("pasted_via_file", False, "check", f"read_file on {saved} returned the fact, but the reply did not carry it"),
    ]
    trace = _pasted_trace()
    trace.final["answers"] = ["noted"]
    assert _pasted(trace)[4] == ("needle_correct", False, "check", "expected 'TANGO-7'; the agent replied ''")


def test_pasted_the_question_never_asked():
    trace = _pasted_trace()
    trace.calls = trace.calls[:1]
    assert _pasted(trace)[2] == ("pasted_out_of_view", False, "validity", "the question was never asked")


def test_pasted_only_reads_of_history_files_in_the_question_turn_count():
    trace = _pasted_trace()
    trace.calls[0]["response"]["tool_calls"] = [{"name": "read_file", "args": {"file_path": SAVED}, "id": "r1"}]
    trace.calls[1]["response"]["tool_calls"] = [
        {"name": "read_file", "args": {"file_path": "/notes/codes.md"}, "id": "r2"},
        {"name": "fetch_document", "args": {"doc_id": f"{H}x"}, "id": "r3"},
    ]
    for i in (2, 3):
        trace.messages[f"p{i}"] = {"type": "tool", "data": {"content": "the access code is TANGO-7", "tool_call_id": f"r{i}"}}
    assert _pasted(trace)[5] == (
        "pasted_via_file",
        False,
        "check",
        f"0 read_file call(s) under {H} in the question turn, none returned the fact",
    )


def test_pasted_compaction_counts_only_before_the_question_and_several_saved_files_are_joined():
    trace = _pasted_trace()
    other = f"{H}1f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.md"
    trace.messages["notice2"] = {
        "type": "human",
        "data": {"content": f"Message content too large and was saved to the filesystem at: {other}\n"},
    }
    trace.calls[0]["message_keys"].append("notice2")
    trace.events.append(_summary_event(1, PATH, turn=1))
    scores = _pasted(trace)
    assert scores[0] == ("compacted", 1, "validity", OK_BEFORE_1)
    stable = da.run_stable_text(", ".join(sorted({SAVED, other})))
    assert scores[1] == (
        "pasted_evicted",
        2,
        "validity",
        f"the pasted message was saved to {stable} and replaced by a notice in the request",
    )


# -- the todo list ----------------------------------------------------------------------------------------------------
def _todo(trace: Trace) -> list[tuple[str, Any, str, str]]:
    return _rows(todo_scores(trace, Scenario(id="todos-x", kind="goal", description="", task="")))


def test_todos_carried_and_finished():
    rows = _todo(_todo_trace())
    assert rows[:5] == [
        ("compacted", 1, "validity", OK),
        ("todos_planned", True, "validity", "a todo list of 2 items was written at call 0, before the first summary"),
        ("todos_reach_model", True, "check", "after each of the 1 summaries the latest todo list was in the request"),
        ("todos_continued", True, "check", "all 2 items of the plan completed in the final state, none set back"),
        ("todo_writes", 3, "measure", "3 write_todos call(s)"),
    ]
    assert rows[5:] == []  # the goal-drift checks are shared, added by `score_case` to every case with steps


def test_todos_not_carried():
    assert _todo(_todo_trace(shown=False))[2] == (
        "todos_reach_model",
        False,
        "check",
        "after 1 of 1 summaries the request showed no current todo list (first at call 1): the plan lives in state only",
    )


def test_todos_lost_unfinished_and_set_back_are_each_named_and_joined():
    first = "1. Read /l/a.md with read_file."
    second = "2. Write /n/a.md with write_file: a one-line note on /l/a.md."
    trace = _todo_trace(final=[{"content": second, "status": "pending"}])
    trace.calls[2]["response"]["tool_calls"][0]["args"]["todos"] = _todos("pending", "completed")
    assert _todo(trace)[3] == (
        "todos_continued",
        False,
        "check",
        f"1 item(s) of the first list missing from the final state (first: {first!r}); 1 item(s) not completed (first: "
        f"{second!r}); 1 item(s) set back after being completed (first: {first!r})",
    )
    assert _todo(_todo_trace(final=_todos("completed", "pending")))[3][3] == f"1 item(s) not completed (first: {second!r})"


def test_todos_without_a_final_list_or_any_list():
    trace = _todo_trace()
    trace.final.pop("todos")
    assert _todo(trace)[3] == ("todos_continued", False, "check", "the final state holds no todo list")
    trace = _todo_trace()
    for call in trace.calls:
        call["response"]["tool_calls"] = []
    assert _todo(trace)[1:5] == [
        ("todos_planned", False, "validity", "no todo list was written before the first summary: the case is invalid"),
        ("todos_reach_model", False, "check", "nothing to carry"),
        ("todos_continued", False, "check", "no todo list was written"),
        ("todo_writes", 0, "measure", "0 write_todos call(s)"),
    ]


def test_todos_without_a_summary_are_not_planned_before_one():
    trace = _todo_trace()
    trace.events = []
    assert _todo(trace)[:3] == [
        ("compacted", 0, "validity", NO),
        ("todos_planned", False, "validity", "no todo list was written before the first summary: the case is invalid"),
        ("todos_reach_model", False, "check", "nothing to carry"),
    ]


def test_todos_planned_names_the_first_write():
    trace = _todo_trace()
    trace.calls.insert(0, _agent_call(0, []))
    for i, call in enumerate(trace.calls):
        call["index"] = i
    trace.events = [_summary_event(2, PATH)]
    assert _todo(trace)[1][3] == "a todo list of 2 items was written at call 1, before the first summary"


def test_only_successful_write_todos_calls_are_writes():
    trace = _todo_trace()
    trace.messages["r3"]["data"]["content"] = "Error: invalid todo list"
    trace.calls[2]["response"]["tool_calls"].append({"name": "read_file", "args": {"file_path": "/l/a.md"}, "id": "ok"})
    trace.messages["ok"] = {"type": "tool", "data": {"content": "| total | 1,200 |", "tool_call_id": "ok"}}
    assert _todo(trace)[4] == ("todo_writes", 2, "measure", "2 write_todos call(s)")


@pytest.mark.parametrize("content", ["1. Lire /l/a.md — café", "2. 読む /l/b.md"])
def test_a_todo_with_non_ascii_content_in_a_write_still_in_view_reaches_the_model(content):
    trace = _todo_trace()
    plan = [{"content": content, "status": "in_progress"}]
    trace.calls[0]["response"]["tool_calls"][0]["args"]["todos"] = plan
    trace.messages["call"]["data"]["tool_calls"][0]["args"]["todos"] = plan
    trace.final["todos"] = [{"content": content, "status": "completed"}]
    assert _todo(trace)[2][1] is True


def test_history_every_missing_file_is_named():
    trace = _history_trace(stored=False)
    trace.events = [_summary_event(1, PATH), _summary_event(1, f"{H}z.md")]
    assert _history(trace)[2][3] == f"named but not in the backend: {PATH}, {H}z.md (files there: none under {H})"


def test_todos_only_lost_names_only_the_loss():
    first = "1. Read /l/a.md with read_file."
    second = "2. Write /n/a.md with write_file: a one-line note on /l/a.md."
    assert _todo(_todo_trace(final=[{"content": second, "status": "completed"}]))[3] == (
        "todos_continued",
        False,
        "check",
        f"1 item(s) of the first list missing from the final state (first: {first!r})",
    )


def test_todos_the_plan_is_the_first_list_written():
    trace = _todo_trace()
    renamed = [{"content": "1. Read /l/z.md with read_file.", "status": "completed"}, _todos("completed", "completed")[1]]
    for call in trace.calls[1:]:
        call["response"]["tool_calls"][0]["args"]["todos"] = renamed
    trace.final["todos"] = renamed
    assert _todo(trace)[3][1] is False  # the first list's first item never completed: it is missing
