"""Probe questions about typed facts: each question's own validity, the answer read by the task grammar (never a
substring), stale answers, artifact sets, where a correct answer came from, and the per-fact records of a row."""

from __future__ import annotations

from typing import Any

from harness.runs.results import result_row
from harness.scenarios.schema import Fact, Needle, Scenario
from harness.scoring.scorers import CHECK, MEASURE, VALIDITY, Score, fact_records, outcome, probe_scores, score_case
from harness.scoring.scorers.facts import tracked_facts
from harness.scoring.scorers.probes import expected_member
from tests._facts import DOC1, DOC2, KEPT, LOST, NOTE, TASK, archive, ask, scenario
from tests._traces import HISTORY, Conversation

RECALL = (1, ("vault",), "recall")
DECISION = (1, ("db1",), "decision")
PAGE = ("read_file", {"file_path": HISTORY, "offset": 0}, f"{DOC1}\n{DOC2}")


def scores(conv: Conversation, questions: list[tuple[int, tuple[str, ...], str]]) -> dict[str, Score]:
    result = probe_scores(conv.trace(kind="probe"), scenario(questions))
    assert len({s.key for s in result}) == len(result)
    return {s.key: s for s in result}


def one(
    probe: str, reply: str, question: tuple[int, tuple[str, ...], str], *, summary: str = LOST, **kw: Any
) -> dict[str, Score]:
    return scores(ask(archive([summary]), probe, reply, **kw), [question])


def test_a_recall_question_recovered_from_the_history_file_scores_every_key_in_order():
    result = probe_scores(ask(archive(), "recall", "TANGO-7", tools=[PAGE]).trace(kind="probe"), scenario([RECALL]))
    assert [(s.key, s.value, s.role) for s in result] == [
        ("compacted", 1, VALIDITY),
        ("questions_out_of_view", True, VALIDITY),
        ("probe_recall_correct", True, CHECK),
        ("questions_asked", 1, MEASURE),
        ("questions_valid", 1, MEASURE),
        ("questions_correct", 1, MEASURE),
        ("stale_answers", 0, MEASURE),
        ("no_survival_cliff", False, MEASURE),  # the summary kept nothing: survival 0 from round 1
        ("answered_via_summary", 0, MEASURE),
        ("answered_via_history", 1, MEASURE),
        ("answered_via_recall", 0, MEASURE),
    ]


def test_a_summary_without_the_fact_and_no_recovery_fails_the_recall_check():
    s = one("recall", "I do not know the vault code.", RECALL)
    assert s["probe_recall_correct"].value is False
    assert "expected 'TANGO-7', read None" in s["probe_recall_correct"].explanation
    assert outcome(list(s.values()))[0] == "FAIL"


def test_a_stale_answer_fails_the_decision_check_and_no_stale_answer():
    s = one("decision", "mysql-8; rejected: none", DECISION, summary=KEPT)
    assert (s["probe_decision_correct"].value, s["no_stale_answer"].value, s["stale_answers"].value) == (False, False, 1)
    assert s["no_stale_answer"].explanation.startswith("stale answer: turn 1 (db1): expected 'pg-16', read 'mysql-8'")
    assert s["decision_rejected_recall"].value == 0.0


def test_a_not_x_it_is_y_answer_passes_whatever_substring_it_holds():
    s = one("decision", "pg-16, not mysql-8", DECISION, summary=KEPT)
    assert (s["probe_decision_correct"].value, s["no_stale_answer"].value) == (True, True)
    s = one("decision", "The billing database is pg-16; rejected: mysql-8", DECISION, summary=KEPT)
    assert (s["probe_decision_correct"].value, s["decision_rejected_recall"].value) == (True, 1.0)
    assert s["answered_via_summary"].value == 1


def test_the_artifact_check_needs_exactly_the_set_of_paths_written():
    wrong = one("artifact", f"{NOTE.key}\n/notes/b.md", (1, ("note",), "artifact"))
    assert wrong["probe_artifact_exact"].value is False
    assert (wrong["artifact_precision"].value, wrong["artifact_recall"].value) == (0.5, 1.0)
    missing = one("artifact", "No files.", (1, ("note",), "artifact"))
    assert (missing["probe_artifact_exact"].value, missing["artifact_recall"].value) == (False, 0.0)
    exact = one("artifact", f"I wrote {NOTE.key}.", (1, ("note",), "artifact"))
    assert (exact["probe_artifact_exact"].value, exact["artifact_precision"].value) == (True, 1.0)
    assert "no_stale_answer" not in exact


def test_a_continuation_question_asks_a_goal_state_latest_value():
    assert one("continuation", "stage-3", (1, ("stage",), "continuation"))["probe_continuation_correct"].value is True
    assert one("continuation", "stage-2", (1, ("stage",), "continuation"))["probe_continuation_correct"].value is False


