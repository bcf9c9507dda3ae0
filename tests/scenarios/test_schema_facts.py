"""Dataset rows with typed facts, questions, scripted assistant turns, a system prompt and a recorded conversation:
a good row loads; every broken rule is refused with the field it is about (exit 2 at the CLI)."""

from __future__ import annotations

import copy
import json

import pytest

from harness.errors import DatasetError
from harness.scenarios.schema import _scenario, offline_statement_problem, scenario_row, validate_row
from harness.task_format import ARTIFACT_QUESTION, fact_sentence, render_decision_question, render_question

DOC1 = "DOC-001: memo\n" + fact_sentence("decision", "billing database", "mysql-8") + "\nfiller line."
DOC2 = "DOC-002: memo\n" + fact_sentence("decision", "billing database", "pg-16", replaces="mysql-8")
TASK = (
    "Review the memos. "
    + fact_sentence("preference", "report format", "markdown")
    + "\n\nWork through these steps in order, one tool call per step:\n"
    "1. Fetch document DOC-001 with fetch_document.\n2. Fetch document DOC-002 with fetch_document.\n"
    "3. Write /notes/a.md with write_file: a one-line note on DOC-001.\n"
    '4. Reply with "TASK COMPLETE" and the number of steps you finished.'
)
GOOD = {
    "id": "probe-1",
    "kind": "probe",
    "description": "d",
    "task": TASK,
    "followups": [
        render_decision_question("billing database"),
        render_question("commit prefix"),
        ARTIFACT_QUESTION,
        render_question("next step"),
    ],
    "documents": [{"id": "DOC-001", "text": DOC1}, {"id": "DOC-002", "text": DOC2}],
    "expected_steps": [
        {"tool": "fetch_document", "target": "DOC-001"},
        {"tool": "fetch_document", "target": "DOC-002"},
        {"tool": "write_file", "target": "/notes/a.md"},
        {"tool": "reply", "target": ""},
    ],
    "system_prompt": fact_sentence("rule", "commit prefix", "FIN-OPS"),
    "assistant": [{"turn": 3, "text": fact_sentence("goal_state", "next step", "deploy-staging")}],
    "facts": [
        {
            "id": "db1",
            "type": "decision",
            "key": "billing database",
            "value": "mysql-8",
            "place": "tool",
            "turn": 0,
            "doc": "DOC-001",
            "superseded_by": "db2",
        },
        {
            "id": "db2",
            "type": "decision",
            "key": "billing database",
            "value": "pg-16",
            "place": "tool",
            "turn": 0,
            "doc": "DOC-002",
        },
        {"id": "fmt", "type": "preference", "key": "report format", "value": "markdown", "place": "user", "turn": 0},
        {"id": "rule", "type": "rule", "key": "commit prefix", "value": "FIN-OPS", "place": "system", "turn": 0},
        {"id": "note", "type": "artifact", "key": "/notes/a.md", "value": "written", "place": "tool", "turn": 0},
        {"id": "next", "type": "goal_state", "key": "next step", "value": "deploy-staging", "place": "assistant", "turn": 3},
    ],
    "questions": [
        {"turn": 1, "facts": ["db1"], "probe": "decision"},
        {"turn": 2, "facts": ["rule"], "probe": "recall"},
        {"turn": 3, "facts": ["note"], "probe": "artifact"},
        {"turn": 4, "facts": ["next"], "probe": "continuation"},
    ],
}


def _refused(row: dict) -> DatasetError:
    with pytest.raises(DatasetError) as info:
        validate_row(row, "datasets/x.jsonl", 3)
    return info.value


