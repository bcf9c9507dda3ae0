"""Large tool-result eviction: a fact in an evicted result must come back by paging read_file.

The needle haystacks run under the `eviction` preset: summarization out of the way
(85 %), every tool result over 1,000 tokens offloaded to /large_tool_results/ and
replaced by a notice with a short preview. The question then needs a fact that is only
in an evicted file. Valid only if the needle's own document was evicted.
"""

import pytest

pytestmark = pytest.mark.eviction
CASES = ["needle-h24k-d000", "needle-h24k-d050", "needle-h32k-d025", "needle-h40k-d040", "needle-h48k-d010"]


@pytest.mark.langsmith
@pytest.mark.parametrize("case_id", CASES)
def test_fact_recovered_from_an_evicted_tool_result(case_id, eval_session):
    result = eval_session.run_mechanism(case_id, "eviction", suite="eviction")
    # Validity first (evicted: the needle's own document was offloaded), then needle_correct and
    # needle_via_eviction_file: harness.suites.validity.EVALS["eviction"].
    result.require_eval("eviction")
