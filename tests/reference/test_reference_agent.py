import pytest
from langchain_core.messages import HumanMessage

from harness.reference import ReferenceAgentModel
from harness.reference.policy import CLARIFICATION, decide
from harness.reference.view import HISTORY_PAGE_LINES, ReplyAction, ToolAction
from harness.task_format import Step, render_task
from tests._messages import QUESTION, TASK, call, summary_message

PATH = "/conversation_history/session_abc.md"


def test_follows_the_visible_task_step_by_step():
    assert decide([HumanMessage(TASK)]) == ToolAction("fetch_document", {"doc_id": "DOC-001"})
    msgs = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, "DOC-001: memo", "c1")]
    assert decide(msgs) == ToolAction("fetch_document", {"doc_id": "DOC-002"})


def test_a_failed_tool_call_is_not_progress():
    msgs = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, "Error: no document", "c1")]
    assert decide(msgs) == ToolAction("fetch_document", {"doc_id": "DOC-001"})


def test_continues_after_a_summary_that_quotes_the_task_and_records_progress():
    quoted = "\n".join("> " + line for line in TASK.splitlines())
    summary = f"## SESSION INTENT\nOriginal request:\n{quoted}\n\n## SUMMARY\n- Step 1 done: fetch_document DOC-001\n- Step 2 done: fetch_document DOC-002"
    action = decide([summary_message(summary)])
    assert action == ToolAction("read_file", {"file_path": "/ledgers/a.md"})


def test_writes_its_note_from_the_latest_visible_read():
    msgs = (
        [HumanMessage(TASK)]
        + call("fetch_document", {"doc_id": "DOC-001"}, "x", "c1")
        + call("fetch_document", {"doc_id": "DOC-002"}, "y", "c2")
    )
    msgs += call("read_file", {"file_path": "/ledgers/a.md"}, "@@ lines 1-2 of 2 @@\n# Ledger A\n| x |", "c3")
    action = decide(msgs)
    assert action.name == "write_file" and action.args["file_path"] == "/notes/a.md"
    assert action.args["content"].startswith("Note on /ledgers/a.md: # Ledger A")


def test_asks_for_clarification_when_the_task_is_no_longer_visible():
    summary = "## SESSION INTENT\nNone\n\n## SUMMARY\n- Step 1 done: fetch_document DOC-001"
    assert decide([summary_message(summary)]) == ReplyAction(CLARIFICATION)


def test_replies_complete_only_after_the_last_step():
    quoted = "\n".join("> " + line for line in TASK.splitlines())
    summary = f"## SESSION INTENT\nOriginal request:\n{quoted}\n\n## SUMMARY\n- Step 4 done: write_file /notes/a.md"
    action = decide([summary_message(summary)])
    assert isinstance(action, ReplyAction) and action.text.startswith("TASK COMPLETE")


def test_answers_from_what_it_sees():
    msgs = [
        HumanMessage(TASK),
        *call(
            "fetch_document", {"doc_id": "DOC-001"}, "For the record, the access code for the north vault is 4417-KESTREL.", "c1"
        ),
        HumanMessage(QUESTION),
    ]
    assert decide(msgs) == ReplyAction("4417-KESTREL")


