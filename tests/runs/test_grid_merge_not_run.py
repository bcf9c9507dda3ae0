"""A merge joins the shards' not-run records (cells left out of the grid, with the reason) once each, and sums the
planned cells, a shard that does not say counting none."""

from __future__ import annotations

import json

from harness.runs.merge import merge_experiments, read_experiment_meta
from harness.runs.results import NOT_RUN_FILE, read_jsonl
from tests.runs.test_grid_merge import _meta, _part


def _not_run(path, *cells: str) -> list[dict]:
    records = [{"cell_id": c, "reason": f"{c} does not apply"} for c in cells]
    (path / NOT_RUN_FILE).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return records


def test_not_run_records_of_every_shard_are_merged_once_each_in_order(tmp_path):
    a = _part(tmp_path, "0of2", _meta([0, 2], 2), ["c1"])
    b = _part(tmp_path, "1of2", _meta([1, 2], 3), ["c2"])
    first = _not_run(a, "x1", "x2")
    second = _not_run(b, "x2", "x3")
    out = merge_experiments(tmp_path / "merged", [a, b])
    assert read_jsonl(out / NOT_RUN_FILE) == [*first, second[1]]
    merge_experiments(out, [a, b])  # merged again: nothing added twice
    assert [r["cell_id"] for r in read_jsonl(out / NOT_RUN_FILE)] == ["x1", "x2", "x3"]


def test_planned_cells_are_summed_a_shard_without_the_count_adding_none(tmp_path):
    meta = _meta([1, 2], 3)
    del meta["planned_cells"]
    a = _part(tmp_path, "0of2", _meta([0, 2], 2), ["c1"])
    b = _part(tmp_path, "1of2", meta, ["c2"])
    out = merge_experiments(tmp_path / "merged", [a, b])
    assert read_experiment_meta(out)["planned_cells"] == 2


def test_a_record_repeated_within_one_shard_is_merged_once(tmp_path):
    a = _part(tmp_path, "0of1", _meta([0, 1], 1), ["c1"])
    (record,) = _not_run(a, "x1")
    with open(a / NOT_RUN_FILE, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    assert read_jsonl(merge_experiments(tmp_path / "merged", [a]) / NOT_RUN_FILE) == [record]


def test_a_shard_with_a_torn_last_line_is_merged_without_it_said_and_left_as_it_was(tmp_path, capsys):
    a = _part(tmp_path, "0of2", _meta([0, 2], 2), ["c1", "c3"])
    with open(a / "cells.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"cell_id": "c5", "arm"')  # a kill mid-write
    before = (a / "cells.jsonl").read_bytes()
    out = merge_experiments(tmp_path / "merged", [a])
    assert [r["cell_id"] for r in read_jsonl(out / "cells.jsonl")] == ["c1", "c3"]
    err = capsys.readouterr().err
    assert "0of2/cells.jsonl: line 3 was cut mid-write" in err and "the merged experiment lacks that cell" in err
    assert (a / "cells.jsonl").read_bytes() == before  # the shard is not rewritten


def test_a_merge_into_a_directory_whose_cells_file_was_torn_repairs_it_before_appending(tmp_path):
    """A merge killed mid-write leaves the merged cells.jsonl torn: merging again drops the torn line (the cell is
    merged whole from its shard) instead of appending after it, which would glue two rows into one bad line."""
    a = _part(tmp_path, "0of1", _meta([0, 1], 1), ["c1", "c3"])
    out = merge_experiments(tmp_path / "merged", [a])
    whole = (out / "cells.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "cells.jsonl").write_text(whole[0] + whole[1][:20], encoding="utf-8")  # killed mid-write of c3
    merge_experiments(out, [a])
    assert [r["cell_id"] for r in read_jsonl(out / "cells.jsonl")] == ["c1", "c3"]
