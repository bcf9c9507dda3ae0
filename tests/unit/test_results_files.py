"""results.jsonl and cells.jsonl: appended a row at a time, read back whole, a torn last line dropped (and repaired),
old rows read as this version writes them, a re-run cell's last row current."""

from __future__ import annotations

import json

import pytest

from harness.errors import HarnessError
from harness.runs.results import append_row, read_cells, read_results, read_rows, row_events, upgrade_row


def _row(case_id: str, **extra) -> dict:
    return {
        "case_id": case_id,
        "arm": "base",
        "outcome": "PASS",
        "outcome_keys": [],
        "scores": {"needle_correct": True, "pages": 2},
        "passed": {"needle_correct": True},
        "validity": [],
        "explanations": {"needle_correct": "ok"},
        "events": {"summary": 1, "mask": 0},
        "tokens": {"agent_input": 900, "peak_context": 400, "counter": "approximate"},
        "calls": {"agent": 3, "summarizer": 1},
        "config": {"name": "base"},
        "answers": ["x"],
        "metrics": {"cost_usd": 0.5},
        "case": {"haystack_tokens": 8000},
        **extra,
    }


def test_appended_rows_are_one_json_line_each_and_read_back_in_order(tmp_path):
    path = tmp_path / "results.jsonl"
    append_row(path, _row("a"))
    append_row(path, _row("b", when=tmp_path))  # a value JSON cannot hold is written as its text
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 2 and all(line.endswith("\n") for line in lines)
    assert json.loads(lines[1])["when"] == str(tmp_path)
    assert [r["case_id"] for r in read_rows(path)] == ["a", "b"]
    assert read_rows(path)[0] == upgrade_row(_row("a"))  # a result row reads as the current schema


def test_a_missing_file_has_no_rows_and_blank_lines_are_skipped(tmp_path):
    assert read_rows(tmp_path / "none.jsonl") == []
    path = tmp_path / "results.jsonl"
    path.write_text('{"case_id": "a"}\n\n   \n{"case_id": "b"}\n', encoding="utf-8")
    assert read_rows(path) == [{"case_id": "a"}, {"case_id": "b"}]


def test_a_torn_last_line_is_dropped_and_left_in_place_unless_repairing(tmp_path):
    path = tmp_path / "results.jsonl"
    text = '{"case_id": "a"}\n{"case_id": "b"}\n{"case_id": "c", "sc'
    path.write_text(text, encoding="utf-8")
    assert read_rows(path) == [{"case_id": "a"}, {"case_id": "b"}]
    assert path.read_text(encoding="utf-8") == text
    assert read_rows(path, repair=True) == [{"case_id": "a"}, {"case_id": "b"}]
    assert path.read_text(encoding="utf-8") == '{"case_id": "a"}\n{"case_id": "b"}\n'
    append_row(path, {"case_id": "c"})
    assert [r["case_id"] for r in read_rows(path)] == ["a", "b", "c"]


def test_a_last_line_without_a_newline_that_is_whole_is_read_and_not_rewritten(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"case_id": "a"}\n{"case_id": "b"}', encoding="utf-8")
    assert read_rows(path, repair=True) == [{"case_id": "a"}, {"case_id": "b"}]
    assert path.read_text(encoding="utf-8") == '{"case_id": "a"}\n{"case_id": "b"}'


def test_a_bad_line_before_the_last_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"case_id": "a"}\nnot json\n{"case_id": "c"}\n', encoding="utf-8")
    with pytest.raises(HarnessError, match=r"results\.jsonl: line 2 is not valid JSON"):
        read_rows(path)
    assert path.read_text(encoding="utf-8") == '{"case_id": "a"}\nnot json\n{"case_id": "c"}\n'


def test_an_old_row_naming_its_arm_variant_is_read_with_arm_in_the_same_place(tmp_path):
    path = tmp_path / "results.jsonl"
    append_row(path, {"case_id": "a", "variant": "v1", "trial": 0})
    append_row(path, {"case_id": "b", "variant": "v1", "arm": "v1@mask"})  # both: arm wins, variant kept
    old, both = read_rows(path)
    assert list(old.items()) == [("case_id", "a"), ("arm", "v1"), ("trial", 0)]
    assert both == {"case_id": "b", "variant": "v1", "arm": "v1@mask"}


