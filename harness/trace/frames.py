"""Traces as long pandas frames: one row per model call, one row per event."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from harness.trace.loops import loop_calls, trigger_tokens
from harness.trace.schema import Trace

CALL_COLUMNS = [
    "run_id",
    "case_id",
    "kind",
    "arm",
    "trial",
    "call_index",
    "agent_step",
    "role",
    "turn",
    "approx_tokens",
    "overhead_tokens",
    "provider_input_tokens",
    "summary_at_head",
    "event",
    "tokens_before",
    "tokens_after",
    "trigger_tokens",
    "truncation_trigger_tokens",
    "loop",
]


def calls_frame(traces: Iterable[Trace], results: Sequence[Mapping[str, Any]] | None = None) -> pd.DataFrame:
    """Long frame: one row per call. ``agent_step`` numbers the agent calls (the x axis of a token curve);
    ``event`` names the compression events recorded at that call, joined with '+'; ``loop``: the call's compaction is
    one of a loop (`harness.trace.loops.loop_calls`). With ``results`` (each trace's result row, in the same order) an
    ``eval`` column names what each case ran as (`harness.rows.eval_label`): a case run under two evals of one run is
    two curves, not one."""
    traces = list(traces)
    rows = []
    for tr in traces:
        by_call: dict[int, list[dict]] = {}
        for ev in tr.events:
            by_call.setdefault(ev["call_index"], []).append(ev)
        trigger = trigger_tokens(tr)
        clip_trigger = (tr.config.get("arg_truncation") or {}).get("trigger")
        clip_trigger = trigger_tokens(tr, [clip_trigger]) if clip_trigger else None
        looped = loop_calls(tr)
        step = 0
        for call in tr.calls:
            evs = by_call.get(call["index"], [])
            summ = next((e for e in evs if e["type"] == "summary"), None)
            if call["role"] == "agent":
                step += 1
            usage = call.get("usage") or {}
            rows.append(
                {
                    "run_id": tr.run_id,
                    "case_id": tr.case_id,
                    "kind": tr.kind,
                    "arm": tr.config.get("name"),
                    "trial": tr.trial,
                    "call_index": call["index"],
                    "agent_step": step if call["role"] == "agent" else None,
                    "role": call["role"],
                    "turn": call["turn"],
                    "approx_tokens": call["approx_tokens"],
                    "overhead_tokens": call.get("overhead_tokens", 0),
                    "provider_input_tokens": usage.get("input_tokens"),
                    "summary_at_head": call["summary_at_head"],
                    "event": "+".join(e["type"] for e in evs) or None,
                    "tokens_before": summ["tokens_before"] if summ else None,
                    "tokens_after": summ["tokens_after"] if summ else None,
                    "trigger_tokens": trigger,
                    "truncation_trigger_tokens": clip_trigger,
                    "loop": call["index"] in looped,
                }
            )
    frame = pd.DataFrame(rows, columns=CALL_COLUMNS)
    if results is not None:
        from harness.rows import eval_label

        frame["eval"] = [eval_label(r) for r, tr in zip(results, traces, strict=True) for _ in tr.calls]
    return frame


def events_frame(traces: Iterable[Trace]) -> pd.DataFrame:
    """One row per compaction event of every trace (run, case, arm, trial, then the event's fields)."""
    rows = []
    for tr in traces:
        for ev in tr.events:
            rows.append({"run_id": tr.run_id, "case_id": tr.case_id, "arm": tr.config.get("name"), "trial": tr.trial, **ev})
    return pd.DataFrame(rows)
