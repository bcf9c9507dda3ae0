"""The redo eval end to end, offline: its case carried on from the recorded prefix behind the full-context control,
healthy passing every key it asserts, the seeded fault caught by the check named for it, and both checks scored again
from the trace alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.scenarios.schema import Scenario
from harness.scoring.scorers import PASS, outcome, score_case, scores_by_key
from harness.suites.eval_suite import REDO_CASE
from harness.suites.execute import Settings, find_case, run_eval_case
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import SUITES
from harness.suites.replay import forget_controls, replayed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def case() -> Scenario:
    return find_case(REDO_CASE)


@pytest.fixture(scope="module")
def healthy(case: Scenario):
    forget_controls()
    return run_eval_case("redo", case, Settings.offline(), run_id="test-redo-healthy")


@pytest.fixture(scope="module")
def faulty(case: Scenario):
    return run_eval_case("redo", case, Settings.offline(), fault=SEEDED_FAULTS["done-listed-pending"], run_id="test-redo-fault")


def test_healthy_the_case_compacts_at_the_cut_and_passes_every_key_the_eval_asserts(healthy):
    assert healthy.failed() == []
    verdict, _ = outcome(list(healthy.scores.values()), healthy.trace.error)
    assert verdict == PASS
    assert healthy.scores["intent_first_match"].value is True
    assert healthy.scores["redo_repeats_max"].value <= 1


def test_the_control_and_the_prefix_are_recorded_in_the_arms_trace(healthy):
    final = healthy.trace.final
    assert final["control"]["config"]["strategy"] == "none" and final["control"]["compactions"] == 0
    assert final["control"]["actions"] == [
        "fetch_document DOC-005",
        "write_file /notes/doc-005.md",
        "fetch_document DOC-006",
        "write_file /notes/doc-006.md",
        "reply",
    ]
    assert [c["name"] for c in final["prefix_calls"]] == ["fetch_document", "write_file"] * 4
    assert all(c["ok"] for c in final["prefix_calls"])


def test_finished_work_listed_as_pending_is_redone_and_caught_by_no_work_redone(faulty):
    assert SUITES["redo"].faults["done-listed-pending"] == "no_work_redone"
    assert "no_work_redone" in faulty.failed()
    assert faulty.scores["redo_repeats_max"].value > 1
    assert faulty.scores["intent_kept"].value is False  # the arm starts over; the control carries on


def test_both_checks_score_again_from_the_trace_alone(healthy, faulty, case):
    kept = replace(case, conversation=())  # what a run's scenarios.jsonl gives back: the prefix is not in the row
    for result in (healthy, faulty):
        again = scores_by_key(score_case(result.trace, kept, "redo"))
        assert {k: s.value for k, s in again.items()} == {k: s.value for k, s in result.scores.items()}


def test_a_recorded_prefix_is_replayed_from_its_cut_only_by_an_eval_with_a_control(case):
    assert replayed(case, control=True)
    assert not replayed(case, control=False)
    assert not replayed(replace(case, conversation=()), control=True)
