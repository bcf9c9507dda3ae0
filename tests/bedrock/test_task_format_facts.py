"""The typed-fact grammar: sentences, their parse, probe questions, and answers read as values (never substrings)."""

from __future__ import annotations

import pytest

from harness.task_format import (
    ARTIFACT_QUESTION,
    Statement,
    attribute_key,
    entity_attribute,
    fact_sentence,
    parse_probe,
    parse_reference,
    parse_statements,
    reference_key,
    reference_question_key,
    render_decision_answer,
    render_decision_question,
    render_question,
    render_reference_question,
)


def test_each_type_has_its_sentence_and_parses_back():
    for kind in ("fact", "constraint", "decision", "goal_state", "preference", "rule"):
        text = "x. " + fact_sentence(kind, "batch size limit", "500") + " y."
        assert parse_statements(text) == [Statement(kind, "batch size limit", "500")]
    assert fact_sentence("fact", "vault code", "TANGO-7") == "For the record, the vault code is TANGO-7."
    assert fact_sentence("decision", "db", "pg-16", replaces="mysql-8") == "Decision (changed): the db is pg-16, not mysql-8."
    with pytest.raises(ValueError, match="not stated in a sentence"):
        fact_sentence("artifact", "/a.md", "written")


def test_an_update_parses_with_the_value_it_replaces_and_statements_keep_their_order():
    text = (
        fact_sentence("decision", "billing  database", "mysql-8")
        + "\n"
        + fact_sentence("decision", "billing database", "pg-16", replaces="mysql-8")
    )
    assert parse_statements(text) == [
        Statement("decision", "billing database", "mysql-8"),
        Statement("decision", "billing database", "pg-16", "mysql-8"),
    ]
    assert Statement("rule", "k", "v1", "v0").render() == "Rule (changed): the k is v1, not v0."
    assert parse_statements("Decision: the db is pg-160x") == [Statement("decision", "db", "pg-160x")]
    assert parse_statements("the db is pg-16 (no label)") == []


def test_probe_questions_are_told_apart():
    assert parse_probe(render_decision_question("billing database")) == ("decision", "billing database")
    assert parse_probe(ARTIFACT_QUESTION) == ("artifact", None)
    assert parse_probe(render_question("next step")) == ("value", "next step")
    assert parse_probe("What is the next step?") is None  # not a question turn
    assert parse_probe("Question: how are you") is None


def test_a_decision_answer_is_rendered_as_decided_then_rejected():
    assert render_decision_answer("pg-16", ["mysql-8", "sqlite-3"]) == "pg-16; rejected: mysql-8, sqlite-3"
    assert render_decision_answer("pg-16", []) == "pg-16; rejected: none"


def test_a_reference_question_asks_an_attribute_through_a_reference_and_parses_back():
    question = render_reference_question("access code", "primary site")
    assert question == "Question: What is the access code of the primary site? Reply with the value only."
    assert parse_probe(question) == ("value", "access code of the primary site")
    assert parse_reference("access code of the primary site") == ("access code", "primary site")
    assert parse_reference(reference_key("dock code", "head of the north office")) == ("dock code", "head of the north office")
    assert parse_reference("vault code") is None and parse_reference("of the site") is None
    with pytest.raises(ValueError, match="must not contain"):
        reference_key("name of the ship", "primary site")


def test_an_attribute_is_stated_under_its_entitys_name_and_read_back_only_for_that_entity():
    key = attribute_key("ORBIT-7", "access code")
    assert fact_sentence("fact", key, "4417-KESTREL") == "For the record, the ORBIT-7 access code is 4417-KESTREL."
    assert entity_attribute(key, "ORBIT-7") == "access code" and entity_attribute(key, "orbit-7") == "access code"
    assert entity_attribute(key, "VEGA-2") is None and entity_attribute(key, "ORBIT") is None
    assert entity_attribute("ORBIT-7", "ORBIT-7") is None
    assert reference_question_key(key, "ORBIT-7", "primary site") == "access code of the primary site"
    assert reference_question_key(key, "VEGA-2", "primary site") is None
