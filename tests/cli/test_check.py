"""``harness check``: the evals run against a compactor and gated against a stored baseline, as a user does before
shipping a change to their compactor (exit 0 same, 1 a significant regression, 2 bad input)."""

from __future__ import annotations

import textwrap

import pytest

from harness.cli.main import main
from harness.compaction.strategies import names, registry

pytestmark = pytest.mark.slow

LOSSY = textwrap.dedent(
    '''
    """A compactor that keeps only the task and the newest message: what was fetched never comes back."""
    from langchain.agents.middleware import AgentMiddleware

    from harness.compaction.strategies.base import StrategyStack
    from harness.compaction.strategies.none import VacatedSummarizationSlot


    class KeepTwo(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            return handler(request.override(messages=[request.messages[0], request.messages[-1]]))


    def lossy(config, model, *, backend, summarizer=None):
        return StrategyStack(slot=VacatedSummarizationSlot(), inner=[KeepTwo()])
    '''
)


def test_a_baseline_is_written_then_held_and_a_lossy_compactor_fails_the_check(tmp_path, monkeypatch, capsys):
    baseline = tmp_path / "baseline.json"
    cases = [f"needle-h24k-d{d}" for d in ("000", "010", "025", "040", "050")] + [
        "needle-h32k-d000",
        "needle-h32k-d010",
        "needle-h32k-d025",
    ]
    common = ["--evals", "needle", "--cases", *cases, "--baseline", str(baseline), "--out", str(tmp_path / "runs")]
    assert main(["check", "--strategy", "observation-masking", *common, "--update"]) == 0
    assert baseline.is_file() and "rewritten from 8 cell(s)" in capsys.readouterr().out
    assert main(["check", "--strategy", "observation-masking", *common]) == 0
    assert "no significant regression" in capsys.readouterr().out
    (tmp_path / "acme_lossy.py").write_text(LOSSY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["check", "--strategy", "acme_lossy:lossy", *common]) == 1
    finally:
        names.RUNTIME.pop("acme_lossy.lossy", None)
        registry.load.cache_clear()
    out = capsys.readouterr().out  # 8 cases lost of 8: exact McNemar p = 2/256, Holm over 3 gates: 0.023
    assert "REGRESSION on" in out and "needle eval" in out


def test_an_unknown_eval_or_a_strategy_that_does_not_import_exits_2_and_writes_nothing(tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    for args, message in [
        (["--evals", "needles"], "no eval 'needles'"),
        (["--strategy", "acme_nowhere:make"], "cannot import 'acme_nowhere' (No module named"),
    ]:
        assert main(["check", *args, "--baseline", str(baseline), "--out", str(tmp_path / "runs")]) == 2
        assert message in capsys.readouterr().err
    assert not baseline.exists() and not (tmp_path / "runs").exists()
