"""Probe questions about typed facts, in detail: the exact scores, roles and explanations of a probe case, the judged
answer of each kind of question (expected, answered, stale, rejected, precision and recall), question validity at the
edges (no agent call, a round after the question's first call, an update said later, a value repeated in a chain, a
system fact), and where a correct answer came from."""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Fact
from harness.scoring.scorers.facts import TrackedFact
from harness.scoring.scorers.probes import Judged, expected_member, fact_records, judge_all, probe_scores
from harness.task_format import fact_sentence
from tests._facts import DB1, DB2, DOC1, DOC2, KEPT, LOST, NOTE, PREFIX, TASK, archive, ask, scenario
from tests._traces import HISTORY, Conversation

PAGE = ("read_file", {"file_path": HISTORY, "offset": 0}, f"{DOC1}\n{DOC2}")
NOTE2 = Fact("note2", "artifact", "/notes/b.md", "written", "tool", 0)
NOTHING = ("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing of note.")


def scored(conv: Conversation, questions: list[tuple[int, tuple[str, ...], str]], **kw: Any) -> dict[str, tuple]:
    result = probe_scores(conv.trace(kind="probe"), scenario(questions, **kw))
    return {s.key: (s.value, s.role, s.explanation) for s in result}


def judged(conv: Conversation, questions: list[tuple[int, tuple[str, ...], str]], **kw: Any) -> list[Judged]:
    return judge_all(conv.trace(kind="probe"), scenario(questions, **kw))[1]


def _two_notes() -> Conversation:
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("write_file", {"file_path": NOTE.key, "content": "a"}, f"Updated file {NOTE.key}")])
    conv.agent(tools=[("write_file", {"file_path": NOTE2.key, "content": "b"}, f"Updated file {NOTE2.key}")])
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 1. " + LOST)
    conv.answer("TASK COMPLETE")
    return conv


# -- the scores of a probe case --------------------------------------------------------------------------------------


def test_a_probe_case_scores_every_key_with_its_role_and_explanation():
    conv = ask(archive([KEPT]), "decision", "pg-16; rejected: mysql-8")
    ask(conv, "artifact", f"I wrote {NOTE.key}.")
    got = scored(conv, [(1, ("db1",), "decision"), (2, ("note",), "artifact")])
    assert got["questions_out_of_view"] == (True, "validity", "2 of 2 questions valid")
    assert got["probe_decision_correct"] == (True, "check", "1 valid decision question(s), all correct")
    assert got["no_stale_answer"] == (True, "check", "no valid question was answered with a stale value")
    assert got["questions_asked"] == (2, "measure", "questions the case asks")
    assert got["questions_valid"] == (2, "measure", "questions whose facts were out of view when asked")
    assert got["questions_correct"] == (2, "measure", "valid questions answered correctly")
    assert got["stale_answers"] == (0, "measure", "valid questions answered with a stale value")
    assert got["answered_via_summary"] == (
        1,
        "measure",
        "correct answers (per asked fact): the summary at the head of the question's first call held the value",
    )
    assert got["artifact_precision"] == (1.0, "measure", "artifact precision over valid questions")
    assert got["artifact_recall"] == (1.0, "measure", "artifact recall over valid questions")
    assert got["decision_rejected_recall"] == (
        1.0,
        "measure",
        "share of stale values named as rejected (valid questions)",
    )


def test_the_validity_explanation_lists_every_invalid_question_and_every_note():
    conv = ask(archive([LOST]), "recall", "Found it.", tools=[PAGE])  # turn 1: valid; the page stays in view
    ask(conv, "recall", "TANGO-7")  # turn 2: valid, noted (the page)
    ask(conv, "decision", "pg-16")  # turn 3: valid, noted (the page)
    got = scored(conv, [(1, ("vault",), "recall"), (2, ("vault",), "recall"), (3, ("db1",), "decision")])
    assert got["questions_out_of_view"][2] == (
        "3 of 3 questions valid; noted: turn 2: vault is on a history page read for an earlier question (still out of "
        "view as stated); turn 3: db1 is on a history page read for an earlier question (still out of view as stated)"
    )
    conv = archive([])  # nothing compacted: both questions are invalid
    ask(conv, "recall", "TANGO-7")
    ask(conv, "continuation", "stage-3")
    got = scored(conv, [(1, ("vault",), "recall"), (2, ("stage",), "continuation")])
    assert got["questions_out_of_view"][2] == (
        "0 of 2 questions valid; invalid: turn 1: vault still in view as stated; turn 2: stage still in view as stated"
    )


