"""The eval session as pytest runs it (`PytestEvalSession`): imported by the plugin only when a front asks for its
``eval_session`` fixture, so a pytest run with the plugin off never imports the agent stack."""

from __future__ import annotations

from typing import Any

import pytest

from harness.pytest_plugin.verdicts import apply_upstream_verdict
from harness.runs.executor import EvalSession
from harness.runs.outage import OutageStopped
from harness.scenarios.schema import Scenario
from harness.suites.execute import CaseResult, NotRun


class PytestEvalSession(EvalSession):
    """`harness.runs.executor.EvalSession` as pytest runs it: a case not run is a skip with its reason; a known upstream
    failure (`harness.runs.results.upstream_verdict`) is an xfail with its link, and a declared known upstream check
    that passed fails the test as a strict xfail's XPASS does. After the outage stop (`harness.runs.outage`) every
    later case is a skip naming the cause and the count, and the session exits 4 (`outage_exit`)."""

    def run_eval(self, name: str, case: str | Scenario, fault: str | None = None) -> CaseResult:
        try:
            result = super().run_eval(name, case, fault)
        except (NotRun, OutageStopped) as exc:
            pytest.skip(str(exc))
        apply_upstream_verdict(result.row)
        return result

    def token_skew(self, traces: list[Any]) -> dict[str, Any]:
        """Skew tables for ``traces`` (`harness.analysis.token_skew`), also written to the session's run directory."""
        from harness.analysis.token_skew import skew
        from harness.report.skew_report import write_skew

        result = skew(traces)
        if self.sink is not None:
            write_skew(result, self.sink.path)
        return result
