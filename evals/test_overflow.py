"""Context-overflow fallback: the provider rejects input the approximate counter underestimates.

Runs at deepagents' own thresholds (85 %, so the threshold never fires first) against
the reference agent behind a simulated provider that counts tokens like a real tokenizer
(numbers and ids cost more than the 4-characters-a-token estimate) and rejects requests
over 36,000 tokens. The ledger audits overflow at about 31,000 approximate tokens; each
rejection must be followed by deepagents' fallback summary and a smaller retry, recorded
as such, and the task must still be finished.
"""

import pytest

pytestmark = pytest.mark.overflow


@pytest.mark.langsmith
def test_overflow_falls_back_to_summarization_and_retries(case, eval_session):
    result = eval_session.run_eval("overflow", case)
    # Validity first (overflowed: some request was rejected), then overflow_recovered and the task
    # finished without drift: harness.suites.registry.SUITES["overflow"].
    result.require_eval("overflow")
