"""The reference agent's answers to the four probe kinds (recall, continuation, decision, artifact), from what is in
view: the system prompt, user and assistant text, tool results, the summary, pages of the history file."""

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, get_buffer_string

from harness.answers import read_decision, read_paths
from harness.reference.policy import CLARIFICATION, cannot_follow, decide
from harness.reference.view import HISTORY_PAGE_LINES, ReplyAction, ToolAction
from harness.task_format import (
    ARTIFACT_QUESTION,
    fact_sentence,
    render_decision_question,
    render_question,
)
from tests._messages import TASK, call, summary_message

PATH = "/conversation_history/session_abc.md"
DB = "billing database"
DECISION_Q = render_decision_question(DB)
OLD = fact_sentence("decision", DB, "mysql-8")
NEW = fact_sentence("decision", DB, "pg-16", replaces="mysql-8")


def _page(messages: list[BaseMessage], first: int = 1, last: int | None = None) -> str:
    """A read_file page of a history file holding ``messages`` as deepagents offloads them (lines first..last)."""
    lines = f"## Summarized at 2026-11-25T10:00:00+00:00\n\n{get_buffer_string(messages, format='xml')}\n".splitlines()
    last = len(lines) if last is None else last
    more = f" | next offset {last}" if last < len(lines) else ""
    return f"@@ lines {first}-{last} of {len(lines)}{more} @@\n" + "\n".join(lines[first - 1 : last])


def _read(page: str, call_id: str, offset: int = 0) -> list:
    return call("read_file", {"file_path": PATH, "offset": offset, "limit": HISTORY_PAGE_LINES}, page, call_id)


# -- the system prompt and assistant text are read -----------------------------------------------------------------


def test_a_rule_stated_in_the_system_prompt_answers_a_question():
    msgs = [SystemMessage("Rule: the commit prefix is FIN-OPS."), HumanMessage(render_question("commit prefix"))]
    assert decide(msgs) == ReplyAction("FIN-OPS")


def test_the_system_prompt_is_said_before_everything_so_a_later_update_wins():
    msgs = [
        SystemMessage("Rule: the commit prefix is FIN-OPS."),
        summary_message("## SUMMARY\n- Rule (changed): the commit prefix is OPS-2, not FIN-OPS."),
        HumanMessage(render_question("commit prefix")),
    ]
    assert decide(msgs) == ReplyAction("OPS-2")


def test_a_fact_stated_in_a_scripted_assistant_turn_is_answered():
    msgs = [
        HumanMessage("Which region do we deploy to?"),
        AIMessage("Decision: the deploy region is eu-west-1."),
        HumanMessage(render_question("deploy region")),
    ]
    assert decide(msgs) == ReplyAction("eu-west-1")


def test_assistant_text_does_not_count_as_a_request_or_a_plan():
    # The agent's own text quoting the steps is not the user's request: with the task gone it still asks.
    msgs = [summary_message("## SESSION INTENT\nNone\n\n## SUMMARY\n- Step 1 done: fetch_document DOC-001"), AIMessage(TASK)]
    assert decide(msgs) == ReplyAction(CLARIFICATION)


# -- decision probes -------------------------------------------------------------------------------------------------


def test_a_decision_is_answered_with_its_latest_value_and_the_rejected_ones_from_view():
    msgs = [
        HumanMessage(TASK),
        *call("fetch_document", {"doc_id": "DOC-001"}, f"Minutes.\n{OLD}", "c1"),
        *call("fetch_document", {"doc_id": "DOC-002"}, f"Memo.\n{NEW}", "c2"),
        HumanMessage(DECISION_Q),
    ]
    answer = decide(msgs)
    assert answer == ReplyAction("pg-16; rejected: mysql-8")
    reading = read_decision(answer.text, DB, ["mysql-8", "pg-16"])
    assert (reading.value, reading.rejected) == ("pg-16", ("mysql-8",))


def test_a_changed_decision_in_the_summary_names_what_it_rejected():
    # Only the summary is in view: the rejected value comes from its ", not mysql-8".
    msgs = [summary_message(f"## DECISIONS\n- {NEW}"), HumanMessage(DECISION_Q)]
    assert decide(msgs) == ReplyAction("pg-16; rejected: mysql-8")


def test_a_decision_never_changed_rejects_nothing():
    msgs = [summary_message(f"## DECISIONS\n- {OLD}"), HumanMessage(DECISION_Q)]
    assert decide(msgs) == ReplyAction("mysql-8; rejected: none")


