"""Chained summaries: a fact planted early is recoverable after 1, 2, 4 and 8 summaries.

Each chain case asks for a needle from the first quarter of the haystack after at least
its target number of summaries (validity: chain_length_reached). The session report draws
the survival curve: recovered and still quoted in a summary, by number of summaries and
depth.
"""

import pytest

pytestmark = pytest.mark.chain


@pytest.mark.langsmith
def test_fact_survives_or_is_recoverable_after_chained_summaries(case, eval_session):
    result = eval_session.run_eval("chain", case)
    # Validity first (chain_length_reached: enough summaries before the question; the needle out of
    # view), then the needle checks: harness.suites.registry.SUITES["chain"].
    result.require_eval("chain")
