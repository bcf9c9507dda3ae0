"""How a case's result ends its pytest test, on both fronts: a case not run is a skip, a provider error is an error
(never a failure), a known upstream failure an xfail, and an outage stops the session with exit 4.

Light on purpose: the plugin is loaded in every pytest run where the harness is installed, so nothing here imports
the agent stack (the eval session, `harness.pytest_plugin.session`, is imported when a front asks for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from harness.errors import ProviderOutage

if TYPE_CHECKING:
    from harness.rows import ResultRow


OUTAGE_KEY = "harness_outage"
"""An xdist worker's ``workeroutput`` key for the reason its session stopped for an outage (`outage_exit`)."""


def outage_exit(session: pytest.Session, stopped: str | None, workers: Sequence[str] = ()) -> str | None:
    """At the end of a pytest session: exit 4 (ERROR's code, as `harness run` exits) when the eval session, or an xdist
    worker's (``workers``: their reasons), stopped for an outage; an xdist worker passes its reason to the controller.
    Returns the reason to print, None when nothing stopped."""
    from harness.errors import EXIT_ERROR

    reason = stopped or (workers[0] if workers else None)
    if reason is None:
        return None
    if stopped and hasattr(session.config, "workeroutput"):
        session.config.workeroutput[OUTAGE_KEY] = stopped
    session.exitstatus = EXIT_ERROR
    return reason


ERROR_PROPERTY = ("harness_outcome", "ERROR")
"""A test report's user property marking a case that ended in a provider error (`mark_provider_error`)."""


def mark_provider_error(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> None:
    """A case that ended in a provider error (`harness.errors.ProviderOutage`) is reported as an error, never
    a failure: marked here, shown as ERROR by `provider_error_status`; and no secret in what pytest prints."""
    from harness.redact import redact

    if call.excinfo is not None and call.excinfo.errisinstance(ProviderOutage):
        report.user_properties.append(ERROR_PROPERTY)
    if report.longrepr is not None and not isinstance(report.longrepr, tuple):
        text = str(report.longrepr)
        clean = redact(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(name, redact(content)) for name, content in report.sections]


def provider_error_status(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """``pytest_report_teststatus``'s answer for a case marked by `mark_provider_error`: "N errors", never "N failed"."""
    if report.when == "call" and report.failed and ERROR_PROPERTY in report.user_properties:
        return "error", "E", "ERROR"
    return None


def apply_upstream_verdict(row: ResultRow | None) -> None:
    """End the running test as `harness.runs.results.upstream_verdict` says: xfail (strict in effect: the other
    branch fails the test) for a KNOWN_UPSTREAM case, a failure for a known upstream check that passed."""
    from harness.runs.results import upstream_verdict

    verdict = upstream_verdict(row) if row is not None else None
    if verdict is None:
        return
    kind, text = verdict
    if kind == "xfail":
        pytest.xfail(text)
    pytest.fail(text, pytrace=False)


def upstream_summary_lines(terminalreporter: Any) -> list[str]:
    """One line per known upstream failure the session xfailed (xdist workers' reports included), for the terminal
    summary."""
    from harness.runs.results import UPSTREAM_REASON

    return [
        f"KNOWN UPSTREAM {report.nodeid}: {report.wasxfail[len(UPSTREAM_REASON) + 2 :]}"
        for report in terminalreporter.stats.get("xfailed", [])
        if str(getattr(report, "wasxfail", "")).startswith(UPSTREAM_REASON)
    ]