def test_a_case_without_questions_still_scores_compaction_over_the_whole_run():
    got = scored(archive([LOST]), [])
    assert got["compacted"][0] == 1 and got["questions_asked"][0] == 0
    assert got["questions_out_of_view"] == (False, "validity", "0 of 0 questions valid")


def test_a_wrong_answer_is_described_with_every_asked_fact_and_the_first_120_characters_of_the_reply():
    reply = "I wrote nothing at all. " + "x" * 200
    got = scored(ask(_two_notes(), "artifact", reply), [(1, ("note", "note2"), "artifact")], facts=(NOTE, NOTE2))
    assert got["probe_artifact_exact"] == (
        False,
        "check",
        f"turn 1 (note, note2): expected ['/notes/a.md', '/notes/b.md'], read [] (0 path(s) named as created or changed) from {reply[:120]!r}",
    )


def test_a_stale_answer_is_described_as_such_and_counted():
    got = scored(ask(archive([KEPT]), "decision", "mysql-8"), [(1, ("db1",), "decision")])
    assert got["no_stale_answer"] == (
        False,
        "check",
        "stale answer: turn 1 (db1): expected 'pg-16', read 'mysql-8' (the one value named and not set aside: 'mysql-8') "
        "from 'mysql-8'",
    )
    assert got["stale_answers"][:2] == (1, "measure")


def test_an_updated_artifact_asks_no_stale_answer_check():
    made = Fact("note", "artifact", NOTE.key, "written", "tool", 0, superseded_by="edited")
    edited = Fact("edited", "artifact", NOTE.key, "edited", "tool", 0)
    got = scored(ask(archive([LOST]), "artifact", NOTE.key), [(1, ("note",), "artifact")], facts=(made, edited))
    assert "no_stale_answer" not in got and got["probe_artifact_exact"][0] is True


def test_artifact_precision_and_recall_average_the_valid_questions_to_four_places():
    conv = ask(_two_notes(), "artifact", f"{NOTE.key}, /notes/c.md and /notes/d.md")  # precision 1/3, recall 1/2
    ask(conv, "artifact", f"{NOTE.key} and {NOTE2.key}")  # precision 1, recall 1
    questions = [(1, ("note", "note2"), "artifact"), (2, ("note", "note2"), "artifact")]
    got = scored(conv, questions, facts=(NOTE, NOTE2))
    assert (got["artifact_precision"][0], got["artifact_recall"][0]) == (0.6667, 0.75)
    one = scored(ask(_two_notes(), "artifact", f"{NOTE.key}, /notes/c.md and /notes/d.md"), questions[:1], facts=(NOTE, NOTE2))
    assert (one["artifact_precision"][0], one["artifact_recall"][0]) == (0.3333, 0.5)


# -- the judged answer -----------------------------------------------------------------------------------------------


def test_an_artifact_answer_is_judged_per_path_and_never_stale():
    (j,) = judged(ask(_two_notes(), "artifact", "Nothing."), [(1, ("note", "note2"), "artifact")], facts=(NOTE, NOTE2))
    assert (j.valid, j.why, j.correct, j.stale, j.expected, j.answered) == (
        True,
        "",
        False,
        False,
        [NOTE.key, NOTE2.key],
        [],
    )
    assert (j.precision, j.recall) == (0.0, 0.0)
    assert j.per_fact == {
        "note": {"expected": NOTE.key, "correct": False, "stale": False, "via": None},
        "note2": {"expected": NOTE2.key, "correct": False, "stale": False, "via": None},
    }
    (j,) = judged(ask(_two_notes(), "artifact", f"Only {NOTE.key}."), [(1, ("note", "note2"), "artifact")], facts=(NOTE, NOTE2))
    assert (j.correct, j.answered, j.precision, j.recall) == (False, [NOTE.key], 1.0, 0.5)
    assert (j.per_fact["note"]["correct"], j.per_fact["note2"]["correct"]) == (True, False)


