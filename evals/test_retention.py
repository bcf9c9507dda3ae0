"""Retention: a fact whose statement was compacted away keeps its latest value in what the agent receives after.

Scored on the request right after each compaction (the summary or the kept messages), round by round, under a
summary prompt with a section for every fact type (the `typed` variant): a fact retained there is a success of its
own kind (the needle eval would call it INVALID: it tests recall, not recovery). A superseded value must not be
what is kept.
"""

import pytest

pytestmark = pytest.mark.retention


@pytest.mark.langsmith
def test_facts_retained_through_every_compaction(case, eval_session):
    result = eval_session.run_eval("retention", case)
    # Validity first (compacted; some fact's statement left view), then facts_retained and, for updated facts,
    # latest_value_kept: harness.suites.registry.SUITES["retention"].
    result.require_eval("retention")
