"""What every strategy module shares: its description (`StrategyInfo`) and what it builds (`StrategyStack`).

Data only (no middleware imported here), so configs, scorers and reports can read a strategy's description."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    description: str
    recovery: str  # where a fact compacted away can be recovered from, in words
    recovery_check: str | None  # the score that credits that recovery (None: no recovery path)
    summarizes: bool  # calls a summarizer model
    event_types: tuple[str, ...]  # the trace events it produces


@dataclass
class StrategyStack:
    slot: Any  # takes deepagents' "SummarizationMiddleware" entry (main agent and general-purpose subagent)
    inner: list[Any]  # appended after deepagents' core entries, outside the recorder
    summarization: Any = None  # the deepagents SummarizationMiddleware instance, when there is one


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