def test_an_artifact_questions_fact_record_has_the_path_expected_and_the_paths_answered():
    conv = ask(archive([LOST]), "artifact", f"I wrote {NOTE.key}.")
    (rec,) = [r for r in fact_records(conv.trace(kind="probe"), scenario([(1, ("note",), "artifact")])) if r["id"] == "note"]
    assert rec["question"] == {
        "turn": 1,
        "probe": "artifact",
        "valid": True,
        "correct": True,
        "stale": False,
        "via": None,
        "expected": NOTE.key,
        "answered": [NOTE.key],
    }


def test_a_recall_answer_has_no_rejected_values_and_no_rejected_recall():
    (j,) = judged(ask(archive([KEPT]), "recall", "pg-16"), [(1, ("db1",), "recall")])
    assert (j.correct, j.rejected, j.rejected_recall, j.reply) == (True, [], None, "pg-16")


def test_a_recall_answer_names_a_stated_value_in_free_text():
    (j,) = judged(ask(archive([LOST]), "recall", "I think it was TANGO-7, yes"), [(1, ("vault",), "recall")])
    assert (j.answered, j.correct) == ("TANGO-7", True)


def test_a_decision_answer_keeps_its_rejected_values_and_their_share_of_the_stale_ones():
    db0 = Fact("db0", "decision", DB1.key, "mysql-5", "tool", 0, doc="DOC-1", superseded_by="db1")
    (j,) = judged(
        ask(archive([KEPT]), "decision", "pg-16; rejected: mysql-8"), [(1, ("db0",), "decision")], facts=(db0, DB1, DB2)
    )
    # The decided value is right, but the question asks which earlier choices were rejected and one is missing.
    assert (j.correct, j.stale, j.rejected, j.rejected_recall) == (False, False, ["mysql-8"], 0.5)
    assert j.reply == "pg-16; rejected: mysql-8"
    assert "missing: mysql-5" in j.how
    (both,) = judged(
        ask(archive([KEPT]), "decision", "pg-16; rejected: mysql-5, mysql-8"), [(1, ("db0",), "decision")], facts=(db0, DB1, DB2)
    )
    assert (both.correct, both.rejected, both.rejected_recall) == (True, ["mysql-5", "mysql-8"], 1.0)


def test_an_earlier_value_equal_to_the_latest_but_for_case_is_not_stale():
    old = Fact("o1", "decision", DB1.key, "alpha-1", "tool", 0, doc="DOC-1", superseded_by="o2")
    mid = Fact("o2", "decision", DB1.key, "beta-2", "tool", 0, doc="DOC-1", superseded_by="o3")
    new = Fact("o3", "decision", DB1.key, "ALPHA-1", "tool", 0, doc="DOC-2")
    (j,) = judged(ask(archive([LOST]), "recall", "ALPHA-1"), [(1, ("o1",), "recall")], facts=(old, mid, new))
    assert (j.correct, j.stale) == (True, False)


# -- validity at the edges -------------------------------------------------------------------------------------------


def test_a_question_turn_without_an_agent_call_is_invalid_for_each_asked_fact():
    conv = _two_notes()
    conv.user("Which files did you write?")  # no agent call follows
    (j,) = judged(conv, [(1, ("note", "note2"), "artifact")], facts=(NOTE, NOTE2))
    assert (j.valid, j.why, j.reply, j.answered) == (
        False,
        "no agent call in its turn; no agent call in its turn",
        "",
        [],
    )


def test_a_round_after_the_questions_first_call_does_not_move_when_the_fact_left_view():
    conv = archive([LOST])  # vault left view at round 1
    conv.user("What is the vault code?")
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 2. " + LOST)  # round 2, after the question's first call
    conv.answer("TANGO-7")
    (j,) = judged(conv, [(1, ("vault",), "recall")])
    assert (j.valid, j.why) == (True, "")


