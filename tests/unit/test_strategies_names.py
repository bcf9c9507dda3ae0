"""The strategy list is written once (`names.BUILTIN`): the default strategy, the help text, the variant schema's
description and docs/strategies.md's table all follow it."""

from __future__ import annotations

import re
from pathlib import Path

from harness.compaction.config import DEFAULT_STRATEGY
from harness.compaction.strategies.names import BUILTIN, PROVIDER_NATIVE, builtin_said

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
