"""The compactor audit `harness check` runs before its evals (`harness.agent.audit.compactor_findings`): the worked
summarizing compactor of docs/strategies.md builds and draws no finding; the summarizer passed as ``model`` and the
class default ``trim_tokens_to_summarize`` are each named with the fix. Stacks are built, no agent runs."""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import replace

import pytest
from deepagents.backends import StateBackend
from deepagents.middleware.summarization import SummarizationMiddleware, create_summarization_middleware

from harness.agent.audit import ERROR, TRIM_CLASS_DEFAULT, WARNING, compactor_findings, stack_findings
from harness.cli.main import main
from harness.compaction.config import PRESETS
from harness.compaction.strategies import names, registry
from harness.compaction.strategies.base import with_window
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from tests._docs import blocks, page

CONFIG = PRESETS["forced-20"]
EXAMPLE = next(b for b in blocks(page("strategies"), "python") if "def make(config, model" in b)

MISTAKES = textwrap.dedent(
    """
    from deepagents.middleware.summarization import SummarizationMiddleware

    from harness.compaction.strategies.base import StrategyStack


    def summarizer_as_model(config, model, *, backend, summarizer=None):
        middleware = SummarizationMiddleware(
            model=summarizer, backend=backend, trigger=config.trigger_arg(), keep=config.keep.as_tuple(),
            trim_tokens_to_summarize=None,
        )
        return StrategyStack(slot=middleware, inner=[], summarization=middleware)


    def class_trim(config, model, *, backend, summarizer=None):
        middleware = SummarizationMiddleware(
            model=model, backend=backend, trigger=config.trigger_arg(), keep=config.keep.as_tuple(), summarizer=summarizer
        )
        return StrategyStack(slot=middleware, inner=[], summarization=middleware)
    """
)


@pytest.fixture
def compactors(tmp_path, monkeypatch):
    """The docs' example as module acme_compaction and two mistaken ones as acme_mistakes, importable; registered
    strategies are dropped afterwards."""
    (tmp_path / "acme_compaction.py").write_text(EXAMPLE, encoding="utf-8")
    (tmp_path / "acme_mistakes.py").write_text(MISTAKES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(names.RUNTIME)
    yield registry.register
    for name in set(names.RUNTIME) - before:
        names.RUNTIME.pop(name)
    registry.load.cache_clear()


def _agent() -> ReferenceAgentModel:
    return with_window(ReferenceAgentModel(), CONFIG.window)


def test_the_trim_default_named_is_the_class_default_and_the_factory_passes_none():
    trim = inspect.signature(SummarizationMiddleware.__init__).parameters["trim_tokens_to_summarize"]
    assert trim.default == TRIM_CLASS_DEFAULT
    assert create_summarization_middleware(_agent(), StateBackend())._lc_helper.trim_tokens_to_summarize is None


def test_the_worked_compactor_of_the_docs_builds_and_draws_no_finding(compactors):
    name = compactors("acme_compaction:make")
    assert compactor_findings(name) == []
    stack = registry.load(name).build(CONFIG, _agent(), backend=StateBackend(), summarizer=ReferenceSummarizerModel())
    assert type(stack.slot) is SummarizationMiddleware and stack.summarization is stack.slot
    helper = stack.slot._lc_helper
    assert (helper.trigger, helper.keep, helper.trim_tokens_to_summarize) == (("fraction", 0.2), ("fraction", 0.05), None)


def test_the_summarizer_passed_as_model_is_an_error_naming_the_fix(compactors):
    (finding,) = compactor_findings(compactors("acme_mistakes:summarizer_as_model"))
    assert (finding.level, finding.code) == (ERROR, "summarization-model-without-window")
    assert "passing the summary model as `model`" in finding.message
    assert "as model= and the summary model as summarizer=" in finding.message


def test_the_class_default_trim_is_a_warning_naming_the_fix(compactors):
    (finding,) = compactor_findings(compactors("acme_mistakes:class_trim"))
    assert (finding.level, finding.code) == (WARNING, "trim-tokens-class-default")
    assert "the task and everything before them are left out of every summary" in finding.message
    assert "pass trim_tokens_to_summarize=None" in finding.message


def test_a_trim_of_4000_the_config_asks_for_is_not_flagged(compactors):
    stack = registry.load(compactors("acme_mistakes:class_trim")).build(CONFIG, _agent(), backend=StateBackend())
    assert [f.code for f in stack_findings(stack, CONFIG)] == ["trim-tokens-class-default"]
    assert stack_findings(stack, replace(CONFIG, trim_tokens_to_summarize=TRIM_CLASS_DEFAULT)) == []


def test_a_model_sized_for_another_window_is_a_warning(compactors):
    stack = registry.load(compactors("acme_compaction:make")).build(CONFIG, _agent(), backend=StateBackend())
    assert stack_findings(stack, CONFIG) == []
    (finding,) = stack_findings(stack, replace(CONFIG, window=CONFIG.window * 2))
    assert (finding.level, finding.code) == (WARNING, "summarization-model-window")
    assert f"a window of {CONFIG.window:,} tokens, not the run's {2 * CONFIG.window:,}" in finding.message


def test_a_model_without_a_window_under_a_fraction_is_found_on_a_built_stack_too():
    # LangChain refuses it at build time today; a release that stopped refusing would still be caught on the stack.
    middleware = SummarizationMiddleware(
        model=_agent(), backend=StateBackend(), trigger=("tokens", 9000), keep=("messages", 6), trim_tokens_to_summarize=None
    )
    stack = registry.load("deepagents-summarization").build(CONFIG, _agent(), backend=StateBackend())
    stack.slot = stack.summarization = middleware
    assert stack_findings(stack, CONFIG) == []
    middleware._lc_helper.model = ReferenceSummarizerModel()
    middleware._lc_helper.keep = ("fraction", 0.05)
    assert [(f.level, f.code) for f in stack_findings(stack, CONFIG)] == [(ERROR, "summarization-model-without-window")]
    middleware._lc_helper.keep = ("messages", 6)
    middleware._lc_helper.trigger = [{"fraction": 0.2, "messages": 10}]
    assert [f.code for f in stack_findings(stack, CONFIG)] == ["summarization-model-without-window"]


@pytest.mark.parametrize("strategy", [None, "langchain-summarization", "hybrid", "observation-masking", "sliding-window"])
def test_the_built_in_strategies_draw_no_finding(strategy):
    assert compactor_findings(strategy) == []


def test_check_names_the_summarizer_as_model_and_runs_nothing(compactors, tmp_path, capsys):
    out = tmp_path / "runs"
    code = main(
        # --update: harness check reads its baseline before the audit, and this test is about the audit
        ["check", "--strategy", "acme_mistakes:summarizer_as_model", "--baseline", str(tmp_path / "b.json"), "--update"]
        + ["--out", str(out)]
    )
    assert code == 2 and not out.exists() and not (tmp_path / "b.json").exists()
    assert "ERROR [summarization-model-without-window]" in capsys.readouterr().out


def test_the_audit_builds_a_live_model_at_the_run_s_endpoint_so_a_server_without_auth_needs_no_key(monkeypatch):
    """`harness check --model openai:x --base-url URL` (a local server with no auth): the audit built the model without
    the endpoint, so it asked for OPENAI_API_KEY and the check exited 3 before any eval; at the run's endpoint it
    needs none, as the run does."""
    from harness.agent.models import Endpoint

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = Endpoint("http://127.0.0.1:9/v1")
    assert compactor_findings("langchain-summarization", model="openai:gpt-x", endpoints=(local, local)) == []
