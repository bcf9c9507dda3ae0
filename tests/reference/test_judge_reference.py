"""The stand-in judge (`harness.reference.judge`) and the rubric prompts it reads (`harness.judge_prompt`)."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from harness.judge_prompt import (
    RUBRIC_OF_PROBE,
    RUBRICS,
    artifacts_reference,
    decision_reference,
    parse_judge_prompt,
    value_reference,
)
from harness.reference.judge import ReferenceJudgeModel, judge_messages, keyword_verdict
from harness.scoring.judge import JudgeChoice, judge_answer, make_judge
from harness.task_format import PROBES

VALUE = value_reference("pg-16", ["mysql-8"])
DECISION = decision_reference("pg-16", ["mysql-8"])
ARTIFACTS = artifacts_reference([("/notes/a.md", "written"), ("/logs/b.md", "edited")])


def prompt(answer: str, rubric: str = "current_value", reference: dict | None = None) -> str:
    ref = json.dumps(VALUE if reference is None else reference)
    return RUBRICS[rubric].prompt.format(inputs="Question: What is the billing database?", outputs=answer, reference_outputs=ref)


def test_every_probe_kind_has_a_rubric_and_each_prompt_names_its_rubric():
    assert set(RUBRIC_OF_PROBE) == set(PROBES) and set(RUBRIC_OF_PROBE.values()) == set(RUBRICS)
    for name, rubric in RUBRICS.items():
        assert f"<rubric>{name}</rubric>" in rubric.prompt
        assert all(f"{{{k}}}" in rubric.prompt for k in ("inputs", "outputs", "reference_outputs"))
        assert rubric.prompt.count("{") == 3  # only openevals' three fields are left to fill: no stray brace


@pytest.mark.parametrize(
    ("rubric", "reference"), [("current_value", VALUE), ("continuation", VALUE), ("decision", DECISION), ("artifacts", ARTIFACTS)]
)
def test_each_filled_prompt_parses_back_to_its_rubric_answer_and_reference(rubric, reference):
    parsed = parse_judge_prompt(prompt("pg-16, not mysql-8\nsecond line", rubric, reference))
    assert parsed is not None
    assert (parsed.rubric, parsed.answer, parsed.reference) == (rubric, "pg-16, not mysql-8\nsecond line", reference)


def test_a_text_that_is_not_a_rubric_does_not_parse():
    assert parse_judge_prompt("Summarize the conversation.") is None
    assert parse_judge_prompt(prompt("pg-16").replace('"expected"', '"wanted"')) is None  # a field missing
    assert parse_judge_prompt(prompt("pg-16", "decision", VALUE)) is None  # the decision rubric with a value reference
    assert parse_judge_prompt(prompt("pg-16").replace("current_value</rubric>", "vibes</rubric>")) is None
    assert parse_judge_prompt(prompt("pg-16").replace('"stale": ["mysql-8"]}', '"stale": ["mysql-8"]')) is None


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("pg-16", True),
        ("The billing database is PG-16.", True),
        ("mysql-8", False),
        ("pg-160", False),  # a longer token is not the value
        ("not pg-16", True),  # the blind spot: the keyword is there, the meaning is not
        ("pg-16 or mysql-8", True),
    ],
)
def test_the_keyword_rule_and_its_blind_spot(answer, verdict):
    assert keyword_verdict(answer, "pg-16") is verdict


@pytest.mark.parametrize(
    ("rubric", "reference", "answer", "verdict"),
    [
        ("continuation", VALUE, "The next step is pg-16.", True),
        ("continuation", VALUE, "Should I continue?", False),
        ("decision", DECISION, "pg-16; rejected: mysql-8", True),
        ("decision", DECISION, "pg-16; rejected: none", False),  # the rejected alternative left out
        ("decision", DECISION, "mysql-8; rejected: pg-16", True),  # the blind spot: both named, roles swapped
        ("artifacts", ARTIFACTS, "/notes/a.md\n/logs/b.md", True),
        ("artifacts", ARTIFACTS, "/notes/a.md", False),  # a file missing
        ("artifacts", ARTIFACTS, "/notes/a.md\n/logs/b.md\n/etc/c.md", True),  # the blind spot: an extra file
        ("artifacts", artifacts_reference([]), "/notes/a.md", False),  # nothing to look for: never true
    ],
)
def test_each_rubric_has_its_rule_and_its_blind_spot(rubric, reference, answer, verdict):
    out = judge_messages([HumanMessage(prompt(answer, rubric, reference))])
    assert out["score"] is verdict
    assert out["reasoning"].startswith(f"Under the {rubric} rubric") and out["reasoning"].endswith(f"{str(verdict).lower()}.")


def test_the_stand_in_refuses_a_request_without_the_rubric():
    with pytest.raises(ValueError, match="no judge rubric"):
        judge_messages([HumanMessage("Summarize the conversation.")])


def test_with_tools_bound_it_calls_the_first_tool_and_without_it_answers_json_and_reports_usage():
    schema = {"title": "score", "description": "d", "type": "object", "properties": {}}
    bound = ReferenceJudgeModel().bind_tools([schema], tool_choice="any")
    reply = bound.invoke([HumanMessage(prompt("mysql-8"))])
    call = reply.tool_calls[0]
    assert call["name"] == "score" and call["args"]["score"] is False
    plain = ReferenceJudgeModel().invoke([HumanMessage(prompt("pg-16"))])
    assert json.loads(plain.text)["score"] is True and not plain.tool_calls
    usage = plain.usage_metadata
    assert usage is not None and usage["input_tokens"] > 100 and 0 < usage["output_tokens"] < 100
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@pytest.mark.parametrize(("answer", "score"), [("pg-16; rejected: mysql-8", True), ("mysql-8; rejected: none", False)])
def test_openevals_reads_the_stand_in_through_structured_output(answer, score):
    evaluator = make_judge(JudgeChoice(ReferenceJudgeModel(), "reference-judge", True), "decision")
    result = evaluator(inputs="Q", outputs=answer, reference_outputs=DECISION)
    assert result["score"] is score and result["key"] == "decision"
    assert result["comment"].endswith(f"the score should be: {str(score).lower()}.")


def test_a_judgement_records_the_tokens_the_judge_reported():
    evaluator = make_judge(JudgeChoice(ReferenceJudgeModel(), "reference-judge", True))
    out = judge_answer(evaluator, "Q", "pg-16", VALUE)
    assert out["judge"] is True
    assert out["usage"]["input_tokens"] > 100 and out["usage"]["output_tokens"] > 0
    silent = judge_answer(lambda **_: {"score": True, "comment": "ok"}, "Q", "a", VALUE)
    assert silent["usage"] == {"input_tokens": 0, "output_tokens": 0}  # a judge that reported nothing: zero, said so
