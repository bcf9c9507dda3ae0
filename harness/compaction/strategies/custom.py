"""``custom``: a user's own strategy, a callable ``module:function(messages, token_count) -> messages``.

Wrapped as a request middleware (the state keeps everything, as with the sliding window):
each call, the function gets the request's messages and their approximate token count and
returns the messages to send.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages.utils import count_tokens_approximately

from harness.compaction.strategies.base import StrategyInfo, StrategyStack
from harness.errors import ConfigError
from harness.user_code import load_callable

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "custom",
    "a user's function (messages, token_count) -> messages, as a request middleware",
    "unknown: whatever the function keeps",
    None,
    False,
    ("trim",),
)


class CustomStrategyMiddleware(AgentMiddleware):
    def __init__(self, fn: Callable[..., Any], spec: str) -> None:
        super().__init__()
        self.fn, self.spec = fn, spec

    def _apply(self, request: Any) -> Any:
        messages = list(request.messages)
        out = self.fn(messages, count_tokens_approximately(messages))
        if not isinstance(out, list):
            raise TypeError(f"custom strategy {self.spec} returned {type(out).__name__}, not a list of messages")
        return request.override(messages=out)

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(self._apply(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return await handler(self._apply(request))


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    spec = config.custom_strategy
    if spec is None:  # the config refuses strategy custom without its function; a hand-made one may not
        raise ConfigError(f"config {config.name!r}: strategy custom needs custom_strategy (module:function)")
    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[CustomStrategyMiddleware(load_callable(spec), spec)])
