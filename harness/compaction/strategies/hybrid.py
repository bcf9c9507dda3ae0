"""``hybrid``: observation masking first, deepagents summarization when masking is not enough.

Masking (LangChain's ContextEditingMiddleware) sits inside summarization, so deepagents'
summarization is given a token counter that counts the request as masking will leave it
(the same ClearToolUsesEdit applied to a copy of the list): it fires only when the
masked request is still over the trigger, and then offloads the unmasked history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "hybrid",
    "masking first; deepagents summarization when the masked request is still over the trigger",
    "calling the tool again, or the offloaded history file",
    "needle_via_history_or_recall",
    True,
    ("mask", "summary"),
)


def masked_counter(edit: Any) -> Any:
    def count(messages: Sequence[BaseMessage], *, tools: Any = None) -> int:
        masked = list(messages)  # ClearToolUsesEdit replaces list items with copies; the messages are untouched
        edit.apply(masked, count_tokens=count_tokens_approximately)
        return count_tokens_approximately(masked, tools=tools)

    return count


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from langchain.agents.middleware import ContextEditingMiddleware

    from harness.compaction.strategies.deepagents_summarization import summarization
    from harness.compaction.strategies.observation_masking import clear_tool_uses

    edit = clear_tool_uses(config)
    middleware = summarization(config, model, backend=backend, summarizer=summarizer, token_counter=masked_counter(edit))
    return StrategyStack(slot=middleware, inner=[ContextEditingMiddleware(edits=[edit])], summarization=middleware)
