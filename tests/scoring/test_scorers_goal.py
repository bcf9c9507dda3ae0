"""goal_scores: did the agent keep doing the task across compaction, and finish it? (traces from scripted turns)"""

from __future__ import annotations

from harness.scenarios.schema import ExpectedStep, Scenario
from harness.scoring.scorers import CHECK, MEASURE, Score, compacted, goal_scores, scores_by_key
from tests._traces import Conversation

SUMMARY = "The report task is under way: DOC-1 was read, DOC-2 and the report remain."
DONE = "The report is written. TASK COMPLETE"


def scenario(*steps: tuple[str, str]) -> Scenario:
    return Scenario(
        id="goal-1",
        kind="goal",
        description="read two documents, write a report",
        task="Read DOC-1 and DOC-2, then write /report.md.",
        expected_steps=tuple(ExpectedStep(tool, target) for tool, target in steps),
    )


# Three tool steps and a final reply (a "reply" step is not a tool step: it is never counted).
REPORT = scenario(("fetch_document", "DOC-1"), ("fetch_document", "DOC-2"), ("write_file", "/report.md"), ("reply", ""))


def doc(doc_id: str, result: str | None = "text of the document") -> tuple[str, dict, str | None]:
    return ("fetch_document", {"doc_id": doc_id}, result)


WRITE = ("write_file", {"file_path": "/report.md", "content": "the report"}, "Updated file /report.md")


def conversation(strategy: str = "deepagents-summarization") -> Conversation:
    conv = Conversation(strategy=strategy)
    conv.user(REPORT.task)
    return conv


def scored(conv: Conversation, scn: Scenario = REPORT, **kw) -> dict[str, Score]:
    return scores_by_key(goal_scores(conv.trace(kind="goal"), scn, **kw))


# -- the whole list -------------------------------------------------------------------------------------------------
def test_a_task_carried_across_a_summary_and_finished_holds_every_goal_score_in_order():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-2")])  # the first action after the summary is a task step
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    trace = conv.trace(kind="goal")
    scores = goal_scores(trace, REPORT)
    assert scores == [
        compacted(trace, before_turn=1),
        Score("goal_continued_after_summary", True, CHECK, "the next action after all 1 compaction(s) was a task step"),
        Score("goal_no_clarification", True, CHECK, "never asked the user to restate the task"),
        Score("goal_no_premature_completion", True, CHECK, "did not stop before the work was done"),
        Score("goal_steps_completed", 1.0, MEASURE, "3/3 expected tool steps done"),
        Score("goal_all_steps_done", True, CHECK, "every expected tool step was done"),
        Score("goal_preserved", True, CHECK, "kept working on the task across every compaction and finished it"),
        Score("goal_repeated_steps", 0, MEASURE, "0 expected step(s) done more than once (lost progress)"),
    ]
    assert scores[0].value == 1 and "before turn 1" in scores[0].explanation


def test_a_compaction_in_a_later_turn_is_not_one_of_the_task_turns():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    conv.user("Anything else?")
    conv.summarize(SUMMARY)
    conv.answer("Nothing else. TASK COMPLETE")
    scores = scored(conv)
    assert scores["compacted"].value == 0
    assert scores["goal_continued_after_summary"] == Score(
        "goal_continued_after_summary", False, CHECK, "no compaction in the task turn, nothing to continue across"
    )
    # everything else held, but nothing was compacted: the goal was not preserved *across* anything
    assert scores["goal_steps_completed"].value == 1.0
    assert scores["goal_preserved"] == Score("goal_preserved", False, CHECK, "see goal_* scores")


def test_the_turn_scored_is_the_one_asked_for():
    conv = conversation()
    conv.answer("Starting later.")
    conv.user("Now do it.")
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv, turn=1)
    assert scores["compacted"].value == 1 and "before turn 2" in scores["compacted"].explanation
    assert scores["goal_continued_after_summary"].value is True
    assert scores["goal_no_premature_completion"].value is True  # turn 0's early reply is not in turn 1
    assert scores["goal_preserved"].value is True


def test_the_control_arm_preserves_the_goal_by_finishing_without_any_compaction():
    conv = conversation(strategy="none")
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_preserved"] == Score("goal_preserved", True, CHECK, "finished the task with the whole history in view")


def test_the_control_arm_that_did_not_finish_does_not_preserve_the_goal():
    conv = conversation(strategy="none")
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    assert scored(conv)["goal_preserved"] == Score("goal_preserved", False, CHECK, "see goal_* scores")


