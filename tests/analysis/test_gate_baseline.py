"""The gate's baseline file: what a cell records, how the snapshot is written and read back, and schema 1 cells."""

from __future__ import annotations

import json
import re

import pytest

from harness._version import __version__
from harness.analysis.regress import BASELINE_SCHEMA, gate_cells, load_baseline, snapshot, write_baseline
from harness.errors import HarnessError


def _row(case="c1", trial=0, *, outcome="PASS", arm="a", threshold="20%", eval_name="goal", kind="goal", **extra):
    row = {
        "arm": arm,
        "threshold": threshold,
        "eval": eval_name,
        "kind": kind,
        "strategy": "deepagents-summarization",
        "case_id": case,
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": [] if outcome == "PASS" else ["goal_preserved"],
        "scores": {"run_completed": True, "goal_preserved": outcome == "PASS"},
    }
    return {**row, **extra}


# -- gate_cells: one record per cell ------------------------------------------------------


def test_a_cell_records_its_ids_outcome_gated_checks_and_metrics():
    row = _row(
        "c1",
        1,
        scores={"run_completed": True, "goal_preserved": 1, "not_gated": True},
        metrics={"goal_preserved": 1.0, "agent_tokens": 1234, "not_a_metric": 5},
    )
    assert gate_cells([row]) == [
        {
            "arm": "a",
            "threshold": "20%",
            "eval": "goal",
            "strategy": "deepagents-summarization",
            "case_id": "c1",
            "kind": "goal",
            "trial": 1,
            "outcome": "PASS",
            "valid": True,
            "passed": True,
            "eval_version": 1,  # written before versions: version 1
            "checks": {"goal_preserved": True},  # only the eval's gated checks, as booleans
            "goal_preserved": 1.0,
            "agent_tokens": 1234,
        }
    ]


def test_a_failed_check_is_recorded_false_and_the_cell_not_passed():
    (cell,) = gate_cells([_row(outcome="FAIL", scores={"run_completed": True, "goal_preserved": 0})])
    assert cell["checks"] == {"goal_preserved": False}
    assert cell["passed"] is False and cell["valid"] is True


def test_an_invalid_cell_records_no_check_value_and_no_pass():
    (cell,) = gate_cells([_row(outcome="INVALID", scores={"run_completed": True, "goal_preserved": True})])
    assert cell["checks"] == {"goal_preserved": None}
    assert cell["valid"] is False and cell["passed"] is None and cell["outcome"] == "INVALID"


def test_the_eval_is_the_rows_eval_none_for_an_ad_hoc_row_and_its_kinds_for_a_row_before_evals():
    """A chain case runs as kind needle under the chain eval: the chain eval's gated checks apply. A row that ran as no
    eval (eval null) stays null, gated on its kind's eval's checks; a row written before rows named their eval (no
    ``eval`` key) is its kind's eval."""
    scores = {"needle_correct": True, "needle_via_history": True, "goal_preserved": True}
    (chain,) = gate_cells([_row(eval_name="chain", kind="needle", scores=scores)])
    assert chain["eval"] == "chain" and chain["kind"] == "needle"
    assert chain["checks"] == {"needle_correct": True, "needle_via_history": True}
    (ad_hoc,) = gate_cells([_row(eval_name=None, kind="goal", scores=scores)])
    assert ad_hoc["eval"] is None and ad_hoc["kind"] == "goal" and ad_hoc["eval_version"] is None
    assert ad_hoc["checks"] == {"goal_preserved": True}
    before = _row(kind="goal", scores=scores)
    del before["eval"]
    (old,) = gate_cells([before])
    assert old["eval"] == "goal" and old["checks"] == {"goal_preserved": True}


def test_a_cell_without_scores_or_of_an_unknown_eval_gates_no_check():
    row = _row()
    del row["scores"]
    assert gate_cells([row])[0]["checks"] == {}
    assert gate_cells([_row(scores=None)])[0]["checks"] == {}
    assert gate_cells([_row(eval_name="no-such-eval")])[0]["checks"] == {}


# -- snapshot and write_baseline ------------------------------------------------------------


def test_a_snapshot_names_its_schema_source_version_and_time():
    snap = snapshot([_row()], "nightly")
    assert snap["schema"] == BASELINE_SCHEMA == 2
    assert snap["source"] == "nightly"
    assert snap["harness_version"] == __version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", snap["created_at"])  # UTC, to the second
    assert list(snap) == ["schema", "created_at", "source", "harness_version", "simulated", "cells"]


def test_a_snapshot_is_simulated_when_any_row_is():
    assert snapshot([_row("c1", simulated=False), _row("c2", simulated=True)], "s")["simulated"] is True
    assert snapshot([_row("c1", simulated=False), _row("c2")], "s")["simulated"] is False
    assert snapshot([], "s")["simulated"] is False


