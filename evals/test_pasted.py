"""Pasted content: a user message over deepagents' size limit (scaled down to 1,500 tokens by the `pasted` preset,
through FilesystemMiddleware's own human_message_token_limit_before_evict) is saved under /conversation_history/ and
replaced by a notice; after a summary takes it out of view, the fact in it must come back from that file."""

import pytest

pytestmark = pytest.mark.pasted


@pytest.mark.langsmith
def test_a_pasted_fact_is_reread_from_the_workspace_after_a_summary(case, eval_session):
    result = eval_session.run_eval("pasted", case)
    # Validity first (compacted, pasted_evicted, pasted_out_of_view), then pasted_in_workspace, needle_correct,
    # pasted_via_file: harness.suites.registry.SUITES["pasted"].
    result.require_eval("pasted")
