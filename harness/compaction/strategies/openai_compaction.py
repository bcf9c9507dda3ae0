"""``openai-compaction``: OpenAI's server-side compaction in the Responses API (``context_management`` compaction).

The agent model is ``ChatOpenAI(use_responses_api=True, context_management=[{"type": "compaction",
"compact_threshold": trigger}])`` (`harness.agent.native_models`), deepagents' summarization slot vacated. At the
threshold (the config's trigger in input tokens) the output starts with a ``compaction`` item whose opaque
``encrypted_content`` stands for everything before it on the next request (offline, the harness's envelope, read back
by `harness.reference.native.decode_compaction`). Nothing is offloaded: a fact the summary did not keep is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.compaction.strategies.base import StrategyInfo, StrategyStack
from harness.compaction.strategies.provider_native import trigger_tokens

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "openai-compaction",
    "OpenAI's server-side compaction (Responses API): an encrypted compaction item replaces the history",
    "none: only what the provider's summary kept (no history file)",
    None,
    True,
    ("summary",),
)


def settings(config: CompactionConfig) -> dict[str, Any]:
    """The ChatOpenAI settings for ``config``: the Responses API with compaction at the config's trigger."""
    return {
        "use_responses_api": True,
        "context_management": [{"type": "compaction", "compact_threshold": trigger_tokens(config)}],
    }


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.none import VacatedSummarizationSlot

    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[], provider="openai", provider_settings=settings(config))
