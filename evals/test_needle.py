"""Needle recovery: a fact summarized away must come back through read_file on the history file.

Each case fetches a haystack of documents, one of which states the needle; the task
forces summaries; then a question asks for the needle. The case is valid only if a
summary happened before the question and the needle was out of view when it came.
"""

import pytest

pytestmark = pytest.mark.needle


@pytest.mark.langsmith
def test_needle_recovered_from_history(case, eval_session):
    result = eval_session.run_eval("needle", case)
    # Validity first (compacted: a compaction before the question; needle_summarized_away: the needle
    # was out of view), then run_completed, structure_ok, summaries_ok, needle_correct and
    # needle_via_history: the list in harness.suites.registry.SUITES["needle"], which the validity matrix proves.
    result.require_eval("needle")
