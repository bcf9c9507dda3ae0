"""History file validity: every summary names a history file; that file exists in the backend at the end of the run
and holds the span the summary took out of view, whatever the version's naming scheme (deepagents 0.7.32:
``session_<hex>.md``; before 0.7.6: ``{thread_id}.md``). Scored from the final state's files, not the reply."""

import pytest

pytestmark = pytest.mark.history


@pytest.mark.langsmith
def test_every_summary_names_a_history_file_that_holds_its_span(case, eval_session):
    result = eval_session.run_eval("history", case)
    # Validity first (compacted), then history_path_named, history_file_exists, history_holds_span:
    # harness.suites.registry.SUITES["history"].
    result.require_eval("history")
