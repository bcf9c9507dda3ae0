"""A provider error is an error, never a failure, on both of the plugin's fronts (`harness.pytest_plugin`: a user's
repository with `--compaction-strategy`, and the harness's own evals/), and the plugin collects an xdist worker's
outage stop so its controller exits 4."""

from types import SimpleNamespace

import pytest

from harness import pytest_plugin
from harness.errors import ProviderOutage


def _call(exc: BaseException | None) -> pytest.CallInfo:
    return pytest.CallInfo.from_call(lambda: (_ for _ in ()).throw(exc) if exc else None, when="call")


def _report(call: pytest.CallInfo) -> pytest.TestReport:
    return pytest.TestReport(
        "t.py::x", ("t.py", 0, "x"), {}, "failed" if call.excinfo else "passed", "key=sk-live-1234567890abcdef", "call"
    )


def test_a_provider_error_is_marked_and_shown_as_an_error_a_failure_stays_a_failure():
    err = _call(ProviderOutage("agent: HTTP 503"))
    report = _report(err)
    pytest_plugin.mark_provider_error(report, err)
    assert pytest_plugin.provider_error_status(report) == ("error", "E", "ERROR")
    assert "sk-live" not in str(report.longrepr)  # no secret in what pytest prints
    fail = _call(AssertionError("needle_correct"))
    other = _report(fail)
    pytest_plugin.mark_provider_error(other, fail)
    assert pytest_plugin.provider_error_status(other) is None


def _config(front=None) -> SimpleNamespace:
    """A config on ``front`` (None: the plugin off, as in a repository's own run without the option)."""
    stash = pytest.Stash()
    if front is not None:
        stash[pytest_plugin.FRONT] = front
    return SimpleNamespace(stash=stash)


def test_the_plugin_applies_the_rule_only_when_asked():
    err = _call(ProviderOutage("agent: HTTP 503"))
    report = _report(err)
    pytest_plugin.mark_provider_error(report, err)
    assert pytest_plugin.pytest_report_teststatus(report, _config()) is None  # inert without the option
    for front in (pytest_plugin.USER, pytest_plugin.OWN):
        assert pytest_plugin.pytest_report_teststatus(report, _config(front)) == ("error", "E", "ERROR")


def test_an_xdist_workers_outage_reaches_the_plugins_controller(monkeypatch):
    monkeypatch.setattr(pytest_plugin, "_WORKER_OUTAGES", [])
    node = SimpleNamespace(workeroutput={pytest_plugin.OUTAGE_KEY: "stopped early: 3 cases in a row"})
    pytest_plugin.pytest_testnodedown(node, None)
    session = SimpleNamespace(config=_config(pytest_plugin.USER), exitstatus=0)
    monkeypatch.setattr(pytest_plugin, "_SESSION", None)
    pytest_plugin.pytest_sessionfinish(session, 0)
    assert session.exitstatus == 4
    off = SimpleNamespace(config=_config(), exitstatus=0)
    pytest_plugin.pytest_sessionfinish(off, 0)
    assert off.exitstatus == 0  # the plugin off: a repository's own session is not the plugin's to end
