"""The redo eval's scorers (`harness.scoring.scorers.redo`): work redone after a compaction and intent kept against the
full-context control, each over a hand-built trace that passes and bad traces that must fail it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness.scoring.scorers import scores_by_key
from harness.scoring.scorers.redo import (
    CLARIFICATION,
    INTENT_SHARE,
    REDO_ALLOWANCE,
    REPLY,
    call_key,
    calls_of,
    compaction_points,
    intent_scores,
    redo_records,
    redo_scores,
)
from harness.trace.schema import Trace
from tests._traces import HISTORY, Conversation

FETCH = "fetch_document"


def _fetch(doc: str) -> tuple[str, dict[str, Any], str]:
    return (FETCH, {"doc_id": doc}, f"{doc}: the text of {doc}")


def _note(doc: str) -> tuple[str, dict[str, Any], str]:
    path = f"/notes/{doc.lower()}.md"
    return ("write_file", {"file_path": path, "content": f"Note on {doc}.\n"}, f"Updated file {path}")


def _review(*after: tuple[str, dict[str, Any], str | None], prefix: list[dict[str, Any]] | None = None, **final: Any) -> Trace:
    """Two documents fetched and noted, a summary, then one agent call per tool use in ``after``, then the reply."""
    conv = Conversation()
    conv.user("Review the archive.")
    for doc in ("DOC-001", "DOC-002"):
        conv.agent(tools=[_fetch(doc)])
        conv.agent(tools=[_note(doc)])
    conv.summarize("Steps 1 to 4 done.")
    for use in after:
        conv.agent(tools=[use])
    conv.answer("TASK COMPLETE. I finished all 7 steps.")
    return conv.trace(kind="goal", prefix_calls=prefix or [], **final)


def _scores(trace: Trace) -> dict[str, Any]:
    return scores_by_key(redo_scores(trace))


def test_a_run_that_carries_on_after_the_summary_redoes_nothing_and_progresses_at_once():
    scores = _scores(_review(_fetch("DOC-003"), _note("DOC-003")))
    assert scores["no_work_redone"].value is True
    assert scores["redo_repeats"].value == 0
    assert scores["redo_rounds_to_progress"].value == 1
    assert scores["redo_no_progress"].value == 0


def test_finished_work_done_again_after_the_summary_fails_no_work_redone():
    trace = _review(_fetch("DOC-001"), _note("DOC-001"), _fetch("DOC-003"))
    scores = _scores(trace)
    assert scores["no_work_redone"].value is False
    assert scores["redo_repeats"].value == 2
    assert scores["redo_rounds_to_progress"].value == 3  # two repeats, then DOC-003
    assert "fetch_document DOC-001" in scores["no_work_redone"].explanation
    assert 2 > REDO_ALLOWANCE


def test_one_repeat_is_within_the_allowance_and_still_measured():
    scores = _scores(_review(_note("DOC-002"), _fetch("DOC-003")))
    assert REDO_ALLOWANCE == 1
    assert scores["no_work_redone"].value is True
    assert scores["redo_repeats"].value == 1
    assert scores["redo_rounds_to_progress"].value == 2


def test_a_call_of_the_recorded_prefix_made_again_is_a_repeat():
    prefix = [
        {"name": FETCH, "args": {"doc_id": "DOC-000"}, "ok": True},
        {"name": "write_file", "args": {"file_path": "/notes/doc-000.md", "content": "Note on DOC-000.\n"}, "ok": True},
    ]
    note = ("write_file", {"content": "Note on DOC-000.\n", "file_path": "/notes/doc-000.md"}, "Updated file")
    scores = _scores(_review((FETCH, {"doc_id": "DOC-000"}, "DOC-000: text"), note, prefix=prefix))
    assert scores["redo_repeats"].value == 2  # argument order does not matter: the arguments are canonical JSON
    assert scores["no_work_redone"].value is False


def test_a_failed_call_of_the_prefix_made_again_is_a_retry_not_a_repeat():
    prefix = [{"name": FETCH, "args": {"doc_id": "DOC-000"}, "ok": False}]
    scores = _scores(_review((FETCH, {"doc_id": "DOC-000"}, "DOC-000: text"), prefix=prefix))
    assert scores["redo_repeats"].value == 0


def test_paging_the_history_file_is_recovery_neither_a_repeat_nor_progress():
    page = ("read_file", {"file_path": HISTORY}, "@@ lines 1-20 of 20 @@\n...")
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[page])  # read before the summary too: the same call again afterwards
    conv.agent(tools=[_fetch("DOC-001")])
    conv.summarize("Step 1 done.")
    conv.agent(tools=[page])
    conv.agent(tools=[_fetch("DOC-002")])
    trace = conv.trace(kind="goal")
    (record,) = redo_records(trace)
    assert (record["repeats"], record["recovery_reads"], record["rounds"]) == (0, 1, 2)


def test_a_compaction_followed_only_by_repeats_and_a_clarification_makes_no_progress():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[_fetch("DOC-001")])
    conv.agent(tools=[_fetch("DOC-002")])
    conv.summarize("Nothing recorded.")
    conv.agent(tools=[_fetch("DOC-001")])
    conv.agent(tools=[_fetch("DOC-002")])
    conv.answer("I have lost track of the task. Could you restate what you would like me to do next?")
    scores = _scores(conv.trace(kind="goal"))
    assert scores["redo_no_progress"].value == 1
    assert scores["redo_rounds_to_progress"].value is None
    assert scores["no_work_redone"].value is False


def test_each_compaction_counts_the_calls_until_the_next_one():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[_fetch("DOC-001")])
    conv.summarize("Step 1 done.")
    conv.agent(tools=[_fetch("DOC-001")])  # after the first summary
    conv.summarize("Step 1 done; DOC-001 fetched twice.", path=HISTORY)
    conv.agent(tools=[_fetch("DOC-002")])  # after the second
    trace = conv.trace(kind="goal")
    records = redo_records(trace)
    assert [r["repeats"] for r in records] == [1, 0]
    assert [r["call"] for r in records] == [p for p, _ in compaction_points(trace)]


def test_a_loop_that_repeats_one_call_after_each_of_many_compactions_fails_though_each_is_within_the_allowance():
    # what a window that moves on at every call looks like: one repeat per compaction, never new progress
    conv = Conversation("sliding-window")
    conv.user("Review the archive.")
    conv.agent(tools=[_fetch("DOC-001")])
    for n in range(3):
        conv.summarize(f"Window {n}.")
        conv.agent(tools=[_fetch("DOC-001")])
    scores = _scores(conv.trace(kind="goal"))
    assert scores["redo_repeats_max"].value == 1 == REDO_ALLOWANCE
    assert scores["redo_no_progress"].value == 3
    assert scores["no_work_redone"].value is False
    assert "3 of 3 compaction(s) followed by no new progress" in scores["no_work_redone"].explanation


def test_a_run_without_compaction_redoes_nothing_and_measures_nothing():
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[_fetch("DOC-001")])
    conv.agent(tools=[_fetch("DOC-001")])
    scores = _scores(conv.trace(kind="goal"))
    assert scores["no_work_redone"].value is True
    assert scores["redo_repeats"].value is None


def test_call_key_is_the_tool_and_its_arguments_as_canonical_json():
    assert call_key("write_file", {"b": 1, "a": "x"}) == call_key("write_file", {"a": "x", "b": 1})
    assert call_key("write_file", {"a": "x"}) != call_key("edit_file", {"a": "x"})


def test_calls_of_reads_each_call_and_whether_its_result_was_an_error():
    messages = [
        HumanMessage("go"),
        AIMessage(
            "",
            tool_calls=[{"name": FETCH, "args": {"doc_id": "A"}, "id": "1"}, {"name": FETCH, "args": {"doc_id": "B"}, "id": "2"}],
        ),
        ToolMessage("text of A", tool_call_id="1"),
        ToolMessage("Error: no document with id 'B'", tool_call_id="2"),
        AIMessage("", tool_calls=[{"name": FETCH, "args": {"doc_id": "C"}, "id": "3"}]),
    ]
    assert [(c["args"]["doc_id"], c["ok"]) for c in calls_of(messages)] == [("A", True), ("B", False), ("C", False)]


# -- intent kept --------------------------------------------------------------------------------------------------------
def _arm(*uses: tuple[str, dict[str, Any], str | None], control: dict[str, Any] | None, answer: str = "TASK COMPLETE.") -> Trace:
    """A run carried on from a cut: a summary at its first call, then ``uses`` and ``answer``, with ``control``."""
    conv = Conversation()
    conv.user("Carry on with the review.")
    conv.summarize("Steps 1 to 6 done.")
    for use in uses:
        conv.agent(tools=[use])
    conv.answer(answer)
    final = {"control": control} if control is not None else {}
    return conv.trace(kind="goal", **final)


CONTROL = {"actions": ["fetch_document DOC-004", "write_file /notes/doc-004.md", "fetch_document DOC-005", REPLY], "error": None}


def _intent(trace: Trace) -> dict[str, Any]:
    return scores_by_key(intent_scores(trace))


def test_the_arm_that_takes_the_controls_next_actions_keeps_its_intent():
    scores = _intent(_arm(_fetch("DOC-004"), _note("DOC-004"), _fetch("DOC-005"), control=CONTROL))
    assert scores["intent_comparable"].value is True
    assert scores["intent_kept"].value is True
    assert scores["intent_agreement"].value == 1.0
    assert scores["intent_first_match"].value is True


def test_an_arm_that_redoes_finished_steps_instead_loses_its_intent():
    scores = _intent(_arm(_fetch("DOC-001"), _note("DOC-001"), _fetch("DOC-002"), control=CONTROL))
    assert scores["intent_kept"].value is False
    assert scores["intent_agreement"].value == 0.25  # only the closing reply is the control's
    assert scores["intent_first_match"].value is False


def test_a_clarification_request_is_not_the_controls_reply():
    scores = _intent(_arm(control=CONTROL, answer="I have lost track of the task. Could you restate what to do next?"))
    assert scores["intent_kept"].value is False
    assert CLARIFICATION in scores["intent_first_match"].explanation


def test_a_different_first_action_passes_only_with_enough_agreement_after_it():
    # the same four actions, the first two swapped: agreement 1.0 >= INTENT_SHARE
    swapped = _intent(_arm(_note("DOC-004"), _fetch("DOC-004"), _fetch("DOC-005"), control=CONTROL))
    assert swapped["intent_first_match"].value is False and swapped["intent_kept"].value is True
    # one of the control's four taken: 0.25 < INTENT_SHARE
    drifted = _intent(_arm(_fetch("DOC-009"), _fetch("DOC-005"), _fetch("DOC-008"), control=CONTROL, answer="Done?"))
    assert drifted["intent_agreement"].value == 0.25 < INTENT_SHARE
    assert drifted["intent_kept"].value is False


def test_history_reads_of_the_arms_recovery_are_not_actions_compared():
    page = ("read_file", {"file_path": HISTORY}, "@@ lines 1-20 of 20 @@\n...")
    scores = _intent(_arm(page, _fetch("DOC-004"), _note("DOC-004"), _fetch("DOC-005"), control=CONTROL))
    assert scores["intent_first_match"].value is True


def test_without_a_usable_control_the_comparison_is_invalid_not_passed():
    missing = _intent(_arm(_fetch("DOC-004"), control=None))
    assert missing["intent_comparable"].value is False and missing["intent_kept"].value is False
    failed = _intent(_arm(_fetch("DOC-004"), control={"actions": [], "error": {"type": "RuntimeError"}}))
    assert failed["intent_comparable"].value is False
    assert "RuntimeError" in failed["intent_comparable"].explanation
    idle = _intent(_arm(_fetch("DOC-004"), control={"actions": [], "error": None}))
    assert idle["intent_comparable"].value is False