def test_the_results_frame_flattens_a_row_into_prefixed_columns(tmp_path):
    append_row(tmp_path / "results.jsonl", _row("a", kind="needle"))
    frame = read_results(tmp_path)  # a run directory: its results.jsonl
    assert frame.to_dict("records") == [
        {
            "case_id": "a",
            "arm": "base",
            "outcome": "PASS",
            "kind": "needle",
            "eval": "needle",  # a row before schema 3 is read as its kind's eval, version 1, the default scorers
            "scorers": "default",
            "eval_version": 1,
            "schema_version": 4,
            "case.haystack_tokens": 8000,
            "metric.cost_usd": 0.5,
            "score.needle_correct": True,
            "score.pages": 2,
            "events.summary": 1,
            "events.mask": 0,
            "tokens.agent_input": 900,
            "tokens.peak_context": 400,
            "calls.agent": 3,
            "calls.summarizer": 1,
        }
    ]


def test_the_results_frame_classifies_old_rows_and_reads_old_event_names(tmp_path):
    path = tmp_path / "old.jsonl"
    old = {k: v for k, v in _row("a").items() if k not in ("outcome", "outcome_keys", "validity", "case", "metrics")}
    old |= {"passed": {"compressed": False}, "events": {"summarization": 2, "eviction": 1}}
    append_row(path, old)
    record = read_results(path).to_dict("records")[0]
    assert record["outcome"] == "INVALID"
    assert (record["events.summary"], record["events.evict"]) == (2, 1)
    assert not any(k.startswith(("case.", "metric.", "events.summarization")) for k in record)


def test_row_events_rename_schema_1_types_and_a_row_without_events_has_none():
    assert row_events({"events": {"summarization": 3, "arg_truncation": 1, "overflow_recovery": 2, "mask": 4}}) == {
        "summary": 3,
        "truncate-args": 1,
        "overflow-recovery": 2,
        "mask": 4,
    }
    assert row_events({}) == {}
    assert row_events({"events": None}) == {}


def test_the_current_row_of_a_re_run_cell_is_its_last_and_counts_its_earlier_attempts(tmp_path):
    path = tmp_path / "cells.jsonl"
    for cell, outcome in (("c1", "ERROR"), ("c2", "PASS"), ("c1", "ERROR"), ("c3", "FAIL"), ("c1", "PASS")):
        append_row(path, {"cell_id": cell, "outcome": outcome})
    assert read_cells(path) == [
        {"cell_id": "c1", "outcome": "PASS", "earlier_attempts": 2},
        {"cell_id": "c2", "outcome": "PASS"},
        {"cell_id": "c3", "outcome": "FAIL"},
    ]
    assert len(read_rows(path)) == 5  # the earlier rows stay in the file


def test_reading_cells_repairs_a_torn_last_line(tmp_path):
    path = tmp_path / "cells.jsonl"
    path.write_text('{"cell_id": 1, "outcome": "PASS"}\n{"cell_id": 2, "outc', encoding="utf-8")
    assert read_cells(path) == [{"cell_id": 1, "outcome": "PASS"}]
    assert path.read_text(encoding="utf-8") == '{"cell_id": 1, "outcome": "PASS"}\n'


def test_cells_are_told_apart_by_their_id_as_text(tmp_path):
    path = tmp_path / "cells.jsonl"
    for row in ({"cell_id": 1, "n": 1}, {"cell_id": "1", "n": 2}, {"n": 3}, {"cell_id": None, "n": 4}):
        append_row(path, row)
    assert read_cells(path) == [{"cell_id": "1", "n": 2, "earlier_attempts": 1}, {"cell_id": None, "n": 4, "earlier_attempts": 1}]


def test_the_results_frame_leaves_out_the_per_fact_records_of_probe_rows(tmp_path):
    append_row(tmp_path / "results.jsonl", _row("a", kind="probe", facts=[{"id": "vault", "rounds": [True]}]))
    assert "facts" not in read_results(tmp_path).columns
