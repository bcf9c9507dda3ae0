"""Cases that mislead their author (issue 31): a fact's value that also occurs in another of the row's documents is
warned about at load time (fact, document, word) and, when only the word is in view at a question, the question is
INVALID because "the value occurs in view", not "still in view as stated"; a typed-fact statement no fact covers is
reported; the warnings reach the run's console and meta.json."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

from harness.compaction.variants import make_config
from harness.scenarios.schema import case_warnings, load_scenarios, uncovered_statements, value_elsewhere
from harness.scoring.scorers.probes import judge_all
from harness.task_format import fact_sentence
from tests._facts import DOC1, DOC2, LOST, archive, ask, scenario
from tests.scenarios.test_schema_facts import GOOD

DOCS = (("DOC-1", DOC1), ("DOC-2", DOC2))  # the archive's documents: its facts are stated there in the grammar
SHIPPED = Path(__file__).resolve().parents[2] / "datasets"


def _row(**extra_docs: str) -> dict:
    row = copy.deepcopy(GOOD)
    row["documents"] += [{"id": d, "text": t} for d, t in extra_docs.items()]
    return row


def _load(tmp_path: Path, *rows: dict) -> list:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return load_scenarios([path])


# -- a value that occurs elsewhere ----------------------------------------------------------------------------------
def test_a_value_that_occurs_as_a_word_in_another_document_is_warned_about_with_fact_document_and_word(tmp_path):
    legacy = "DOC-003: inventory\nThe old MySQL-8 cluster was switched off last spring.\nfiller."
    (case,) = _load(tmp_path, _row(**{"DOC-003": legacy}))
    assert case.warnings == (
        f"{tmp_path / 'cases.jsonl'}: row 1 (id 'probe-1'): field 'facts[0].value': fact 'db1': its value 'mysql-8' also "
        "occurs in document 'DOC-003' as the word 'MySQL-8' ('DOC-003: inventory The old MySQL-8 cluster was switched "
        "off last spring. f'), not as the fact's statement: while that document is in view a question about 'db1' is INVALID "
        "('the value occurs in view'); choose a value that occurs nowhere else in the case",
    )


def test_a_fact_stated_again_in_another_document_is_warned_about_as_stated():
    again = "DOC-003: minutes\n" + fact_sentence("preference", "report format", "markdown")
    (fld, problem), *_ = value_elsewhere(_scenario_of(_row(**{"DOC-003": again})))
    assert fld == "facts[2].value"
    assert problem.startswith("fact 'fmt' is stated again in document 'DOC-003' ('the report format is markdown')")
    assert problem.endswith("is INVALID ('still in view as stated')")


def test_the_documents_of_a_facts_own_update_chain_and_an_entitys_attribute_are_not_warned_about():
    # DOC-002 states db2 "pg-16, not mysql-8": that is db1's update, not a stray mysql-8
    assert value_elsewhere(_scenario_of(GOOD)) == []
    row = _row(**{"DOC-003": "DOC-003: " + fact_sentence("fact", "pg-16 replica host", "db-west-2")})
    row["facts"].append(
        {
            "id": "host",
            "type": "fact",
            "key": "pg-16 replica host",
            "value": "db-west-2",
            "place": "tool",
            "turn": 0,
            "doc": "DOC-003",
        }
    )
    assert value_elsewhere(_scenario_of(row)) == []  # pg-16 there names the entity of another fact's key


def test_the_shipped_probe_cases_mislead_nobody():
    cases = load_scenarios([SHIPPED / "probes.jsonl", SHIPPED / "recorded.jsonl"])
    assert [w for c in cases for w in c.warnings] == []


# -- statements no fact covers --------------------------------------------------------------------------------------
def test_a_typed_statement_no_fact_covers_is_reported_with_its_field():
    row = copy.deepcopy(GOOD)
    row["assistant"][0]["text"] += " " + fact_sentence("constraint", "deploy window", "friday")
    row["followups"][1] += " " + fact_sentence("preference", "report format", "html")
    assert uncovered_statements(_scenario_of(row)) == [
        (
            "followups[1]",
            "states 'Preference: the report format is html.', which no fact of the row covers (fact 'fmt' has that key, "
            "with the value 'markdown'): nothing scores or asks it, yet the agent and the summarizer read it like a "
            "listed fact; list it under 'facts' or reword it",
        ),
        (
            "assistant[0].text",
            "states 'Constraint: the deploy window is friday.', which no fact of the row covers: nothing scores or asks "
            "it, yet the agent and the summarizer read it like a listed fact; list it under 'facts' or reword it",
        ),
    ]


def test_a_recorded_conversation_stating_an_unlisted_fact_is_reported(tmp_path):
    recording = tmp_path / "chat.jsonl"
    said = [
        {"role": "user", "content": "We moved billing. " + fact_sentence("decision", "billing database", "pg-16")},
        {"role": "assistant", "content": "Noted. " + fact_sentence("rule", "freeze day", "friday")},
    ]
    recording.write_text("".join(json.dumps(m) + "\n" for m in said))
    row = {
        "id": "rec-1",
        "kind": "probe",
        "description": "d",
        "task": "Review the notes.",
        "followups": ["Question: What is the billing database? Reply with the value only."],
        "conversation": "chat.jsonl",
        "facts": [
            {
                "id": "db",
                "type": "decision",
                "key": "billing database",
                "value": "pg-16",
                "place": "conversation",
                "turn": 0,
                "message": 0,
            }
        ],
        "questions": [{"turn": 1, "facts": ["db"], "probe": "recall"}],
    }
    (case,) = _load(tmp_path, row)
    assert case.warnings == (
        f"{tmp_path / 'cases.jsonl'}: row 1 (id 'rec-1'): field 'conversation (message 1 of chat.jsonl)': states "
        "'Rule: the freeze day is friday.', which no fact of the row covers: nothing scores or asks it, yet the agent "
        "and the summarizer read it like a listed fact; list it under 'facts' or reword it",
    )


def test_a_session_cases_recording_is_not_warned_about_the_same_recording_in_a_probe_case_is():
    """A session case's conversation is what the user recorded, asked about by its probes (a row of that kind has no
    facts): "list it under 'facts' or reword it" is advice its author cannot take. The shipped session case's recording
    (billing-runbook) loads without a warning; the probe case over the same migration recording still gets them."""
    (session,) = load_scenarios([SHIPPED / "mechanisms" / "sessions.jsonl"])
    assert session.kind == "session" and len(session.conversation) > 5 and session.warnings == ()
    probe = replace(session, kind="probe", probes=(), session=None)
    assert any("Constraint: the maximum downtime window is 15-minutes." in p for _, p in uncovered_statements(probe))


def test_warnings_are_printed_when_a_run_starts_and_kept_in_its_meta(tmp_path):
    from harness.runs.run import RunSink

    legacy = "DOC-003: inventory\nThe old mysql-8 cluster was switched off.\nfiller."
    cases = _load(tmp_path, _row(**{"DOC-003": legacy}))
    printed: list[str] = []
    sink = RunSink(
        cases,
        make_config("forced-20"),
        seed=0,
        trials=1,
        out_dir=tmp_path / "runs",
        progress=printed.append,
    )
    meta = json.loads((sink.path / "meta.json").read_text())
    assert meta["warnings"] == list(case_warnings(cases[0], 1)) == list(cases[0].warnings)
    assert printed == [f"warning: {w}" for w in cases[0].warnings]


# -- the question's validity says what matched ---------------------------------------------------------------------
def test_a_value_in_view_only_as_a_word_makes_the_question_invalid_saying_the_value_occurs_in_view():
    tugboat = ("fetch_document", {"doc_id": "DOC-7"}, "DOC-7: TANGO-7 is also the name of a tugboat.")
    conv = ask(archive([LOST]), "recall", "TANGO-7", tools=[tugboat])
    ask(conv, "recall", "TANGO-7")
    case = replace(scenario([(1, ("vault",), "recall"), (2, ("vault",), "recall")]), documents=DOCS)
    _, (first, second) = judge_all(conv.trace(kind="probe"), case)
    assert (first.valid, first.why) == (True, "")  # the word came into view after the question's first call
    assert (second.valid, second.why) == (
        False,
        "vault: the value occurs in view ('TANGO-7' in the result of fetch_document(DOC-7)), not its statement",
    )


def test_a_statement_in_view_is_still_in_view_as_stated():
    conv = archive([])  # nothing compacted: the statement never left view
    ask(conv, "recall", "TANGO-7")
    _, (j,) = judge_all(conv.trace(kind="probe"), replace(scenario([(1, ("vault",), "recall")]), documents=DOCS))
    assert (j.valid, j.why) == (False, "vault still in view as stated")


def _scenario_of(row: dict):  # noqa: ANN202
    from harness.scenarios.schema import _scenario, validate_row

    validate_row(row, "datasets/x.jsonl", 1)
    return _scenario(row, "datasets/x.jsonl")


def test_a_paraphrased_fact_in_view_as_a_word_is_taken_as_stated():
    # no document states the vault code in the 'the <key> is <value>' grammar (a paraphrase, for a live model):
    # the word is all the scorer can find a statement by, so it stays "as stated"
    tugboat = ("fetch_document", {"doc_id": "DOC-7"}, "DOC-7: TANGO-7 is also the name of a tugboat.")
    conv = ask(archive([LOST]), "recall", "TANGO-7", tools=[tugboat])
    ask(conv, "recall", "TANGO-7")
    paraphrase = (("DOC-1", "DOC-1: letters. The vault opens with TANGO-7."), ("DOC-2", DOC2))
    case = replace(scenario([(1, ("vault",), "recall"), (2, ("vault",), "recall")]), documents=paraphrase)
    _, (_, second) = judge_all(conv.trace(kind="probe"), case)
    assert (second.valid, second.why) == (False, "vault still in view as stated")
