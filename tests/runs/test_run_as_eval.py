"""`harness run --kind K` runs the eval K (its preset, scorer set and version, as `pytest evals/ -m K` does) and its rows
say so; without ``--kind`` the cases run as no eval, under ``--variant``, and the rows say ``eval: null``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import EXIT_OK, main
from harness.suites.registry import SUITES

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TRUNCATION = str(ROOT / "datasets" / "mechanisms" / "truncation.jsonl")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in (path / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_run_of_kind_k_runs_under_the_eval_ks_preset_and_its_rows_name_the_eval_and_its_version(tmp_path):
    argv = ["run", "--datasets", TRUNCATION, "--limit", "1", "--out", str(tmp_path)]
    assert main([*argv, "--kind", "truncation", "--run-id", "as-eval"]) == EXIT_OK
    assert main([*argv, "--run-id", "ad-hoc"]) == EXIT_OK
    (as_eval,) = _rows(tmp_path / "as-eval")
    (ad_hoc,) = _rows(tmp_path / "ad-hoc")
    suite = SUITES["truncation"]
    assert suite.preset == "truncation"  # the eval's own preset, not the run's --variant (forced-20)
    assert (as_eval["eval"], as_eval["eval_version"], as_eval["scorers"]) == ("truncation", suite.version, suite.scorers)
    assert as_eval["config"]["name"] == "truncation" and as_eval["arm"] == "truncation"
    assert as_eval["events"].get("truncate-args", 0) > 0  # what the preset turns on ran
    assert (ad_hoc["eval"], ad_hoc["eval_version"], ad_hoc["scorers"]) == (None, None, "default")
    assert ad_hoc["config"]["name"] == "forced-20" and ad_hoc["case_id"] == as_eval["case_id"]


def test_a_case_the_eval_does_not_run_is_skipped_with_the_evals_reason(tmp_path, capsys):
    argv = ["run", "--kind", "chain", "--limit", "1", "--strategy", "observation-masking", "--out", str(tmp_path)]
    assert main([*argv, "--run-id", "masked"]) == 3  # nothing else to run: SKIPPED
    out = capsys.readouterr().out
    assert "the chain eval applies to" in out and "not observation-masking" in out
    meta = json.loads((tmp_path / "masked" / "meta.json").read_text(encoding="utf-8"))
    assert meta["skipped"][0]["reason"].startswith("the chain eval applies to")
