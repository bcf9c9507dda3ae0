"""Result rows, cells and meta.json are typed (`harness.rows`): a row of every schema the harness has written reads as
the current type; a row or meta.json that lacks a field, holds a wrong type or comes from a newer harness is refused,
on write and on read, naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.rows import (
    META_SCHEMA_VERSION,
    CellRow,
    ExperimentMeta,
    ResultRow,
    RunMeta,
    read_experiment_meta,
    read_run_meta,
    validate,
    write_meta,
)
from harness.runs.results import append_row, read_cells, read_rows, result_row, upgrade_row
from tests._rows import full_cell, full_row
from tests.runs.test_results_row import SCORES, _trace

ROWS = Path(__file__).resolve().parent.parent / "data" / "rows"
SCHEMAS = sorted(ROWS.glob("schema-*.jsonl"))


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_a_stored_row_of_every_schema_is_a_current_result_row_once_upgraded(path):
    raw = json.loads(path.read_text(encoding="utf-8"))
    row = validate(ResultRow, upgrade_row(raw, path.name), path.name)
    assert row["schema_version"] == 4 and row["known_upstream"] == {}
    with pytest.raises(HarnessError, match="field"):  # what upgrading adds is what the type needs
        validate(ResultRow, {k: v for k, v in raw.items() if k != "tokens"}, path.name)


def test_a_row_older_than_validity_kinds_reads_with_its_validity_keys_derived():
    raw = json.loads(SCHEMAS[0].read_text(encoding="utf-8"))
    for key in ("validity", "case", "metrics"):
        del raw[key]
    raw["passed"] = {"run_completed": True, "compressed": False}  # "compacted" was "compressed" then
    row = validate(ResultRow, upgrade_row(raw), "old")
    assert (row["validity"], row["case"], row["metrics"]) == (["compressed"], {}, {})
    assert (row["outcome"], row["outcome_keys"]) == ("INVALID", ["compressed"])


def _file(tmp_path: Path, *rows: dict, name: str = "results.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (lambda r: r.pop("calls"), "calls", "Field required"),
        (lambda r: r.update(trial="3"), "trial", "valid integer"),
        (lambda r: r["tokens"].update(agent_input=1.5), "tokens.agent_input", "valid integer"),
        (lambda r: r.update(passed={"needle_correct": 1}), "passed.needle_correct", "valid boolean"),
        (lambda r: r.update(outcome=None), "outcome", "Input should be 'PASS', 'FAIL', 'INVALID', 'ERROR' or 'KNOWN_UPSTREAM'"),
        (lambda r: r.update(outcome="PASSED"), "outcome", "Input should be 'PASS', 'FAIL'"),  # an Outcome, not any string
        (
            lambda r: r.update(kind="haystack"),
            "kind",
            "Input should be 'needle', 'goal', 'chain', 'truncation', 'probe' or 'session'",
        ),
    ],
    ids=["missing", "text-for-int", "nested", "int-for-bool", "null", "not-an-outcome", "not-a-kind"],
)
def test_a_bad_row_is_refused_on_read_naming_file_line_and_field(tmp_path, change, field, problem):
    bad = full_row(case_id="b")
    change(bad)
    path = _file(tmp_path, full_row(case_id="a"), bad)
    with pytest.raises(HarnessError) as raised:
        read_rows(path)
    assert str(raised.value).startswith(f"{path}, line 2: not a ResultRow: field {field}: ")
    assert problem in str(raised.value)


def test_a_good_file_reads_and_a_non_object_line_is_refused(tmp_path):
    assert [r["case_id"] for r in read_rows(_file(tmp_path, full_row(case_id="a")))] == ["a"]
    path = tmp_path / "results.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(HarnessError, match=r"results\.jsonl, line 1: expected a JSON object, got list"):
        read_rows(path)


def test_a_row_from_a_newer_harness_is_refused_on_read_naming_file_and_line(tmp_path):
    path = _file(tmp_path, full_row(case_id="a", schema_version=5))
    with pytest.raises(HarnessError, match=r"results\.jsonl, line 1: schema_version 5 is newer than this harness reads \(4\)"):
        read_rows(path)


def test_a_cell_lacking_its_cell_fields_is_refused_and_a_whole_one_reads(tmp_path):
    assert validate(CellRow, full_cell("a|20%|c|t0"), "x")["cell_id"] == "a|20%|c|t0"
    no_sha = {k: v for k, v in full_cell("c1").items() if k != "config_sha"}
    path = _file(tmp_path, full_cell("c0"), no_sha, name="cells.jsonl")
    with pytest.raises(HarnessError, match=r"cells\.jsonl, line 2: not a CellRow: field config_sha: Field required"):
        read_cells(path)
    with pytest.raises(HarnessError, match="cell_id"):  # a result row is no cell
        read_cells(_file(tmp_path, full_row(case_id="a"), name="cells.jsonl"))


def test_the_row_a_case_writes_is_a_result_row_and_the_writer_refuses_a_bad_one(tmp_path):
    path = tmp_path / "results.jsonl"
    row = result_row(_trace(), SCORES, trace_file="traces/t.json.gz", eval_name="needle")
    append_row(path, row)
    assert read_rows(path) == [row] and row["eval_version"] == 2  # the needle eval's version since issue 31
    ad_hoc = result_row(_trace(), SCORES, trace_file="traces/t.json.gz")  # ran as no eval: read back as it is
    append_row(tmp_path / "ad_hoc.jsonl", ad_hoc)
    assert read_rows(tmp_path / "ad_hoc.jsonl") == [ad_hoc] and (ad_hoc["eval"], ad_hoc["eval_version"]) == (None, None)
    broken = {k: v for k, v in row.items() if k != "tokens"}
    with pytest.raises(HarnessError, match=r"results\.jsonl, the row to append: not a ResultRow: field tokens: Field required"):
        append_row(path, broken)  # type: ignore[arg-type]
    with pytest.raises(HarnessError, match=r"field wall_time_s: Input should be a valid number"):
        append_row(path, {**row, "wall_time_s": "4.25s"})  # type: ignore[typeddict-item]
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1  # nothing refused was written


def test_a_cell_the_writer_appends_is_checked_as_a_cell(tmp_path):
    append_row(tmp_path / "cells.jsonl", full_cell("c1"))
    with pytest.raises(HarnessError, match="not a CellRow: field attempt: "):
        append_row(tmp_path / "cells.jsonl", full_cell("c2", attempt="2"))


RUN_META_1 = {"run_id": "r1", "config": {"name": "base"}, "seed": 0, "trials": 1, "agent_model": "reference"}
EXPERIMENT_META_1 = {"experiment": "grid", "spec_fingerprint": "abc", "shard": [0, 2], "planned_cells": 4}


@pytest.mark.parametrize("version", [1, 2])
def test_meta_json_of_every_version_reads_as_the_current_one(tmp_path, version):
    stamp = {} if version == 1 else {"schema_version": version}  # version 1 had no schema_version
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "meta.json").write_text(json.dumps({**RUN_META_1, **stamp}), encoding="utf-8")
    (tmp_path / "grid").mkdir()
    (tmp_path / "grid" / "meta.json").write_text(json.dumps({**EXPERIMENT_META_1, **stamp}), encoding="utf-8")
    assert read_run_meta(tmp_path / "run") == {**RUN_META_1, "schema_version": META_SCHEMA_VERSION}
    assert read_experiment_meta(tmp_path / "grid") == {**EXPERIMENT_META_1, "schema_version": META_SCHEMA_VERSION}


@pytest.mark.parametrize(
    ("meta", "reader", "message"),
    [
        ({"config": {}}, read_run_meta, "not a RunMeta: field run_id: Field required"),
        ({**RUN_META_1, "seed": "0"}, read_run_meta, "not a RunMeta: field seed: Input should be a valid integer"),
        ({**EXPERIMENT_META_1, "shard": "0of2"}, read_experiment_meta, "not a ExperimentMeta: field shard: "),
        ({**EXPERIMENT_META_1, "schema_version": 3}, read_experiment_meta, "schema_version 3 is newer than this harness"),
    ],
    ids=["missing", "wrong-type", "wrong-shape", "newer"],
)
def test_a_bad_meta_json_is_refused_naming_the_file_and_field(tmp_path, meta, reader, message):
    (tmp_path / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(HarnessError) as raised:
        reader(tmp_path)
    assert str(raised.value).startswith(f"{tmp_path / 'meta.json'}: ") and message in str(raised.value)


def test_a_missing_or_torn_meta_json_is_an_error_not_a_traceback(tmp_path):
    with pytest.raises(HarnessError, match="no meta.json"):
        read_run_meta(tmp_path)
    (tmp_path / "meta.json").write_text('{"run_id": ', encoding="utf-8")
    with pytest.raises(HarnessError, match=r"meta\.json: not valid JSON"):
        read_run_meta(tmp_path)


def test_the_meta_writer_writes_what_its_reader_reads_and_refuses_a_bad_meta(tmp_path):
    run: RunMeta = {"schema_version": META_SCHEMA_VERSION, "run_id": "r1", "seed": 3}
    write_meta(tmp_path, run)
    assert read_run_meta(tmp_path) == run
    assert not (tmp_path / "meta.tmp").exists()  # written whole, then renamed
    grid: ExperimentMeta = {"schema_version": META_SCHEMA_VERSION, "experiment": "g", "planned_cells": 2}
    write_meta(tmp_path / "run", grid) if (tmp_path / "run").mkdir() is None else None
    assert read_experiment_meta(tmp_path / "run") == grid
    with pytest.raises(HarnessError, match="not a ExperimentMeta: field planned_cells: "):
        write_meta(tmp_path, {**grid, "planned_cells": "2"})  # type: ignore[typeddict-item]
    assert read_run_meta(tmp_path) == run  # the refused meta was not written


def test_a_row_and_a_cell_of_the_first_day_read_as_current(tmp_path):
    """The first rows (2026-11-22) had no strategy, answers, case, metrics or outcome; the first cells no attempt."""
    first = (ROWS / "first-day.jsonl").read_text(encoding="utf-8")
    assert not {"strategy", "answers", "case", "metrics", "outcome"} & json.loads(first).keys()
    (tmp_path / "results.jsonl").write_text(first, encoding="utf-8")
    (row,) = read_rows(tmp_path / "results.jsonl")
    assert (row["strategy"], row["answers"], row["arm"], row["outcome"]) == ("deepagents-summarization", [], "forced-20", "PASS")
    cell_line = (ROWS / "first-day-cell.jsonl").read_text(encoding="utf-8")
    assert "attempt" not in json.loads(cell_line)
    (tmp_path / "cells.jsonl").write_text(cell_line, encoding="utf-8")
    (cell,) = read_cells(tmp_path / "cells.jsonl")
    assert cell["attempt"] == 1 and cell["strategy"] == "deepagents-summarization"
