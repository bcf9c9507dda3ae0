"""Masks, at the edges the mutants found unguarded: an artifact is never masked and never masks, and a summary that
states only the attribute (whose key names the entity) does not make the reference findable."""

from __future__ import annotations

from harness.scenarios.schema import Fact
from harness.scoring.scorers.facts import retention_records, tracked_facts
from harness.task_format import fact_sentence
from tests._traces import Conversation
from tests.scoring.test_scorers_facts_reference import ATTR, DEFINING, DOC1, DOC2, QUESTION, REF, TASK, _scenario


def _with(*extra: Fact) -> dict[str, object]:
    scenario = _scenario()
    scenario = type(scenario)(**{**scenario.__dict__, "facts": (*scenario.facts, *extra)})
    return {f.id: f for f in tracked_facts(scenario)}


def test_an_artifact_is_never_masked_by_a_key_naming_its_value():
    note = Fact("note", "artifact", "/notes/a.md", "written", "tool", 0)
    namer = Fact("namer", "fact", "written report id", "R-12", "tool", 0)
    tracked = _with(note, namer)
    assert tracked["note"].masks == ()


def test_an_artifacts_path_never_masks_another_fact():
    note = Fact("note", "artifact", "/notes/ORBIT-7.md", "written", "tool", 0)
    tracked = _with(note)
    assert tracked["reference"].masks == (ATTR.key,)  # the attribute's key masks it; the artifact's path does not


def test_a_fact_is_never_masked_by_its_own_key():
    own = Fact("own", "fact", "code SIGMA-4", "SIGMA-4", "tool", 0)
    assert _with(own)["own"].masks == ()


def _unoffloaded(summary: str) -> Conversation:
    """The reference conversation with a summary that names no history file: only the summary can make a fact
    findable."""
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, DOC2)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing of note.")])
    conv.summarize(summary, None)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-3"}, "DOC-3: nothing of note.")])
    conv.answer("TASK COMPLETE")
    conv.user(QUESTION)
    conv.answer(ATTR.value)
    return conv


def test_a_summary_stating_only_the_attribute_does_not_make_the_reference_findable():
    records = {
        r["id"]: r
        for r in retention_records(
            _unoffloaded(f"Kept: {fact_sentence('fact', ATTR.key, ATTR.value)}").trace(kind="probe"), _scenario()
        )
    }
    assert records["attribute"]["findable"] is True
    assert records["reference"]["left_view_round"] == 1 and records["reference"]["findable"] is False
    records = {r["id"]: r for r in retention_records(_unoffloaded(f"Kept: {DEFINING}").trace(kind="probe"), _scenario())}
    assert records[REF.id]["findable"] is True
