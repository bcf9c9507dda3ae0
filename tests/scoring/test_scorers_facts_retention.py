"""Retention of typed facts through compaction rounds: when a fact's statement left view, whether each later round
kept its latest value, stale values kept without it, survival by round and the cliff round."""

from __future__ import annotations

from typing import Any

import pytest

from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers import (
    CLIFF_THRESHOLD,
    MEASURE,
    VALIDITY,
    Score,
    cliff_round,
    fact_records,
    outcome,
    retention_scores,
    score_case,
    survival_by_round,
)
from harness.scoring.scorers.facts import TraceReader, tracked_facts
from harness.task_format import fact_sentence
from tests._facts import DB1, DB2, DOC1, DOC2, KEPT, LOST, NOTE, PREFIX, STAGE, TASK, VAULT, archive, scenario
from tests._traces import Conversation

ALL = " ".join(
    [
        fact_sentence("fact", VAULT.key, VAULT.value),
        fact_sentence("decision", DB2.key, DB2.value, replaces=DB1.value),
        fact_sentence("goal_state", STAGE.key, STAGE.value),
        f"Wrote {NOTE.key}.",
    ]
)
DB_AND_STAGE = KEPT + " " + fact_sentence("goal_state", STAGE.key, STAGE.value)
STALE = "The work goes on. " + fact_sentence("decision", DB1.key, DB1.value)


def records(conv: Conversation, scen: Scenario | None = None) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in fact_records(conv.trace(kind="probe"), scen or scenario())}


def scores(conv: Conversation, scen: Scenario | None = None) -> dict[str, Score]:
    return {s.key: s for s in retention_scores(conv.trace(kind="probe"), scen or scenario())}


def test_a_summary_that_keeps_every_fact_retains_them_all():
    recs, s = records(archive([ALL])), scores(archive([ALL]))
    assert {k: (r["left_view_round"], r["retained"], r["survived"], r["rounds"]) for k, r in recs.items()} == {
        k: (1, True, True, [True]) for k in ("vault", "db1", "stage", "note")
    }
    assert s["facts_retained"].value is True and s["facts_left_view"].value is True
    assert (s["facts_left_view_n"].value, s["facts_retained_n"].value, s["rounds"].value, s["cliff_round"].value) == (
        4,
        4,
        1,
        None,
    )


def test_a_summary_without_the_fact_fails_facts_retained_naming_the_fact_its_type_and_round():
    s = scores(archive([LOST]))
    assert s["facts_retained"].value is False
    assert s["facts_retained"].explanation == "vault (fact, 'vault code') lost at round 1 (left view at round 1)"
    assert outcome(retention_scores(archive([LOST]).trace(kind="probe"), scenario()))[0] == "FAIL"
    assert records(archive([LOST]))["stage"]["retained"] is False  # a user-turn fact summarized away too


def test_a_fact_kept_by_one_round_and_lost_by_the_next_was_retained_but_did_not_survive():
    rec = records(archive([ALL, LOST]))["vault"]
    assert (rec["retained"], rec["survived"], rec["rounds"]) == (True, False, [True, False])
    assert scores(archive([ALL, LOST]))["facts_retained"].explanation.endswith("lost at round 2 (left view at round 1)")


def test_a_stale_value_kept_without_the_latest_fails_latest_value_kept_and_the_change_sentence_passes():
    bad = scores(archive([STALE]))
    assert bad["latest_value_kept"].value is False
    assert (
        "db1 (decision): a round kept a stale value (mysql-8) without the latest 'pg-16'" in bad["latest_value_kept"].explanation
    )
    assert records(archive([STALE]))["db1"]["stale_retained"] is True
    good = records(archive([KEPT]))["db1"]  # "pg-16, not mysql-8": the latest is there beside the stale one
    assert (good["retained"], good["stale_retained"], good["value"], good["stale"]) == (True, False, "pg-16", ["mysql-8"])
    assert scores(archive([KEPT]))["latest_value_kept"].value is True


def test_latest_value_kept_is_asked_only_when_a_fact_has_updates():
    assert "latest_value_kept" not in scores(archive([LOST]), scenario(facts=(VAULT, STAGE)))


def test_the_value_looked_for_at_a_round_is_the_latest_stated_by_then():
    conv = Conversation()
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing.")])
    conv.summarize("Round 1. " + fact_sentence("decision", DB1.key, DB1.value))  # mysql-8 is still the latest here
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, DOC2)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-8"}, "DOC-8: nothing.")])
    conv.summarize("Round 2. " + fact_sentence("decision", DB1.key, DB1.value))  # pg-16 is now: mysql-8 is stale
    conv.answer("TASK COMPLETE")
    rec = records(conv)["db1"]
    assert (rec["left_view_round"], rec["rounds"], rec["stale_retained"]) == (1, [True, False], True)


