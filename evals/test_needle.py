"""Needle recovery: a fact summarized away must come back through read_file on the history file.

Each case fetches a haystack of documents, one of which states the needle; the task
forces summaries; then a question asks for the needle. The case is valid only if a
summary happened before the question and the needle was out of view when it came.
"""

import pytest

pytestmark = pytest.mark.needle


@pytest.mark.langsmith
def test_needle_recovered_from_history(needle_case, eval_session):
    result = eval_session.run(needle_case)
    result.require("run_completed")
    result.require("structure_ok")  # tool calls paired, summary at the head, system prompt intact
    result.require("compressed")  # no summary before the question: invalid, not passed
    result.require("needle_summarized_away")  # needle still in view: tests recall, not recovery
    result.require("needle_correct")
    result.require("needle_via_history")
