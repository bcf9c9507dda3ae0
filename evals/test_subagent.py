"""Subagents: work delegated through the task tool compresses inside the subagent, and its report reaches the parent.

The parent hands batches of archive documents to deepagents' general-purpose subagent
(generated in memory by harness.scenarios.generate.delegation_scenario). Each batch is large
enough that the subagent's own summarization (the replacement is inherited by name)
fires inside it; the subagent's final report must come back as the task result, and the
parent must finish its task.
"""

import pytest

pytestmark = pytest.mark.subagent


@pytest.mark.langsmith
def test_delegated_work_compresses_inside_the_subagent_and_returns(case, eval_session):
    result = eval_session.run_eval("subagent", case)
    # Validity first (subagent_compressed: a summary inside the subagent), then the reports reached the
    # parent and the parent finished its task: harness.suites.registry.SUITES["subagent"].
    result.require_eval("subagent")
