"""``none``: the control arm. deepagents' summarization slot is vacated; nothing compacts."""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

from harness.compaction.strategies.base import StrategyInfo, StrategyStack

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


def build(config: Any, model: Any, *, backend: Any, summarizer: Any = None) -> Any:
    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[])
