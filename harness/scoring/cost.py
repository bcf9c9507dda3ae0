"""The whole cost of a case: every model call's tokens by role, in the four kinds providers bill, and their dollars.

Roles: ``agent`` (the parent agent's calls), ``summarizer`` (deepagents' or LangChain's summary calls, a subagent's
included), ``subagent`` (the calls a subagent's model made: deepagents' ``task`` tool runs them), ``tool`` (the calls
a tool made to a chat model itself), these two each priced at the model it was made on, ``compaction`` (a provider's
server-side compaction passes: Anthropic bills them only in ``usage.iterations``, which the recorder keeps as
``compaction_usage``), and ``judge`` (judge.json, per run, added by the report). A trace written before subagent calls
were recorded (schema 2) whose agent delegated has its ``subagent`` role unknown (calls, tokens and dollars None),
never 0; one written before the ``tool`` role (schema 3) counts a tool's model calls among its subagent's.
The case's dollars are this module's one rule: the row's ``cost`` total, which `metrics.cost_usd` reads.

Kinds: ``input`` (every input token, cache reads and writes included: LangChain's ``input_tokens``), ``output``,
``cache_read`` and ``cache_write`` (``input_token_details`` ``cache_read`` / ``cache_creation``). Every figure is what
the provider reported: a call with no usage, or a usage without a cache field, makes that figure unknown (None),
never 0. Dollars are at `datasets/model_prices.yaml`; a model without a list price has none (None, shown n/a); a
reference model (offline or served by `harness serve`) is priced at the list price its ``simulated_as`` entry names,
and the figure says so (``simulated``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from harness._paths import DATASETS_DIR
from harness._yaml import load_yaml
from harness.rows import Cost
from harness.trace.schema import OWN_MODEL_ROLES, SUBAGENT, TOOL, Trace

KINDS = ("input", "output", "cache_read", "cache_write")
ROLES = ("agent", "summarizer", SUBAGENT, TOOL, "compaction")
Tokens = dict[str, int | None]
PRICES_FILE = DATASETS_DIR / "model_prices.yaml"


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


def usage_tokens(usage: Mapping[str, Any] | None) -> Tokens:
    """The four kinds of one call from LangChain's ``usage_metadata`` (None each when not reported)."""
    if not usage:
        return dict.fromkeys(KINDS)
    details = usage.get("input_token_details")
    details = details if isinstance(details, Mapping) else {}
    return {
        "input": reported_count(usage.get("input_tokens")),
        "output": reported_count(usage.get("output_tokens")),
        "cache_read": reported_count(details.get("cache_read")),
        "cache_write": cache_writes(details),
    }


def iteration_tokens(entry: Mapping[str, Any]) -> Tokens:
    """The four kinds of one Anthropic ``usage.iterations`` entry (raw API fields: ``input_tokens`` there excludes the
    cache, so the total is the three added, as LangChain adds them for the top-level usage)."""
    read = reported_count(entry.get("cache_read_input_tokens"))
    write = reported_count(entry.get("cache_creation_input_tokens"))
    uncached = reported_count(entry.get("input_tokens"))
    total = None if uncached is None or read is None or write is None else uncached + read + write
    return {"input": total, "output": reported_count(entry.get("output_tokens")), "cache_read": read, "cache_write": write}


def add(parts: Iterable[Tokens]) -> Tokens:
    """Kind by kind sum; unknown when any part is unknown (no parts: 0 of each)."""
    out: Tokens = dict.fromkeys(KINDS, 0)
    for part in parts:
        for kind in KINDS:
            a, b = out[kind], part.get(kind)
            out[kind] = None if a is None or b is None else a + b
    return out


def _billed(trace: Trace, role: str) -> list[dict[str, Any]]:
    """The calls of ``role`` that are billed: a rejected request is not billed and reports no usage."""
    return [c for c in trace.calls if c["role"] == role and not c.get("error")]


