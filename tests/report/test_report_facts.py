"""The report's "what a compaction loses, by kind" tables, from hand-made rows with per-fact records."""

from __future__ import annotations

import pandas as pd

from harness.report._document import Document
from harness.report.facts_report import (
    add_facts_section,
    cliff,
    fact_frame,
    loss_by_type,
    probe_table,
    survival_rounds,
    survival_table,
)


def _rec(fid, kind, *, left=1, retained=True, survived=None, rounds=None, findable=True, question=None):  # noqa: ANN001, ANN202
    rec = {
        "id": fid,
        "type": kind,
        "key": fid,
        "place": "tool",
        "turn": 0,
        "left_view_round": left,
        "retained": retained if left is not None else None,
        "survived": retained if survived is None else survived,
        "rounds": rounds if rounds is not None else ([retained] if left is not None else [None]),
        "stale_retained": False,
        "findable": findable,
    }
    if question is not None:
        rec["question"] = question
    return rec


def _q(probe="recall", *, valid=True, correct=True, stale=False, via="history"):  # noqa: ANN001, ANN202
    return {
        "turn": 1,
        "probe": probe,
        "valid": valid,
        "correct": correct,
        "stale": stale,
        "via": via,
        "expected": "x",
        "answered": "x",
    }


def _row(arm, facts, outcome="PASS", case="c1", threshold=None):  # noqa: ANN001, ANN202
    row = {"arm": arm, "case_id": case, "trial": 0, "outcome": outcome, "facts": facts}
    if threshold is not None:
        row["threshold"] = threshold
    return row


def test_error_rows_and_rows_without_facts_are_left_out():
    rows = [_row("a", [_rec("f1", "fact")]), _row("a", [_rec("f2", "fact")], outcome="ERROR"), {"arm": "a", "outcome": "PASS"}]
    frame = fact_frame(rows)
    assert list(frame["id"]) == ["f1"]


def test_loss_by_type_counts_retention_over_facts_out_of_view_and_answers_over_valid_questions():
    facts = [
        _rec("d1", "decision", retained=False, findable=True, question=_q("decision", correct=False)),
        _rec("d2", "decision", retained=True, question=_q("decision", correct=True)),
        _rec("d3", "decision", left=None),  # never left view: in no retention rate
        _rec("d4", "decision", retained=True, question=_q("decision", valid=False, correct=False)),  # invalid: no rate
        _rec("c1", "constraint", retained=True, survived=False),
    ]
    table = loss_by_type(fact_frame([_row("a", facts)]))
    d = table[table["fact type"] == "decision"].iloc[0]
    assert (d["facts"], d["left view"], d["retained"], d["asked (valid)"]) == (4, 3, "2/3 (67%)", 2)
    assert (d["answered right"], d["findable by keyword"], d["findable - answered"]) == ("1/2 (50%)", "2/2 (100%)", "+50%")
    c = table[table["fact type"] == "constraint"].iloc[0]
    assert (c["retained"], c["kept every round"], c["asked (valid)"], c["answered right"]) == ("1/1 (100%)", "0/1 (0%)", 0, "-")
    assert list(table["fact type"]) == ["constraint", "decision"]  # FACT_TYPES order


def test_survival_counts_only_facts_out_of_view_at_each_round_and_finds_the_cliff():
    facts = [
        _rec("f1", "fact", rounds=[True, True, False]),
        _rec("f2", "fact", rounds=[None, True, False]),
        _rec("f3", "fact", rounds=[True, False]),
    ]
    survival = survival_rounds(fact_frame([_row("a", facts)]))
    assert survival == {("a",): {"fact": [(2, 2), (2, 3), (0, 2)]}}
    lost_then_back = fact_frame([_row("a", [_rec("f4", "fact", rounds=[False, True])])])
    assert survival_rounds(lost_then_back) == {("a",): {"fact": [(0, 1), (0, 1)]}}  # lost once is lost (survival)
    assert cliff([(2, 2), (2, 3), (0, 2)], 0.5) == 3
    assert cliff([(2, 2), (2, 3), (0, 2)], 0.7) == 2
    assert cliff([(0, 0), (1, 1)], 0.5) is None  # a round with nothing out of view is no cliff
    table = survival_table(survival, ["arm"], 0.5)
    assert table.iloc[0].to_dict() == {
        "arm": "a",
        "fact type": "fact",
        "round 1": "2/2 (100%)",
        "round 2": "2/3 (67%)",
        "round 3": "0/2 (0%)",
        "cliff round": 3,
    }


def test_probe_table_per_kind_counts_valid_questions_stale_answers_and_the_way_back():
    facts = [
        _rec("r1", "fact", question=_q("recall", via="summary")),
        _rec("r2", "fact", question=_q("recall", correct=False, stale=True, via=None)),
        _rec("r3", "fact", question=_q("recall", valid=False)),
        _rec("a1", "artifact", question=_q("artifact", via="summary")),
    ]
    table = probe_table(fact_frame([_row("a", facts)]))
    recall = table[table["probe"] == "recall"].iloc[0]
    assert (recall["asked"], recall["valid"], recall["answered right"], recall["stale answers"]) == (3, 2, "1/2 (50%)", 1)
    assert (recall["via summary"], recall["via history"], recall["via recall"]) == (1, 0, 0)
    assert list(table["probe"]) == ["recall", "artifact"]  # PROBES order


def test_experiment_rows_are_grouped_by_arm_and_threshold():
    rows = [_row("a", [_rec("f1", "fact")], threshold="15%"), _row("a", [_rec("f2", "fact", retained=False)], threshold="25%")]
    table = loss_by_type(fact_frame(rows))
    assert list(zip(table["threshold"], table["retained"])) == [("15%", "1/1 (100%)"), ("25%", "0/1 (0%)")]


def test_the_section_is_added_only_when_some_row_has_fact_records(tmp_path):
    doc = Document("t")
    assert add_facts_section(doc, [{"arm": "a", "outcome": "PASS"}], tmp_path, "", 0.5) is False
    assert doc.blocks == []
    rows = [_row("a", [_rec("f1", "fact", rounds=[True, False], question=_q())])]
    assert add_facts_section(doc, rows, tmp_path, "simulated", 0.5) is True
    kinds = [k for k, _ in doc.blocks]
    assert kinds.count("table") == 3 and "image" in kinds
    assert (tmp_path / "fact_survival.png").stat().st_size > 0
    assert isinstance(doc.blocks[[k for k, _ in doc.blocks].index("table")][1], pd.DataFrame)