def test_is_not_fooled_by_a_distractor_with_a_similar_key():
    msgs = [
        summary_message("## SUMMARY\nNone"),
        *call("fetch_document", {"doc_id": "DOC-009"}, "the access code for the south vault is 9921-HERON.", "c1"),
        HumanMessage(QUESTION),
    ]
    assert decide(msgs) == ToolAction("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES})


def test_pages_the_history_file_named_by_the_summary():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(QUESTION)]
    assert decide(msgs) == ToolAction("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES})
    msgs += call(
        "read_file",
        {"file_path": PATH, "offset": 0, "limit": 200},
        "@@ lines 1-200 of 500 | next offset 200 @@\nnothing here",
        "r1",
    )
    assert decide(msgs) == ToolAction("read_file", {"file_path": PATH, "offset": 200, "limit": HISTORY_PAGE_LINES})
    msgs += call(
        "read_file",
        {"file_path": PATH, "offset": 200, "limit": 200},
        "@@ lines 201-400 of 500 | next offset 400 @@\nthe access code for the north vault is 4417-KESTREL",
        "r2",
    )
    assert decide(msgs) == ReplyAction("4417-KESTREL")


def test_resumes_paging_from_progress_recorded_in_a_summary():
    summary = f"## SESSION INTENT\nLatest request:\n> {QUESTION}\n\n## SUMMARY\n- read_file {PATH} lines 1-200 of 900\n- read_file {PATH} lines 201-400 of 900"
    assert decide([summary_message(summary)]) == ToolAction(
        "read_file", {"file_path": PATH, "offset": 400, "limit": HISTORY_PAGE_LINES}
    )


def test_says_it_does_not_know_when_the_history_is_exhausted():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(QUESTION)]
    msgs += call("read_file", {"file_path": PATH, "offset": 0, "limit": 200}, "@@ lines 1-120 of 120 @@\nnothing", "r1")
    action = decide(msgs)
    assert isinstance(action, ReplyAction) and action.text.startswith("I don't know")


def test_says_it_does_not_know_when_no_history_file_is_named():
    msgs = [summary_message("## SUMMARY\nNone", path=None), HumanMessage(QUESTION)]
    action = decide(msgs)
    assert isinstance(action, ReplyAction) and "no history file" in action.text


def test_an_unreadable_history_file_ends_the_search():
    msgs = [summary_message("## SUMMARY\nNone"), HumanMessage(QUESTION)]
    msgs += call("read_file", {"file_path": PATH, "offset": 0, "limit": 200}, "Error: file not found", "r1")
    assert isinstance(decide(msgs), ReplyAction)


def test_the_model_is_a_pure_function_of_its_messages():
    model = ReferenceAgentModel().bind_tools([])
    msgs = [HumanMessage(TASK)]
    first, second = model.invoke(msgs), model.invoke(list(msgs))
    assert first.tool_calls == second.tool_calls and first.tool_calls[0]["id"].startswith("call_")


def test_the_agent_model_refuses_to_act_as_a_summarizer():
    with pytest.raises(TypeError, match="ReferenceSummarizerModel"):
        ReferenceAgentModel().invoke("Summarize this")


def test_continues_from_a_remaining_plan_without_the_original_request():
    plan = "\n".join("> " + line for line in TASK.splitlines()[-2:])  # steps 4 and 5 only
    summary = f"COMPLETED WORK\n- Step 3 done: read_file /ledgers/a.md\n\nREMAINING PLAN\nContinue with step 4. Remaining steps:\n{plan}"
    action = decide([summary_message(summary)])
    assert action.name == "write_file" and action.args["file_path"] == "/notes/a.md"


def test_pages_evicted_tool_results_named_in_view_before_the_history_file():
    notice = "Tool result too large, the result of this tool call c1 was saved in the filesystem at this path: /large_tool_results/c1\n\npreview..."
    msgs = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, notice, "c1"), HumanMessage(QUESTION)]
    assert decide(msgs) == ToolAction(
        "read_file", {"file_path": "/large_tool_results/c1", "offset": 0, "limit": HISTORY_PAGE_LINES}
    )
    msgs += call(
        "read_file",
        {"file_path": "/large_tool_results/c1", "offset": 0, "limit": 200},
        "[Output was truncated due to size limits.]\n@@ lines 1-33 of 74 | next offset 33 | truncated due to size @@\nno",
        "r1",
    )
    assert decide(msgs) == ToolAction(
        "read_file", {"file_path": "/large_tool_results/c1", "offset": 33, "limit": HISTORY_PAGE_LINES}
    )
    msgs += call(
        "read_file", {"file_path": "/large_tool_results/c1", "offset": 33, "limit": 200}, "@@ lines 34-74 of 74 @@\nnothing", "r2"
    )
    action = decide(msgs)
    assert isinstance(action, ReplyAction) and "/large_tool_results/c1" in action.text


