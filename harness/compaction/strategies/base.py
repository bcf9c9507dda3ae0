"""What every strategy module shares: its description (`StrategyInfo`) and what it builds (`StrategyStack`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.compaction.config import STRATEGY_NAMES

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class StrategyInfo:
    name: str
    description: str
    recovery: str  # where a fact compacted away can be recovered from, in words
    recovery_check: str | None  # the score that credits that recovery (None: no recovery path)
    summarizes: bool  # calls a summarizer model
    event_types: tuple[str, ...]  # the trace events it produces


INFO: dict[str, StrategyInfo] = {
    i.name: i
    for i in (
        StrategyInfo(
            "deepagents-summarization",
            "deepagents' summary; the full history offloaded to a file",
            "the offloaded history file, paged with read_file",
            "needle_via_history",
            True,
            ("summarization",),
        ),
        StrategyInfo(
            "langchain-summarization",
            "LangChain's summary, rewriting the agent state; no offload",
            "none: only what the summary kept",
            None,
            True,
            ("summarization",),
        ),
        StrategyInfo(
            "observation-masking",
            "old tool results replaced by a placeholder, the newest kept",
            "calling the tool whose result was cleared again",
            "needle_via_recall",
            False,
            ("mask",),
        ),
        StrategyInfo(
            "sliding-window",
            "only the newest messages are sent (the first user message pinned), tool pairs whole",
            "none: what leaves the window is gone",
            None,
            False,
            ("trim",),
        ),
        StrategyInfo(
            "hybrid",
            "masking first; deepagents summarization when the masked request is still over the trigger",
            "calling the tool again, or the offloaded history file",
            "needle_via_history_or_recall",
            True,
            ("mask", "summarization"),
        ),
        StrategyInfo(
            "none", "no compaction (control arm): the window must hold the whole task", "nothing is compacted", None, False, ()
        ),
        StrategyInfo(
            "custom",
            "a user's function (messages, token_count) -> messages, as a request middleware",
            "unknown: whatever the function keeps",
            None,
            False,
            ("trim",),
        ),
    )
}
assert set(INFO) == set(STRATEGY_NAMES)


@dataclass
class StrategyStack:
    slot: Any  # takes deepagents' "SummarizationMiddleware" entry (main agent and general-purpose subagent)
    inner: list[Any]  # appended after deepagents' core entries, outside the recorder
    summarization: Any = None  # the deepagents SummarizationMiddleware instance, when there is one
