"""Strategies and scorers from an installed package (entry-point groups ``compaction_harness.strategies`` and
``compaction_harness.scorers``): found, checked, run through the real agent and scored, and refused with a clear error
when one clashes, does not import or is malformed.

The package is made in a temporary directory as an installer leaves one: the module, and a ``.dist-info`` with its
METADATA and entry_points.txt, on ``sys.path``; `importlib.metadata` finds it as it finds any installed package.
"""

from __future__ import annotations

import copy
import re
import sys
import textwrap

import pytest

from harness._paths import DATASETS_DIR
from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.compaction.strategies import names, registry
from harness.compaction.strategies.base import Strategy
from harness.compaction.variants import make_config
from harness.errors import ConfigError
from harness.scenarios.schema import load_scenarios
from harness.scoring.scorers import registry as scorer_registry
from harness.scoring.scorers import score_case, scorer_sets, scores_by_key
from harness.scoring.scorers.registry import SCORER_GROUP

NEEDLE = DATASETS_DIR / "needle.jsonl"
ACME = textwrap.dedent(
    '''
    """An outside package's strategy: LangChain's ClearToolUsesEdit keeping one result, named acme-masking."""
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    from harness.compaction.strategies.base import StrategyInfo, StrategyStack
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    INFO = StrategyInfo("acme-masking", "acme's masking", "calling the tool again", "needle_via_recall", False, ("mask",))


    def build(config, model, *, backend, summarizer=None):
        edit = ClearToolUsesEdit(trigger=config.trigger_tokens() or 0, keep=1, placeholder="[cleared]")
        return StrategyStack(slot=VacatedSummarizationSlot(), inner=[ContextEditingMiddleware(edits=[edit])])
    '''
)


ACME_CHECKS = textwrap.dedent(
    '''
    """An outside package's scorers: a check on every needle case in the default set, and a set of its own."""
    from harness.scoring.scorers import CHECK, MEASURE, Score, scorer


    @scorer("needle")
    def acme_answer_short(trace, scenario):
        answer = trace.answer(len(scenario.turns) - 1) or ""
        return Score("acme_answer_short", len(answer) < 200, CHECK, f"{len(answer)} characters")


    @scorer(scorer_set="acme")
    def acme_calls(trace, scenario):
        return Score("acme_calls", len(trace.agent_calls()), MEASURE, "agent calls")
    '''
)


def install(tmp_path, monkeypatch, entry_points: str, modules: dict[str, str] | None = None, group: str = names.GROUP) -> None:
    """A package installed into ``tmp_path`` (on sys.path), declaring ``entry_points`` (entry_points.txt lines)."""
    for name, source in (modules or {"acme_compaction": ACME}).items():
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        # A module of that name imported by an earlier test in this process (test_check_compactor's acme_compaction,
        # the docs' example with no INFO) would be what the entry point loads: import this one fresh.
        monkeypatch.delitem(sys.modules, name, raising=False)
    info = tmp_path / "acme_compaction-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-compaction\nVersion: 0.1\n", encoding="utf-8")
    with (info / "entry_points.txt").open("a", encoding="utf-8") as fh:
        fh.write(f"[{group}]\n{entry_points}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    names.installed.cache_clear()
    registry.load.cache_clear()
    scorer_registry.load_installed_scorers.cache_clear()


def _forget_acme_modules() -> None:
    """Drop every imported ``acme_*`` module: other tests (test_check_compactor) import modules of these names with
    other contents, and an import finds the one cached first."""
    for name in [m for m in sys.modules if m.startswith("acme_")]:
        del sys.modules[name]


@pytest.fixture(autouse=True)
def _fresh_registries():
    registered = copy.deepcopy(scorer_registry._REGISTRY)  # noqa: SLF001 - a package's scorers register there
    _forget_acme_modules()
    yield
    _forget_acme_modules()
    names.installed.cache_clear()  # the next test sees the packages actually installed
    registry.load.cache_clear()
    scorer_registry.load_installed_scorers.cache_clear()
    scorer_registry._REGISTRY.clear()  # noqa: SLF001
    scorer_registry._REGISTRY.update(registered)  # noqa: SLF001


def test_an_installed_strategy_is_named_checked_and_runs_through_the_real_agent(tmp_path, monkeypatch):
    assert "acme-masking" not in names.strategy_names()
    with pytest.raises(ConfigError, match="unknown strategy"):
        make_config("forced-20", strategy="acme-masking")
    install(tmp_path, monkeypatch, "acme-masking = acme_compaction")
    assert names.strategy_names() == (*names.BUILTIN, "acme-masking")
    strategy = registry.load("acme-masking")
    assert isinstance(strategy, Strategy) and registry.INFO["acme-masking"].event_types == ("mask",)
    config = make_config("forced-20", strategy="acme-masking")
    (scenario,) = [s for s in load_scenarios([NEEDLE]) if s.id == "needle-h24k-d050"]
    trace = run_case(scenario, config, choose_models(None, None, window=config.window))
    assert trace.config["strategy"] == "acme-masking"
    assert trace.events_of("mask") and not trace.events_of("summary")  # its middleware ran, deepagents' did not

    assert "acme_answer_short" not in scores_by_key(score_case(trace, scenario))
    install(tmp_path, monkeypatch, "acme = acme_checks", {"acme_checks": ACME_CHECKS}, group=SCORER_GROUP)
    scores = scores_by_key(score_case(trace, scenario))
    assert scores["acme_answer_short"].role == "check" and "needle_correct" in scores  # beside the built-in ones
    assert scorer_sets()[-1] == "acme" and score_case(trace, scenario, "acme")[-1].key == "acme_calls"


def test_a_scorer_package_that_does_not_import_is_refused_naming_its_entry_point(tmp_path, monkeypatch):
    install(tmp_path, monkeypatch, "acme = acme_gone", {}, group=SCORER_GROUP)
    with pytest.raises(ConfigError, match=re.escape("entry point 'acme' = 'acme_gone' (group compaction_harness.scorers)")):
        scorer_sets()


@pytest.mark.parametrize(
    ("entry", "modules", "message"),
    [
        ("hybrid = acme_compaction", None, "'hybrid' is a built-in strategy"),
        ("acme-masking = acme_missing", None, "entry point 'acme-masking' = 'acme_missing' does not load (ModuleNotFoundError"),
        ("acme-masking = acme_bare", {"acme_bare": "X = 1\n"}, "has no INFO (a StrategyInfo) and build"),
        ("acme-other = acme_compaction", None, "describes itself as 'acme-masking'; the names must agree"),
    ],
)
def test_a_bad_installed_strategy_is_refused_naming_its_entry_point(tmp_path, monkeypatch, entry, modules, message):
    install(tmp_path, monkeypatch, entry, modules)
    with pytest.raises(ConfigError, match=re.escape(message)):
        registry.load(entry.split(" = ")[0]) if "built-in" not in message else names.strategy_names()


def test_a_bad_installed_strategy_exits_2_from_the_cli(tmp_path, monkeypatch, capsys):
    from harness.cli.main import main

    install(tmp_path, monkeypatch, "acme-masking = acme_missing")
    out = tmp_path / "runs"
    assert main(["run", "--strategy", "acme-masking", "--cases", "needle-h24k-d050", "--out", str(out)]) == 2
    assert "does not load" in capsys.readouterr().err
    assert not out.exists()  # nothing written