def test_a_question_whose_fact_is_still_in_view_is_invalid():
    conv = ask(archive([LOST], keep=7), "recall", "TANGO-7")  # DOC-1's result is among the kept messages
    s = scores(conv, [RECALL])
    assert s["compacted"].value == 1 and s["questions_out_of_view"].value is False
    assert "turn 1: vault still in view as stated" in s["questions_out_of_view"].explanation
    assert outcome(list(s.values()))[0] == "INVALID"
    (rec,) = [r for r in fact_records(conv.trace(kind="probe"), scenario([RECALL])) if r["id"] == "vault"]
    assert (rec["question"]["valid"], rec["question"]["via"]) == (False, "view")


def test_a_fact_that_left_view_at_the_questions_own_first_call_makes_a_valid_question():
    conv = archive([])
    conv.summarize("Round 1. " + LOST)  # the first summary comes with the question itself
    s = scores(ask(conv, "recall", "TANGO-7"), [RECALL])
    assert s["questions_out_of_view"].value is True and s["compacted"].value == 0  # (compacted counts earlier turns)


def test_a_fact_the_agent_never_saw_never_left_view_so_its_question_is_invalid():
    ghost = Fact("ghost", "fact", "ghost code", "ZULU-9", "tool", 0, doc="DOC-7")
    conv = ask(archive(), "recall", "ZULU-9")
    result = probe_scores(conv.trace(kind="probe"), scenario([(1, ("ghost",), "recall")], facts=(*scenario().facts, ghost)))
    by = {s.key: s for s in result}
    assert by["questions_out_of_view"].value is False
    assert "turn 1: ghost never left view before the question" in by["questions_out_of_view"].explanation


def test_an_earlier_questions_history_page_leaves_a_later_question_valid_and_is_recorded():
    conv = ask(archive(), "recall", "TANGO-7", tools=[PAGE])  # the page holds DOC-2's change too
    ask(conv, "decision", "pg-16; rejected: mysql-8")
    s = scores(conv, [RECALL, (2, ("db1",), "decision")])
    assert s["questions_out_of_view"].value is True and s["questions_valid"].value == 2
    assert "turn 2: db1 is on a history page read for an earlier question" in s["questions_out_of_view"].explanation
    assert s["probe_decision_correct"].value is True and s["answered_via_history"].value == 2


def test_an_answer_a_repeated_tool_call_returned_is_via_recall():
    s = one("recall", "TANGO-7", RECALL, tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    assert (s["answered_via_recall"].value, s["answered_via_history"].value) == (1, 0)


def test_a_wrong_answer_is_via_nothing():
    conv = ask(archive(), "recall", "TANGO-8", tools=[PAGE])
    (rec,) = [r for r in fact_records(conv.trace(kind="probe"), scenario([RECALL])) if r["id"] == "vault"]
    assert rec["question"] == {
        "turn": 1,
        "probe": "recall",
        "valid": True,
        "correct": False,
        "stale": False,
        "via": None,
        "expected": "TANGO-7",
        "answered": "TANGO-8",
    }


def test_the_expected_answer_is_the_latest_chain_member_stated_before_the_question():
    scen = Scenario(id="p", kind="probe", description="", task=TASK, facts=scenario().facts)
    (db,) = [f for f in tracked_facts(scen) if f.id == "db1"]
    assert expected_member(db, 1) == 1
    later = type(db)(db.id, db.type, db.key, db.place, db.turn, db.values, (0, 2), db.ids)  # pg-16 said in turn 2
    assert (expected_member(later, 1), expected_member(later, 2), expected_member(later, 3)) == (0, 0, 1)


def test_result_rows_carry_facts_for_probe_cases_and_retention_scored_rows_only():
    probe = ask(archive(), "recall", "TANGO-7", tools=[PAGE]).trace(kind="probe")
    row = result_row(probe, score_case(probe, scenario([RECALL])), trace_file="t.json.gz", scenario=scenario([RECALL]))
    assert [r["id"] for r in row["facts"]] == ["vault", "db1", "stage", "note"]
    assert row["scores"]["probe_recall_correct"] is True
    needle = Scenario(
        id="n",
        kind="needle",
        description="",
        task=TASK,
        followups=("q",),
        needles=(Needle(key="vault code", answer="TANGO-7", doc="DOC-1", depth=0.5, turn=1),),
    )
    trace = ask(archive(), "recall", "TANGO-7", tools=[PAGE]).trace(kind="needle")
    assert "facts" not in result_row(trace, score_case(trace, needle), trace_file="t", scenario=needle)
    kept = result_row(trace, score_case(trace, needle, "retention"), trace_file="t", scenario=needle, scorers="retention")
    assert [r["id"] for r in kept["facts"]] == ["needle-1"]


def test_under_the_control_arm_question_validity_is_a_measure():
    conv = ask(archive([], strategy="none"), "recall", "TANGO-7")
    by = {s.key: s for s in score_case(conv.trace(kind="probe"), scenario([RECALL]))}
    assert by["questions_out_of_view"].role == MEASURE and by["probe_recall_correct"].value is True


def test_a_kind_whose_every_question_is_invalid_gets_no_check_of_its_own():
    conv = ask(archive([]), "recall", "TANGO-7")  # nothing compacted: the question is invalid
    by = {s.key: s for s in probe_scores(conv.trace(kind="probe"), scenario([RECALL]))}
    assert by["questions_out_of_view"].value is False and "probe_recall_correct" not in by
