"""Compactions that do not shrink the request and compactions in a row without progress, read from a trace.

One reading for the loops eval's checks (`harness.scoring.scorers.loops`), its report section and the token curves
(`harness.trace.frames.calls_frame`'s ``loop`` column), so the chart marks what the check fails.

- A compaction's ratio is the request's approximate tokens after it over before it (the recorder's ``tokens_before``
  and ``tokens_after``); a ratio of 1 or more did not shrink the request (openai/codex#40619: 244k -> 258k).
- A summary that leaves the request at or above the trigger that fired it is followed by another at the next call.
- Progress is an agent call whose answer makes a tool call not made before in the run (same tool, same arguments) or
  replies without one. Compactions in a row without progress between them are a loop: `COMPACTION_LOOP_LIMIT` of
  them is what Anthropic's API stops a turn at with ``compaction_limit_reached_error`` ("compacted the maximum number
  of times in a row without the model producing a message or a tool call", anthropic 2.14); anthropics/claude-code#24179
  reports 211.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.compaction.config import ContextSize
from harness.trace.schema import Trace

COMPACTION_LOOP_LIMIT = 3
"""Compactions in a row without progress that make a loop. Anthropic's SDK names the error but not its limit; three is
the smallest count that cannot be one compaction and its overflow retry (deepagents' one smaller retry)."""


def ratio(event: dict[str, Any]) -> float | None:
    """Tokens after the compaction over tokens before it; None where the event does not know both."""
    before, after = event.get("tokens_before"), event.get("tokens_after")
    if not before or after is None:
        return None
    return after / before


def not_shrinking(trace: Trace) -> list[dict[str, Any]]:
    """The compaction events (summary, mask, trim) whose request was no smaller after them than before."""
    return [e for e in trace.compactions() if (r := ratio(e)) is not None and r >= 1]


def above_trigger(trace: Trace, trigger: int | None) -> list[dict[str, Any]]:
    """The summary events that left the request at or above ``trigger`` tokens (None: no token trigger, none)."""
    if trigger is None:
        return []
    return [e for e in trace.events_of("summary") if e.get("tokens_after") is not None and e["tokens_after"] >= trigger]


@dataclass(frozen=True)
class Streak:
    """Compactions in a row without progress: the agent calls they happened at, in order."""

    calls: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.calls)


def _signature(tool_call: dict[str, Any]) -> str:
    return json.dumps([tool_call.get("name"), tool_call.get("args")], sort_keys=True, default=str)


def streaks(trace: Trace) -> list[Streak]:
    """Every run of compactions without progress between them (a single compaction is a run of one), in order."""
    compacted_at = {e["call_index"] for e in trace.compactions()}
    made: set[str] = set()
    runs: list[Streak] = []
    current: list[int] = []
    for call in trace.agent_calls():
        if call["index"] in compacted_at:
            current.append(call["index"])
        response = call.get("response")
        if response is None:  # the call failed: no answer, no progress
            continue
        calls = response.get("tool_calls") or []
        new = [s for s in map(_signature, calls) if s not in made]
        made.update(map(_signature, calls))
        if new or not calls:
            if current:
                runs.append(Streak(tuple(current)))
            current = []
    if current:
        runs.append(Streak(tuple(current)))
    return runs


def longest_streak(trace: Trace) -> Streak:
    """The longest run of compactions without progress (empty when nothing was compacted)."""
    return max(streaks(trace), key=len, default=Streak(()))


def loop_calls(trace: Trace, limit: int = COMPACTION_LOOP_LIMIT) -> set[int]:
    """The agent calls (by index) of every run of at least ``limit`` compactions without progress."""
    return {i for s in streaks(trace) if len(s) >= limit for i in s.calls}


def trigger_tokens(trace: Trace, sizes: list | None = None) -> int | None:
    """The lowest token threshold among ``sizes`` (default: the summarization triggers) for the trace's window, each
    size read by `ContextSize` (a message count, or a fraction of no window, has none)."""
    window = trace.config.get("window") or None
    values = [ContextSize.parse(size).tokens(window) for size in (trace.config.get("trigger", []) if sizes is None else sizes)]
    found = [v for v in values if v is not None]
    return min(found) if found else None
