"""Retention of typed facts, in detail: the exact scores and explanations of the retention set, the record of a fact
with a three-value chain, the value looked for at the end of the trace, where a history file is offloaded, system
prompt facts, and how an artifact is stated (only by its own write, by name and path) and kept."""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Fact, Needle, Scenario
from harness.scoring.scorers.facts import TraceReader, TrackedFact, retention_records, retention_scores, timeline, tracked_facts
from harness.task_format import fact_sentence
from harness.trace.schema import Trace
from tests._facts import DB1, DB2, DOC1, DOC2, LOST, NOTE, PREFIX, STAGE, TASK, VAULT, archive, scenario
from tests._traces import HISTORY, Conversation

DB0 = Fact("db0", "decision", DB1.key, "mysql-5", "tool", 0, doc="DOC-0", superseded_by="db1")
STALE = "The work goes on. " + fact_sentence("decision", DB1.key, DB1.value)
NOTHING = ("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing of note.")


def by_key(trace: Trace, scen: Scenario) -> dict[str, tuple[Any, str, str]]:
    return {s.key: (s.value, s.role, s.explanation) for s in retention_scores(trace, scen)}


def records(conv: Conversation, scen: Scenario | None = None) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in retention_records(conv.trace(kind="probe"), scen or scenario())}


def test_the_retention_set_without_a_compaction_says_nothing_was_asked_of_retention():
    got = by_key(archive([]).trace(kind="probe"), scenario())
    assert got["facts_left_view"] == (
        False,
        "validity",
        "0 of 4 facts left view: nothing was compacted away, so nothing was asked of retention",
    )
    assert got["facts_retained"] == (True, "check", "every one of 0 facts out of view was kept at every round since")
    assert got["no_survival_cliff"] == (True, "check", "survival stayed at or above 0.5 in every round")
    assert got["cliff_round"] == (None, "measure", "survival per round []; cliff under 0.5")
    assert got["facts_left_view_n"] == (0, "measure", "facts whose statement left view")
    assert got["facts_retained_n"] == (0, "measure", "facts out of view kept at every round since")
    assert got["rounds"] == (0, "measure", "compaction events (summary, mask, trim)")


def test_the_retention_set_names_every_stale_value_of_a_chain_and_its_roles():
    scen = scenario(facts=(VAULT, DB0, DB1, DB2, STAGE, NOTE))
    got = by_key(archive([STALE]).trace(kind="probe"), scen)
    assert got["facts_left_view"] == (True, "validity", "4 of 4 facts left view")
    assert got["latest_value_kept"] == (
        False,
        "check",
        "db0 (decision): a round kept a stale value (mysql-5, mysql-8) without the latest 'pg-16'",
    )
    assert got["facts_retained"][1] == "check"
    assert got["no_survival_cliff"] == (False, "check", "survival fell under 0.5 at round 1 (the cliff round)")
    assert got["cliff_round"] == (1, "measure", "survival per round [0.0]; cliff under 0.5")


def test_a_record_carries_the_chain_head_its_latest_value_and_every_stale_value_once():
    rec = records(archive([STALE]), scenario(facts=(DB0, DB1, DB2)))["db0"]
    assert rec == {
        "id": "db0",
        "type": "decision",
        "key": "billing database",
        "place": "tool",
        "turn": 0,
        "value": "pg-16",
        "stale": ["mysql-5", "mysql-8"],
        "left_view_round": 1,
        "retained": False,
        "survived": False,
        "rounds": [False],
        "stale_retained": True,
        "findable": True,
    }


def test_the_survival_explanation_rounds_shares_to_two_places_and_shows_rounds_before_anything_left_view():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[("write_file", {"file_path": NOTE.key, "content": "a note"}, f"Updated file {NOTE.key}")])
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 1.", keep=len(conv.history))  # everything kept: nothing leaves view
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 2. " + fact_sentence("fact", VAULT.key, VAULT.value))
    conv.answer("TASK COMPLETE")
    got = by_key(conv.trace(kind="probe"), scenario(facts=(VAULT, STAGE, NOTE)))
    assert got["cliff_round"] == (2, "measure", "survival per round [None, 0.33]; cliff under 0.5")


