"""``none``: the control arm. deepagents' summarization slot is vacated; nothing compacts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware

from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "none", "no compaction (control arm): the window must hold the whole task", "nothing is compacted", None, False, ()
)


class VacatedSummarizationSlot(AgentMiddleware):
    """Takes deepagents' summarization entry by name and does nothing, so the strategy under test is the only
    compaction in the stack (deepagents replaces a default entry by ``.name``; a hook-less middleware adds no
    node to the graph)."""

    @property
    def name(self) -> str:
        return "SummarizationMiddleware"


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[])
