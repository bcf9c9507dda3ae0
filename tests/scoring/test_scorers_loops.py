"""The loops eval's checks fail on a bad trace and pass a healthy one: compaction_shrinks (a summary bigger than what
it replaced; a summary left above the trigger), no_compaction_loop (compactions in a row without progress), and the
measures beside them."""

from __future__ import annotations

from harness.scoring.scorers.loops import compaction_shrinks, loop_measures, loop_scores, no_compaction_loop
from harness.trace.loops import COMPACTION_LOOP_LIMIT
from tests._traces import Conversation

LEDGER = "ledger text " * 200


def _run(summaries: list[str], *, repeat: bool = False, trigger: int = 100_000):
    conv = Conversation(trigger=[["tokens", trigger]], window=200_000)
    conv.user("Audit the ledgers.")
    conv.agent(tools=[("read_file", {"file_path": "/ledgers/ledger_00.md"}, LEDGER)])
    for k, summary in enumerate(summaries):
        conv.summarize(summary)
        path = "/ledgers/ledger_00.md" if repeat else f"/ledgers/ledger_{k + 1:02d}.md"
        conv.agent(tools=[("read_file", {"file_path": path}, LEDGER)])
    conv.answer("TASK COMPLETE")
    return conv.trace(kind="goal")


def test_compaction_shrinks_passes_summaries_that_shrink_below_the_trigger():
    score = compaction_shrinks(_run(["Ledger 0 was read."]))
    assert score.value is True
    assert "shrank the request" in score.explanation and "below the trigger (100,000 tokens)" in score.explanation


def test_compaction_shrinks_fails_a_summary_bigger_than_what_it_replaced():
    score = compaction_shrinks(_run(["padding " * 3000]))
    assert score.value is False
    assert "did not shrink the request" in score.explanation and "(ratio 8.51)" in score.explanation


def test_compaction_shrinks_fails_a_summary_that_leaves_the_request_above_the_trigger():
    score = compaction_shrinks(_run(["Ledger 0 was read."], trigger=100))
    assert score.value is False
    assert "at or above the trigger (100 tokens)" in score.explanation and "summarizes again" in score.explanation


def test_no_compaction_loop_fails_compactions_in_a_row_without_progress():
    summaries = [f"Summary {k}." for k in range(COMPACTION_LOOP_LIMIT)]
    score = no_compaction_loop(_run(summaries, repeat=True))
    assert score.value is False
    assert f"{COMPACTION_LOOP_LIMIT} compactions in a row without progress" in score.explanation
    assert no_compaction_loop(_run(summaries, repeat=False)).value is True
    assert no_compaction_loop(_run(summaries[:-1], repeat=True)).value is True


def test_the_measures_are_the_largest_ratio_and_the_longest_run():
    ratio, run = loop_measures(_run(["padding " * 3000, "Summary 1."], repeat=True))
    assert ratio.key == "compaction_ratio_max" and ratio.value > 1 and ratio.role == "measure"
    assert run.key == "compactions_without_progress" and run.value == 2
    empty = loop_measures(_run([]))
    assert empty[0].value is None and empty[1].value == 0


def test_the_eval_scores_start_with_validity():
    keys = [s.key for s in loop_scores(_run(["Ledger 0 was read."]), None)]  # type: ignore[arg-type]
    assert keys == [
        "compacted",
        "compaction_shrinks",
        "no_compaction_loop",
        "compaction_ratio_max",
        "compactions_without_progress",
    ]


def test_compaction_shrinks_says_so_when_nothing_was_compacted():
    score = compaction_shrinks(_run([]))
    assert score.value is True and score.explanation.startswith("no compaction with both sizes known")