def test_a_snapshot_sorts_cells_by_eval_arm_threshold_case_and_trial():
    rows = [
        _row("c1", 1, arm="b", threshold="30%"),
        _row("c2", 0, arm="a", threshold="30%"),
        _row("c1", 1, arm="a", threshold="30%"),
        _row("c1", 0, arm="a", threshold="30%"),
        _row("c9", 0, arm="a", threshold="20%"),
        _row("c0", 0, arm="z", eval_name="chain", kind="needle"),
    ]
    order = [(c["eval"], c["arm"], c["threshold"], c["case_id"], c["trial"]) for c in snapshot(rows, "s")["cells"]]
    assert order == [
        ("chain", "z", "20%", "c0", 0),
        ("goal", "a", "20%", "c9", 0),
        ("goal", "a", "30%", "c1", 0),
        ("goal", "a", "30%", "c1", 1),
        ("goal", "a", "30%", "c2", 0),
        ("goal", "b", "30%", "c1", 1),
    ]


def test_the_baseline_file_is_the_snapshot_as_indented_json_with_a_final_newline(tmp_path):
    target = tmp_path / "new" / "dir" / "baseline.json"  # parents are made
    assert write_baseline([_row()], "base", target) == target
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.splitlines()[1] == ' "schema": 2,'
    stored = json.loads(text)
    assert stored["source"] == "base" and stored["cells"] == gate_cells([_row()])
    # rewriting it in place (the directory exists) works and reads back as the cells written
    assert write_baseline([_row("c2")], "again", str(target)) == target
    assert load_baseline(target) == gate_cells([_row("c2")])


# -- load_baseline ---------------------------------------------------------------------------


def test_a_missing_baseline_file_says_how_to_create_it(tmp_path):
    with pytest.raises(HarnessError) as err:
        load_baseline(tmp_path / "none.json")
    assert str(err.value) == f"{tmp_path / 'none.json'}: no baseline file; create it with --update"


def test_a_baseline_that_is_a_directory_or_not_text_is_named(tmp_path):
    with pytest.raises(HarnessError) as err:
        load_baseline(tmp_path)
    assert str(err.value) == (
        f"{tmp_path}: is a directory; --baseline is a baseline JSON file, e.g. datasets/baselines/nightly.json"
    )
    path = tmp_path / "b.json"
    path.write_bytes(b'{"schema": 2, "cells": ["\xff"]}')
    with pytest.raises(HarnessError) as err:
        load_baseline(path)
    assert str(err.value).startswith(f"{path}: cannot read the baseline (UnicodeDecodeError: 'utf-8' codec can't decode")


def test_a_baseline_that_is_not_json_is_named(tmp_path):
    path = tmp_path / "b.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(HarnessError) as err:
        load_baseline(str(path))
    assert str(err.value).startswith(f"{path}: not a baseline file (invalid JSON: Expecting property name")


@pytest.mark.parametrize(
    ("body", "schema"),
    [
        ({"schema": 3, "cells": []}, "3"),
        ({"cells": []}, "None"),
        ({"schema": 2, "cells": {}}, "2"),
        ({"schema": 1}, "1"),
        ([1, 2], "None"),
        ({"schema": "2", "cells": []}, "'2'"),
    ],
)
def test_a_baseline_of_another_schema_or_without_a_cell_list_is_refused(tmp_path, body, schema):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(HarnessError) as err:
        load_baseline(path)
    assert str(err.value) == f"{path}: baseline schema {schema} is not 2; rewrite it with --update"


@pytest.mark.parametrize("schema", [1, 2])
def test_a_baseline_cell_that_is_not_an_object_is_named_before_anything_runs(tmp_path, schema):
    """`harness check` reads the file before its evals run (`read_baseline_file`): a cell that is not an object is an
    error naming it there, not a traceback from the gate after the run."""
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"schema": schema, "cells": [_IDS[schema], 1]}), encoding="utf-8")
    with pytest.raises(HarnessError) as err:
        load_baseline(path)
    assert str(err.value) == f"{path}: cell 1 is not an object; rewrite the baseline with --update"


@pytest.mark.parametrize(("schema", "key"), [(1, "kind"), (1, "variant"), (2, "arm"), (2, "eval"), (2, "trial")])
def test_a_baseline_cell_without_an_id_the_gate_pairs_it_by_is_named_before_anything_runs(tmp_path, schema, key):
    """A hand-edited cell missing an id (a schema-1 cell without its kind) was a KeyError traceback from the gate."""
    path = tmp_path / "b.json"
    cell = {k: v for k, v in _IDS[schema].items() if k != key}
    path.write_text(json.dumps({"schema": schema, "cells": [_IDS[schema], cell]}), encoding="utf-8")
    with pytest.raises(HarnessError) as err:
        load_baseline(path)
    assert str(err.value) == f"{path}: cell 1 has no {key!r}; rewrite the baseline with --update"


_IDS = {
    1: {"variant": "v", "threshold": "20%", "case_id": "c", "trial": 0, "kind": "goal"},
    2: {"arm": "a", "threshold": "20%", "eval": "goal", "case_id": "c", "trial": 0},
}


