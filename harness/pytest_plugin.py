"""The harness's evals in anyone's repository: a pytest plugin (entry point ``pytest11``), inert unless asked.

    pip install compaction-harness
    pytest --compaction-strategy mypkg.compaction:make          # every eval that applies, offline (simulated)
    pytest --compaction-strategy mypkg.compaction:make --compaction-evals needle,goal -n 2

``--compaction-strategy MODULE:ATTR`` names the compactor under test: an object or module with ``INFO`` and
``build`` (`harness.compaction.strategies.base.Strategy`), or a factory ``make(config, model, *, backend,
summarizer) -> StrategyStack``. With it, pytest also collects the harness's evals (`harness._plugin_evals`: one test
per eval and case, marked with the eval's name, so ``-m needle`` selects as in the harness's own ``evals/``) and runs
each as `harness.suites.execute` runs it, the user's strategy in place of deepagents' summarization. Results go to a
run directory with its report (``--compaction-runs-dir``, default reports/compaction-harness). Without the option
the plugin adds nothing: no test, no fixture a test would see, no network.

Options are prefixed (``--compaction-``) so they never clash with a repository's own.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.rows import ResultRow
from harness.runs.executor import EvalSession, ProviderOutage
from harness.runs.outage import OutageStopped
from harness.scenarios.schema import Scenario
from harness.suites.execute import CaseResult, NotRun
from harness.suites.registry import STANDARD_EVALS

OPTION = "--compaction-strategy"
EVALS_MODULE = Path(__file__).with_name("_plugin_evals.py")
STRATEGY = pytest.StashKey[str]()  # the registered name of the strategy under test
REPORT = pytest.StashKey[Path]()  # the session's report.md
GENERIC = STANDARD_EVALS


class PytestEvalSession(EvalSession):
    """`harness.runs.executor.EvalSession` as pytest runs it: a case not run is a skip with its reason; a known upstream
    failure (`harness.runs.results.upstream_verdict`) is an xfail with its link, and a declared known upstream check
    that passed fails the test as a strict xfail's XPASS does. After the outage stop (`harness.runs.outage`) every
    later case is a skip naming the cause and the count, and the session exits 4 (`outage_exit`)."""

    def run_eval(self, name: str, case: str | Scenario) -> CaseResult:
        try:
            result = super().run_eval(name, case)
        except (NotRun, OutageStopped) as exc:
            pytest.skip(str(exc))
        apply_upstream_verdict(result.row)
        return result

    def run_with_fault(self, case_id: str, fault: str) -> CaseResult:
        try:
            return super().run_with_fault(case_id, fault)
        except (NotRun, OutageStopped) as exc:
            pytest.skip(str(exc))


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
    """A case that ended in a provider error (`harness.runs.executor.ProviderOutage`) is reported as an error, never
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


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("compaction-harness", "compaction-harness evals against your own compactor (opt-in)")
    group.addoption(OPTION, metavar="MODULE:ATTR", default=None, help="your strategy; with it the harness's evals run")
    group.addoption(
        "--compaction-evals",
        metavar="NAMES",
        default=None,
        help=f"comma-separated evals to run (default: every one that applies: {', '.join(GENERIC)})",
    )
    group.addoption("--compaction-model", metavar="PROVIDER:NAME", default=None, help="the agent model (default: offline)")
    group.addoption("--compaction-variant", default=None, help="threshold preset or variant file (default forced-20)")
    group.addoption("--compaction-runs-dir", default="reports/compaction-harness", help="where the run directory goes")
    group.addoption(
        "--compaction-stop-after-errors",
        type=int,
        default=None,
        metavar="N",
        help="a live model: after N cases in a row end in the same provider error, skip the rest and exit 4 "
        "(default 3; 0: never)",
    )


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """With ``--compaction-strategy``, collect the harness's evals too (a file given on the command line is
    collected whatever the repository's ``python_files`` says)."""
    if any(a == OPTION or a.startswith(OPTION + "=") for a in args):
        args.append(str(EVALS_MODULE))


def _active(config: pytest.Config) -> bool:
    return config.getoption(OPTION, default=None) is not None


