"""The experiment grid's bookkeeping: the plan of cells, --shard, refusing a cell run with other settings, the shards
a merge lacks, and joining shard directories into one experiment (no cell is run)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from harness.agent.endpoints import arm_summary_model
from harness.cli.experiments import parse_shard
from harness.compaction.config import ContextSize
from harness.errors import ConfigError, HarnessError
from harness.rows import META_SCHEMA_VERSION
from harness.runs import merge
from harness.runs.grid import (
    Cell,
    _check_reuse,
    cell_config,
    config_sha,
    plan_cells,
)
from harness.runs.merge import merge_experiments, missing_shards
from harness.runs.results import read_cells
from harness.runs.spec import ExperimentSpec, Threshold
from tests._rows import full_cell

T20 = Threshold((ContextSize.parse("20%"),))
T30 = Threshold((ContextSize.parse("30%"),))


def _spec(**kw) -> ExperimentSpec:
    base = {
        "name": "grid",
        "path": "grid.yaml",
        "variants": ("deepagents-default", "minimal"),
        "thresholds": (T20,),
        "baseline": "deepagents-default",
    }
    return ExperimentSpec(**{**base, **kw})


def _case(case_id: str, kind: str = "needle") -> SimpleNamespace:
    return SimpleNamespace(id=case_id, kind=kind)


# -- the plan -------------------------------------------------------------------------------


def test_the_plan_runs_every_arm_and_threshold_of_a_case_before_the_next_case_and_trial():
    spec = _spec(thresholds=(T20, T30), trials=2)
    cells = plan_cells(spec, [_case("c1"), _case("c2")])
    expected = [
        Cell(arm, threshold, case, trial)
        for trial in (0, 1)
        for case in ("c1", "c2")
        for arm in ("deepagents-default", "minimal")
        for threshold in ("20%", "30%")
    ]
    assert cells == expected
    assert cells[0].id == "deepagents-default|20%|c1|t0"
    assert cells[-1].id == "minimal|30%|c2|t1"


def test_a_case_whose_eval_does_not_apply_to_an_arms_strategy_is_left_out_for_that_arm_only():
    spec = _spec(variants=("deepagents-default",), strategies=("deepagents-summarization", "observation-masking"))
    cells = plan_cells(spec, [_case("chain-1", "chain"), _case("needle-1", "needle")])
    assert [c.id for c in cells] == [
        "deepagents-summarization|20%|chain-1|t0",
        "deepagents-summarization|20%|needle-1|t0",
        "observation-masking|20%|needle-1|t0",
    ]


def test_a_case_of_a_kind_no_suite_knows_is_planned_for_every_arm():
    spec = _spec(variants=("deepagents-default",), strategies=("deepagents-summarization", "observation-masking"))
    assert [c.arm for c in plan_cells(spec, [_case("x-1", "homemade")])] == [
        "deepagents-summarization",
        "observation-masking",
    ]


def test_no_cases_or_no_trials_plan_no_cells():
    assert plan_cells(_spec(), []) == []
    assert plan_cells(_spec(trials=0), [_case("c1")]) == []


# -- --shard ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [(None, (0, 1)), ("", (0, 1)), ("0/1", (0, 1)), ("2/3", (2, 3))])
def test_a_shard_is_i_of_n(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["3/3", "-1/3", "0/0", "1/0", "a/3", "a/b", "1", "2", "1/2/3", "1-2"])
def test_a_shard_outside_0_to_n_or_not_i_slash_n_is_refused_naming_it(text):
    with pytest.raises(ConfigError) as raised:
        parse_shard(text)
    assert str(raised.value) == f"--shard must be i/n with 0 <= i < n, got {text!r}"


def test_a_malformed_shard_error_does_not_chain_the_parse_error():
    with pytest.raises(ConfigError) as raised:
        parse_shard("x/2")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


# -- reusing finished cells ------------------------------------------------------------------


def _sha(spec: ExperimentSpec, cell: Cell, threshold: Threshold, seed: int | None = None) -> str:
    """The fingerprint a cell's row carries when it ran under ``spec`` (as the grid writes it)."""
    config = cell_config(spec, cell.arm, threshold)
    settings = {k: v for k, v in spec.model_kwargs.items() if k not in ("timeout", "max_retries")}
    return config_sha(
        config,
        spec.model,
        arm_summary_model(config.summary_model, spec.summary_model),
        spec.seed + cell.trial if seed is None else seed,
        {"agent": settings, "summarizer": settings} if settings else {},
    )


def _refused(spec: ExperimentSpec, cell: Cell) -> str:
    return (
        f"cell {cell.id} in {spec.name} was run with different settings (model, window, keep, seed or variant "
        "contents changed); rename the experiment or delete its directory to start over"
    )


def test_cells_run_with_the_same_settings_are_reused():
    spec = _spec(thresholds=(T20, T30), seed=7, model_kwargs={"temperature": 0, "timeout": 30})
    cells = [Cell("minimal", "30%", "c1", 2), Cell("deepagents-default", "20%", "c1", 0)]
    done = {
        cells[0].id: {"config_sha": _sha(spec, cells[0], T30)},
        cells[1].id: {"config_sha": _sha(spec, cells[1], T20)},
    }
    assert _check_reuse(spec, cells, done) is None


