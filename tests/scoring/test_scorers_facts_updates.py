"""Updated facts and artifacts in the typed-fact scorers: an updated fact's question is valid once its original
statement left view; a scripted assistant statement just before the question counts as said before it; an artifact is
kept only where the summary says it was made, not where it quotes the task; the cliff check."""

from __future__ import annotations

from harness.scenarios.schema import Fact
from harness.scoring.scorers import probe_scores
from harness.scoring.scorers.facts import TrackedFact, retention_scores
from harness.scoring.scorers.probes import expected_member, fact_records
from harness.task_format import fact_sentence
from tests._facts import DB1, DB2, LOST, NOTE, VAULT, archive, ask, scenario
from tests._traces import Conversation

UPDATE = fact_sentence("decision", DB2.key, DB2.value, replaces=DB1.value)


def _decision_after_update_in_view() -> Conversation:
    conv = archive([LOST])  # DOC-1 and DOC-2 summarized away
    conv.user("Reminder: " + UPDATE)  # turn 1: the update said again, still in view at the question
    conv.answer("Noted.")
    return ask(conv, "decision", "pg-16; rejected: mysql-8")


def test_an_updated_facts_question_is_valid_once_its_original_left_view_even_with_the_update_in_view():
    scores = {
        s.key: s
        for s in probe_scores(_decision_after_update_in_view().trace(kind="probe"), scenario([(2, ("db1",), "decision")]))
    }
    assert scores["questions_out_of_view"].value is True
    assert "update is still in view; its original statement is not" in scores["questions_out_of_view"].explanation
    assert scores["probe_decision_correct"].value is True


def test_an_updated_facts_question_is_invalid_while_its_original_statement_is_in_view():
    conv = ask(archive([]), "decision", "pg-16; rejected: mysql-8")  # nothing compacted: DOC-1 still in view
    scores = {s.key: s for s in probe_scores(conv.trace(kind="probe"), scenario([(1, ("db1",), "decision")]))}
    assert scores["questions_out_of_view"].value is False
    assert "db1 still in view as first stated" in scores["questions_out_of_view"].explanation


def test_a_scripted_assistant_statement_just_before_the_question_is_said_before_it():
    fact = TrackedFact("s", "goal_state", "next step", "user", 1, ("a-1", "b-2"), (1, 2), ("s1", "s2"), ("user", "assistant"))
    assert expected_member(fact, 2) == 1  # the assistant message placed before user turn 2
    said_by_user = TrackedFact("s", "goal_state", "next step", "user", 1, ("a-1", "b-2"), (1, 2), ("s1", "s2"), ("user", "user"))
    assert expected_member(said_by_user, 2) == 0  # a user statement in turn 2 is the question's own turn


def _note_record(summary: str) -> dict:
    conv = archive([summary])
    (rec,) = [r for r in fact_records(conv.trace(kind="probe"), scenario([], facts=(NOTE,))) if r["id"] == "note"]
    return rec


def test_an_artifact_is_kept_where_the_summary_says_it_was_made_not_where_it_quotes_the_task():
    quoted = "Original request:\n> 3. Write /notes/a.md with write_file: a one-line note on DOC-1."
    assert _note_record(quoted)["retained"] is False
    assert _note_record("Artifacts:\n- /notes/a.md (written)")["retained"] is True


def test_survival_under_the_threshold_fails_the_cliff_check_and_names_the_round():
    facts = (VAULT, Fact("db1", "decision", DB1.key, DB1.value, "tool", 0, doc="DOC-1"))
    lost = {s.key: s for s in retention_scores(archive([LOST]).trace(kind="probe"), scenario([], facts=facts))}
    assert lost["no_survival_cliff"].value is False
    assert "at round 1 (the cliff round)" in lost["no_survival_cliff"].explanation
    kept_one = "Key facts: " + fact_sentence("fact", VAULT.key, VAULT.value)
    half = {s.key: s for s in retention_scores(archive([kept_one]).trace(kind="probe"), scenario([], facts=facts))}
    assert half["no_survival_cliff"].value is True  # 1 of 2 kept: 0.5 is not under 0.5
    assert half["facts_retained"].value is False
