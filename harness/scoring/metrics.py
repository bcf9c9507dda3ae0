"""Per-case metrics for comparisons, computed from the trace when a case finishes.

Rates (booleans, None when they do not apply to the case's kind) and measurements:
tokens per task (agent and summarizer separately), peak context, tokens removed per
summarization, summary length, and cost: the row's ``cost`` total (`harness.scoring.cost`,
the one rule for a case's dollars; None when a figure or a price is unknown). Token figures
are approximate counts unless the provider reported usage (then ``*_provider`` figures are
filled too).
"""

from __future__ import annotations

from typing import Any

from harness.rows import Cost
from harness.scoring.cost import cache_writes, case_cost

# the modules, not the package: the package imports the cache scorers, which read usage through `cost`
from harness.scoring.scorers.shared import is_clarification_request
from harness.scoring.scorers.types import Score
from harness.trace.schema import Trace

RATE_METRICS = ("needle_recovered", "needle_via_history", "goal_preserved", "clarification_requested", "premature_completion")
VALUE_METRICS = (
    "summary_events",
    "compaction_events",
    "agent_tokens",
    "summarizer_tokens",
    "total_tokens",
    "peak_context",
    "tokens_removed_per_event",
    "summary_length",
    "cost_usd",
)


def _tokens(calls: list[dict], key: str) -> int:
    return sum((c.get("usage") or {}).get(key) or 0 for c in calls)


def _cache_tokens(calls: list[dict], key: str) -> int:
    """Prompt-cache tokens as LangChain normalizes them (``input_token_details``: cache_read, cache_creation)."""
    return sum(((c.get("usage") or {}).get("input_token_details") or {}).get(key) or 0 for c in calls)


def _cache_write_tokens(calls: list[dict]) -> int:
    """Prompt-cache writes (`cache_writes`: ``cache_creation`` and the per-TTL keys), unknown ones as 0 here."""
    return sum(cache_writes((c.get("usage") or {}).get("input_token_details") or {}) or 0 for c in calls)


def cost_usd(trace: Trace) -> float | None:
    """What the case cost: the total dollars of its row's ``cost`` (`harness.scoring.cost.case_cost`, the one rule:
    every role's calls at the model each was made on, compaction passes included; None when any part is unknown,
    never 0)."""
    return case_cost(trace)["total"]["usd"]


def case_metrics(trace: Trace, scores: list[Score], kind: str, cost: Cost | None = None) -> dict[str, Any]:
    """The case's metrics for comparisons: rates (None where they do not apply to ``kind``), tokens, peak context,
    tokens removed per summary, summary length and cost (the total of ``cost``, the row's, when given: else
    `cost_usd`)."""
    by_key = {s.key: s.value for s in scores}
    events = trace.events_of("summary")
    sized = [e for e in events if e["tokens_before"] is not None and e["tokens_after"] is not None]
    agent, summ = trace.agent_calls(), trace.summarizer_calls()
    replies = [
        (c.get("response") or {}).get("text") or "" for c in agent if c.get("response") and not c["response"].get("tool_calls")
    ]
    summaries = [c["response"]["text"] for c in summ if c.get("response")]
    question_turn = 1 if kind in ("needle", "chain") and len(trace.turns) > 1 else None
    return {
        "needle_recovered": bool(by_key["needle_correct"]) if "needle_correct" in by_key else None,
        "needle_via_history": bool(by_key["needle_via_history"]) if "needle_via_history" in by_key else None,
        "goal_preserved": bool(by_key["goal_preserved"]) if "goal_preserved" in by_key else None,
        "clarification_requested": any(is_clarification_request(t) for t in replies),
        "premature_completion": (not by_key["goal_no_premature_completion"])
        if "goal_no_premature_completion" in by_key
        else None,
        "summary_events": len(events),
        "compaction_events": len(trace.compactions()),
        "total_tokens": sum(c["approx_tokens"] for c in agent) + sum(c["approx_tokens"] for c in summ),
        "agent_tokens": sum(c["approx_tokens"] for c in agent),
        "summarizer_tokens": sum(c["approx_tokens"] for c in summ),
        "agent_tokens_provider": _tokens(agent, "input_tokens") or None,
        "agent_output_tokens_provider": _tokens(agent, "output_tokens") or None,
        "cache_read_tokens": _cache_tokens(agent + summ, "cache_read") or None,
        "cache_write_tokens": _cache_write_tokens(agent + summ) or None,
        "summarizer_tokens_provider": _tokens(summ, "input_tokens") or None,
        "peak_context": max((c["approx_tokens"] for c in agent), default=0),
        "tokens_removed_per_event": round(sum(e["tokens_before"] - e["tokens_after"] for e in sized) / len(sized), 1)
        if sized
        else None,  # over the events whose sizes are known (not a rewrite before the first request)
        "summary_length": round(sum(len(s) for s in summaries) / len(summaries), 1) if summaries else None,
        "cost_usd": cost["total"]["usd"] if cost is not None else cost_usd(trace),
        "summaries_before_question": sum(1 for e in events if e["turn"] < question_turn) if question_turn is not None else None,
    }


def provider_retry_metrics(trace: Trace) -> dict[str, Any]:
    """What was retried during the case. The provider SDKs' retries inside the client (``Trace.provider_retries``,
    `harness.agent.sdk_retries`): how many (``provider_retries``) and the seconds waited before them
    (``provider_retry_backoff_s``), both None when the case had no live model (nothing to count) or its trace was
    written before they were counted. And the recorded model calls that failed (``failed_model_calls``: after the
    SDK's retries; each re-sent above the SDK, by LangChain's ModelRetryMiddleware, deepagents or the harness, or the
    case's ERROR), which every trace holds."""
    counted = trace.provider_retries
    failed = sum(1 for c in trace.calls if c.get("error"))
    if counted is None:
        return {"provider_retries": None, "provider_retry_backoff_s": None, "failed_model_calls": failed}
    return {"provider_retries": counted["count"], "provider_retry_backoff_s": counted["backoff_s"], "failed_model_calls": failed}
