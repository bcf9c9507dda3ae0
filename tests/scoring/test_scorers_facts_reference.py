"""A reference question ("What is the access code of the primary site?"): a recall of two facts, the attribute
("the ORBIT-7 access code is 4417-KESTREL") and the fact naming its entity ("the primary site is ORBIT-7"). Judged on
the attribute's value, valid only when both statements are out of view; both facts are tracked, and an attribute's
statement (which names the entity) never counts as the reference's."""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Fact, Question, Scenario
from harness.scoring.scorers.facts import retention_records, tracked_facts, unmasked
from harness.scoring.scorers.probes import fact_records, judge_all, probe_scores
from harness.task_format import attribute_key, fact_sentence, render_reference_question
from tests._traces import HISTORY, Conversation

ATTR = Fact("attribute", "fact", attribute_key("ORBIT-7", "access code"), "4417-KESTREL", "tool", 0, doc="DOC-1")
REF = Fact("reference", "fact", "primary site", "ORBIT-7", "user", 0)
OTHER = Fact("distractor", "fact", attribute_key("VEGA-2", "access code"), "7781-HERON", "tool", 0, doc="DOC-2")
OTHER_REF = Fact("distractor-reference", "fact", "backup site", "VEGA-2", "user", 0)
FACTS = (ATTR, REF, OTHER, OTHER_REF)

DEFINING = fact_sentence("fact", REF.key, REF.value) + " " + fact_sentence("fact", OTHER_REF.key, OTHER_REF.value)
TASK = "Read the archive. " + DEFINING
DOC1 = "DOC-1: memo. " + fact_sentence("fact", ATTR.key, ATTR.value)
DOC2 = "DOC-2: memo. " + fact_sentence("fact", OTHER.key, OTHER.value)
QUESTION = render_reference_question("access code", REF.key)
PAGE = ("read_file", {"file_path": HISTORY, "offset": 0}, f"{TASK}\n{DOC1}\n{DOC2}")


def _scenario() -> Scenario:
    return Scenario(
        id="probe-ref",
        kind="probe",
        description="",
        task=TASK,
        followups=(QUESTION,),
        facts=FACTS,
        questions=(Question(1, ("attribute", "reference"), "recall"),),
    )


def _conversation(summary: str, reply: str, tools: list[Any] = (), *, keep: int = 0) -> Conversation:  # type: ignore[assignment]
    """Turn 0 fetches DOC-1 and DOC-2 and one more, a summary (keeping ``keep`` messages), then the question: ``tools``
    calls and ``reply``."""
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, DOC2)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing of note.")])
    conv.summarize(summary, HISTORY, keep=keep)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-3"}, "DOC-3: nothing of note.")])
    conv.answer("TASK COMPLETE")
    conv.user(QUESTION)
    for use in tools:
        conv.agent(tools=[use])
    conv.answer(reply)
    return conv


def _judged(conv: Conversation):  # noqa: ANN202
    (judged,) = judge_all(conv.trace(kind="probe"), _scenario())[1]
    return judged


def _scores(conv: Conversation) -> dict[str, Any]:
    return {s.key: s.value for s in probe_scores(conv.trace(kind="probe"), _scenario())}


def test_the_attribute_read_back_through_the_reference_is_correct_for_both_facts():
    conv = _conversation("The archive was read.", ATTR.value, tools=[PAGE])
    judged = _judged(conv)
    assert judged.valid and judged.correct and judged.expected == ATTR.value
    assert judged.per_fact["attribute"] == {"expected": ATTR.value, "correct": True, "stale": False, "via": "history"}
    assert judged.per_fact["reference"] == {"expected": REF.value, "correct": True, "stale": False, "via": "history"}
    assert _scores(conv)["probe_recall_correct"] is True
    records = {r["id"]: r for r in fact_records(conv.trace(kind="probe"), _scenario())}
    assert records["reference"]["question"]["correct"] is True and records["attribute"]["question"]["via"] == "history"


