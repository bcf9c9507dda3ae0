"""``deepagents-summarization`` (the default): deepagents' own SummarizationMiddleware.

The class itself, never a subclass (a subclass reports its own name and would be appended
beside the default instead of replacing it). deepagents' factory and class defaults
differ, so ``trim_tokens_to_summarize`` and ``truncate_args_settings`` are passed
explicitly, as `create_summarization_middleware` would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.prompts import deepagents_default_prompt
from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "deepagents-summarization",
    "deepagents' summary; the full history offloaded to a file",
    "the offloaded history file, paged with read_file",
    "needle_via_history",
    True,
    ("summary",),
)


def summarization(config: Any, model: Any, *, backend: Any, summarizer: Any = None, token_counter: Any = None) -> Any:
    from deepagents.middleware import SummarizationMiddleware

    extra = {"token_counter": token_counter} if token_counter is not None else {}
    return SummarizationMiddleware(
        model=model,
        backend=backend,
        trigger=config.trigger_arg(),
        keep=config.keep.as_tuple(),
        summary_prompt=config.summary_prompt if config.summary_prompt is not None else deepagents_default_prompt(),
        trim_tokens_to_summarize=config.trim_tokens_to_summarize,
        truncate_args_settings=config.effective_truncation().to_settings(),
        summarizer=summarizer,
        **extra,
    )


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    middleware = summarization(config, model, backend=backend, summarizer=summarizer, token_counter=config.token_counter())
    return StrategyStack(slot=middleware, inner=[], summarization=middleware)