def test_every_earlier_choice_is_rejected_oldest_first_and_once():
    texts = [
        OLD,
        fact_sentence("decision", DB, "pg-15", replaces="mysql-8"),
        fact_sentence("decision", DB, "pg-16", replaces="pg-15"),
    ]
    msgs = [HumanMessage(TASK)]
    for n, text in enumerate(texts):
        msgs += call("fetch_document", {"doc_id": f"DOC-00{n + 1}"}, text, f"c{n}")
    assert decide([*msgs, HumanMessage(DECISION_Q)]) == ReplyAction("pg-16; rejected: mysql-8, pg-15")
    back = fact_sentence("decision", DB, "mysql-8", replaces="pg-16")  # changed back: the latest is never rejected
    msgs += call("fetch_document", {"doc_id": "DOC-009"}, back, "c9")
    assert decide([*msgs, HumanMessage(DECISION_Q)]) == ReplyAction("mysql-8; rejected: pg-15, pg-16")


def test_within_one_text_each_changed_line_rejects_what_came_just_before_it():
    changed = [
        fact_sentence("decision", DB, "pg-15", replaces="mysql-8"),
        fact_sentence("decision", DB, "pg-16", replaces="pg-15"),
    ]
    summary = "## DECISIONS\n" + "\n".join(f"- {line}" for line in changed)
    assert decide([summary_message(summary), HumanMessage(DECISION_Q)]) == ReplyAction("pg-16; rejected: mysql-8, pg-15")
    # What a line replaces was said on that line, after the lines before it.
    lines = f"## DECISIONS\n- {OLD}\n- " + fact_sentence("decision", DB, "pg-16", replaces="sqlite-3")
    assert decide([summary_message(lines), HumanMessage(DECISION_Q)]) == ReplyAction("pg-16; rejected: mysql-8, sqlite-3")


def test_a_stale_decision_on_a_history_page_read_after_the_summary_is_older_than_the_summary():
    msgs = [
        summary_message(f"## DECISIONS\n- {NEW}"),
        *_read(_page([ToolMessage(f"Minutes.\n{OLD}", tool_call_id="x")]), "c1"),
        HumanMessage(DECISION_Q),
    ]
    assert decide(msgs) == ReplyAction("pg-16; rejected: mysql-8")


def test_a_decision_out_of_view_is_looked_for_in_the_history_file_and_answered_from_its_page():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(DECISION_Q)]
    assert decide(msgs) == ToolAction("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES})
    offloaded = [ToolMessage(f"Minutes.\n{OLD}", tool_call_id="a"), ToolMessage(f"Memo.\n{NEW}", tool_call_id="b")]
    msgs += _read(_page(offloaded), "c1")
    assert decide(msgs) == ReplyAction("pg-16; rejected: mysql-8")


def test_a_decision_nowhere_to_be_read_is_not_known():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(DECISION_Q)]
    msgs += _read(_page([HumanMessage("nothing about it")]), "c1")
    answer = decide(msgs)
    assert isinstance(answer, ReplyAction) and answer.text.startswith(f"I don't know the {DB}")


def test_a_decision_probe_is_a_task_the_reference_agent_can_follow():
    assert cannot_follow(DECISION_Q) is None and cannot_follow(ARTIFACT_QUESTION) is None


# -- continuation probes: the value path, on a goal_state fact -------------------------------------------------------


def test_the_next_step_is_the_latest_status_statement():
    first = fact_sentence("goal_state", "next step", "run-tests")
    later = fact_sentence("goal_state", "next step", "deploy-api", replaces="run-tests")
    msgs = [summary_message(f"## CURRENT STATE\n- {first}"), AIMessage(f"Done with the tests. {later}")]
    assert decide([*msgs, HumanMessage(render_question("next step"))]) == ReplyAction("deploy-api")


# -- artifact probes -------------------------------------------------------------------------------------------------


def test_the_artifact_trail_lists_the_files_written_or_edited_in_view_oldest_first_once():
    msgs = [
        HumanMessage(TASK),
        *call("write_file", {"file_path": "/notes/a.md", "content": "a"}, "Updated file /notes/a.md", "c1"),
        *call("read_file", {"file_path": "/ledgers/l.md"}, "@@ lines 1-1 of 1 @@\nrow", "c2"),
        *call("write_file", {"file_path": "/notes/bad.md", "content": "x"}, "Error: permission denied", "c3"),
        *call("edit_file", {"file_path": "/reports/r.md", "old_string": "a", "new_string": "b"}, "Edited /reports/r.md", "c4"),
        *call("edit_file", {"file_path": "/notes/a.md", "old_string": "a", "new_string": "b"}, "Edited /notes/a.md", "c5"),
        HumanMessage(ARTIFACT_QUESTION),
    ]
    answer = decide(msgs)
    assert answer == ReplyAction("/notes/a.md\n/reports/r.md")
    assert read_paths(answer.text).paths == ("/notes/a.md", "/reports/r.md")