def test_an_updated_fact_asked_before_its_update_must_have_left_view_itself():
    later = Fact("db2", "decision", DB2.key, DB2.value, "tool", 2, doc="DOC-2")  # said in turn 2
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[NOTHING])  # DOC-1 never fetched: mysql-8 never in view
    conv.summarize("Round 1. " + LOST)
    conv.answer("TASK COMPLETE")
    ask(conv, "decision", "mysql-8")
    (j,) = judged(conv, [(1, ("db1",), "decision")], facts=(DB1, later))
    assert (j.valid, j.why) == (False, "db1 never left view before the question")


def test_the_original_statement_of_a_chain_whose_value_comes_back_is_still_found_in_view():
    old = Fact("o1", "decision", DB1.key, "alpha-1", "tool", 0, doc="DOC-1", superseded_by="o2")
    mid = Fact("o2", "decision", DB1.key, "beta-2", "tool", 0, doc="DOC-1", superseded_by="o3")
    new = Fact("o3", "decision", DB1.key, "ALPHA-1", "tool", 0, doc="DOC-1")
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "DOC-1: " + fact_sentence("decision", DB1.key, "alpha-1"))])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, "DOC-2: " + fact_sentence("decision", DB1.key, "beta-2"))])
    conv.answer("TASK COMPLETE")
    ask(conv, "decision", "ALPHA-1")
    (j,) = judged(conv, [(1, ("o1",), "decision")], facts=(old, mid, new))
    assert (j.valid, j.why) == (False, "o1 still in view as first stated")


def test_an_updated_system_facts_original_in_the_system_prompt_is_still_in_view():
    first = Fact("prefix", "rule", PREFIX.key, PREFIX.value, "system", 0, superseded_by="prefix2")
    second = Fact("prefix2", "rule", PREFIX.key, "OPS-FIN", "user", 0)
    conv = archive([LOST], system=fact_sentence("rule", PREFIX.key, PREFIX.value))
    ask(conv, "recall", "OPS-FIN")
    (j,) = judged(conv, [(1, ("prefix",), "recall")], facts=(first, second))
    assert (j.valid, j.why) == (False, "prefix still in view as first stated")


def test_a_question_before_any_member_is_said_expects_the_first():
    fact = TrackedFact("s", "goal_state", "next step", "user", 2, ("a-1", "b-2"), (2, 3), ("s1", "s2"), ("user", "user"))
    assert expected_member(fact, 1) == 0


# -- where a correct answer came from --------------------------------------------------------------------------------


def test_a_correct_answer_with_no_trace_of_where_it_came_from_is_via_nothing():
    got = scored(ask(archive([LOST]), "recall", "TANGO-7"), [(1, ("vault",), "recall")])
    assert (got["answered_via_summary"][0], got["answered_via_history"][0], got["answered_via_recall"][0]) == (0, 0, 0)


def test_a_history_page_read_in_an_earlier_turn_and_summarized_away_is_not_where_the_answer_came_from():
    conv = ask(archive([LOST]), "recall", "TANGO-7", tools=[PAGE])
    conv.summarize("Round 2. " + LOST, path=None)  # the page leaves view; no history file is named now
    ask(conv, "recall", "TANGO-7", tools=[NOTHING])
    judgements = judged(conv, [(1, ("vault",), "recall"), (2, ("vault",), "recall")])
    assert [j.per_fact["vault"]["via"] for j in judgements] == ["history", None]


def test_a_history_read_or_a_repeated_call_that_got_no_result_returned_nothing_whatever_the_value():
    code = Fact("code", "fact", "door code", "XXXX", "tool", 0, doc="DOC-7")
    for use in [("read_file", {"file_path": HISTORY, "offset": 0}, None), ("fetch_document", {"doc_id": "DOC-7"}, None)]:
        conv = Conversation()
        conv.user(TASK)
        conv.agent(tools=[("fetch_document", {"doc_id": "DOC-7"}, "DOC-7: " + fact_sentence("fact", "door code", "XXXX"))])
        conv.agent(tools=[NOTHING])
        conv.summarize("Round 1. " + LOST)
        conv.answer("TASK COMPLETE")
        ask(conv, "recall", "XXXX", tools=[use])
        (j,) = judged(conv, [(1, ("code",), "recall")], facts=(code,))
        assert (j.valid, j.correct, j.per_fact["code"]["via"]) == (True, True, None), use[0]
