"""Compaction that does not shrink, or loops: the loops eval's checks and measures, from the trace alone.

Each compaction's ratio (tokens after over before), the summaries that left the request at or above the trigger,
and the runs of compactions without progress are read once, in `harness.trace.loops`; here they become scores.
"""

from __future__ import annotations

from harness.scenarios.schema import Scenario
from harness.scoring.scorers.shared import compacted
from harness.scoring.scorers.types import CHECK, MEASURE, Score
from harness.trace import loops
from harness.trace.loops import trigger_tokens
from harness.trace.schema import Trace


def _ratios(trace: Trace) -> str:
    parts = [
        f"{e['type']} at call {e['call_index']} {e['tokens_before']:,}->{e['tokens_after']:,} ({r:.2f})"
        for e in trace.compactions()
        if (r := loops.ratio(e)) is not None
    ]
    return "; ".join(parts[:6]) + (f"; ... {len(parts) - 6} more" if len(parts) > 6 else "")


def compaction_shrinks(trace: Trace) -> Score:
    """Every compaction left the request smaller than it found it (ratio below 1), and every summary left it below the
    trigger that fired it (else the next call compacts again)."""
    grew = loops.not_shrinking(trace)
    trigger = trigger_tokens(trace)
    above = loops.above_trigger(trace, trigger)
    if grew:
        e = grew[0]
        return Score(
            "compaction_shrinks",
            False,
            CHECK,
            f"{len(grew)} compaction(s) did not shrink the request; first: {e['type']} at call {e['call_index']}, "
            f"{e['tokens_before']:,} -> {e['tokens_after']:,} tokens (ratio {loops.ratio(e):.2f})",
        )
    if above:
        e = above[0]
        return Score(
            "compaction_shrinks",
            False,
            CHECK,
            f"{len(above)} summar{'y' if len(above) == 1 else 'ies'} left the request at or above the trigger "
            f"({trigger:,} tokens), so the next call summarizes again; first at call {e['call_index']}: "
            f"{e['tokens_before']:,} -> {e['tokens_after']:,} tokens",
        )
    n = len([e for e in trace.compactions() if loops.ratio(e) is not None])
    if not n:
        return Score("compaction_shrinks", True, CHECK, "no compaction with both sizes known: nothing grew or stayed high")
    below = f", every summary below the trigger ({trigger:,} tokens)" if trigger is not None else ""
    return Score("compaction_shrinks", True, CHECK, f"all {n} compaction(s) shrank the request{below}: {_ratios(trace)}")


def no_compaction_loop(trace: Trace) -> Score:
    """No `loops.COMPACTION_LOOP_LIMIT` compactions in a row without progress (a new tool call or a reply) between
    them."""
    worst = loops.longest_streak(trace)
    limit = loops.COMPACTION_LOOP_LIMIT
    if len(worst) >= limit:
        return Score(
            "no_compaction_loop",
            False,
            CHECK,
            f"{len(worst)} compactions in a row without progress (a new tool call or a reply), at calls "
            f"{', '.join(map(str, worst.calls[:8]))}: a loop ({limit} is the limit)",
        )
    return Score(
        "no_compaction_loop",
        True,
        CHECK,
        f"at most {len(worst)} compaction(s) in a row without progress (the limit is {limit})",
    )


def loop_measures(trace: Trace) -> list[Score]:
    """The largest ratio of tokens after to before over the run's compactions, and the longest run of compactions
    without progress (measures: the report's loops section and the gate read them)."""
    ratios = [r for e in trace.compactions() if (r := loops.ratio(e)) is not None]
    worst = max(ratios, default=None)
    return [
        Score(
            "compaction_ratio_max",
            round(worst, 4) if worst is not None else None,
            MEASURE,
            f"per compaction, tokens after / before: {_ratios(trace) or 'no compaction with both sizes known'}",
        ),
        Score(
            "compactions_without_progress",
            len(loops.longest_streak(trace)),
            MEASURE,
            "the longest run of compactions with no new tool call and no reply between them",
        ),
    ]


def loop_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """The loops eval's scores: something was compacted (validity), each compaction shrank the request below the
    trigger, no loop, and the measures."""
    return [compacted(trace), compaction_shrinks(trace), no_compaction_loop(trace), *loop_measures(trace)]
