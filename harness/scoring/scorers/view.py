"""Where something is in what the agent was sent: stated in a kept message, only in the summary at the head, or only on
a page of a history file the agent read; and the tool calls a recovery goes through (history pages, repeated calls).
The needle and the fact scorers read a request through these, each with its own test of a message."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.messages import ToolMessage

from harness import _deepagents_adapter as da
from harness.scoring.scorers.shared import _target
from harness.trace.schema import Trace


@dataclass(frozen=True)
class Where:
    """Where a thing is in one request. ``stated``: in a message that is neither the summary at the head nor a page
    of a history file the agent read (or in the system prompt, when asked to look there)."""

    stated: bool = False
    in_summary: bool = False
    on_history_page: bool = False

    @property
    def anywhere(self) -> bool:
        return self.stated or self.in_summary or self.on_history_page


def locate(
    trace: Trace,
    call: dict,
    holds: Callable[[str], bool],
    *,
    system: bool = False,
    history_reads: set[str] | None = None,
) -> Where:
    """Where the messages of ``call``'s request for which ``holds(message key)`` is true are; with ``system``, the
    system prompt of the call counts as stated too. ``history_reads``: the ids of read_file calls on a history file
    (`history_read_ids`, computed once by a caller that locates many things)."""
    reads = history_read_ids(trace) if history_reads is None else history_reads
    stated = summary = back = False
    for pos, (key, msg) in enumerate(zip(call["message_keys"], trace.request(call))):
        if not holds(key):
            continue
        if pos == 0 and call.get("summary_at_head"):
            summary = True
        elif isinstance(msg, ToolMessage) and msg.tool_call_id in reads:
            back = True
        else:
            stated = True
    if system and call.get("system_key") and holds(call["system_key"]):
        stated = True
    return Where(stated, summary, back)


def history_paths_seen(trace: Trace, turn: int | None) -> set[str]:
    """The history files named by a summary at the head of an agent request (of ``turn``, or of any turn)."""
    paths = set()
    for call in trace.agent_calls(turn):
        if call["summary_at_head"]:
            path = da.history_path(trace.message_text(call["message_keys"][0]))
            if path:
                paths.add(path)
    return paths


def history_reads(trace: Trace, turn: int | None, paths: set[str] | None = None) -> list[dict]:
    """The read_file calls of ``turn`` (or of the run) on a history file (``paths``: those named in ``turn``)."""
    paths = history_paths_seen(trace, turn) if paths is None else paths
    return [tc for _, tc in trace.tool_calls(turn) if tc["name"] == "read_file" and _target(tc) in paths]


def history_read_ids(trace: Trace) -> set[str]:
    """The ids of every read_file call on a history file any summary of the run named."""
    return {tc.get("id") or "" for tc in history_reads(trace, None, history_paths_seen(trace, None))}


def repeated_calls(trace: Trace, turn: int) -> list[dict]:
    """The tool calls of ``turn`` that repeat a call (same name and arguments) made in an earlier turn."""

    def sig(tc: dict) -> tuple[str, str]:
        return tc["name"], json.dumps(tc.get("args"), sort_keys=True)

    earlier = {sig(tc) for t in range(turn) for _, tc in trace.tool_calls(t)}
    return [tc for _, tc in trace.tool_calls(turn) if sig(tc) in earlier]