def test_a_fact_still_in_view_never_left_view_and_no_compaction_is_invalid():
    kept = records(archive([LOST], keep=4))  # keeps the write and the last fetch: the artifact is still stated
    assert (kept["note"]["left_view_round"], kept["note"]["rounds"], kept["note"]["retained"]) == (None, [None], None)
    assert kept["vault"]["left_view_round"] == 1
    none = retention_scores(archive([]).trace(kind="probe"), scenario())
    by = {s.key: s for s in none}
    assert by["facts_left_view"].value is False and by["compacted"].value == 0
    assert outcome(none)[0] == "INVALID"


def test_a_system_prompt_fact_is_stated_at_every_call_so_it_never_leaves_view():
    conv = archive([LOST], system=fact_sentence("rule", PREFIX.key, PREFIX.value))
    scen = scenario(facts=(*scenario().facts, PREFIX))
    assert records(conv, scen)["prefix"]["left_view_round"] is None
    trace = conv.trace(kind="probe")
    reader, prefix = TraceReader(trace), next(f for f in tracked_facts(scen) if f.id == "prefix")
    assert all(reader.where(c, prefix, "FIN-OPS").stated for c in trace.agent_calls())
    vault = next(f for f in tracked_facts(scen) if f.id == "vault")  # only a system fact is looked for there
    assert not reader.where(trace.agent_calls()[0], vault, "FIN-OPS").stated


def test_findable_needs_the_value_in_a_summary_or_the_statement_offloaded_to_a_history_file():
    assert records(archive([LOST]))["vault"]["findable"] is True  # offloaded: the summary names a history file
    assert records(archive([LOST], path=None))["vault"]["findable"] is False
    assert records(archive([KEPT], path=None))["db1"]["findable"] is True


def test_needles_are_facts_of_type_fact_with_a_recall_question():
    needle = Needle(key=VAULT.key, answer=VAULT.value, doc="DOC-1", depth=0.5, turn=1)
    scen = Scenario(id="needle-1", kind="needle", description="", task=TASK, followups=("q",), needles=(needle,))
    conv = archive([LOST])
    conv.user("q")
    conv.answer("TANGO-7")
    (rec,) = fact_records(conv.trace(), scen)
    assert (rec["id"], rec["type"], rec["place"], rec["retained"]) == ("needle-1", "fact", "tool", False)
    assert (rec["question"]["probe"], rec["question"]["correct"], rec["question"]["valid"]) == ("recall", True, True)


def test_rounds_and_the_cliff_on_a_hand_trace():
    conv = archive([ALL, DB_AND_STAGE, KEPT])
    shares = survival_by_round(fact_records(conv.trace(kind="probe"), scenario()))
    assert shares == {
        "artifact": [1.0, 0.0, 0.0],
        "decision": [1.0, 1.0, 1.0],
        "fact": [1.0, 0.0, 0.0],
        "goal_state": [1.0, 1.0, 0.0],
    }
    s = scores(conv)
    assert s["cliff_round"].value == 3  # pooled: 4/4, 2/4 (not under 0.5), 1/4
    assert s["cliff_round"].explanation.startswith("survival per round [1.0, 0.5, 0.25]")


def test_survival_by_round_pools_traces_of_different_lengths_and_counts_only_facts_out_of_view():
    recs = [
        {"type": "fact", "rounds": [None, True, False]},
        {"type": "fact", "rounds": [True, True]},
        {"type": "fact", "rounds": [True, False, True]},  # lost at round 2: not a survivor at round 3, found again or not
        {"type": "rule", "rounds": [None, None]},
    ]
    assert survival_by_round(recs) == {"fact": [1.0, 2 / 3, 0.0], "rule": [None, None]}


@pytest.mark.parametrize(
    ("shares", "threshold", "cliff"),
    [
        ([1.0, 0.5, 0.49], CLIFF_THRESHOLD, 3),
        ([None, 0.4, 0.9], 0.5, 2),
        ([1.0, None, 0.5], 0.5, None),
        ([0.9, 0.8], 0.85, 2),
        ([], 0.5, None),
    ],
)
def test_cliff_round_is_the_first_round_under_the_threshold(shares, threshold, cliff):
    assert cliff_round(shares, threshold) == cliff


def test_the_retention_set_scores_probe_needle_and_chain_cases_and_the_control_arm_measures_what_needs_compaction():
    conv = archive([], strategy="none")
    scores_ = {s.key: s for s in score_case(conv.trace(kind="probe"), scenario(), "retention")}
    assert scores_["facts_left_view"].role == MEASURE and scores_["compacted"].role == MEASURE
    assert scores_["facts_retained"].value is True  # nothing left view: nothing was lost
    compacted = {s.key: s for s in score_case(archive([LOST]).trace(kind="probe"), scenario(), "retention")}
    assert compacted["facts_left_view"].role == VALIDITY and compacted["facts_retained"].value is False
    needle = Scenario(id="chain-1", kind="chain", description="", task=TASK, followups=("q",), needles=())
    assert "facts_left_view" in {s.key for s in score_case(archive([LOST]).trace(kind="chain"), needle, "retention")}
