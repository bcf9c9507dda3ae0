"""``sliding-window``: only the newest messages are sent, by LangChain's ``trim_messages``.

LangChain's documented pattern for keeping a conversation in budget, as a request
middleware: once the request passes the trigger, ``trim_messages(strategy="last")`` keeps
the newest messages within ``keep`` (tokens, or a message count), starting on a user or
assistant message so a tool call and its result stay together, and the first user
message (the task) is pinned in front, as LangChain's docs do. The state keeps
everything; nothing trimmed can be recovered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import BaseMessage, HumanMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "sliding-window",
    "only the newest messages are sent (the first user message pinned), tool pairs whole",
    "none: what leaves the window is gone",
    None,
    False,
    ("trim",),
)


def window(
    messages: list[BaseMessage], *, trigger_tokens: int, keep_tokens: int | None, keep_messages: int | None
) -> list[BaseMessage]:
    if count_tokens_approximately(messages) <= trigger_tokens:
        return messages
    first = messages[0] if messages and isinstance(messages[0], HumanMessage) else None
    rest = messages[1:] if first is not None else messages
    if keep_messages is not None:
        kept = trim_messages(rest, max_tokens=keep_messages, token_counter=len, strategy="last", start_on=("human", "ai"))
    else:
        budget = max(1, (keep_tokens or 0) - (count_tokens_approximately([first]) if first is not None else 0))
        kept = trim_messages(
            rest, max_tokens=budget, token_counter=count_tokens_approximately, strategy="last", start_on=("human", "ai")
        )
    return [first, *kept] if first is not None else kept


class SlidingWindowMiddleware(AgentMiddleware):
    def __init__(self, trigger_tokens: int, keep_tokens: int | None, keep_messages: int | None) -> None:
        super().__init__()
        self.trigger_tokens, self.keep_tokens, self.keep_messages = trigger_tokens, keep_tokens, keep_messages

    def _trim(self, request: Any) -> Any:
        kept = window(
            list(request.messages),
            trigger_tokens=self.trigger_tokens,
            keep_tokens=self.keep_tokens,
            keep_messages=self.keep_messages,
        )
        return request if len(kept) == len(request.messages) else request.override(messages=kept)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(self._trim(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return await handler(self._trim(request))


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    keep_messages = int(config.keep.value) if config.keep.unit == "messages" else None
    middleware = SlidingWindowMiddleware(config.trigger_tokens() or 0, config.keep.tokens(config.window), keep_messages)
    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[middleware])
