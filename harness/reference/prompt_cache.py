"""Prompt caching, simulated per API: a repeated request prefix is a cache read, a new one a cache write.

A request is a sequence of units in the provider's cache order (tools, system or instructions, then each message
or input item), each with its simulated token count. `PromptCache.use` walks the prefixes and reports, in tokens,
what was read from the cache (the longest prefix stored by an earlier request), what was written to it, and what
was neither. Two policies, one per API:

- Anthropic (``breakpoints`` given): only prefixes that end at a ``cache_control`` breakpoint are written (the last
  block when the request sets the top-level ``cache_control``); a request without one caches nothing.
- OpenAI (``breakpoints`` None): automatic caching of prompts of at least ``OPENAI_MIN_TOKENS``, every prefix
  stored, a read counted in ``OPENAI_INCREMENT``-token steps.

Entries are kept per (API, model, conversation) key, the conversation being named by its first user turn, and per
cache scope: a request carrying a scope (`scoped`; `harness serve` reads the ``X-Harness-Cache-Scope`` header, which
the harness's live client sends once per case run) reads and writes only its scope's entries, so a case gives the same
cache and dollar figures whatever ran before or beside it. Without a scope, runs whose first user turn is the same
(the needle cases share theirs; a case run again) share entries, as a provider's cache serves any request with a cached
prefix: the later run reads what the earlier one wrote, so their figures depend on the order they ran in (and so on
the concurrency), while the same requests in the same order give the same numbers (docs/live.md, "Prompt caching,
simulated").
A summary rewrites the prefix and so shows as a write; masking old tool results edits it and does the same.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

ANTHROPIC_MIN_TOKENS = 1024  # the smallest cacheable prefix (Claude Sonnet's documented minimum)
OPENAI_MIN_TOKENS = 1024
OPENAI_INCREMENT = 128
MAX_ENTRIES = 200_000  # stored prefixes before the cache is emptied (a long-running server's memory bound)


@dataclass(frozen=True)
class CacheUse:
    """Tokens of one request: read from the cache, written to it, and neither (``total`` is their sum); ``hit``, the
    stored prefix it read (None: none), and ``stored``, the prefixes it stored (digests: which request's write a later
    one reads, `harness.scoring.cache_use`; not compared)."""

    read: int
    write: int
    uncached: int
    hit: str | None = field(default=None, compare=False)
    stored: tuple[str, ...] = field(default=(), compare=False)

    @property
    def total(self) -> int:
        return self.read + self.write + self.uncached


def prefix_digests(key: str, units: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """(digest, cumulative tokens) of every prefix of ``units`` (canonical text, tokens), chained from ``key``."""
    out = []
    digest = hashlib.sha256(key.encode()).hexdigest()
    tokens = 0
    for text, n in units:
        digest = hashlib.sha256((digest + "\0" + text).encode()).hexdigest()
        tokens += n
        out.append((digest, tokens))
    return out


class PromptCache:
    """The server's simulated prompt cache (thread-safe; `clear` on ``/admin/reset``)."""

    def __init__(self) -> None:
        self._stored: set[str] = set()
        self._lock = threading.Lock()
        self._scope = ""  # the key prefix of a scoped view (`scoped`); "" for the shared, unscoped entries

    def scoped(self, scope: str | None) -> PromptCache:
        """This cache as seen by requests carrying ``scope``: the same store and lock, every key prefixed by the scope,
        so no entry is shared with another scope or with unscoped requests. None (no scope sent): the cache itself."""
        if scope is None:
            return self
        view = PromptCache.__new__(PromptCache)
        view._stored, view._lock, view._scope = self._stored, self._lock, f"{self._scope}scope={scope}\0"
        return view

    def clear(self) -> None:
        """Forget every stored prefix."""
        with self._lock:
            self._stored.clear()

    def use(self, key: str, units: Sequence[tuple[str, int]], breakpoints: Sequence[int] | None = None) -> CacheUse:
        """Look up and store the prefixes of one request. ``breakpoints``: indices of the units that carry a
        ``cache_control`` breakpoint (Anthropic); None for OpenAI's automatic caching."""
        prefixes = prefix_digests(self._scope + key, units)
        total = prefixes[-1][1] if prefixes else 0
        with self._lock:
            if len(self._stored) > MAX_ENTRIES:
                self._stored.clear()
            hit, hit_digest = max(((t, d) for d, t in prefixes if d in self._stored), default=(0, None))
            if breakpoints is None:
                read = hit // OPENAI_INCREMENT * OPENAI_INCREMENT if hit >= OPENAI_MIN_TOKENS else 0
                stored_to = total // OPENAI_INCREMENT * OPENAI_INCREMENT if total >= OPENAI_MIN_TOKENS else 0
                ends = [(d, t) for d, t in prefixes if t >= OPENAI_MIN_TOKENS]
            else:
                ends = [prefixes[i] for i in sorted(set(breakpoints)) if 0 <= i < len(prefixes)]
                ends = [(d, t) for d, t in ends if t >= ANTHROPIC_MIN_TOKENS]
                read = hit if breakpoints else 0  # no breakpoint, no lookup
                stored_to = max((t for _, t in ends), default=0)
            new = tuple(d for d, _ in ends if d not in self._stored)
            self._stored.update(d for d, _ in ends)
        write = max(0, stored_to - read)
        return CacheUse(read=read, write=write, uncached=total - read - write, hit=hit_digest if read else None, stored=new)
