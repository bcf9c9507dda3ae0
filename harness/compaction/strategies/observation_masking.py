"""``observation-masking``: LangChain's ContextEditingMiddleware with ClearToolUsesEdit.

Once the request's messages pass the trigger, tool results older than the newest
``mask_keep`` are replaced by a placeholder in the request (the state keeps them). The
trigger is the config's trigger in tokens; LangChain's approximate count covers the
messages only, not the system prompt and tool schemas deepagents also counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "observation-masking",
    "old tool results replaced by a placeholder, the newest kept",
    "calling the tool whose result was cleared again",
    "needle_via_recall",
    False,
    ("mask",),
)


PLACEHOLDER = "[cleared]"  # LangChain's DEFAULT_TOOL_PLACEHOLDER; the reference agent reads it as a model would


def clear_tool_uses(config: Any) -> Any:
    from langchain.agents.middleware import ClearToolUsesEdit

    return ClearToolUsesEdit(trigger=config.trigger_tokens() or 0, keep=config.mask_keep, placeholder=PLACEHOLDER)


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from langchain.agents.middleware import ContextEditingMiddleware

    from harness.compaction.strategies.none import VacatedSummarizationSlot

    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[ContextEditingMiddleware(edits=[clear_tool_uses(config)])])
