"""The whole cost of a case: every model call's tokens by role, in the four kinds providers bill, and their dollars.

Roles: ``agent`` (the agent's calls), ``summarizer`` (deepagents' or LangChain's summary calls), ``compaction``
(a provider's server-side compaction passes: Anthropic bills them only in ``usage.iterations``, which the recorder
keeps as ``compaction_usage``), and ``judge`` (judge.json, per run, added by the report).

Kinds: ``input`` (every input token, cache reads and writes included: LangChain's ``input_tokens``), ``output``,
``cache_read`` and ``cache_write`` (``input_token_details`` ``cache_read`` / ``cache_creation``). Every figure is what
the provider reported: a call with no usage, or a usage without a cache field, makes that figure unknown (None),
never 0. Dollars are at `datasets/model_prices.yaml`; a model without a list price has none (None, shown n/a); a
reference model (offline or served by `harness serve`) is priced at the list price its ``simulated_as`` entry names,
and the figure says so (``simulated``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.rows import Cost
from harness.scoring.metrics import cache_writes, price_for, price_table, usage_cost
from harness.scoring.metrics import reported_count as _count
from harness.trace.schema import Trace

KINDS = ("input", "output", "cache_read", "cache_write")
Tokens = dict[str, int | None]


def usage_tokens(usage: Mapping[str, Any] | None) -> Tokens:
    """The four kinds of one call from LangChain's ``usage_metadata`` (None each when not reported)."""
    if not usage:
        return dict.fromkeys(KINDS)
    details = usage.get("input_token_details")
    details = details if isinstance(details, Mapping) else {}
    return {
        "input": _count(usage.get("input_tokens")),
        "output": _count(usage.get("output_tokens")),
        "cache_read": _count(details.get("cache_read")),
        "cache_write": cache_writes(details),
    }


def iteration_tokens(entry: Mapping[str, Any]) -> Tokens:
    """The four kinds of one Anthropic ``usage.iterations`` entry (raw API fields: ``input_tokens`` there excludes the
    cache, so the total is the three added, as LangChain adds them for the top-level usage)."""
    read = _count(entry.get("cache_read_input_tokens"))
    write = _count(entry.get("cache_creation_input_tokens"))
    uncached = _count(entry.get("input_tokens"))
    total = None if uncached is None or read is None or write is None else uncached + read + write
    return {"input": total, "output": _count(entry.get("output_tokens")), "cache_read": read, "cache_write": write}


def add(parts: Iterable[Tokens]) -> Tokens:
    """Kind by kind sum; unknown when any part is unknown (no parts: 0 of each)."""
    out: Tokens = dict.fromkeys(KINDS, 0)
    for part in parts:
        for kind in KINDS:
            a, b = out[kind], part.get(kind)
            out[kind] = None if a is None or b is None else a + b
    return out


def role_tokens(trace: Trace) -> dict[str, Tokens]:
    """Agent, summarizer and compaction tokens of one case (the judge's are per run, in judge.json)."""
    billed = [c for c in trace.calls if not c.get("error")]  # a rejected request is not billed and reports no usage
    iterations = [e for c in billed for e in c.get("compaction_usage") or []]
    return {
        "agent": add(usage_tokens(c.get("usage")) for c in billed if c["role"] == "agent"),
        "summarizer": add(usage_tokens(c.get("usage")) for c in billed if c["role"] == "summarizer"),
        "compaction": add(iteration_tokens(e) for e in iterations),
    }


def pricing(model: str) -> tuple[dict[str, float] | None, str | None]:
    """(price per million tokens, the list model it is borrowed from when ``model`` is a reference model) or
    (None, None) when there is no list price. ``simulated_as`` in the price table names, per reference model (with or
    without a provider prefix: ``anthropic:reference-agent`` is served), the list model whose price it is given."""
    simulated = price_table().get("simulated_as") or {}
    bare = model.split(":", 1)[1] if ":" in model else model
    if bare in simulated:
        return price_for(str(simulated[bare])), str(simulated[bare])
    return price_for(model), None


def dollars(tokens: Tokens, price: Mapping[str, float] | None) -> float | None:
    """USD for ``tokens`` at ``price``, or None: no price, input or output unknown, or a cache figure unknown where the
    price tells cache tokens apart (a null cache price bills them as input: then the split does not matter)."""
    if price is None or tokens["input"] is None or tokens["output"] is None:
        return None
    read, write = tokens["cache_read"], tokens["cache_write"]
    if (read is None and price.get("cache_read") is not None) or (write is None and price.get("cache_write") is not None):
        return None
    return round(usage_cost(dict(price), tokens["input"], tokens["output"], read or 0, write or 0), 6)


def case_cost(trace: Trace) -> Cost:
    """A row's ``cost``: per role its four kinds and USD, their totals (unknown when any role's is), the model each
    role is priced as, and whether any price is simulated."""
    tokens = role_tokens(trace)
    models = {"agent": trace.agent_model, "summarizer": trace.summary_model, "compaction": trace.agent_model}
    roles: dict[str, Any] = {}
    priced_as: dict[str, str | None] = {}
    simulated = False
    for role, counts in tokens.items():
        price, borrowed = pricing(models[role])
        simulated = simulated or borrowed is not None
        priced_as[role] = borrowed or (models[role] if price is not None else None)
        calls = _calls(trace, role)
        usd = 0.0 if calls == 0 else dollars(counts, price)
        roles[role] = {**counts, "calls": calls, "usd": usd}
    total = add(tokens.values())
    usds = [r["usd"] for r in roles.values()]
    total_usd = None if any(u is None for u in usds) else round(sum(u for u in usds if u is not None), 6)
    sent, source = tokens_sent(trace, tokens)
    return {
        "roles": roles,
        "total": {**total, "usd": total_usd},
        "priced_as": priced_as,
        "simulated_prices": simulated,
        "sent": {"tokens": sent, "source": source},
    }


def _calls(trace: Trace, role: str) -> int:
    if role == "compaction":
        return sum(len(c.get("compaction_usage") or []) for c in trace.calls)
    return len(trace.agent_calls() if role == "agent" else trace.summarizer_calls())


def tokens_sent(trace: Trace, tokens: dict[str, Tokens] | None = None) -> tuple[int, str]:
    """Input tokens the case's models were sent (agent, summarizer, compaction passes) and their source: the
    provider's (``provider``) when every call reported them, else the approximate count of what the harness sent
    (``approximate``: a server-side compaction does not show there)."""
    tokens = role_tokens(trace) if tokens is None else tokens
    billed = add(tokens.values())["input"]
    if billed is not None and any(c.get("usage") for c in trace.calls):
        return billed, "provider"
    return sum(c["approx_tokens"] for c in trace.calls), "approximate"


def cost_metrics(cost: Mapping[str, Any]) -> dict[str, Any]:
    """A row's compared cost figures, from its ``cost`` (`case_cost`)."""
    return {"whole_cost_usd": cost["total"]["usd"], "tokens_sent": cost["sent"]["tokens"]}