def test_the_value_looked_for_at_the_end_is_the_latest_stated_by_the_last_call():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[NOTHING])
    conv.summarize(STALE, path=None)  # mysql-8, the latest so far
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, DOC2)])
    conv.answer("TASK COMPLETE")  # only this last call has seen pg-16
    assert records(conv)["db1"]["findable"] is False  # the summary holds mysql-8, no longer the latest


def test_findable_reads_the_event_of_the_round_the_fact_left_view_at():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 1. " + LOST, path=None)  # vault leaves view here, offloaded nowhere
    conv.agent(tools=[NOTHING])
    conv.summarize("Round 2. " + LOST)  # this one names a history file
    conv.answer("TASK COMPLETE")
    rec = records(conv, scenario(facts=(VAULT,)))["vault"]
    assert (rec["left_view_round"], rec["findable"]) == (1, False)


def test_a_trace_without_agent_calls_has_records_with_nothing_seen():
    trace = Conversation().trace(kind="probe")
    (rec,) = retention_records(trace, scenario(facts=(VAULT,)))
    assert (rec["left_view_round"], rec["rounds"], rec["findable"], rec["stale_retained"]) == (None, [], False, False)


def test_a_stale_value_first_said_in_the_round_itself_is_still_stale():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, "DOC-2: " + fact_sentence("decision", DB2.key, DB2.value))])
    conv.agent(tools=[NOTHING])
    conv.summarize(STALE)  # mysql-8 appears only now, the older value, and pg-16 is gone
    conv.answer("TASK COMPLETE")
    rec = records(conv)["db1"]
    assert (rec["rounds"], rec["stale_retained"]) == ([False], True)


def test_the_stale_flags_of_a_timeline_are_per_round():
    trace = archive([STALE, "Round 2 keeps nothing."]).trace(kind="probe")
    reader = TraceReader(trace)
    db = next(f for f in tracked_facts(scenario()) if f.id == "db1")
    line = timeline(reader, db)
    assert (line.rounds, line.stale) == ([False, False], [True, False])


def test_a_fact_that_never_left_view_has_no_stale_round():
    rec = records(archive([STALE], keep=4))["note"]  # the write's result and the last fetch are kept
    assert (rec["left_view_round"], rec["rounds"], rec["stale_retained"]) == (None, [None], False)


def test_tracked_facts_carry_each_chain_members_turn_and_place_and_needles_turn_zero():
    scen = Scenario(
        id="p",
        kind="probe",
        description="",
        task=TASK,
        followups=("q",),
        facts=(DB1, DB2),
        needles=(Needle(key="vault code", answer="TANGO-7", doc="DOC-1", depth=0.5, turn=1),),
    )
    assert tracked_facts(scen) == [
        TrackedFact("db1", "decision", DB1.key, "tool", 0, ("mysql-8", "pg-16"), (0, 0), ("db1", "db2"), ("tool", "tool")),
        TrackedFact("needle-1", "fact", "vault code", "tool", 0, ("TANGO-7",), (0,), ("needle-1",)),
    ]


def test_a_member_without_a_recorded_place_said_in_the_questions_turn_is_not_said_before_it():
    needle = TrackedFact("needle-1", "fact", "vault code", "tool", 0, ("TANGO-7",), (0,), ("needle-1",))
    assert (needle.said_before(0, 0), needle.said_before(0, 1)) == (False, True)


# -- system prompt facts ---------------------------------------------------------------------------------------------


def test_a_system_fact_is_seen_in_the_system_prompt_so_a_summary_holding_it_makes_it_findable():
    conv = archive(
        [fact_sentence("rule", PREFIX.key, PREFIX.value)], path=None, system=fact_sentence("rule", PREFIX.key, PREFIX.value)
    )
    rec = records(conv, scenario(facts=(PREFIX,)))["prefix"]
    assert (rec["left_view_round"], rec["findable"]) == (None, True)


def test_only_a_system_fact_is_looked_for_in_the_system_prompt():
    conv = archive([LOST], system="Note: " + fact_sentence("fact", VAULT.key, VAULT.value))
    rec = records(conv, scenario(facts=(VAULT,)))["vault"]
    assert (rec["left_view_round"], rec["rounds"]) == (1, [False])  # the system prompt does not keep a tool fact


# -- artifacts -------------------------------------------------------------------------------------------------------


def _note(conv: Conversation) -> dict[str, Any]:
    return records(conv, scenario(facts=(NOTE,)))["note"]


