"""The harness's evals as the pytest plugin collects them (`harness.pytest_plugin`, with ``--compaction-strategy``):
one test, parametrized per eval and case, that runs the case as the eval and asserts what the eval asserts
(validity first, then its checks: `harness.suites.registry.SUITES[name].required`)."""

from __future__ import annotations


def test_compaction_eval(compaction_eval_case, compaction_session):  # noqa: ANN001 - pytest fixtures
    name, case = compaction_eval_case
    compaction_session.run_eval(name, case).require_eval(name)
