"""The cache eval's scores: after each compaction, the calls that follow read the compacted prefix from the prompt cache
again, and what the run's compactions cost the cache (`harness.scoring.cache_use`).

A compaction rewrites the head of the request, so the call it happens on writes the cache anew: that much is what a
compaction costs (shown per compaction in the reports). What must not happen is a request that never settles: the next
call should share the compacted call's head (tools, system prompt and the summary) and read it from the cache. A
compaction on every call (one more tool result masked each call) never settles either, and fails so. A prefix that
changes on every call (a timestamp or a counter in the system prompt: anomalyco/opencode#43249,
macanderson/stella#3690) is read never, and every call pays to write it again.
"""

from __future__ import annotations

from harness.scenarios.schema import Scenario
from harness.scoring.scorers.shared import compacted
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.trace.schema import Trace

OPENCODE_43249 = "https://github.com/anomalyco/opencode/issues/43249"
STELLA_3690 = "https://github.com/macanderson/stella/issues/3690"


def cache_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """``cache_compaction_followed`` (validity: a compaction followed by an agent call),
    ``cache_reread_after_compaction`` (check: every such call read the compacted head from the cache again) and the
    run's cache measures (writes never read again, tokens rewritten at compactions, their dollars)."""
    # local: cache_use reads prices through scoring.metrics, which imports this package
    from harness.scoring.cache_use import REREAD_FRACTION, cache_calls, cache_metrics, compaction_damage

    calls = cache_calls(trace)
    damage = compaction_damage(trace, calls)
    followed = [d for d in damage if d["rereads"] is not None]
    missed = [d for d in followed if not d["rereads"]]
    sources = sorted({c.source for c in calls if c.role == "agent"})
    said = "/".join(sources) or "no call"
    metrics = cache_metrics(trace)
    if missed:
        first = missed[0]
        verdict = (
            f"{len(missed)} of {len(followed)} compaction(s) were not read from the cache again: after the {first['type']} at "
            f"call {first['call_index']}, call {first['next_call']} did not read {REREAD_FRACTION:.0%} of the new head "
            f"({said} figures; a prefix that changes on every call: {OPENCODE_43249})"
        )
    else:
        verdict = f"after each of {len(followed)} compaction(s) the next call read the new head from the cache ({said} figures)"
    return [
        compacted(trace),
        Score(
            "cache_compaction_followed",
            len(followed),
            VALIDITY,
            f"{len(followed)} of {len(damage)} compaction(s) were followed by an agent call"
            if followed
            else f"{len(damage)} compaction(s), none followed by an agent call: nothing to read again "
            "(the case is invalid, not passed)",
        ),
        Score("cache_reread_after_compaction", bool(followed) and not missed, CHECK, verdict if followed else "nothing followed"),
        Score(
            "cache_unread_write_tokens",
            metrics["cache_unread_write_tokens"],
            MEASURE,
            f"{metrics['cache_unread_write_tokens']:,} of {metrics['cache_written_tokens_sim']:,} tokens written to the "
            "cache were never read again (simulated from the recorded requests, approximate tokens)",
        ),
        Score(
            "cache_rewritten_tokens",
            metrics["cache_rewritten_tokens"],
            MEASURE,
            f"{metrics['cache_rewritten_tokens']:,} tokens written again at {len(damage)} compaction(s), "
            f"{metrics['cache_prefix_lost_tokens']:,} of the previous calls' prefix lost (simulated)",
        ),
    ]
