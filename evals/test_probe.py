"""Probes after compaction: recall, artifact, continuation and decision questions about typed facts.

Each case plants facts of a type (constraint, decision, artifact, fact, goal state, preference, rule) in a place (a
user turn, a scripted assistant turn, a document, the system prompt, a recorded conversation), runs a task that
forces compaction, then asks about them. Each question's validity is its own (its facts out of view when it is
asked); the answer is read as a value (never a substring), must carry the latest value of an updated fact and must
not carry a stale one; the artifact probe is scored as a set of paths.
"""

import pytest

pytestmark = pytest.mark.probe


@pytest.mark.langsmith
def test_probes_answered_after_compaction(case, eval_session):
    result = eval_session.run_eval("probe", case)
    # Validity first (compacted before the first question; at least one question's facts out of view), then each
    # probe kind the case asks: harness.suites.registry.SUITES["probe"], which the validity matrix proves.
    result.require_eval("probe")
