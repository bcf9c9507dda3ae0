"""Per-case metrics for comparisons, computed from the trace when a case finishes.

Rates (booleans, None when they do not apply to the case's kind) and measurements:
tokens per task (agent and summarizer separately), peak context, tokens removed per
summarization, summary length, and cost when the models' prices are known
(``datasets/model_prices.yaml``). Token figures are approximate counts unless the
provider reported usage (then ``*_provider`` figures are filled too).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from harness._paths import DATASETS_DIR
from harness._yaml import load_yaml

# the modules, not the package: the package imports the cache scorers, which read prices from here
from harness.scoring.scorers.shared import is_clarification_request
from harness.scoring.scorers.types import Score
from harness.trace.schema import Trace

PRICES_FILE = DATASETS_DIR / "model_prices.yaml"
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


@lru_cache(maxsize=1)
def price_table() -> dict[str, Any]:
    """datasets/model_prices.yaml: ``as_of``, ``sources`` and ``models`` (USD per million tokens)."""
    if not PRICES_FILE.exists():
        return {"models": {}}
    data = load_yaml(PRICES_FILE.read_text(encoding="utf-8"), str(PRICES_FILE)) or {}
    return data if "models" in data else {"models": data}


def prices() -> dict[str, dict[str, float]]:
    return {str(k): v for k, v in (price_table().get("models") or {}).items() if isinstance(v, dict)}


def price_for(model: str, table: dict[str, dict[str, float]] | None = None) -> dict[str, float] | None:
    """The price of ``model``: an exact entry, else the longest entry it extends with "-" (a dated snapshot)."""
    table = prices() if table is None else table
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name + "-")]
    return table[max(prefixes, key=len)] if prefixes else None


TTL_WRITE_KEYS = ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")  # langchain-anthropic's per-TTL cache writes


def reported_count(value: Any) -> int | None:
    """A token count as reported: a non-negative int, else unknown (None; a bool or a negative is a broken record)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def cache_writes(details: Mapping[str, Any]) -> int | None:
    """Cache-write tokens from ``input_token_details``: ``cache_creation``, plus the per-TTL keys langchain-anthropic
    moves them to when Anthropic reports ``usage.cache_creation`` (it then sets ``cache_creation`` to 0, so reading
    that key alone reads every write as 0). Unknown when no key is there or one is broken."""
    keys = [k for k in ("cache_creation", *TTL_WRITE_KEYS) if k in details]
    counts = [reported_count(details[k]) for k in keys]
    if not keys or any(c is None for c in counts):
        return None
    return sum(c for c in counts if c is not None)


def _tokens(calls: list[dict], key: str) -> int:
    return sum((c.get("usage") or {}).get(key) or 0 for c in calls)


def _cache_tokens(calls: list[dict], key: str) -> int:
    """Prompt-cache tokens as LangChain normalizes them (``input_token_details``: cache_read, cache_creation)."""
    return sum(((c.get("usage") or {}).get("input_token_details") or {}).get(key) or 0 for c in calls)


def _cache_write_tokens(calls: list[dict]) -> int:
    """Prompt-cache writes (`cache_writes`: ``cache_creation`` and the per-TTL keys), unknown ones as 0 here."""
    return sum(cache_writes((c.get("usage") or {}).get("input_token_details") or {}) or 0 for c in calls)


def usage_cost(price: dict[str, float], tokens_in: int, tokens_out: int, cache_read: int = 0, cache_write: int = 0) -> float:
    """US dollars for one model's tokens at ``price`` (per million): the input tokens read from or written to a
    prompt cache at the cache prices where the table has them (else the input price), the rest at the input price."""
    rate = {
        k: float(price[k]) if price.get(k) is not None else float(price.get("input") or 0) for k in ("cache_read", "cache_write")
    }
    return (
        (tokens_in - cache_read - cache_write) * float(price.get("input") or 0)
        + cache_read * rate["cache_read"]
        + cache_write * rate["cache_write"]
        + tokens_out * float(price.get("output") or 0)
    ) / 1e6


def cost_usd(trace: Trace) -> float | None:
    """What the case cost at list prices (the agent's, the summarizer's and each subagent's calls, these at the model
    each was made on), or None when a model that made calls has no price.

    Input tokens are the provider's (the approximation when it reported none); the part read
    from or written to a prompt cache is billed at the cache prices where the table has them.
    """
    if trace.unrecorded_subagent_calls():
        return None  # an old trace whose subagents' calls were not recorded: what they cost is unknown
    table = prices()
    total = 0.0
    subagents: dict[str | None, list[dict]] = {}
    for call in trace.subagent_calls():  # each at the model it was made on
        subagents.setdefault(call.get("model"), []).append(call)
    groups = [(trace.agent_model, trace.agent_calls()), (trace.summary_model, trace.summarizer_calls()), *subagents.items()]
    for name, calls in groups:
        if not calls:
            continue
        price = price_for(name, table) if name is not None else None
        if price is None:
            return None
        provider_in = _tokens(calls, "input_tokens")
        tokens_in = provider_in or sum(c["approx_tokens"] for c in calls)
        read, write = _cache_tokens(calls, "cache_read"), _cache_write_tokens(calls)
        total += usage_cost(price, tokens_in, _tokens(calls, "output_tokens"), read, write)
    return round(total, 6)


def case_metrics(trace: Trace, scores: list[Score], kind: str) -> dict[str, Any]:
    """The case's metrics for comparisons: rates (None where they do not apply to ``kind``), tokens, peak context,
    tokens removed per summary, summary length and cost."""
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
        "cost_usd": cost_usd(trace),
        "summaries_before_question": sum(1 for e in events if e["turn"] < question_turn) if question_turn is not None else None,
    }