def selected_evals(config: pytest.Config) -> list[str]:
    """The evals ``--compaction-evals`` names (all of `GENERIC` by default). Raises pytest.UsageError naming an unknown
    one."""
    given = config.getoption("--compaction-evals")
    names = [n.strip() for n in given.split(",") if n.strip()] if given else list(GENERIC)
    unknown = [n for n in names if n not in GENERIC]
    if unknown:
        raise pytest.UsageError(f"--compaction-evals: no eval {unknown[0]!r}; choose from {', '.join(GENERIC)}")
    return names


def pytest_configure(config: pytest.Config) -> None:
    """With the option: the strategy registered and the evals checked before collection (a mistake is a usage error,
    exit 4, before anything runs), and the evals' markers declared."""
    if not _active(config):
        return
    from harness.compaction.strategies.registry import register
    from harness.errors import HarnessError

    selected_evals(config)
    try:
        config.stash[STRATEGY] = register(config.getoption(OPTION))
    except HarnessError as exc:
        raise pytest.UsageError(f"{OPTION}: {exc}") from None
    for name in GENERIC:
        config.addinivalue_line("markers", f"{name}: the compaction-harness {name} eval")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The plugin's test (`harness._plugin_evals`) gets one case per (eval, case), marked with the eval's name."""
    if "compaction_eval_case" not in metafunc.fixturenames:
        return
    from harness.suites.execute import eval_case_ids

    params = [
        pytest.param((name, case), id=f"{name}-{case}", marks=getattr(pytest.mark, name))
        for name in selected_evals(metafunc.config)
        for case in eval_case_ids(name)
    ]
    metafunc.parametrize("compaction_eval_case", params)


_SESSION: PytestEvalSession | None = None


@pytest.fixture(scope="session")
def compaction_session(pytestconfig: pytest.Config) -> PytestEvalSession:
    """The session the plugin's evals run in: the user's strategy registered, the reference models unless
    ``--compaction-model``, the default preset unless ``--compaction-variant``."""
    global _SESSION
    from harness.compaction.config import DEFAULT_PRESET
    from harness.errors import HarnessError

    opt = pytestconfig.getoption
    try:
        session = PytestEvalSession.from_options(
            variant=opt("--compaction-variant") or DEFAULT_PRESET,
            strategy=pytestconfig.stash[STRATEGY],
            model=opt("--compaction-model"),
            runs_dir=opt("--compaction-runs-dir"),
            command="pytest " + OPTION + " " + opt(OPTION),
            run_id_suffix=os.environ.get("PYTEST_XDIST_WORKER"),
            stop_after_errors=opt("--compaction-stop-after-errors"),
        )
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None
    _SESSION = session
    return session


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):  # noqa: ANN201
    outcome = yield
    if _active(item.config):
        mark_provider_error(outcome.get_result(), call)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    return provider_error_status(report) if _active(config) else None


_WORKER_OUTAGES: list[str] = []  # on the xdist controller: why a worker's session stopped for an outage


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:  # pytest-xdist's hook, on the controller
    reason = getattr(node, "workeroutput", {}).get(OUTAGE_KEY)
    if reason and _active(node.config):
        _WORKER_OUTAGES.append(reason)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _active(session.config) and _WORKER_OUTAGES:  # the xdist controller: a worker stopped, so the session exits 4
        outage_exit(session, None, _WORKER_OUTAGES)
    if _SESSION is None or _SESSION.sink is None:
        return
    from harness.report.run_report import write_report

    outage_exit(session, _SESSION.stopped)
    path = _SESSION.finish()
    assert path is not None
    session.config.stash[REPORT] = write_report(path)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _active(config):
        for line in upstream_summary_lines(terminalreporter):
            terminalreporter.write_line(line)
    stopped = _SESSION.stopped if _SESSION is not None else None
    if stopped or (_active(config) and _WORKER_OUTAGES):
        terminalreporter.write_line(f"compaction-harness: {stopped or _WORKER_OUTAGES[0]} (exit 4)")
    report = config.stash.get(REPORT, None)
    if report is not None:
        terminalreporter.write_line(f"compaction-harness results: {report.parent} (report.md, results.jsonl, traces/)")
