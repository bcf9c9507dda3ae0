"""Result rows of every schema the harness has written read as the current one (`harness.runs.results.upgrade_row`):
tests/data/rows keeps one row of each, the same goal case as each schema wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.runs.results import ROW_SCHEMA_VERSION, read_results, read_rows, row_events, row_outcome, upgrade_row

ROWS = Path(__file__).resolve().parent.parent / "data" / "rows"
SCHEMAS = sorted(ROWS.glob("schema-*.jsonl"))


def test_a_row_of_every_schema_is_kept():
    assert [p.name for p in SCHEMAS] == [f"schema-{n}.jsonl" for n in range(1, ROW_SCHEMA_VERSION + 1)]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.stem)
def test_every_schema_reads_as_the_current_one(path):
    (row,) = read_rows(path)
    assert row["schema_version"] == ROW_SCHEMA_VERSION
    assert (row["arm"], row["eval"], row["eval_version"], row["scorers"]) == ("forced-20", "goal", 1, "default")
    assert (row["outcome"], row["outcome_keys"]) == ("PASS", []) == (row_outcome(row)[0], row_outcome(row)[1])
    assert row_events(row)["summary"] >= 1
    assert "variant" not in row
    frame = read_results(path)
    assert frame.loc[0, "outcome"] == "PASS" and frame.loc[0, "arm"] == "forced-20"


def test_the_schemas_read_the_same_where_they_share_fields():
    current = read_rows(SCHEMAS[-1])[0]
    for path in SCHEMAS[:-1]:
        (older,) = read_rows(path)
        # schema 1 named the summary event "summarization"; before schema 4 the package versions were not recorded
        shared = set(older) & set(current) - {"events", "packages"}
        assert {k: older[k] for k in shared} == {k: current[k] for k in shared}, path.name


def test_package_versions_are_read_where_recorded_and_empty_before_schema_4():
    assert read_rows(SCHEMAS[-1])[0]["packages"]["deepagents"] == "0.7.32"
    assert read_results(SCHEMAS[-1]).loc[0, "package.deepagents"] == "0.7.32"
    for path in SCHEMAS[:-1]:
        assert read_rows(path)[0]["packages"] == {}, path.name


def test_a_schema_1_row_that_failed_reads_its_outcome_from_its_checks():
    (row,) = (json.loads(line) for line in SCHEMAS[0].read_text().splitlines())
    row["passed"] = {**row["passed"], "goal_preserved": False}
    upgraded = upgrade_row(row)
    assert (upgraded["outcome"], upgraded["outcome_keys"]) == ("FAIL", ["goal_preserved"])
    row["passed"] = {**row["passed"], "goal_preserved": True, "compacted": False}
    row["validity"] = ["compacted"]
    assert upgrade_row(row)["outcome"] == "INVALID"


def test_a_row_from_a_newer_harness_is_refused_naming_where():
    with pytest.raises(HarnessError, match=r"results.jsonl, line 3: schema_version 9 is newer than this harness reads"):
        upgrade_row({"schema_version": 9, "scores": {}}, "results.jsonl, line 3")


def test_a_line_that_is_not_a_result_row_is_left_as_written():
    assert upgrade_row({"case_id": "a"}) == {"case_id": "a"}
    assert upgrade_row({"case_id": "a", "variant": "v"}) == {"case_id": "a", "arm": "v"}