def test_the_summary_artifacts_written_or_edited_count_and_read_ones_do_not():
    summary = "## ARTIFACTS\n- /reports/a.md (written)\n- /ledgers/l.md (read)\n- /notes/b.md (edited)"
    msgs = [summary_message(summary), HumanMessage(ARTIFACT_QUESTION)]
    assert decide(msgs) == ReplyAction("/reports/a.md\n/notes/b.md")


def test_an_old_style_summary_lists_artifacts_unmarked_and_they_count_except_the_history_file():
    summary = f"## ARTIFACTS\n- /reports/a.md\n- {PATH}\n\n## SUMMARY\n- Step 2 done: write_file /reports/a.md"
    assert decide([summary_message(summary), HumanMessage(ARTIFACT_QUESTION)]) == ReplyAction("/reports/a.md")


def test_the_artifact_trail_reads_calls_on_history_pages_in_view_then_the_summary_then_view():
    offloaded = [
        AIMessage("", tool_calls=[{"name": "write_file", "args": {"file_path": "/notes/old.md", "content": "n"}, "id": "w1"}]),
        ToolMessage("Updated file /notes/old.md", tool_call_id="w1"),
        AIMessage("", tool_calls=[{"name": "edit_file", "args": {"file_path": "/notes/no.md", "old_string": "a"}, "id": "w2"}]),
        ToolMessage("Error: string not found", tool_call_id="w2"),
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "/ledgers/l.md"}, "id": "w3"}]),
        ToolMessage("@@ lines 1-1 of 1 @@\nrow", tool_call_id="w3"),
    ]
    msgs = [
        summary_message("## ARTIFACTS\n- /reports/r.md (written)"),
        *_read(_page(offloaded), "c1"),
        *call("write_file", {"file_path": "/notes/new.md", "content": "n"}, "Updated file /notes/new.md", "c2"),
        HumanMessage(ARTIFACT_QUESTION),
    ]
    assert decide(msgs) == ReplyAction("/notes/old.md\n/reports/r.md\n/notes/new.md")


def test_a_call_and_its_result_on_either_side_of_a_page_break_are_read_together():
    offloaded = [
        HumanMessage("Write the note."),
        AIMessage("", tool_calls=[{"name": "write_file", "args": {"file_path": "/notes/a.md", "content": "n"}, "id": "w1"}]),
        ToolMessage("Updated file /notes/a.md", tool_call_id="w1"),
    ]
    whole = _page(offloaded)
    total = len(whole.splitlines()) - 1
    call_line = next(n for n, line in enumerate(whole.splitlines()) if "<tool_call" in line)  # 1-based in the file
    first, second = _page(offloaded, 1, call_line), _page(offloaded, call_line + 1, total)
    question = [summary_message("## SUMMARY\nNone"), HumanMessage(ARTIFACT_QUESTION)]
    only_first = [question[0], *_read(first, "c1"), question[1]]
    assert decide(only_first) == ReplyAction("none")  # its result is not in view: not known to have succeeded
    both = [question[0], *_read(second, "c2", call_line), *_read(first, "c1"), question[1]]
    assert decide(both) == ReplyAction("/notes/a.md")


def test_an_artifact_question_is_answered_from_view_without_paging_the_history_file():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(ARTIFACT_QUESTION)]
    assert decide(msgs) == ReplyAction("none")


def test_a_summary_without_an_artifacts_section_still_shows_the_writes_its_progress_lines_record():
    summary = (
        "COMPLETED WORK:\n- Step 1 done: fetch_document DOC-001\n- Step 3 done: write_file /notes/a.md\n- done: edit_file /r/x.md"
    )
    assert decide([summary_message(summary), HumanMessage(ARTIFACT_QUESTION)]) == ReplyAction("/notes/a.md\n/r/x.md")


def test_a_plan_continued_in_a_later_turn_goes_on_after_the_earlier_requests_steps():
    from harness.task_format import Step, render_task

    later = render_task(
        "Carry on.", [Step(4, "fetch_document", "DOC-004"), Step(5, "fetch_document", "DOC-005"), Step(6, "reply")]
    )
    # the summary records steps 1-2 of the first request; steps 4.. are this request's: the next is step 4, not a reply
    msgs = [
        summary_message("## SUMMARY\n- Step 1 done: fetch_document DOC-001\n- Step 2 done: fetch_document DOC-002"),
        HumanMessage(later),
    ]
    assert decide(msgs) == ToolAction("fetch_document", {"doc_id": "DOC-004"})