def test_the_wrong_entitys_value_is_incorrect():
    judged = _judged(_conversation("The archive was read.", OTHER.value, tools=[PAGE]))
    assert judged.valid and not judged.correct and judged.answered == OTHER.value
    assert judged.per_fact["attribute"]["correct"] is False and judged.per_fact["reference"]["correct"] is False
    stated_wrong = _judged(_conversation("x", f"The {OTHER.key} is {OTHER.value}."))
    assert not stated_wrong.correct


def test_only_one_fact_recovered_gives_no_answer_and_is_incorrect():
    # the summary keeps the reference only; nothing else is read: the agent cannot name the code
    conv = _conversation(
        f"Kept: {fact_sentence('fact', REF.key, REF.value)}", "I don't know the access code of the primary site."
    )
    judged = _judged(conv)
    assert judged.valid and not judged.correct and judged.answered is None
    assert judged.per_fact["reference"]["correct"] is False
    assert _scores(conv)["probe_recall_correct"] is False


def test_the_question_is_invalid_while_either_statement_is_in_view():
    # the task (the reference) is kept in view: invalid, though DOC-1 left
    kept_task = Conversation()
    kept_task.user(TASK)
    kept_task.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    kept_task.agent(tools=[("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing.")])
    kept_task.summarize("Read.", HISTORY)
    kept_task.agent(text=TASK)  # the reference said again in view, after the summary
    kept_task.answer("TASK COMPLETE")
    kept_task.user(QUESTION)
    kept_task.answer(ATTR.value)
    judged = _judged(kept_task)
    assert not judged.valid and "reference still in view as stated" in judged.why
    # DOC-1 (the attribute) is kept: invalid; that statement names ORBIT-7, yet it is not the reference's
    kept_doc = _conversation("Read.", ATTR.value, keep=4)  # DOC-9's call and result, DOC-3's call and result
    assert _judged(kept_doc).valid
    kept_doc = _conversation("Read.", ATTR.value, keep=6)
    judged = _judged(kept_doc)
    assert not judged.valid and judged.why == "attribute still in view as stated"


def test_the_attributes_statement_does_not_retain_the_reference():
    # the summary keeps the attribute's sentence (it names ORBIT-7) but not "the primary site is ORBIT-7"
    conv = _conversation(f"Kept: {fact_sentence('fact', ATTR.key, ATTR.value)}", ATTR.value)
    records = {r["id"]: r for r in retention_records(conv.trace(kind="probe"), _scenario())}
    assert records["attribute"]["retained"] is True
    assert records["reference"]["left_view_round"] == 1 and records["reference"]["retained"] is False
    kept_both = _conversation(f"Kept: {fact_sentence('fact', ATTR.key, ATTR.value)} {DEFINING}", ATTR.value)
    records = {r["id"]: r for r in retention_records(kept_both.trace(kind="probe"), _scenario())}
    assert records["reference"]["retained"] is True and records["distractor-reference"]["retained"] is True


def test_a_fact_is_masked_by_the_keys_that_name_its_value_and_only_those():
    tracked = {f.id: f for f in tracked_facts(_scenario())}
    assert tracked["reference"].masks == (ATTR.key,)
    assert tracked["distractor-reference"].masks == (OTHER.key,)
    assert tracked["attribute"].masks == () and tracked["distractor"].masks == ()
    assert "ORBIT-7" not in unmasked(DOC1, (ATTR.key,)) and "4417-KESTREL" in unmasked(DOC1, (ATTR.key,))
    assert unmasked("ORBIT-7 itself; ORBIT-77 access code; XORBIT-7 access code", (ATTR.key,)) == (
        "ORBIT-7 itself; ORBIT-77 access code; XORBIT-7 access code"
    )
    assert unmasked("the orbit-7  ACCESS code is", (ATTR.key,)) == "the   is"