def test_a_schema_2_baseline_is_read_as_stored(tmp_path):
    cells = [{**_IDS[2], "anything": 1}]
    (tmp_path / "b.json").write_text(json.dumps({"schema": 2, "cells": cells}), encoding="utf-8")
    assert load_baseline(tmp_path / "b.json") == cells
    (tmp_path / "e.json").write_text(json.dumps({"schema": 2, "cells": []}), encoding="utf-8")
    assert load_baseline(tmp_path / "e.json") == []


def test_an_ad_hoc_cell_written_with_its_kind_as_its_eval_is_read_as_no_eval(tmp_path):
    """Before 2026-11-28 the gate wrote an ad-hoc cell's kind as its eval, with eval_version null (which no cell of an
    eval has): it is read as eval null. A cell of an eval, or of an eval this version does not know, is read as it is."""
    ad_hoc = {**_IDS[2], "eval": "goal", "kind": "goal", "eval_version": None}
    of_eval = {**_IDS[2], "eval": "goal", "kind": "goal", "eval_version": 2}
    before_versions = {**_IDS[2], "eval": "goal", "kind": "goal"}
    other_kind = {**_IDS[2], "eval": "chain", "kind": "needle", "eval_version": None}
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"schema": 2, "cells": [ad_hoc, of_eval, before_versions, other_kind]}), encoding="utf-8")
    assert load_baseline(path) == [{**ad_hoc, "eval": None}, of_eval, before_versions, other_kind]


def test_the_shipped_nightly_baseline_names_no_eval_for_its_ad_hoc_cells():
    """datasets/experiments/nightly.yaml has no evals: its cells ran as no eval, and the baseline says so."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert "evals" not in (root / "datasets" / "experiments" / "nightly.yaml").read_text(encoding="utf-8")
    stored = json.loads((root / "datasets" / "baselines" / "nightly.json").read_text(encoding="utf-8"))["cells"]
    assert stored and all(c["eval"] is None and c["eval_version"] is None for c in stored)


def _v1(path, cells):
    path.write_text(json.dumps({"schema": 1, "cells": cells}), encoding="utf-8")
    return path


def test_a_schema_1_cell_reads_as_its_kinds_eval_under_deepagents_summarization(tmp_path):
    old = {
        "variant": "v",
        "threshold": "20%",
        "case_id": "n0",
        "kind": "needle",
        "trial": 0,
        "outcome": "PASS",
        "valid": True,
        "passed": True,
        "needle_recovered": True,
        "needle_via_history": False,
        "goal_preserved": True,  # not a needle eval check
    }
    (cell,) = load_baseline(_v1(tmp_path / "v1.json", [old]))
    assert cell == {
        "arm": "v",
        "threshold": "20%",
        "case_id": "n0",
        "kind": "needle",
        "trial": 0,
        "outcome": "PASS",
        "valid": True,
        "passed": True,
        "needle_recovered": True,
        "needle_via_history": False,
        "goal_preserved": True,
        "eval": "needle",
        "strategy": "deepagents-summarization",
        "checks": {"needle_correct": True, "needle_via_history": False},
    }


def test_a_schema_1_cell_without_a_checks_value_gates_no_check(tmp_path):
    goal = {"variant": "v", "threshold": "t", "case_id": "g", "kind": "goal", "trial": 0, "goal_preserved": None}
    needle = {"variant": "v", "threshold": "t", "case_id": "n", "kind": "needle", "trial": 0, "needle_recovered": False}
    cells = load_baseline(_v1(tmp_path / "v1.json", [goal, needle]))
    assert [c["checks"] for c in cells] == [{}, {"needle_correct": False}]


def test_a_schema_1_cell_that_names_its_eval_and_strategy_keeps_them(tmp_path):
    old = {
        "variant": "v",
        "threshold": "t",
        "case_id": "g",
        "kind": "goal",
        "trial": 0,
        "eval": "chain",
        "strategy": "sliding-window",
        "goal_preserved": False,
    }
    (cell,) = load_baseline(_v1(tmp_path / "v1.json", [old]))
    assert (cell["eval"], cell["strategy"], cell["checks"]) == ("chain", "sliding-window", {"goal_preserved": False})


NEEDLE_SCORES = {"needle_correct": True, "needle_via_history": False, "needle_via_recall": True}


@pytest.mark.parametrize(
    ("strategy", "checks"),
    [
        ("deepagents-summarization", {"needle_correct": True, "needle_via_history": False}),
        ("observation-masking", {"needle_correct": True, "needle_via_recall": True}),  # its own way back
        ("sliding-window", {"needle_correct": True}),  # no way back: only the answer is asked for
        ("none", {"needle_correct": True}),  # the control arm compacts nothing
    ],
)
def test_a_cells_gated_checks_follow_the_strategy_it_ran(strategy, checks):
    row = _row(eval_name="needle", kind="needle", strategy=strategy, scores=NEEDLE_SCORES)
    assert gate_cells([row])[0]["checks"] == checks