def test_a_cell_not_yet_run_is_not_checked():
    spec = _spec()
    _check_reuse(spec, [Cell("minimal", "20%", "c1", 0)], {"other|20%|c1|t0": {"config_sha": "stale"}})


@pytest.mark.parametrize(
    "changed",
    [
        {"window": 80000},
        {"model": "openai:gpt-4o-mini"},
        {"summary_model": "openai:gpt-4o-mini"},
        {"seed": 1},
        {"keep": ContextSize.parse("2%")},
        {"model_kwargs": {"temperature": 0.7}},
    ],
)
def test_a_cell_run_with_other_settings_is_refused_naming_it(changed):
    before = _spec(thresholds=(T20, T30))
    cell = Cell("minimal", "30%", "c1", 1)
    done = {cell.id: {"config_sha": _sha(before, cell, T30)}}
    after = _spec(thresholds=(T20, T30), **changed)
    with pytest.raises(HarnessError) as raised:
        _check_reuse(after, [cell], done)
    assert str(raised.value) == _refused(after, cell)


def test_a_cell_is_checked_against_its_own_threshold_and_trial_seed():
    spec = _spec(thresholds=(T20, T30), seed=3)
    cell = Cell("minimal", "30%", "c1", 1)
    for wrong in ({"config_sha": _sha(spec, cell, T20)}, {"config_sha": _sha(spec, cell, T30, seed=3)}, {}):
        with pytest.raises(HarnessError, match="was run with different settings"):
            _check_reuse(spec, [Cell("deepagents-default", "20%", "c0", 0), cell], {cell.id: wrong})


def test_the_first_changed_cell_of_the_plan_is_the_one_named():
    spec = _spec()
    cells = [Cell("minimal", "20%", "c1", 0), Cell("minimal", "20%", "c2", 0)]
    done = {c.id: {"config_sha": "0" * 12} for c in cells}
    with pytest.raises(HarnessError) as raised:
        _check_reuse(spec, cells, done)
    assert str(raised.value) == _refused(spec, cells[0])


# -- shards a merge lacks ---------------------------------------------------------------------


def test_the_shards_none_of_the_parts_is_are_named():
    assert missing_shards([{"shard": [0, 4]}, {"shard": [2, 4]}]) == ["1of4", "3of4"]
    assert missing_shards([{"shard": [1, 2]}]) == ["0of2"]


def test_a_complete_split_lacks_nothing():
    assert missing_shards([{"shard": [1, 2]}, {"shard": [0, 2]}]) == []
    assert missing_shards([{"shard": [0, 1]}]) == []


def test_parts_that_are_not_shards_are_passed_over():
    assert missing_shards([{"shard": None}, {"shard": [0, 3]}, {}]) == ["1of3", "2of3"]
    assert missing_shards([{"shard": None}, {}]) == []
    assert missing_shards([]) == []


def test_parts_of_different_splits_name_no_missing_shard():
    assert missing_shards([{"shard": [0, 2]}, {"shard": [0, 3]}]) == []


# -- merging ---------------------------------------------------------------------------------

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def frozen(monkeypatch):
    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            assert tz is UTC
            return NOW

    monkeypatch.setattr(merge, "datetime", Frozen)


def _meta(shard: list[int] | None, planned: int, **kw) -> dict:
    return {
        "experiment": "grid",
        "spec_fingerprint": "abc123",
        "shard": shard,
        "planned_cells": planned,
        "model": "reference",
        "updated_at": "2025-12-31T00:00:00+00:00",
        **kw,
    }


