"""What every strategy shares: its description (`StrategyInfo`), what it builds (`StrategyStack`), and the protocol a
strategy satisfies (`Strategy`), built in or from an installed package.

Data only (no middleware imported here), so configs, scorers and reports can read a strategy's description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig


@dataclass(frozen=True)
class StrategyInfo:
    """A strategy's description: what it does, where a lost fact comes back from and which score credits it."""

    name: str
    description: str
    recovery: str  # where a fact compacted away can be recovered from, in words
    recovery_check: str | None  # the score that credits that recovery (None: no recovery path)
    summarizes: bool  # calls a summarizer model
    event_types: tuple[str, ...]  # the trace events it produces


@dataclass
class StrategyStack:
    """What a strategy builds for one agent: the middleware for deepagents' summarization slot and inside it."""

    slot: Any  # takes deepagents' "SummarizationMiddleware" entry (main agent and general-purpose subagent)
    inner: list[Any]  # appended after deepagents' core entries, outside the recorder
    summarization: Any = None  # the deepagents SummarizationMiddleware instance, when there is one
    provider: str | None = None  # a provider-native strategy's provider ("anthropic", "openai"): the agent runs on its model
    provider_settings: dict[str, Any] | None = None  # that model's settings (context_management, betas, use_responses_api)
    model: Any = None  # the agent model built from those (`agent.build.build_strategy`); None: the model it was given


@runtime_checkable
class Strategy(Protocol):
    """A compaction strategy: a module or an object with an ``INFO`` and a ``build``.

    ``build`` returns the middleware for one agent: ``slot`` takes deepagents' summarization entry (by its name,
    ``SummarizationMiddleware``; `none.VacatedSummarizationSlot` leaves it empty), ``inner`` is added inside it, and
    ``summarization`` is the deepagents summarization middleware when the strategy has one (the recorder reads its
    events). ``model`` is the agent's model, already given the config's window; ``backend`` is the agent's file backend
    (where a summarization strategy offloads the history); ``summarizer`` is the summary model, when the run has one.
    Every middleware it returns must come from a released package (deepagents, langchain) or the user's own code,
    never a copy of one."""

    INFO: StrategyInfo

    def build(
        self, config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
    ) -> StrategyStack: ...


def with_window(model: Any, window: int) -> Any:
    """``model`` with the config's window as its profile's max_input_tokens (a copy when it differs).

    deepagents resolves fraction triggers against the agent model's profile; a model built
    for another window (e.g. an eval session's, reused under a mechanism preset) would
    otherwise summarize and clip at the wrong sizes while the trace reports the config's.
    """
    profile = model.profile if isinstance(model.profile, dict) else {}
    if profile.get("max_input_tokens") == window:
        return model
    return model.model_copy(update={"profile": {**profile, "max_input_tokens": window}})
