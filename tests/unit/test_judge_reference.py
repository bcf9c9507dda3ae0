"""The stand-in judge (`harness.reference.judge`) and the rubric prompt it reads (`harness.judge_prompt`)."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from harness.judge_prompt import JUDGE_PROMPT, parse_judge_prompt, reference_outputs
from harness.reference.judge import ReferenceJudgeModel, judge_messages, keyword_verdict
from harness.scoring.judge import JudgeChoice, make_judge


def prompt(answer: str, expected: str = "pg-16", stale: tuple[str, ...] = ("mysql-8",)) -> str:
    ref = json.dumps(reference_outputs(expected, stale))
    return JUDGE_PROMPT.format(inputs="Question: What is the billing database?", outputs=answer, reference_outputs=ref)


def test_the_filled_prompt_parses_back_to_its_answer_and_reference():
    parsed = parse_judge_prompt(prompt("pg-16, not mysql-8\nsecond line"))
    assert parsed is not None
    assert (parsed.answer, parsed.expected, parsed.stale) == ("pg-16, not mysql-8\nsecond line", "pg-16", ("mysql-8",))


def test_a_text_that_is_not_the_rubric_does_not_parse():
    assert parse_judge_prompt("Summarize the conversation.") is None
    assert parse_judge_prompt(prompt("pg-16").replace('"expected"', '"wanted"')) is None


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


def test_the_stand_in_refuses_a_request_without_the_rubric():
    with pytest.raises(ValueError, match="no judge rubric"):
        judge_messages([HumanMessage("Summarize the conversation.")])


def test_with_tools_bound_it_calls_the_first_tool_and_without_it_answers_json():
    schema = {"title": "score", "description": "d", "type": "object", "properties": {}}
    bound = ReferenceJudgeModel().bind_tools([schema], tool_choice="any")
    call = bound.invoke([HumanMessage(prompt("mysql-8"))]).tool_calls[0]
    assert call["name"] == "score" and call["args"]["score"] is False
    plain = ReferenceJudgeModel().invoke([HumanMessage(prompt("pg-16"))])
    assert json.loads(plain.text)["score"] is True and not plain.tool_calls


@pytest.mark.parametrize(("answer", "score"), [("pg-16; rejected: mysql-8", True), ("mysql-8; rejected: none", False)])
def test_openevals_reads_the_stand_in_through_structured_output(answer, score):
    evaluator = make_judge(JudgeChoice(ReferenceJudgeModel(), "reference-judge", True))
    result = evaluator(inputs="Q", outputs=answer, reference_outputs=reference_outputs("pg-16", ["mysql-8"]))
    assert result["score"] is score
    assert result["comment"].endswith(f"the score should be: {str(score).lower()}.")