# -- a report rewritten whole, section by section (argument truncation) -----------------
REPORT = "/reports/r.md"
REPORT_TASK = render_task(
    "Write the report.",
    [
        Step(1, "fetch_document", "DOC-001"),
        Step(2, "write_file", REPORT, "DOC-001", "section"),
        Step(3, "fetch_document", "DOC-002"),
        Step(4, "write_file", REPORT, "DOC-002", "add"),
        Step(5, "reply"),
    ],
)
DOC1 = "DOC-001: Teller archive, memo\nFinding: the inspection reference for DOC-001 is 1111-HERON.\nCrates were checked at the dock."
DOC2 = "DOC-002: Teller archive, memo\nThe berth schedule slipped.\nFinding: the inspection reference for DOC-002 is 2222-LARCH."
SECTION1 = (
    "## DOC-001\nSource: DOC-001: Teller archive, memo\nFinding: the inspection reference for DOC-001 is 1111-HERON.\n"
    "- Crates were checked at the dock.\nEnd of section DOC-001.\n"
)
CLIPPED = SECTION1[:20] + "...(argument truncated)"


def _report_so_far(first_write_content: str) -> list:
    msgs = [HumanMessage(REPORT_TASK), *call("fetch_document", {"doc_id": "DOC-001"}, DOC1, "c1")]
    msgs += call("write_file", {"file_path": REPORT, "content": first_write_content}, f"Updated file {REPORT}", "c2")
    return msgs + call("fetch_document", {"doc_id": "DOC-002"}, DOC2, "c3")


def test_a_report_section_quotes_the_heading_title_findings_and_opening_lines():
    msgs = [HumanMessage(REPORT_TASK), *call("fetch_document", {"doc_id": "DOC-001"}, DOC1, "c1")]
    assert decide(msgs) == ToolAction("write_file", {"file_path": REPORT, "content": SECTION1})


def test_adds_a_section_from_its_own_unclipped_write_without_reading_back():
    action = decide(_report_so_far(SECTION1))
    assert action.name == "write_file" and action.args["content"].startswith(SECTION1 + "## DOC-002\n")
    assert "2222-LARCH" in action.args["content"]


def test_reads_the_file_back_when_its_own_write_was_clipped():
    assert decide(_report_so_far(CLIPPED)) == ToolAction(
        "read_file", {"file_path": REPORT, "offset": 0, "limit": HISTORY_PAGE_LINES}
    )


def test_rebuilds_from_the_read_back_text_not_from_the_clipped_argument():
    msgs = _report_so_far(CLIPPED) + call(
        "read_file",
        {"file_path": REPORT, "offset": 0, "limit": HISTORY_PAGE_LINES},
        "@@ lines 1-5 of 5 @@\n" + SECTION1.rstrip("\n"),
        "c4",
    )
    action = decide(msgs)
    assert action.name == "write_file" and action.args["content"].startswith(SECTION1 + "## DOC-002\n")
    assert "argument truncated" not in action.args["content"]


def test_joins_read_pages_and_asks_for_the_next_page_first():
    lines = SECTION1.rstrip("\n").splitlines()
    first_page = "@@ lines 1-2 of 5 | next offset 2 @@\n" + "\n".join(lines[:2])
    msgs = _report_so_far(CLIPPED) + call("read_file", {"file_path": REPORT, "offset": 0, "limit": 2}, first_page, "c4")
    assert decide(msgs) == ToolAction("read_file", {"file_path": REPORT, "offset": 2, "limit": HISTORY_PAGE_LINES})
    msgs += call(
        "read_file", {"file_path": REPORT, "offset": 2, "limit": 3}, "@@ lines 3-5 of 5 @@\n" + "\n".join(lines[2:]), "c5"
    )
    assert decide(msgs).args["content"].startswith(SECTION1 + "## DOC-002\n")


