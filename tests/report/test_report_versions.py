"""The experiment report's Versions section (`harness.report.versions_report`): what each arm recorded and which
paired cells changed from the baseline."""

from __future__ import annotations

from harness.report._document import Document
from harness.report.versions_report import add_versions_section, changed_cells, recorded_versions, version_baselines

BASE, OLD = "deepagents==0.7.32", "deepagents==0.7.6"


def _row(
    arm: str, case: str = "c", trial: int = 0, outcome: str = "PASS", calls: int = 9, peak: int = 100, eval: str = "needle"
) -> dict:
    return {
        "arm": arm,
        "eval": eval,
        "case_id": case,
        "threshold": "25%",
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": [] if outcome == "PASS" else ["needle_correct"],
        "calls": {"agent": calls},
        "events": {"summary": 2},
        "tokens": {"peak_context": peak},
        "packages": {"deepagents": arm.split("==")[1], "langchain": "1.4.7"},
    }


def test_the_recorded_versions_are_one_line_per_arm():
    table = recorded_versions([_row(BASE), _row(OLD), _row(OLD, trial=1)], [BASE, OLD])
    assert table.to_dict("records") == [
        {"arm": BASE, "deepagents": "0.7.32", "langchain": "1.4.7"},
        {"arm": OLD, "deepagents": "0.7.6", "langchain": "1.4.7"},
    ]


def test_only_paired_cells_that_differ_are_listed_with_baseline_then_arm():
    rows = [_row(BASE), _row(OLD), _row(BASE, "d"), _row(OLD, "d", outcome="FAIL", peak=120), _row(OLD, "unpaired", calls=1)]
    (changed,) = changed_cells(rows, BASE).to_dict("records")
    assert changed == {
        "arm": OLD,
        "eval": "needle",
        "case": "d",
        "threshold": "25%",
        "trial": 0,
        "outcome": "PASS -> FAIL (needle_correct)",
        "agent calls": "",
        "summaries": "",
        "peak context": "100 -> 120",
    }
    assert changed_cells([_row(BASE), _row(OLD)], BASE).empty


def test_the_section_appears_only_with_a_versions_axis():
    doc = Document("x")
    add_versions_section(doc, {"baseline": BASE}, [_row(BASE)], [BASE])
    assert "Versions" not in doc.markdown()
    add_versions_section(
        doc, {"baseline": BASE, "versions": {OLD: {"deepagents": "0.7.6"}}}, [_row(BASE), _row(OLD)], [BASE, OLD]
    )
    assert "## Versions" in doc.markdown() and "No paired cell" in doc.markdown()


def test_cells_pair_by_eval_so_one_case_run_as_two_evals_is_two_units():
    # the same case as the history eval (passes on both arms) and as the needle eval (fails on the old arm)
    rows = [_row(BASE, eval="history"), _row(OLD, eval="history"), _row(BASE), _row(OLD, outcome="FAIL")]
    (changed,) = changed_cells(rows, BASE).to_dict("records")
    assert (changed["eval"], changed["outcome"]) == ("needle", "PASS -> FAIL (needle_correct)")
    # paired across evals, the old arm's history row would be read against the baseline's needle row (or the reverse)
    crossed = [_row(BASE, eval="history"), _row(OLD, outcome="FAIL")]
    assert changed_cells(crossed, BASE).empty


def test_with_strategies_crossed_with_versions_each_arm_is_paired_with_its_own_strategy_at_the_baselines_versions():
    arms = ["summ+lock", "summ+old", "native+lock", "native+old"]
    baselines = version_baselines(arms, "summ+lock")
    assert baselines == {
        "summ+lock": "summ+lock",
        "summ+old": "summ+lock",
        "native+lock": "native+lock",
        "native+old": "native+lock",
    }
    rows = [
        {**_row(BASE), "arm": "summ+lock"},
        {**_row(BASE), "arm": "summ+old"},
        {**_row(BASE, outcome="FAIL"), "arm": "native+lock"},  # another strategy, not another version
        {**_row(BASE, outcome="FAIL", peak=90), "arm": "native+old"},
    ]
    (changed,) = changed_cells(rows, "summ+lock", baselines).to_dict("records")
    assert (changed["arm"], changed["outcome"], changed["peak context"]) == ("native+old", "", "100 -> 90")
    # against the one baseline, the strategy's own difference would read as a change of versions
    assert {r["arm"] for r in changed_cells(rows, "summ+lock").to_dict("records")} == {"native+lock", "native+old"}
    assert version_baselines(["a==1", "a==2"], "a==1") == {"a==1": "a==1", "a==2": "a==1"}  # one inner arm: as before


def test_the_section_names_what_each_arm_is_compared_with():
    doc = Document("x")
    arms = ["summ+lock", "summ+old", "native+lock", "native+old"]
    rows = [{**_row(BASE), "arm": arm} for arm in arms]
    add_versions_section(doc, {"baseline": "summ+lock", "versions": {"summ+old": {}}}, rows, arms)
    assert "differs from the same arm at the baseline's versions (**native+lock**, **summ+lock**)" in doc.markdown()
    one = Document("y")
    add_versions_section(one, {"baseline": "summ+lock", "versions": {"summ+old": {}}}, rows[:2], arms[:2])
    assert "differs from the baseline **summ+lock**" in one.markdown()
