"""Long tool-call ids (deepagents#5560): a large tool result whose tool_call_id is longer than a path component must
still be evicted. The task asks the reference agent for 240-character ids; the request the model received next must
show the eviction notice and the backend must hold the whole result, which the agent pages back for the question."""

import pytest

pytestmark = pytest.mark.longid


@pytest.mark.langsmith
def test_a_result_with_a_long_tool_call_id_is_evicted_and_recovered(case, eval_session):
    result = eval_session.run_eval("longid", case)
    # Validity first (long_ids_oversized), then long_id_evicted, needle_correct, needle_via_eviction_file:
    # harness.suites.registry.SUITES["longid"].
    result.require_eval("longid")