def role_tokens(trace: Trace) -> dict[str, Tokens]:
    """Agent, summarizer, subagent, tool and compaction tokens of one case (the judge's are per run, in judge.json)."""
    iterations = [e for c in trace.calls if not c.get("error") for e in c.get("compaction_usage") or []]
    out = {role: add(usage_tokens(c.get("usage")) for c in _billed(trace, role)) for role in ROLES if role != "compaction"}
    if trace.unrecorded_subagent_calls():
        out[SUBAGENT] = dict.fromkeys(KINDS)
    return {**out, "compaction": add(iteration_tokens(e) for e in iterations)}


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
    role is priced as (a subagent's or a tool's: each model its calls were made on, joined by " + "; None when it made
    none), and whether any price is simulated."""
    tokens = role_tokens(trace)
    models = {"agent": trace.agent_model, "summarizer": trace.summary_model, "compaction": trace.agent_model}
    roles: dict[str, Any] = {}
    priced_as: dict[str, str | None] = {}
    simulated = False
    for role, counts in tokens.items():
        if role in OWN_MODEL_ROLES:
            usd, names, borrowed_any = _own_model_dollars(trace, role)
            simulated = simulated or borrowed_any
            priced_as[role] = " + ".join(names) or None
            unknown = role == SUBAGENT and trace.unrecorded_subagent_calls()
            calls: int | None = None if unknown else sum(1 for c in trace.calls if c["role"] == role)
            roles[role] = {**counts, "calls": calls, "usd": 0.0 if calls == 0 else usd}
            continue
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


def _own_model_dollars(trace: Trace, role: str) -> tuple[float | None, list[str], bool]:
    """The USD of a role whose calls name their model (a subagent's, a tool's: each model's tokens at its price;
    unknown when any model's is, when a call named no model, or when the trace does not hold a subagent's calls), the
    list models they were priced as, and whether a price is simulated."""
    by_model: dict[str | None, list[Tokens]] = {}
    for call in _billed(trace, role):
        by_model.setdefault(call.get("model"), []).append(usage_tokens(call.get("usage")))
    usd: float | None = None if role == SUBAGENT and trace.unrecorded_subagent_calls() else 0.0
    names: list[str] = []
    simulated = False
    for model, parts in sorted(by_model.items(), key=lambda item: str(item[0])):
        price, borrowed = pricing(model) if model is not None else (None, None)
        simulated = simulated or borrowed is not None
        name = borrowed or (model if price is not None else None)
        if name is not None and name not in names:
            names.append(name)
        part = dollars(add(parts), price)
        usd = None if usd is None or part is None else usd + part
    return (round(usd, 6) if usd is not None else None), names, simulated


def _calls(trace: Trace, role: str) -> int:
    if role == "compaction":
        return sum(len(c.get("compaction_usage") or []) for c in trace.calls)
    return len(trace.agent_calls() if role == "agent" else trace.summarizer_calls())


def tokens_sent(trace: Trace, tokens: dict[str, Tokens] | None = None) -> tuple[int | None, str]:
    """Input tokens the case's models were sent (agent, summarizer, subagent, tool, compaction passes) and their source: the
    provider's (``provider``) when every call reported them, else the approximate count of what the harness sent
    (``approximate``: a server-side compaction does not show there; None when the trace lacks its subagents' calls)."""
    tokens = role_tokens(trace) if tokens is None else tokens
    billed = add(tokens.values())["input"]
    if billed is not None and any(c.get("usage") for c in trace.calls):
        return billed, "provider"
    if trace.unrecorded_subagent_calls():
        return None, "approximate"
    return sum(c["approx_tokens"] for c in trace.calls), "approximate"


def cost_metrics(cost: Mapping[str, Any]) -> dict[str, Any]:
    """A row's compared cost figures, from its ``cost`` (`case_cost`)."""
    return {"whole_cost_usd": cost["total"]["usd"], "tokens_sent": cost["sent"]["tokens"]}