def _part(root, name: str, meta: dict, cells: list[str], spec: str | None = None):
    """An experiment directory: meta.json, one row and one trace file per cell id, and spec.yaml when given."""
    path = root / name
    (path / "traces").mkdir(parents=True)
    (path / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    with open(path / "cells.jsonl", "w", encoding="utf-8") as fh:
        for cell in cells:
            stem = cell.replace("|", "_")
            fh.write(json.dumps(full_cell(cell, arm="a", trace=f"traces/{stem}.json.gz")) + "\n")
            (path / "traces" / f"{stem}.json.gz").write_bytes(f"trace of {cell} in {name}".encode())
    if spec is not None:
        (path / "spec.yaml").write_text(spec, encoding="utf-8")
    return path


def test_shards_merge_into_one_experiment_with_every_row_and_trace(tmp_path, frozen):
    a = _part(tmp_path, "0of3", _meta([0, 3], 2, extra="kept"), ["c1", "c3"], spec="name: grid\n")
    c = _part(tmp_path, "2of3", _meta([2, 3], 1), ["c2"], spec="name: other\n")
    out = merge_experiments(tmp_path / "deep" / "merged", [a, str(c)])
    assert out == tmp_path / "deep" / "merged"
    assert [r["cell_id"] for r in read_cells(out / "cells.jsonl")] == ["c1", "c3", "c2"]
    assert read_cells(out / "cells.jsonl") == read_cells(a / "cells.jsonl") + read_cells(c / "cells.jsonl")
    for cell, part in (("c1", "0of3"), ("c3", "0of3"), ("c2", "2of3")):
        assert (out / "traces" / f"{cell}.json.gz").read_bytes() == f"trace of {cell} in {part}".encode()
    meta = {
        **_meta(None, 3, extra="kept"),
        "schema_version": META_SCHEMA_VERSION,  # the parts' meta.json had none (version 1); the merge writes the current
        "merged_from": [str(a), str(c)],
        "missing_shards": ["1of3"],
        "updated_at": "2026-01-02T03:04:05+00:00",
    }
    assert (out / "meta.json").read_text(encoding="utf-8") == json.dumps(meta, indent=2) + "\n"
    assert (out / "spec.yaml").read_text(encoding="utf-8") == "name: grid\n"  # the first part's


def test_a_cell_in_two_parts_is_merged_once_from_the_first(tmp_path, frozen):
    a = _part(tmp_path, "a", _meta([0, 2], 2), ["c1", "c2"])
    b = _part(tmp_path, "b", _meta([1, 2], 2), ["c2", "c3"])
    out = merge_experiments(tmp_path / "out", [a, b])
    lines = (out / "cells.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["cell_id"] for line in lines] == ["c1", "c2", "c3"]
    assert (out / "traces" / "c2.json.gz").read_bytes() == b"trace of c2 in a"
    assert not (out / "spec.yaml").exists()  # no part has one


def test_merging_again_adds_only_the_new_rows(tmp_path, frozen):
    a = _part(tmp_path, "a", _meta([0, 2], 1), ["c1"])
    merge_experiments(tmp_path / "out", [a])
    b = _part(tmp_path, "b", _meta([1, 2], 1), ["c2"])
    out = merge_experiments(tmp_path / "out", [a, b])
    lines = (out / "cells.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["cell_id"] for line in lines] == ["c1", "c2"]
    assert json.loads((out / "meta.json").read_text(encoding="utf-8"))["missing_shards"] == []


def test_a_part_merged_into_itself_keeps_its_rows_traces_and_spec(tmp_path, frozen):
    a = _part(tmp_path, "a", _meta([0, 2], 1), ["c1"], spec="name: grid\n")
    b = _part(tmp_path, "b", _meta([1, 2], 1), ["c2"])
    out = merge_experiments(a, [a, b])
    assert [r["cell_id"] for r in read_cells(out / "cells.jsonl")] == ["c1", "c2"]
    assert (a / "traces" / "c1.json.gz").read_bytes() == b"trace of c1 in a"
    assert (a / "spec.yaml").read_text(encoding="utf-8") == "name: grid\n"


def test_a_row_whose_trace_is_already_in_place_is_not_copied_onto_itself(tmp_path, frozen):
    """A part inside the output whose row names the output's own trace file (an absolute path)."""
    out = tmp_path / "out"
    (out / "traces").mkdir(parents=True)
    trace = out / "traces" / "c1.json.gz"
    trace.write_bytes(b"the trace")
    part = tmp_path / "part"
    part.mkdir()
    (part / "meta.json").write_text(json.dumps(_meta(None, 1)), encoding="utf-8")
    (part / "cells.jsonl").write_text(json.dumps(full_cell("c1", trace=str(trace))) + "\n", encoding="utf-8")
    merge_experiments(out, [part])
    assert trace.read_bytes() == b"the trace"
    assert [r["cell_id"] for r in read_cells(out / "cells.jsonl")] == ["c1"]


def test_a_directory_without_meta_json_is_refused_naming_it(tmp_path):
    a = _part(tmp_path, "a", _meta([0, 2], 1), ["c1"])
    stray = tmp_path / "stray"
    stray.mkdir()
    with pytest.raises(HarnessError) as raised:
        merge_experiments(tmp_path / "out", [a, stray])
    assert str(raised.value) == f"{stray}: not an experiment directory (no meta.json)"
    assert not (tmp_path / "out").exists()


def test_parts_of_different_specs_are_refused(tmp_path):
    a = _part(tmp_path, "a", _meta([0, 2], 1), ["c1"])
    b = _part(tmp_path, "b", _meta([1, 2], 1, spec_fingerprint="def456"), ["c2"])
    with pytest.raises(HarnessError) as raised:
        merge_experiments(tmp_path / "out", [a, b])
    assert str(raised.value) == "cannot merge different experiments or specs: ['grid'], fingerprints ['abc123', 'def456']"
    assert not (tmp_path / "out").exists()


def test_parts_of_different_experiments_are_refused(tmp_path):
    a = _part(tmp_path, "a", _meta([0, 2], 1), ["c1"])
    b = _part(tmp_path, "b", _meta([1, 2], 1, experiment="other"), ["c2"])
    with pytest.raises(HarnessError) as raised:
        merge_experiments(tmp_path / "out", [a, b])
    assert str(raised.value) == "cannot merge different experiments or specs: ['grid', 'other'], fingerprints ['abc123']"
