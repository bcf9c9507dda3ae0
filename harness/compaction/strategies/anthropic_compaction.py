"""``anthropic-compaction``: Anthropic's server-side compaction (``context_management`` edit ``compact_20260112``).

The agent model is ``ChatAnthropic(context_management={"edits": [compact_20260112 at the trigger]},
betas=["compact-2026-01-12"])`` (`harness.agent.native_models`: the user's live model, or offline the reference agent
behind a loopback `harness serve`); deepagents' summarization slot is vacated, so the provider is the only compaction.
At the trigger (the config's, in input tokens; Anthropic refuses one under 50,000, a ConfigError naming the window
that reaches the fraction) the reply starts with a ``compaction`` block, and the next request drops what it replaced.
The summary is the provider's, written with the config's summary prompt as ``instructions`` when one is set; nothing
is offloaded, so a fact the summary did not keep is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.strategies.base import StrategyInfo, StrategyStack
from harness.compaction.strategies.names import PROVIDER_NATIVE
from harness.compaction.strategies.provider_native import trigger_tokens

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "anthropic-compaction",
    "Anthropic's server-side compaction (compact_20260112): a compaction block replaces the history",
    "none: only what the provider's summary kept (no history file)",
    None,
    True,
    ("summary",),
)

BETA = "compact-2026-01-12"
MINIMUM_TRIGGER = PROVIDER_NATIVE[INFO.name]  # Anthropic's minimum compact_20260112 trigger, in input tokens


def settings(config: CompactionConfig) -> dict[str, Any]:
    """The ChatAnthropic settings for ``config``: the compaction edit at the config's trigger, and its beta."""
    edit: dict[str, Any] = {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": trigger_tokens(config, MINIMUM_TRIGGER)},
    }
    if config.summary_prompt is not None:
        edit["instructions"] = config.summary_prompt
    return {"context_management": {"edits": [edit]}, "betas": [BETA]}


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[], provider="anthropic", provider_settings=settings(config))
