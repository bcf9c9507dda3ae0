"""The prompt cache call by call: the prefix each call shares with the one before it, what it read from and wrote to
the cache, the writes no later call read, and what each compaction cost the cache.

Every figure is read from the requests the recorder kept (each call's message keys, and for an agent call its system
prompt and the fixed overhead of system prompt and tool schemas), in approximate tokens (`count_tokens_approximately`,
the trace's count). A call's units, in a provider's cache order, are the head (tools and system prompt: the system
prompt's hash and the overhead's tokens) and then each message; two calls share a prefix as long as their units agree.

Reads and writes come from two places, and each figure says which (``source``):

- **simulated**: the harness's simulated prompt cache (`harness.reference.prompt_cache`, the one `harness serve`
  runs) over those units, under Anthropic's policy with a ``cache_control`` breakpoint on the last message of each agent
  call (what deepagents' Anthropic prompt-caching middleware sets; the reference models are priced as Claude) and none
  on a summary call (deepagents sends those without one: nothing cached). One cache per case run, so no other run's
  entries count. Offline (the in-process reference models report no usage) this is the only source.
- **served**: what the provider reported for the call (``usage.input_token_details`` cache_read / cache_creation), when
  it reported both; through `harness serve` that is its simulated cache, scoped to the case run
  (`harness.agent.cache_scope`), in its provider token counts.

A write is "never read again" when no later call of the run read the prefix it stored (simulated: which stored prefix a
read came from is known only there). A compaction's cache damage, at the call it happened on: the prefix of the call
before that this call no longer shares (``prefix_lost``), the tokens it wrote to the cache again (``rewritten``) and
their dollars at the agent model's cache-write price (`harness.scoring.cost.pricing`; its input price where the list
has no cache-write price; None without a price).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages.utils import count_tokens_approximately

from harness.reference.prompt_cache import PromptCache
from harness.scoring.cost import cache_writes, pricing, reported_count
from harness.trace.schema import OWN_MODEL_ROLES, Trace

SIMULATED, SERVED = "simulated", "served"


@dataclass(frozen=True)
class CallCache:
    """One model call's prompt-cache figures (approximate tokens unless ``served_*``)."""

    index: int  # the call's index in the trace
    role: str  # agent or summarizer
    turn: int
    tokens: int  # the request's approximate tokens (its units summed)
    head: int  # tokens of its head: tools and system prompt, and the first message (a summary after a summary)
    shared: int  # tokens of the prefix it shares with the previous call of its role (0 for the first)
    read: int  # simulated: read from the cache
    write: int  # simulated: written to it
    unread: int  # of ``write``, the tokens no later call read
    served_read: int | None  # reported by the provider (None: not reported)
    served_write: int | None
    served_input: int | None
    compaction: str | None  # the compaction event at this call (summary, mask, trim), if any
    units: tuple[tuple[str, int], ...] = field(default=(), repr=False, compare=False)  # (unit, tokens), cache order

    @property
    def source(self) -> str:
        """Where `read_share` comes from: the provider's figures when it reported them, else the simulation."""
        return SERVED if self.served_read is not None and self.served_input else SIMULATED

    @property
    def read_share(self) -> float:
        """The share of the request's input read from the cache (served figures when there are some)."""
        if self.source == SERVED:
            return (self.served_read or 0) / (self.served_input or 1)
        return self.read / self.tokens if self.tokens else 0.0


def _units(trace: Trace, call: dict[str, Any], tokens: dict[str, int]) -> list[tuple[str, int]]:
    """The call's cache units: its head (agent calls: system prompt and tool schemas) and each message."""
    keys = call.get("message_keys") or []
    for key in keys:
        if key not in tokens:  # a key the message table lacks (a hand-made trace) counts nothing
            tokens[key] = count_tokens_approximately([trace.message(key)]) if key in trace.messages else 0
    messages = [(key, tokens[key]) for key in keys]
    if call["role"] != "agent":
        return messages
    head = (f"head:{call.get('system_sha')}:{call.get('overhead_tokens', 0)}", int(call.get("overhead_tokens") or 0))
    return [head, *messages]


def _shared(a: Sequence[tuple[str, int]], b: Sequence[tuple[str, int]]) -> int:
    """Tokens of the longest common prefix of two calls' units."""
    n = 0
    for x, y in zip(a, b):
        if x[0] != y[0]:
            break
        n += x[1]
    return n


