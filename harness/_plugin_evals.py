"""The generated eval test (`harness.pytest_plugin`): parametrized per eval and case from the registry (every entry with
``generated=True``, marked with the eval's name), it runs the case as the eval and asserts what the eval asserts
(validity first, then its checks: `harness.suites.registry.SUITES[name].required`). Collected with
``--compaction-strategy`` in anyone's repository, and as ``evals/test_evals.py`` in the harness's own."""

from __future__ import annotations


def test_eval(harness_eval, eval_session):  # noqa: ANN001 - pytest fixtures
    name, case = harness_eval
    eval_session.run_eval(name, case).require_eval(name)