def test_the_result_of_an_artifacts_write_in_view_states_it_without_the_call():
    rec = _note(archive([LOST], keep=3))  # keeps the write's result, not the write call
    assert rec["left_view_round"] is None


def test_a_mention_of_an_artifacts_path_does_not_state_it():
    conv = archive([LOST])
    conv.user("Go on.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-5"}, f"DOC-5: see {NOTE.key} for the note.")])
    conv.answer("Done.")
    assert _note(conv)["left_view_round"] == 1


def test_a_write_to_another_path_or_a_read_of_the_artifact_does_not_state_it():
    for use in [
        ("write_file", {"file_path": "/notes/b.md", "content": "b"}, None),
        ("read_file", {"file_path": NOTE.key}, None),
    ]:
        conv = archive([])
        conv.agent(tools=[use])
        conv.summarize("Round 1. " + LOST, keep=1)  # keeps only the last call (no result)
        conv.answer("TASK COMPLETE")
        rec = _note(conv)
        assert (rec["left_view_round"], rec["rounds"]) == (1, [False]), use


def test_an_artifact_written_again_after_leaving_view_is_kept_by_its_write_call():
    conv = archive([LOST])
    conv.agent(tools=[("edit_file", {"file_path": NOTE.key, "old": "a", "new": "b"}, None)])  # no result
    conv.summarize("Round 2.", keep=1)  # keeps only the edit call
    conv.answer("TASK COMPLETE")
    assert _note(conv)["rounds"] == [False, True]


def test_an_artifacts_path_at_the_end_of_a_summary_line_is_kept():
    assert _note(archive(["Artifacts made:\nWrote " + NOTE.key + "\nAll done."]))["rounds"] == [True]


def test_an_artifact_never_written_is_never_seen_whatever_the_summary_says():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[NOTHING])
    conv.summarize(f"Round 1. The note goes to {NOTE.key}.", path=None)
    conv.answer("TASK COMPLETE")
    assert (_note(conv)["left_view_round"], _note(conv)["findable"]) == (None, False)


def test_a_summary_holding_a_facts_value_is_not_where_the_fact_is_stated():
    trace = archive([fact_sentence("fact", VAULT.key, VAULT.value)]).trace(kind="probe")
    reader = TraceReader(trace)
    vault = next(f for f in tracked_facts(scenario()) if f.id == "vault")
    last = trace.agent_calls()[-1]
    where = reader.where(last, vault, VAULT.value)
    assert (where.stated, where.in_summary, where.on_history_page) == (False, True, False)


def test_a_mention_in_view_at_the_round_does_not_state_an_artifact_but_keeps_it():
    conv = archive([])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-5"}, f"DOC-5: see {NOTE.key} for the note.")])
    conv.summarize("Round 1. " + LOST, keep=1)  # keeps only DOC-5's text, which names the path
    conv.answer("TASK COMPLETE")
    rec = _note(conv)
    assert (rec["left_view_round"], rec["rounds"]) == (1, [True])


def test_an_artifact_is_in_the_summary_or_on_a_history_page_as_any_fact_is():
    conv = archive(["Wrote " + NOTE.key + "."])
    conv.user("Go on.")
    conv.agent(tools=[("read_file", {"file_path": HISTORY}, f"Updated file {NOTE.key}")])
    conv.answer("Done.")
    trace = conv.trace(kind="probe")
    reader = TraceReader(trace)
    note = next(f for f in tracked_facts(scenario()) if f.id == "note")
    where = reader.where(trace.agent_calls()[-1], note, NOTE.key)
    assert (where.stated, where.in_summary, where.on_history_page) == (False, True, True)


def test_a_system_fact_is_first_seen_at_the_first_call_through_the_system_prompt():
    conv = archive([LOST], system=fact_sentence("rule", PREFIX.key, PREFIX.value))
    trace = conv.trace(kind="probe")
    prefix = next(f for f in tracked_facts(scenario(facts=(PREFIX,))) if f.id == "prefix")
    assert timeline(TraceReader(trace), prefix).first_seen == {0: 0}


def test_an_updated_artifact_is_not_asked_latest_value_kept():
    made = Fact("made", "artifact", NOTE.key, "written", "tool", 0, superseded_by="edited")
    edited = Fact("edited", "artifact", NOTE.key, "edited", "tool", 0)
    got = by_key(archive([LOST]).trace(kind="probe"), scenario(facts=(made, edited)))
    assert "latest_value_kept" not in got