# -- the next action after a compaction ---------------------------------------------------------------------------
def test_an_off_task_tool_call_right_after_a_summary_is_a_stall_named_with_the_call():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    stalled = conv.agent(tools=[doc("DOC-9"), ("read_file", {"file_path": "/notes.md"}, "notes")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_continued_after_summary"] == Score(
        "goal_continued_after_summary",
        False,
        CHECK,
        f"after 1 of 1 compaction(s) the next action was not a task step; first at call {stalled['index']}: "
        "called fetch_document(DOC-9), read_file(/notes.md)",
    )
    assert scores["goal_all_steps_done"].value is True
    assert scores["goal_preserved"] == Score("goal_preserved", False, CHECK, "see goal_* scores")


def test_one_task_step_among_the_calls_after_a_summary_is_enough():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[("read_file", {"file_path": "/notes.md"}, "notes"), doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    assert scored(conv)["goal_continued_after_summary"].value is True


def test_a_task_step_after_a_summary_counts_as_continuing_even_when_that_step_fails():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-2", "Error: the archive is busy")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_continued_after_summary"].value is True
    assert scores["goal_repeated_steps"].value == 0  # the failed try was not a step done


def test_declaring_the_work_done_right_after_a_summary_continues_it_when_every_step_was_done():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.summarize(SUMMARY)
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_continued_after_summary"].value is True
    assert scores["goal_preserved"].value is True


def test_a_final_reply_after_a_summary_without_the_completion_marker_is_a_stall():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.summarize(SUMMARY)
    last = conv.answer("All good.")
    assert scored(conv)["goal_continued_after_summary"].explanation == (
        f"after 1 of 1 compaction(s) the next action was not a task step; first at call {last['index']}: replied 'All good.'"
    )


def test_a_completion_claim_after_a_summary_with_steps_left_is_a_stall():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_continued_after_summary"].value is False


def test_an_off_task_tool_call_with_the_completion_marker_after_a_summary_is_a_stall():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.summarize(SUMMARY)
    conv.agent(DONE, tools=[("read_file", {"file_path": "/notes.md"}, "notes")])
    conv.answer(DONE)
    assert scored(conv)["goal_continued_after_summary"].value is False


def test_a_long_reply_after_a_summary_is_quoted_to_140_characters():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    text = "x" * 139 + "yz"
    last = conv.agent(text)
    explanation = scored(conv)["goal_continued_after_summary"].explanation
    assert explanation.endswith(f"first at call {last['index']}: replied '{'x' * 139}y'")


def test_a_failed_call_after_a_summary_is_a_stall_named_by_its_error():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    failed = conv.fail(ValueError("bad request"))
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_continued_after_summary"].explanation == (
        f"after 1 of 1 compaction(s) the next action was not a task step; first at call {failed['index']}: "
        "the call failed (ValueError)"
    )
    # a failed call is no reply: neither a premature stop nor a clarification
    assert scores["goal_no_premature_completion"].value is True
    assert scores["goal_no_clarification"].value is True


