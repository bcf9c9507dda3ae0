"""The simulated prompt cache: a repeated prefix is a read, a new one a write, per API's policy."""

from __future__ import annotations

from harness.reference.prompt_cache import CacheUse, PromptCache

UNITS = [("tools", 900), ("system", 300), ("user", 200)]


def test_openai_caches_automatically_from_1024_tokens_in_128_token_steps():
    cache = PromptCache()
    first = cache.use("k", UNITS)
    assert first == CacheUse(read=0, write=1280, uncached=120)  # 1,400 tokens: 1,280 written (10 x 128)
    again = cache.use("k", [*UNITS, ("reply", 50)])
    assert again == CacheUse(read=1280, write=128, uncached=42)  # the 1,400 seen, read in 128-token steps; 1,408 stored
    assert PromptCache().use("k", [("short", 1000)]) == CacheUse(0, 0, 1000)  # under the minimum: nothing cached


def test_anthropic_caches_only_at_breakpoints():
    cache = PromptCache()
    assert cache.use("k", UNITS, breakpoints=[]) == CacheUse(0, 0, 1400)  # no cache_control: no caching
    assert cache.use("k", UNITS, breakpoints=[1]) == CacheUse(0, 1200, 200)  # tools + system written
    assert cache.use("k", UNITS, breakpoints=[1, 2]) == CacheUse(1200, 200, 0)  # read, and the tail written
    assert cache.use("k", UNITS, breakpoints=[]) == CacheUse(0, 0, 1400)  # stored, but no breakpoint: no lookup


def test_a_rewritten_prefix_is_a_write_again():
    cache = PromptCache()
    cache.use("k", UNITS, breakpoints=[2])
    summarized = [("tools", 900), ("system", 300), ("a summary", 150)]
    use = cache.use("k", summarized, breakpoints=[2])
    assert use.read == 0 and use.write == 1350  # the last unit changed: its prefix (which ends there) is new


def test_conversations_do_not_share_entries_and_a_clear_forgets():
    cache = PromptCache()
    cache.use("a", UNITS)
    assert cache.use("b", UNITS).read == 0
    assert cache.use("a", UNITS).read > 0
    cache.clear()
    assert cache.use("a", UNITS).read == 0


def test_a_scoped_view_shares_no_entry_with_another_scope_or_with_unscoped_requests():
    cache = PromptCache()
    first = cache.scoped("run-a").use("k", UNITS)
    assert first.write > 0 and first.stored and first.hit is None
    again = cache.scoped("run-a").use("k", UNITS)
    assert again.read > 0 and again.hit in first.stored  # the scope's own entry, read back
    assert cache.scoped("run-b").use("k", UNITS) == first  # another scope starts empty: the same figures as the first
    assert cache.use("k", UNITS) == first  # so do unscoped requests
    assert cache.scoped(None) is cache
    cache.clear()  # /admin/reset forgets every scope's entries
    assert cache.scoped("run-a").use("k", UNITS) == first
