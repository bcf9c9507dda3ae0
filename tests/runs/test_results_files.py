"""results.jsonl and cells.jsonl: appended a row at a time, read back whole, a torn last line dropped (and repaired),
old rows read as this version writes them, a re-run cell's last row current."""

from __future__ import annotations

import json

import pytest

from harness.errors import HarnessError
from harness.runs.results import append_row, read_cells, read_jsonl, read_results, read_rows, row_events, upgrade_row
from tests._rows import full_cell, full_row


def _row(case_id: str, **extra) -> dict:
    return full_row(
        **{
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
    )


def _line(case_id: str) -> str:
    """A whole result row's JSON line (no newline)."""
    return json.dumps(full_row(case_id=case_id))


def _ids(rows) -> list:
    return [r["case_id"] for r in rows]


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
    assert read_rows(tmp_path / "none.jsonl") == [] == read_jsonl(tmp_path / "none.jsonl")
    path = tmp_path / "results.jsonl"
    path.write_text(f"{_line('a')}\n\n   \n{_line('b')}\n", encoding="utf-8")
    assert _ids(read_rows(path)) == ["a", "b"]
    path.write_text('{"case_id": "a"}\n\n   \n{"case_id": "b"}\n', encoding="utf-8")  # not result rows: records
    assert read_jsonl(path) == [{"case_id": "a"}, {"case_id": "b"}]


def test_a_torn_last_line_is_dropped_and_left_in_place_unless_repairing(tmp_path):
    path = tmp_path / "results.jsonl"
    text = f'{_line("a")}\n{_line("b")}\n{{"case_id": "c", "sc'
    path.write_text(text, encoding="utf-8")
    assert _ids(read_rows(path)) == ["a", "b"]
    assert path.read_text(encoding="utf-8") == text
    assert _ids(read_rows(path, repair=True)) == ["a", "b"]
    assert path.read_text(encoding="utf-8") == f"{_line('a')}\n{_line('b')}\n"
    append_row(path, full_row(case_id="c"))
    assert [r["case_id"] for r in read_rows(path)] == ["a", "b", "c"]


def test_a_last_line_without_a_newline_that_is_whole_is_read_and_not_rewritten(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(f"{_line('a')}\n{_line('b')}", encoding="utf-8")
    assert _ids(read_rows(path, repair=True)) == ["a", "b"]
    assert path.read_text(encoding="utf-8") == f"{_line('a')}\n{_line('b')}"


def test_a_bad_line_before_the_last_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"case_id": "a"}\nnot json\n{"case_id": "c"}\n', encoding="utf-8")
    with pytest.raises(HarnessError, match=r"results\.jsonl: line 2 is not valid JSON"):
        read_rows(path)
    assert path.read_text(encoding="utf-8") == '{"case_id": "a"}\nnot json\n{"case_id": "c"}\n'


def test_an_old_row_naming_its_arm_variant_is_read_with_arm_in_the_same_place(tmp_path):
    path = tmp_path / "results.jsonl"
    schema_2 = ("schema_version", "eval_version", "packages", "known_upstream")
    rest = {k: v for k, v in full_row().items() if k not in ("case_id", "arm", "trial", *schema_2)}
    old_row = {"case_id": "a", "variant": "v1", "trial": 0, **rest}  # as schema 1 wrote it
    both_row = {"case_id": "b", "variant": "v1", "arm": "v1@mask", "trial": 0, **rest}  # both: arm wins, variant kept
    path.write_text(f"{json.dumps(old_row)}\n{json.dumps(both_row)}\n", encoding="utf-8")
    old, both = read_rows(path)
    assert list(old.items())[:3] == [("case_id", "a"), ("arm", "v1"), ("trial", 0)] and "variant" not in old
    assert (both["case_id"], both["variant"], both["arm"]) == ("b", "v1", "v1@mask")


def test_the_results_frame_flattens_a_row_into_prefixed_columns(tmp_path):
    schema_2 = ("schema_version", "eval", "eval_version", "scorers", "packages", "known_upstream")
    row = {k: v for k, v in _row("a", kind="needle").items() if k not in schema_2}
    (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    frame = read_results(tmp_path)  # a run directory: its results.jsonl
    assert frame.to_dict("records") == [
        {
            "run_id": "test-run",
            "trial": 0,
            "seed": 0,
            "strategy": "deepagents-summarization",
            "agent_model": "reference-agent",
            "summary_model": "reference-summarizer",
            "simulated": True,
            "wall_time_s": 0.0,
            "error": None,
            "trace": "traces/case.json.gz",
            "tokens.summarizer_input": 0,
            "tokens.provider_input": None,
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
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")  # as an old harness wrote it (append_row refuses it)
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
        append_row(path, full_cell(cell, outcome=outcome))
    assert [(r["cell_id"], r["outcome"], r.get("earlier_attempts")) for r in read_cells(path)] == [
        ("c1", "PASS", 2),
        ("c2", "PASS", None),
        ("c3", "FAIL", None),
    ]
    assert len(read_rows(path)) == 5  # the earlier rows stay in the file


def test_reading_cells_skips_a_torn_last_line_and_repairs_it_only_when_asked(tmp_path):
    path = tmp_path / "cells.jsonl"
    whole = json.dumps(full_cell("1", outcome="PASS"))
    torn = whole + '\n{"cell_id": "2", "outc'
    path.write_text(torn, encoding="utf-8")
    assert [r["cell_id"] for r in read_cells(path)] == ["1"]
    assert path.read_text(encoding="utf-8") == torn  # a report reads it and names the line (`torn_line_note`)
    assert [r["cell_id"] for r in read_cells(path, repair=True)] == ["1"]  # a resuming grid, which then appends
    assert path.read_text(encoding="utf-8") == whole + "\n"


def test_cells_are_told_apart_by_their_id_and_an_id_that_is_not_text_is_refused_naming_line_and_field(tmp_path):
    path = tmp_path / "cells.jsonl"
    for n in (1, 2):
        append_row(path, full_cell("1", n=n))
    assert [(r["cell_id"], r["n"], r["earlier_attempts"]) for r in read_cells(path)] == [("1", 2, 1)]
    for bad in (1, None):  # cell ids were once compared as text; a cell row now holds its id as text
        with pytest.raises(HarnessError, match="cell_id"):
            append_row(path, full_cell("x", n=3) | {"cell_id": bad})
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(full_cell("x") | {"cell_id": bad}) + "\n")
        with pytest.raises(HarnessError, match=r"cells\.jsonl, line 3: not a CellRow: field cell_id: "):
            read_cells(path)
        path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:2]), encoding="utf-8")


def test_the_results_frame_leaves_out_the_per_fact_records_of_probe_rows(tmp_path):
    append_row(tmp_path / "results.jsonl", _row("a", kind="probe", facts=[{"id": "vault", "rounds": [True]}]))
    assert "facts" not in read_results(tmp_path).columns
