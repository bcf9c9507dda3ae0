"""The strategies by name: each module's ``INFO`` and ``build``. Adding a strategy is its module plus one line here."""

from __future__ import annotations

from types import ModuleType

from harness.compaction.strategies import (
    custom,
    deepagents_summarization,
    hybrid,
    langchain_summarization,
    none,
    observation_masking,
    sliding_window,
)
from harness.compaction.strategies.base import StrategyInfo

MODULES: dict[str, ModuleType] = {
    m.INFO.name: m
    for m in (
        deepagents_summarization,
        langchain_summarization,
        observation_masking,
        sliding_window,
        hybrid,
        none,
        custom,
    )
}
INFO: dict[str, StrategyInfo] = {name: m.INFO for name, m in MODULES.items()}
NAMES = tuple(MODULES)