def test_stops_and_says_so_when_the_clipped_file_cannot_be_read_back():
    msgs = _report_so_far(CLIPPED) + call(
        "read_file",
        {"file_path": REPORT, "offset": 0, "limit": HISTORY_PAGE_LINES},
        "Error: permission denied reading /reports/r.md",
        "c4",
    )
    action = decide(msgs)
    assert isinstance(action, ReplyAction) and "cannot add the section on DOC-002" in action.text
    assert "TASK COMPLETE" not in action.text and action.text != CLARIFICATION


def test_a_section_already_in_the_file_counts_as_done():
    with_both = SECTION1 + "## DOC-002\nFinding: the inspection reference for DOC-002 is 2222-LARCH.\n"
    msgs = _report_so_far(SECTION1) + call("write_file", {"file_path": REPORT, "content": with_both}, "Updated", "c4")
    action = decide(msgs)
    assert isinstance(action, ReplyAction) and action.text.startswith("TASK COMPLETE")


def test_the_trusting_fault_builds_on_the_clipped_argument():
    action = decide(_report_so_far(CLIPPED), trust_clipped_args=True)
    assert action.name == "write_file" and action.args["content"].startswith(CLIPPED + "\n## DOC-002")


def test_a_read_page_body_drops_the_header_and_a_trailing_notice():
    from deepagents.middleware.filesystem import _clamped_offset_notice

    from harness import _deepagents_adapter as da

    assert (
        da.read_page_body("@@ lines 1-2 of 2 @@\n## DOC-001\nFinding: x" + _clamped_offset_notice(-1)) == "## DOC-001\nFinding: x"
    )
    assert da.read_page_body("[Output was truncated due to size limits.]\n@@ lines 1-1 of 9 | next offset 1 @@\nrow") == "row"
    assert da.read_page_body("Error: file not found") is None


EDIT_TASK = render_task(
    "Write the report.",
    [
        Step(1, "fetch_document", "DOC-001"),
        Step(2, "write_file", REPORT, "DOC-001", "section"),
        Step(3, "fetch_document", "DOC-002"),
        Step(4, "edit_file", REPORT, "DOC-002", "append"),
        Step(5, "fetch_document", "DOC-003"),
        Step(6, "edit_file", REPORT, "DOC-003", "append"),
        Step(7, "reply"),
    ],
)
DOC3 = "DOC-003: Teller archive, letter\nFinding: the inspection reference for DOC-003 is 3333-OSPREY."


def _appended_once(new_string: str) -> list:
    msgs = [HumanMessage(EDIT_TASK), *call("fetch_document", {"doc_id": "DOC-001"}, DOC1, "c1")]
    msgs += call("write_file", {"file_path": REPORT, "content": SECTION1}, f"Updated file {REPORT}", "c2")
    msgs += call("fetch_document", {"doc_id": "DOC-002"}, DOC2, "c3")
    msgs += call(
        "edit_file",
        {"file_path": REPORT, "old_string": "End of section DOC-001.", "new_string": new_string},
        f"Successfully replaced 1 instance(s) of the string in '{REPORT}'",
        "c4",
    )
    return msgs + call("fetch_document", {"doc_id": "DOC-003"}, DOC3, "c5")


def test_appends_with_edit_file_after_the_last_line_it_knows():
    msgs = [HumanMessage(EDIT_TASK), *call("fetch_document", {"doc_id": "DOC-001"}, DOC1, "c1")]
    msgs += call("write_file", {"file_path": REPORT, "content": SECTION1}, f"Updated file {REPORT}", "c2")
    msgs += call("fetch_document", {"doc_id": "DOC-002"}, DOC2, "c3")
    action = decide(msgs)
    assert action.name == "edit_file" and action.args["old_string"] == "End of section DOC-001."
    assert action.args["new_string"].startswith("End of section DOC-001.\n## DOC-002\n")
    # Its own whole edit tells it the new last line: no read needed for the next append.
    follow = decide(_appended_once(action.args["new_string"]))
    assert follow.name == "edit_file" and follow.args["old_string"] == "End of section DOC-002."


