"""The worked summarizing compactor of docs/strategies.md through `harness check` (the real agent, offline): it
passes a goal and a needle case; the same compactor with the class default ``trim_tokens_to_summarize`` is warned
about before the run and loses the task in the goal case, as the page says."""

from __future__ import annotations

import json

import pytest

from harness.cli.main import main
from harness.compaction.strategies import names, registry
from tests._docs import blocks, page

pytestmark = pytest.mark.slow

EXAMPLE = next(b for b in blocks(page("strategies"), "python") if "def make(config, model" in b)
CASES = ["--cases", "goal-ledgers-30", "needle-h24k-d000", "--evals", "goal,needle"]


def _outcomes(runs) -> dict[str, str]:  # noqa: ANN001
    (run,) = runs.iterdir()
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    return {r["case_id"]: r["outcome"] for r in rows}


def test_the_worked_compactor_passes_and_without_its_trim_setting_loses_the_task(tmp_path, monkeypatch, capsys):
    (tmp_path / "acme_compaction.py").write_text(EXAMPLE, encoding="utf-8")
    class_trim = EXAMPLE.replace("trim_tokens_to_summarize=None,", "")
    assert class_trim != EXAMPLE
    (tmp_path / "acme_class_trim.py").write_text(class_trim, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    baseline = tmp_path / "baseline.json"
    try:
        good, bad = tmp_path / "good", tmp_path / "bad"
        args = [*CASES, "--baseline", str(baseline), "--update"]
        assert main(["check", "--strategy", "acme_compaction:make", *args, "--out", str(good)]) == 0
        assert "[trim-tokens-class-default]" not in capsys.readouterr().out
        assert _outcomes(good) == {"goal-ledgers-30": "PASS", "needle-h24k-d000": "PASS"}
        assert main(["check", "--strategy", "acme_class_trim:make", *args, "--out", str(bad)]) == 0
        assert "WARNING [trim-tokens-class-default]" in capsys.readouterr().out
        assert _outcomes(bad)["goal-ledgers-30"] == "FAIL"
    finally:
        for name in ("acme_compaction.make", "acme_class_trim.make"):
            names.RUNTIME.pop(name, None)
        registry.load.cache_clear()
