"""Summarizer faults: a summarizer that raises, times out, returns nothing or refuses.

Each faulty run must be recorded as an error or a degraded summary with its cause, never
as a pass; the history offloaded before the failure must still be there.
"""

import pytest

from harness.suites.faults import SUMMARIZER_FAULTS
from harness.suites.registry import SUITES

pytestmark = pytest.mark.faults


@pytest.mark.langsmith
@pytest.mark.parametrize("fault", SUMMARIZER_FAULTS)
def test_summarizer_fault_is_recorded_with_its_cause_and_never_passes(fault, case, eval_session):
    result = eval_session.run_eval("faults", case, fault)
    trace, scores = result.trace, result.scores
    assert scores["compacted"].value or trace.events_of("summary") or trace.summarizer_calls(), (
        "no summarization was attempted: invalid"
    )
    checks_failed = [k for k in SUITES["faults"].required if not scores[k].value]
    assert checks_failed, "a faulty summarizer produced a pass"  # the checks harness.suites.registry.SUITES["faults"] holds
    if fault in ("raise", "timeout"):
        expected = {"raise": "RuntimeError", "timeout": "TimeoutError"}[fault]
        assert trace.error and trace.error["type"] == expected, trace.error
        assert expected in scores["run_completed"].explanation
        failed = [c for c in trace.summarizer_calls() if c.get("error")]
        assert len(failed) == 3 and all(c["error"]["type"] == expected for c in failed)  # deepagents retried twice
        assert trace.final["history_files"], "the history written before the summarizer failed was lost"
    else:
        assert scores["summaries_ok"].value is False
        cause = {"empty": "empty summary", "no_summary": "a refusal"}[fault]
        assert cause in scores["summaries_ok"].explanation
