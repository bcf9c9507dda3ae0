"""``langchain-summarization``: LangChain's SummarizationMiddleware, what most LangChain agents run.

It summarizes in ``before_model`` and rewrites the agent state (the old messages are
removed); there is no history file, so a fact the summary did not keep is gone. Its name
is ``SummarizationMiddleware``, so it takes deepagents' slot by name. Its fraction
trigger reads the window from the model it summarizes with, so that model carries the
declared window too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.prompts import deepagents_default_prompt
from harness.compaction.strategies.base import StrategyInfo, StrategyStack, with_window

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "langchain-summarization",
    "LangChain's summary, rewriting the agent state; no offload",
    "none: only what the summary kept",
    None,
    True,
    ("summary",),
)


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from langchain.agents.middleware import SummarizationMiddleware

    summary_model = with_window(summarizer if summarizer is not None else model, config.window)
    middleware = SummarizationMiddleware(
        model=summary_model,
        trigger=config.trigger_arg(),
        keep=config.keep.as_tuple(),
        summary_prompt=config.summary_prompt if config.summary_prompt is not None else deepagents_default_prompt(),
        trim_tokens_to_summarize=config.trim_tokens_to_summarize,
        **({"token_counter": counter} if (counter := config.token_counter()) is not None else {}),
    )
    return StrategyStack(slot=middleware, inner=[])
