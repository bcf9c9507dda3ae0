"""The strategy list is written once (`names.BUILTIN`): the default strategy, the help text, the variant schema's
description and docs/strategies.md's table all follow it. A strategy registered at run time (`registry.register`,
the pytest plugin's ``--compaction-strategy``) joins the names it checks against."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from harness.compaction.config import DEFAULT_STRATEGY
from harness.compaction.strategies import registry
from harness.compaction.strategies.base import StrategyInfo
from harness.compaction.strategies.names import BUILTIN, PROVIDER_NATIVE, RUNTIME, builtin_said, strategy_names
from harness.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _table_names() -> list[str]:
    """The first column of docs/strategies.md's first table, each cell's first code span."""
    text = (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8")
    table = text[text.index("| strategy |") :].split("\n\n", 1)[0].splitlines()[2:]
    return [m.group(1) if (m := re.match(r"\| `([^`]+)`", row)) else row.split("|")[1].strip() for row in table]


def test_docs_strategies_table_has_one_row_per_builtin_strategy_in_its_order():
    names = [("custom" if n == "module:function" else n) for n in _table_names()]
    assert names == [*BUILTIN, "your package's, by name"]
    assert "`deepagents-summarization` (default)" in (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8")


def test_the_default_strategy_is_a_builtin_one_and_the_help_text_marks_it_alone():
    said = builtin_said()
    assert DEFAULT_STRATEGY in BUILTIN
    assert said.count("(default)") == 1 and f"{DEFAULT_STRATEGY} (default)" in said


def test_the_help_text_names_every_builtin_strategy_once_in_order_and_custom_as_module_function():
    said = builtin_said()
    named = [n for n in BUILTIN if n != "custom"]
    positions = [said.index(n + ("" if n == named[-1] else "")) for n in named]
    assert positions == sorted(positions), said
    assert all(len(re.findall(rf"(?<![\w-]){re.escape(n)}(?![\w-])", said)) == 1 for n in named), said
    assert said.endswith("or module:function (custom)")
    native = said[said.index("the provider-native") :]
    assert all(n in native for n in PROVIDER_NATIVE), said


def test_the_cli_and_the_variant_schema_take_the_list_from_the_one_definition():
    from harness.compaction.variants import VariantSettings
    from harness.runs.settings import SETTINGS

    (strategy,) = [s for s in SETTINGS if s.name == "strategy"]
    assert strategy.option["help"] == f"compaction strategy: {builtin_said()}"
    assert VariantSettings.model_fields["strategy"].description == f"the compaction strategy: {builtin_said()}"


USER_MODULE = """
from harness.compaction.strategies.base import StrategyInfo, StrategyStack

INFO = StrategyInfo("{name}", "a user's", "nowhere", None, False, ("trim",))
STACK = StrategyStack(slot="slot", inner=[])


def build(config, model, *, backend, summarizer=None):
    return STACK


def make(config, model, *, backend, summarizer=None):
    return StrategyStack(slot=(config, model, backend, summarizer), inner=["made"])


def broken(config, model, *, backend, summarizer=None):
    return "a stack"


NOT_CALLABLE = 3
"""


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    """Two importable modules, ``acme_unit_strategy`` (INFO named acme-unit) and ``acme_unit_taken`` (INFO named
    hybrid); every strategy registered during the test is forgotten after it."""
    (tmp_path / "acme_unit_strategy.py").write_text(USER_MODULE.format(name="acme-unit"), encoding="utf-8")
    (tmp_path / "acme_unit_taken.py").write_text(USER_MODULE.format(name="hybrid"), encoding="utf-8")
    (tmp_path / "acme_unit_boom.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    (tmp_path / "acme_unit_info_only.py").write_text(USER_MODULE.format(name="x").split("def build")[0], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = dict(RUNTIME)
    yield
    RUNTIME.clear()
    RUNTIME.update(before)
    registry.load.cache_clear()
    for name in ("acme_unit_strategy", "acme_unit_taken", "acme_unit_info_only", "acme_unit_boom"):
        sys.modules.pop(name, None)


def test_a_module_with_info_and_build_registers_under_its_infos_name(user_modules):
    assert registry.register("acme_unit_strategy") == "acme-unit"
    module = sys.modules["acme_unit_strategy"]
    assert RUNTIME["acme-unit"] is module and registry.load("acme-unit") is module
    assert strategy_names()[-1] == "acme-unit" and registry.INFO["acme-unit"].recovery == "nowhere"
    assert list(registry.INFO) == list(strategy_names()) and len(registry.INFO) == len(strategy_names())


def test_a_factory_registers_as_module_dot_attr_with_a_description_and_its_stack(user_modules):
    assert registry.register("acme_unit_strategy:make") == "acme_unit_strategy.make"
    loaded = registry.load("acme_unit_strategy.make")
    assert loaded.INFO == StrategyInfo(
        "acme_unit_strategy.make",
        "acme_unit_strategy:make, a middleware factory",
        "unknown: whatever its middleware keeps",
        None,
        False,
        ("summary", "mask", "trim"),
    )
    stack = loaded.build("config", "model", backend="backend", summarizer="summarizer")
    assert stack.slot == ("config", "model", "backend", "summarizer") and stack.inner == ["made"]
    assert loaded.build("c", "m", backend="b").slot == ("c", "m", "b", None)


def test_a_factory_that_returns_no_stack_is_refused_when_built(user_modules):
    name = registry.register("acme_unit_strategy:broken")
    with pytest.raises(ConfigError) as err:
        registry.load(name).build("c", "m", backend="b")
    assert str(err.value) == "strategy 'acme_unit_strategy.broken': its factory returned str, not a StrategyStack"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            "acme_unit_strategy:missing",
            "strategy 'acme_unit_strategy:missing': cannot import it (AttributeError: module 'acme_unit_strategy' has no "
            "attribute 'missing')",
        ),
        (
            "acme_unit_strategy:NOT_CALLABLE",
            "strategy 'acme_unit_strategy:NOT_CALLABLE': acme_unit_strategy has no callable 'NOT_CALLABLE'",
        ),
        (
            "acme_unit_nowhere:x",
            "strategy 'acme_unit_nowhere:x': cannot import 'acme_unit_nowhere' (No module named 'acme_unit_nowhere')",
        ),
        ("acme_unit_taken", "strategy 'acme_unit_taken': its name 'hybrid' is taken by another strategy"),
        ("acme_unit_info_only", "strategy 'acme_unit_info_only': write module:function"),  # an INFO, no build
        ("acme_unit_boom:make", "strategy 'acme_unit_boom:make': cannot import 'acme_unit_boom' (RuntimeError: boom)"),
    ],
)
def test_what_cannot_be_registered_is_refused_naming_the_spec_and_nothing_is_registered(user_modules, spec, said):
    before = dict(RUNTIME)
    with pytest.raises(ConfigError) as err:
        registry.register(spec)
    assert str(err.value) == said
    assert RUNTIME == before
