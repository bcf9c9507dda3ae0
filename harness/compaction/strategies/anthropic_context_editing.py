"""``anthropic-context-editing``: Anthropic's server-side tool-result clearing (edit ``clear_tool_uses_20250919``).

The agent model is ``ChatAnthropic(context_management={"edits": [clear_tool_uses_20250919]},
betas=["context-management-2025-06-27"])`` (`harness.agent.native_models`), deepagents' summarization slot vacated.
Past the trigger (the config's, in input tokens) the provider replaces the results of all but the newest ``mask_keep``
tool uses with a placeholder and reports it in ``context_management.applied_edits``: observation masking done by the
provider. The state keeps every result; a cleared one comes back by calling the tool again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.strategies.base import StrategyInfo, StrategyStack
from harness.compaction.strategies.provider_native import trigger_tokens

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "anthropic-context-editing",
    "Anthropic's server-side clearing of old tool results (clear_tool_uses_20250919), the newest kept",
    "calling the tool whose result was cleared again",
    "needle_via_recall",
    False,
    ("mask",),
)

BETA = "context-management-2025-06-27"


def settings(config: CompactionConfig) -> dict[str, Any]:
    """The ChatAnthropic settings for ``config``: clear tool uses past the trigger, keeping ``mask_keep``."""
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": trigger_tokens(config)},
        "keep": {"type": "tool_uses", "value": config.mask_keep},
    }
    return {"context_management": {"edits": [edit]}, "betas": [BETA]}


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[], provider="anthropic", provider_settings=settings(config))