def _broken(**changes) -> dict:  # noqa: ANN003
    row = copy.deepcopy(GOOD)
    for path, value in changes.items():
        target = row
        parts = path.split("__")
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target[part]
        last = parts[-1]
        if value is _DELETE:
            del target[last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return row


_DELETE = object()


def test_a_good_row_loads_with_its_facts_questions_and_places():
    validate_row(GOOD, "datasets/x.jsonl", 1)
    scenario = _scenario(GOOD, "datasets/x.jsonl")
    assert [f.id for f in scenario.chain(scenario.fact("db1"))] == ["db1", "db2"]
    assert scenario.assistant == ((3, GOOD["assistant"][0]["text"]),)
    assert scenario.agent_system_prompt() == GOOD["system_prompt"]
    assert [(q.turn, q.probe) for q in scenario.questions] == [
        (1, "decision"),
        (2, "recall"),
        (3, "artifact"),
        (4, "continuation"),
    ]
    assert offline_statement_problem(scenario) is None
    again = scenario_row(scenario)
    assert again["facts"] == GOOD["facts"] and again["questions"] == GOOD["questions"]
    assert again["assistant"] == GOOD["assistant"] and again["system_prompt"] == GOOD["system_prompt"]
    json.dumps(again)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"facts__0__type": "opinion"}, "facts[0].type", "unknown fact type"),
        ({"facts__0__place": "email"}, "facts[0].place", "unknown place"),
        ({"facts__0__value": "my sql"}, "facts[0].value", "one word"),
        ({"facts__0__key": "what is it"}, "facts[0].key", "without the word 'is'"),
        ({"facts__0__value": "oracle-9"}, "facts[0].value", "is not stated in its place"),
        ({"facts__0__doc": "DOC-404"}, "facts[0].doc", "not one of the row's documents"),
        ({"facts__0__doc": _DELETE}, "facts[0].doc", "names the document"),
        ({"facts__1__id": "db1"}, "facts[1].id", "duplicate fact id"),
        ({"facts__0__superseded_by": "db9"}, "facts[0].superseded_by", "not a fact id"),
        ({"facts__0__superseded_by": "fmt"}, "facts[0].superseded_by", "same key and type"),
        ({"facts__2__doc": "DOC-001"}, "facts[2].doc", "only a tool fact names a doc"),
        ({"facts__3__turn": 1}, "facts[3].turn", "turn 0"),
        ({"system_prompt": _DELETE}, "system_prompt", "the row has none"),
        ({"facts__5__turn": 2}, "facts[5].place", "no scripted assistant message"),
        ({"facts__4__value": "read"}, "facts[4].value", "what was done to it"),
        ({"facts__4__key": "/notes/b.md"}, "facts[4].key", "no expected step"),
        ({"facts__4__place": "user"}, "facts[4].place", "its place is 'tool'"),
        ({"facts__0__color": "red"}, "facts[0].color", "unknown field"),
        ({"facts__0__turn": 9}, "facts[0].turn", "must name a turn"),
        ({"assistant__0__turn": 0}, "assistant[0].turn", "follow-up turn"),
        ({"questions__0__probe": "vibe"}, "questions[0].probe", "unknown probe"),
        ({"questions__1__turn": 1}, "questions[1].turn", "one question per turn"),
        ({"questions__0__facts": ["db9"]}, "questions[0].facts", "not a fact id"),
        ({"questions__0__facts": []}, "questions[0].facts", "non-empty list"),
        ({"questions__0__facts": ["fmt"]}, "questions[0].facts", "decision fact"),
        ({"questions__3__facts": ["fmt"]}, "questions[3].facts", "goal_state fact"),
        ({"questions__2__facts": ["fmt"]}, "questions[2].facts", "artifact facts only"),
        ({"questions__1__facts": ["note"]}, "questions[1].probe", "artifact probe"),
        ({"questions__1__facts": ["rule", "fmt", "next"]}, "questions[1].facts", "one fact"),
        ({"questions__3__facts": ["next", "fmt"]}, "questions[3].facts", "one fact"),
        # a recall of two facts is a reference question: the first must be stated under the second's value
        ({"questions__1__facts": ["rule", "fmt"]}, "questions[1].facts", "'commit prefix' is not named by 'fmt''s value"),
        ({"questions__1__facts": ["note", "fmt"]}, "questions[1].facts", "not artifacts"),
        ({"followups__0": render_question("billing database")}, "followups[0]", "What was decided"),
        ({"followups__2": render_question("x")}, "followups[2]", "artifact question"),
        ({"facts__5__turn": 4, "assistant__0__turn": 4}, "questions[3].turn", "before it is stated"),
        ({"questions": []}, "questions", "at least one question"),
    ],
)
def test_every_broken_rule_is_refused_naming_its_field(changes, field, words):
    error = _refused(_broken(**changes))
    assert error.field == field, str(error)
    assert words in str(error)
    assert "datasets/x.jsonl" in str(error) and "row 3" in str(error)


def test_an_update_that_restates_the_same_value_or_comes_first_is_refused():
    row = _broken(facts__1__value="mysql-8")
    row["documents"][1]["text"] += " the billing database is mysql-8"
    assert "restates the same value" in str(_refused(row))
    row = _broken(facts__0__turn=1, facts__0__place="user")
    del row["facts"][0]["doc"]
    row["followups"][0] = render_decision_question("billing database") + " mysql-8"
    error = _refused(row)
    assert error.field == "facts[0].superseded_by" and "before this fact" in str(error)


def test_two_facts_superseded_by_one_are_refused():
    row = copy.deepcopy(GOOD)
    row["facts"].append(dict(row["facts"][0], id="db0"))
    assert "supersedes two facts" in str(_refused(row))


def test_a_paraphrased_fact_loads_but_the_reference_agent_cannot_read_it():
    row = copy.deepcopy(GOOD)
    row["system_prompt"] = "Always start commit messages with FIN-OPS."
    validate_row(row, "datasets/x.jsonl", 1)
    reason = offline_statement_problem(_scenario(row, "datasets/x.jsonl"))
    assert reason is not None and "'rule'" in reason and "live model" in reason
