"""Large tool-result eviction: a fact in an evicted result must come back by paging read_file.

The needle haystacks run under the `eviction` preset: summarization out of the way
(85 %), every tool result over 1,000 tokens offloaded to /large_tool_results/ and
replaced by a notice with a short preview. The question then needs a fact that is only
in an evicted file. Valid only if the needle's own document was evicted.
"""

import pytest

pytestmark = pytest.mark.eviction


@pytest.mark.langsmith
def test_fact_recovered_from_an_evicted_tool_result(case, eval_session):
    result = eval_session.run_eval("eviction", case)
    # Validity first (evicted: the needle's own document was offloaded), then needle_correct and
    # needle_via_eviction_file: harness.suites.registry.SUITES["eviction"].
    result.require_eval("eviction")