def test_a_clipped_edit_means_reading_the_file_back_before_the_next_append():
    clipped = "End of section DOC-0...(argument truncated)"
    assert decide(_appended_once(clipped)) == ToolAction(
        "read_file", {"file_path": REPORT, "offset": 0, "limit": HISTORY_PAGE_LINES}
    )
    trusting = decide(_appended_once(clipped), trust_clipped_args=True)
    assert trusting.name == "edit_file" and trusting.args["old_string"] == clipped  # an anchor that is not in the file


# -- a fact stated more than once: the latest statement answers ---------------------------------------------------------
KEY_IS = "the access code for the north vault is"


def test_a_fact_corrected_later_in_the_same_text_is_answered_with_its_new_value():
    text = f"For the record, {KEY_IS} 4417-KESTREL. Correction from security: {KEY_IS} 5520-OSPREY."
    msgs = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-001"}, text, "c1"), HumanMessage(QUESTION)]
    assert decide(msgs) == ReplyAction("5520-OSPREY")


def test_a_later_message_supersedes_an_earlier_one_whatever_its_kind():
    msgs = [
        HumanMessage(TASK),
        *call("fetch_document", {"doc_id": "DOC-001"}, f"{KEY_IS} 4417-KESTREL.", "c1"),
        *call("fetch_document", {"doc_id": "DOC-002"}, f"Update: {KEY_IS} 5520-OSPREY.", "c2"),
        HumanMessage(QUESTION),
    ]
    assert decide(msgs) == ReplyAction("5520-OSPREY")
    told = [*msgs[:-1], HumanMessage(f"Note that {KEY_IS} 6631-HERON now."), HumanMessage(QUESTION)]
    assert decide(told) == ReplyAction("6631-HERON")


def test_the_history_file_is_older_than_the_summary_that_replaced_it_and_its_pages_go_by_offset():
    summary = summary_message(f"## SUMMARY\n- The vault code was changed: {KEY_IS} 5520-OSPREY.")
    page = "@@ lines 1-200 of 400 | next offset 200 @@\n" + f"{KEY_IS} 4417-KESTREL."
    msgs = [summary, *call("read_file", {"file_path": PATH, "offset": 0, "limit": 200}, page, "c1"), HumanMessage(QUESTION)]
    assert decide(msgs) == ReplyAction("5520-OSPREY")  # a page read after the summary still says what came before it
    later_page = "@@ lines 201-400 of 400 @@\n" + f"Update: {KEY_IS} 7742-PLOVER."
    pages = [
        summary_message("## SUMMARY\nNone"),
        *call("read_file", {"file_path": PATH, "offset": 200, "limit": 200}, later_page, "c1"),
        *call("read_file", {"file_path": PATH, "offset": 0, "limit": 200}, page, "c2"),
        HumanMessage(QUESTION),
    ]
    assert decide(pages) == ReplyAction("7742-PLOVER")  # read out of order, the later page is still the later statement


def test_the_system_prompt_reaches_the_reference_agent_as_a_system_message_and_is_read():
    # create_agent puts the system prompt first in the list the chat model's _generate gets; the policy reads it there.
    from deepagents import create_deep_agent

    from harness.task_format import render_question

    seen: list[list[str]] = []

    class Spy(ReferenceAgentModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            seen.append([type(m).__name__ for m in messages])
            return super()._generate(messages, stop, run_manager, **kwargs)

    agent = create_deep_agent(model=Spy(), system_prompt="Rule: the commit prefix is FIN-OPS.")
    out = agent.invoke({"messages": [HumanMessage(render_question("commit prefix"))]})
    assert seen and seen[0][0] == "SystemMessage"
    assert out["messages"][-1].content == "FIN-OPS"