def test_every_compaction_is_counted_and_the_first_stall_is_named():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-2")])
    conv.summarize(SUMMARY + " DOC-2 was read too.")
    first = conv.agent(tools=[doc("DOC-7")])
    conv.summarize(SUMMARY + " DOC-7 was read too.")
    conv.agent(tools=[doc("DOC-8")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    assert scored(conv)["goal_continued_after_summary"].explanation == (
        f"after 2 of 3 compaction(s) the next action was not a task step; first at call {first['index']}: "
        "called fetch_document(DOC-7)"
    )


def test_all_compactions_continued_are_counted_in_the_explanation():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-2")])
    conv.summarize(SUMMARY + " DOC-2 was read too.")
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    assert scored(conv)["goal_continued_after_summary"] == Score(
        "goal_continued_after_summary", True, CHECK, "the next action after all 2 compaction(s) was a task step"
    )


# -- asking the user ----------------------------------------------------------------------------------------------
def test_asking_the_user_what_to_do_fails_no_clarification_and_is_not_a_premature_stop():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    asked = conv.answer("Could you clarify which report you want?")
    scores = scored(conv)
    assert scores["goal_no_clarification"] == Score(
        "goal_no_clarification",
        False,
        CHECK,
        f"asked for clarification at call(s) [{asked['index']}]: 'Could you clarify which report you want?'",
    )
    assert scores["goal_no_premature_completion"].value is True
    assert scores["goal_preserved"].value is False


def test_clarifications_are_listed_up_to_five_and_the_first_is_quoted_to_160_characters():
    conv = conversation()
    question = "Which file should I write" + " and" * 40 + " where?"
    asked = [conv.agent(question) for _ in range(6)]
    explanation = scored(conv)["goal_no_clarification"].explanation
    indexes = [c["index"] for c in asked[:5]]
    assert explanation == f"asked for clarification at call(s) {indexes}: {question[:160]!r}"


# -- stopping early -----------------------------------------------------------------------------------------------
def test_the_first_reply_with_steps_left_is_a_premature_stop_named_with_the_steps_left():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    first = conv.agent("I have read the first document.")
    conv.agent(tools=[doc("DOC-2")])
    conv.answer("Done reading.")
    scores = scored(conv)
    assert scores["goal_no_premature_completion"] == Score(
        "goal_no_premature_completion",
        False,
        CHECK,
        f"stopped at call {first['index']} with 2 expected step(s) not done: 'I have read the first document.'",
    )
    assert scores["goal_preserved"].value is False


def test_an_empty_reply_with_steps_left_is_a_premature_stop_quoting_nothing():
    conv = conversation()
    stop = conv.agent("")
    assert scored(conv)["goal_no_premature_completion"].explanation == (
        f"stopped at call {stop['index']} with 3 expected step(s) not done: ''"
    )


def test_a_premature_stop_is_quoted_to_120_characters():
    conv = conversation()
    text = "z" * 119 + "ab"
    stop = conv.agent(text)
    assert scored(conv)["goal_no_premature_completion"].explanation == (
        f"stopped at call {stop['index']} with 3 expected step(s) not done: '{'z' * 119}a'"
    )


def test_a_reply_once_every_step_is_done_is_not_premature():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.agent("Progress: all three steps done.")
    conv.answer(DONE)
    assert scored(conv)["goal_no_premature_completion"].value is True


# -- steps done ---------------------------------------------------------------------------------------------------
def test_steps_done_are_a_fraction_of_the_distinct_expected_tool_steps_and_the_first_missing_is_named():
    conv = conversation()
    conv.agent(tools=[doc("DOC-2")])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_steps_completed"] == Score(
        "goal_steps_completed", 0.3333, MEASURE, "1/3 expected tool steps done; first missing: fetch_document DOC-1"
    )
    assert scores["goal_all_steps_done"] == Score(
        "goal_all_steps_done", False, CHECK, "2 expected step(s) not done; first: fetch_document DOC-1"
    )


def test_a_failed_or_unanswered_step_is_not_done():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1", "Error: DOC-1 is not in the archive")])
    conv.agent(tools=[doc("DOC-2", None)])
    conv.agent(tools=[WRITE, ("write_file", {"file_path": "/other.md"}, "Updated file /other.md")])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_steps_completed"] == Score(
        "goal_steps_completed", 0.3333, MEASURE, "1/3 expected tool steps done; first missing: fetch_document DOC-1"
    )


def test_a_task_with_no_tool_steps_is_all_done_without_any():
    conv = conversation()
    conv.answer(DONE)
    scores = scored(conv, scenario(("reply", "")))
    assert scores["goal_steps_completed"] == Score("goal_steps_completed", 1.0, MEASURE, "0/0 expected tool steps done")
    assert scores["goal_all_steps_done"].value is True
    assert scores["goal_no_premature_completion"].value is True


def test_a_step_listed_twice_is_one_step():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.answer(DONE)
    scores = scored(conv, scenario(("fetch_document", "DOC-1"), ("fetch_document", "DOC-1")))
    assert scores["goal_steps_completed"] == Score("goal_steps_completed", 1.0, MEASURE, "1/1 expected tool steps done")


def test_a_step_done_again_after_it_succeeded_is_a_repeat():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    conv.agent(tools=[doc("DOC-1")])
    conv.agent(tools=[doc("DOC-1"), doc("DOC-2")])
    conv.agent(tools=[WRITE])
    conv.answer(DONE)
    scores = scored(conv)
    assert scores["goal_repeated_steps"] == Score(
        "goal_repeated_steps", 2, MEASURE, "2 expected step(s) done more than once (lost progress)"
    )
    assert scores["goal_steps_completed"].value == 1.0


def test_a_response_stored_without_its_text_reads_as_an_empty_reply():
    conv = conversation()
    conv.agent(tools=[doc("DOC-1")])
    conv.summarize(SUMMARY)
    last = conv.agent("")
    trace = conv.trace(kind="goal")
    del trace.calls[last["index"]]["response"]["text"]  # a response written without the field
    scores = scores_by_key(goal_scores(trace, REPORT))
    assert scores["goal_continued_after_summary"].explanation == (
        f"after 1 of 1 compaction(s) the next action was not a task step; first at call {last['index']}: replied ''"
    )
    assert scores["goal_no_premature_completion"].explanation == (
        f"stopped at call {last['index']} with 2 expected step(s) not done: ''"
    )