def _served(call: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    usage = call.get("usage") or {}
    details = usage.get("input_token_details")
    details = details if isinstance(details, dict) else {}
    read = reported_count(details.get("cache_read")) if "cache_read" in details else None
    write = cache_writes(details)
    if read is None or write is None:
        return None, None, reported_count(usage.get("input_tokens"))
    return read, write, reported_count(usage.get("input_tokens"))


def cache_calls(trace: Trace) -> list[CallCache]:
    """Every billed model call's cache figures, in order (a rejected call is not billed and is left out), but a
    subagent's or a tool's: its requests start from its own prompt, never the parent's prefix, whose cache this reads."""
    at = {e.get("call_index"): e["type"] for e in trace.compactions()}
    calls = [
        {"index": k, "turn": 0, **c} for k, c in enumerate(trace.calls) if not c.get("error") and c["role"] not in OWN_MODEL_ROLES
    ]  # (old traces: no index)
    tokens: dict[str, int] = {}
    units = [_units(trace, c, tokens) for c in calls]
    cache = PromptCache()
    owner: dict[str, int] = {}  # stored prefix -> the position of the call whose write stored it
    uses, reread = [], set()
    for pos, (call, u) in enumerate(zip(calls, units, strict=True)):
        breakpoints = [len(u) - 1] if call["role"] == "agent" and u else []
        use = cache.use("", u, breakpoints)
        if use.hit is not None and use.hit in owner:
            reread.add(owner[use.hit])
        if use.write:
            for digest in use.stored:
                owner.setdefault(digest, pos)
        uses.append(use)
    out = []
    previous: dict[str, int] = {}
    for pos, (call, u, use) in enumerate(zip(calls, units, uses, strict=True)):
        before = previous.get(call["role"])
        previous[call["role"]] = pos
        served_read, served_write, served_input = _served(call)
        out.append(
            CallCache(
                index=call["index"],
                role=call["role"],
                turn=call["turn"],
                tokens=sum(n for _, n in u),
                head=sum(n for _, n in u[:2]) if call["role"] == "agent" else sum(n for _, n in u[:1]),
                shared=_shared(units[before], u) if before is not None else 0,
                read=use.read,
                write=use.write,
                unread=0 if pos in reread else use.write,
                served_read=served_read,
                served_write=served_write,
                served_input=served_input,
                compaction=at.get(call["index"]),
                units=tuple(u),
            )
        )
    return out


def write_price(trace: Trace) -> tuple[float | None, str | None]:
    """USD per million tokens written to the agent model's cache (its input price where the list has no cache-write
    price), and the list model it is priced as; (None, None) without a price."""
    price, borrowed = pricing(trace.agent_model)
    if price is None:
        return None, None
    rate = price.get("cache_write") if price.get("cache_write") is not None else price.get("input")
    return (float(rate) if rate is not None else None), borrowed or trace.agent_model


def _usd(tokens: int, rate: float | None) -> float | None:
    return None if rate is None else round(tokens * rate / 1e6, 6)


def compaction_damage(trace: Trace, calls: list[CallCache] | None = None) -> list[dict[str, Any]]:
    """Per compaction at an agent call, in order: its type and call, the prefix of the call before that it no longer
    shares, the tokens it wrote to the cache again, their dollars, and whether the next agent call read the new prefix
    again (`rereads`, None when no agent call followed: a compaction that itself follows one is judged too, as its
    rewrite wasted the first one's)."""
    calls = cache_calls(trace) if calls is None else calls
    agent = [c for c in calls if c.role == "agent"]
    rate, _ = write_price(trace)
    out = []
    for k, call in enumerate(agent):
        if call.compaction is None:
            continue
        before = agent[k - 1] if k else None
        after = agent[k + 1] if k + 1 < len(agent) else None
        out.append(
            {
                "call_index": call.index,
                "turn": call.turn,
                "type": call.compaction,
                "tokens_before": before.tokens if before else None,
                "shared": call.shared,
                "prefix_lost": (before.tokens - call.shared) if before else 0,
                "rewritten": call.write,
                "usd": _usd(call.write, rate),
                "served_write": call.served_write,
                "next_call": after.index if after else None,
                "rereads": rereads(call, after) if after else None,
            }
        )
    return out


REREAD_FRACTION = 0.8
"""The share of a compacted call's new head (tools, system prompt and the summary) the next call must read from the
cache: below it, the prefix the compaction wrote was not served again. Slack for the served count (provider tokens,
128-token steps on OpenAI's policy) against the approximate one the head is measured in."""


def rereads(call: CallCache, after: CallCache) -> bool:
    """Whether ``after`` (the next agent call) shares the compacted ``call``'s head and reads at
    least `REREAD_FRACTION` of it from the cache (shares of the request, so served and approximate counts compare)."""
    if after.tokens == 0 or _shared(call.units, after.units) < call.head:
        return False
    return after.read_share >= REREAD_FRACTION * call.head / after.tokens


def cache_metrics(trace: Trace) -> dict[str, Any]:
    """A row's cache figures (simulated from the recorded requests, approximate tokens): writes never read again,
    compactions' cache damage, and their dollars at the agent model's cache-write price."""
    calls = cache_calls(trace)
    damage = compaction_damage(trace, calls)
    rate, _ = write_price(trace)
    unread = sum(c.unread for c in calls)
    rewritten = sum(d["rewritten"] for d in damage)
    return {
        "cache_written_tokens_sim": sum(c.write for c in calls),
        "cache_read_tokens_sim": sum(c.read for c in calls),
        "cache_unread_write_tokens": unread,
        "cache_unread_write_usd": _usd(unread, rate),
        "cache_compactions": len(damage),
        "cache_prefix_lost_tokens": sum(d["prefix_lost"] for d in damage),
        "cache_rewritten_tokens": rewritten,
        "cache_damage_usd": _usd(rewritten, rate),
    }
