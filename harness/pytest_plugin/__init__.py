"""The harness's evals under pytest: one plugin (entry point ``pytest11``) for the harness's own ``evals/`` and for
anyone's repository, inert unless asked.

    pip install compaction-harness
    pytest --compaction-strategy mypkg.compaction:make          # every eval that applies, offline (simulated)
    pytest --compaction-strategy mypkg.compaction:make --compaction-evals needle,goal -n 2

Two fronts, one implementation (`harness.pytest_plugin.options`): in anyone's repository the options are prefixed
``--compaction-`` and the plugin adds nothing a test would see without ``--compaction-strategy``; the harness's own
``evals/conftest.py`` turns it on with the options unprefixed, plus LangSmith (each case logged by
`harness.langsmith.export.log_test_case`, the export's feedback rule) and the validity matrix's options. Every
eval whose registry entry has ``generated=True`` gets one test per case (`harness._plugin_evals`, marked with the
eval's name). How a result ends its test (a skip, an error for a provider error, an xfail, exit 4 after an outage):
`harness.pytest_plugin.verdicts`. Offline, ``--run-ahead N`` forked workers run cases ahead of their tests
(`harness.runs.pool.RunAhead`); rows are recorded in test order. The options: docs/evals.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.pytest_plugin.options import OWN, USER, Front, add_options, early_checks, front_of, given, session_config
from harness.pytest_plugin.verdicts import (
    OUTAGE_KEY,
    mark_provider_error,
    outage_exit,
    provider_error_status,
    upstream_summary_lines,
)

if TYPE_CHECKING:  # the agent stack: imported when a front asks for the eval session, never in a run with the plugin off
    from harness.compaction.config import CompactionConfig
    from harness.pytest_plugin.session import PytestEvalSession

OPTION = USER.flag("strategy")
EVALS_MODULE = Path(__file__).parent.parent / "_plugin_evals.py"
FRONT = pytest.StashKey[Front]()
STRATEGY = pytest.StashKey["str | None"]()  # the registered name of the strategy under test
# the session's compaction config, made and checked at configure time (`options.session_config`)
CONFIG: pytest.StashKey[CompactionConfig] = pytest.StashKey()
ASKED = pytest.StashKey[bool]()  # the early checks asked the live models' servers (`options.early_checks`)
REPORT = pytest.StashKey[Path]()  # the session's report.md
_OUTAGE = pytest.StashKey["str | None"]()  # why this session (or an xdist worker's) stopped for an outage

_SESSION: PytestEvalSession | None = None
_LANGSMITH: Any = None  # the session's `harness.langsmith.session.LangSmithSession` (the harness's own evals)
_WORKER_RUNS: list[str] = []  # on the xdist controller: each worker's run directory
_WORKER_OUTAGES: list[str] = []  # on the xdist controller: why a worker's session stopped for an outage
_WORKER_REFUSALS: list[str] = []  # on the xdist controller: why a worker's session refused its settings
REFUSED_KEY = "harness_refused"  # an xdist worker's ``workeroutput`` key for why its session refused its settings


def harness_evals(parser: pytest.Parser, evals_dir: str | Path) -> None:
    """The harness's own ``evals/conftest.py`` calls this from its ``pytest_addoption``: the plugin on for that
    directory, with its options unprefixed; LangSmith's test tracking and tracing off now when there is no key (the
    langsmith plugin would otherwise fail every marked test on connection errors, and tracing would delay exit)."""
    if not os.environ.get("LANGSMITH_API_KEY"):
        from harness.langsmith.session import switch_off

        switch_off()
    from importlib.util import find_spec

    if find_spec("deepagents") is None:  # fail early if deepagents is missing: found, not imported (the early checks first)
        raise ModuleNotFoundError("No module named 'deepagents': the evals run the real create_deep_agent", name="deepagents")

    add_options(parser, OWN, str(evals_dir))


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser, USER)


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """With ``--compaction-strategy``, collect the plugin's evals too (a file given on the command line is collected
    whatever the repository's ``python_files`` says)."""
    if any(a == OPTION or a.startswith(OPTION + "=") for a in args):
        args.append(str(EVALS_MODULE))


def selected_evals(config: pytest.Config, front: Front) -> list[str]:
    """The evals the plugin generates tests for: those ``--evals`` names (every generated one by default). Raises
    pytest.UsageError naming an unknown one."""
    from harness.errors import ConfigError
    from harness.suites.registry import standard_evals

    try:
        return standard_evals(config.getoption(front.flag("evals")), front.flag("evals"))
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """On a front: the strategy registered and the evals checked before collection (a mistake is a usage error, exit
    4, before anything runs), the evals' markers declared, LangSmith set up (or off), and pytest's terminal through
    `harness.redact`: no key in what it prints."""
    global _SESSION, _LANGSMITH
    _SESSION = _LANGSMITH = None
    front = front_of(config)
    if front is None:
        return
    from harness.errors import HarnessError
    from harness.suites.registry import SUITES

    config.stash[FRONT] = front
    selected_evals(config, front)
    sessions = config.getoption(front.flag("sessions")) or ()
    if sessions:  # the session eval's cases, checked before collection as every other option
        from harness.suites.execute import session_scenarios

        try:
            session_scenarios(sessions)
        except HarnessError as exc:
            raise pytest.UsageError(f"{front.flag('sessions')}: {exc}") from None
    strategy = config.getoption(front.flag("strategy"))
    try:  # a user's compactor registered for this process (each xdist worker too), found by `harness.user_code`'s rule
        config.stash[STRATEGY] = _registered(strategy, front)
    except HarnessError as exc:
        raise pytest.UsageError(f"{front.flag('strategy')}: {exc}" if front is USER else str(exc)) from None
    try:  # every option checked once, before any test is collected (under xdist, in the controller first)
        config.stash[CONFIG] = session_config(config, front, config.stash[STRATEGY])
        config.stash[ASKED] = early_checks(config, front, config.stash[CONFIG])  # models and servers, before anything is built
        if front.langsmith:
            from harness.langsmith.session import start

            _LANGSMITH = start(traces=config.getoption(front.flag("langsmith_traces")) or "summary")
    except HarnessError as exc:
        raise pytest.UsageError(front.spelled(str(exc))) from None
    for name, suite in SUITES.items():
        config.addinivalue_line("markers", f"{name}: {suite.description}")
    from harness.redact import RedactingStream

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer = getattr(reporter, "_tw", None)
    if writer is not None and not isinstance(getattr(writer, "_file", None), RedactingStream):
        writer._file = RedactingStream(writer._file)  # noqa: SLF001 - TerminalWriter keeps its stream here


def _registered(strategy: str | None, front: Front) -> str | None:
    """The strategy the session runs, by its registered name: a user's ``MODULE:ATTR`` registered for this process
    (`harness.compaction.strategies.registry.register`), a built-in name as given on the harness's own front. On a
    user's front a strategy's name is refused with where it does run: the plugin takes a compactor as MODULE:ATTR."""
    from harness.compaction.strategies.registry import register

    if not strategy or (front is OWN and ":" not in strategy):  # a name: `session_config` checks it
        return strategy
    if ":" not in strategy:
        from harness.compaction.strategies.names import strategy_names
        from harness.errors import ConfigError

        if strategy in strategy_names():
            raise ConfigError(
                f"{strategy!r} is a strategy's name; the plugin takes your own compactor as MODULE:ATTR (a factory, or "
                f"an object or module with INFO and build: docs/strategies.md). A named strategy runs with `harness run "
                f"--strategy {strategy}`, or in the harness's own repository `pytest evals/ --strategy {strategy}`"
            )
    return register(strategy)


def _eval_marker(node: Any) -> str | None:
    from harness.suites.registry import SUITES

    return next((m.name for m in node.iter_markers() if m.name in SUITES), None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``harness_eval``: the generated test (`harness._plugin_evals`), one item per (eval, case) of every selected
    eval, marked with the eval's name (and ``langsmith`` in the harness's own evals). ``case``: the cases of a test's
    own eval, from its registry entry (its marker names it). Case ids, not Scenario objects: the langsmith plugin
    uploads a test's arguments as its inputs, and a needle case's documents are ~100 KB."""
    front = metafunc.config.stash.get(FRONT, None)
    if front is None:
        return
    from harness.suites.execute import eval_case_ids

    sessions = metafunc.config.getoption(front.flag("sessions")) or ()  # loaded and checked by pytest_configure

    def ids(name: str) -> list[str]:
        return eval_case_ids(name, sessions)

    if "harness_eval" in metafunc.fixturenames:
        params = []
        for name in selected_evals(metafunc.config, front):
            marks = [getattr(pytest.mark, name), *_langsmith_marks(front, name)]
            params += [pytest.param((name, case), id=f"{name}-{case}", marks=marks) for case in ids(name)]
        metafunc.parametrize("harness_eval", params)
    elif "case" in metafunc.fixturenames:
        own = _eval_marker(metafunc.definition)
        if own is not None:
            metafunc.parametrize("case", ids(own), ids=ids(own))
        elif _in_evals_dir(metafunc.config, metafunc.definition.path):
            raise pytest.UsageError(f"{metafunc.definition.nodeid} takes `case` but carries no eval marker")


def _in_evals_dir(config: pytest.Config, path: Path) -> bool:
    from harness.pytest_plugin.options import EVALS_DIR

    evals_dir = config.getoption(EVALS_DIR, default=None)
    return evals_dir is not None and Path(evals_dir) in path.parents


def _langsmith_marks(front: Front, name: str) -> list[pytest.MarkDecorator]:
    """``langsmith`` on the harness's own evals, each eval its own LangSmith dataset as when each had its own module
    (``<repo>.test_<eval>``; ``LANGSMITH_TEST_SUITE`` still names one for all)."""
    if not front.langsmith:
        return []
    if os.environ.get("LANGSMITH_TEST_SUITE") or not (_LANGSMITH is not None and _LANGSMITH.enabled):
        return [pytest.mark.langsmith]
    from langsmith.env import get_git_info

    return [pytest.mark.langsmith(test_suite_name=f"{get_git_info()['repo_name']}.test_{name}")]


@pytest.fixture(scope="session")
def live_options(pytestconfig: pytest.Config) -> list[str]:
    """The options naming a live model or endpoint ("--model openai:gpt-5.2"), for the tests that prove the evals with
    the offline reference models only (the validity matrix, the reasoning eval's served arms): they skip under them."""
    front = pytestconfig.stash.get(FRONT, OWN)
    return [
        f"{front.flag(name)} {value}"
        for name, value in given(pytestconfig, front, "model", "summary_model", "base_url").items()
        if value not in (None, "reference")
    ]


def _open_session(config: pytest.Config, items: list[pytest.Item]) -> PytestEvalSession:
    """The session the evals run in, from the front's options (the config made at configure time): the reference
    models unless a model is named, the default preset unless a variant is; offline, cases run ahead in forked
    workers (`harness.runs.pool.RunAhead`). Raises what `EvalSession.from_options` raises (its pre-flight's
    ConfigError: a trigger at or below the fixed overhead)."""
    global _SESSION

    from harness.agent.endpoints import case_budget
    from harness.pytest_plugin.options import ENDPOINT_OPTIONS, SESSION_OPTIONS
    from harness.pytest_plugin.session import PytestEvalSession
    from harness.runs.settings import endpoints

    front = config.stash[FRONT]
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # under -n N, one run directory per worker (…-gw0)
    _SESSION = PytestEvalSession.from_options(
        **given(config, front, *SESSION_OPTIONS),
        config=config.stash[CONFIG],  # made from the front's options and checked at configure time
        endpoints=endpoints(**given(config, front, *ENDPOINT_OPTIONS)),
        case_budget_s=case_budget(config.getoption(front.flag("case_budget"))),
        runs_dir=config.getoption(front.flag("runs_dir")),
        command=front.command if front is OWN else f"{front.command} {config.getoption(OPTION)}",
        run_id_suffix=worker,
        on_row=_log_to_langsmith,
        around_run=_quiet,
        stop_after_errors=config.getoption(front.flag("stop_after_errors")),
        endpoints_answered=config.stash.get(ASKED, False),
        sessions=config.getoption(front.flag("sessions")) or (),
    )
    if worker is None and not (_LANGSMITH is not None and _LANGSMITH.enabled):  # an xdist worker runs the tests it is handed
        _SESSION.run_ahead(_jobs(items), config.getoption(front.flag("run_ahead")))
    return _SESSION


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """Before the first test, when a test asks for it: the eval session opened, so that a setting its pre-flight
    refuses (a trigger at or below the fixed overhead: ``--window 5000``) is said once, as a usage error (exit 4)
    before any test runs, not as every test's setup error. An xdist worker runs no test and hands the reason to the
    controller, which stops the session with it and exits 4 (`pytest_sessionfinish`). A missing key or a server that
    does not answer stays the fixture's to say (each eval skipped with the reason; exit 4)."""
    from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable

    config = session.config
    front = config.stash.get(FRONT, None)
    if front is None or config.option.collectonly or _SESSION is not None:
        return None
    if session.testsfailed and not config.option.continue_on_collection_errors:  # pytest stops at its collection errors
        return None
    if not any("eval_session" in getattr(item, "fixturenames", ()) for item in session.items):
        return None
    try:
        _open_session(config, session.items)
    except (LiveModelUnavailable, EndpointUnreachable):
        return None
    except HarnessError as exc:
        message = front.spelled(str(exc))
        if not hasattr(config, "workeroutput"):
            raise pytest.UsageError(message) from None
        config.workeroutput[REFUSED_KEY] = session.shouldstop = message  # xdist's controller stops with it
        return True
    return None


@pytest.fixture(scope="session")
def eval_session(pytestconfig: pytest.Config, request: pytest.FixtureRequest) -> PytestEvalSession:
    """The session the evals run in (`_open_session`), opened before the first test (`pytest_runtestloop`) or here."""
    from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable

    if pytestconfig.stash.get(FRONT, None) is None:
        raise pytest.UsageError("eval_session: the harness's pytest plugin is off (no --compaction-strategy)")
    if _SESSION is not None:
        return _SESSION
    try:
        return _open_session(pytestconfig, request.session.items)
    except LiveModelUnavailable as exc:
        pytest.skip(str(exc))
    except EndpointUnreachable as exc:  # a provider problem, found before any case: ERROR's exit code, as the CLI's
        from harness.errors import EXIT_ERROR

        pytest.exit(f"error: {exc}", returncode=EXIT_ERROR)
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None


def _jobs(items: list[pytest.Item]) -> list[tuple[str, str, str | None]]:
    """The session's eval cases in test order, as `EvalSession.run_ahead` takes them: (eval, case id, fault or None)
    for every generated test and every test with a ``case`` parameter and an eval marker."""
    jobs = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "harness_eval" in params:
            jobs.append((*params["harness_eval"], None))
        elif isinstance(params.get("case"), str) and (name := _eval_marker(item)) is not None:
            jobs.append((name, params["case"], params.get("fault")))
    return jobs


def _quiet() -> Any:
    """Around an agent run: no LangSmith tracing of its model calls unless --langsmith-traces full."""
    import contextlib

    return _LANGSMITH.quiet() if _LANGSMITH is not None else contextlib.nullcontext()


def _log_to_langsmith(scenario: Any, row: Any, scores: Any, trace: Any = None) -> None:
    """Each case to LangSmith by the one writer (`harness.langsmith.export.log_test_case`); a LangSmith problem
    never fails an eval."""
    if _LANGSMITH is None or not _LANGSMITH.enabled:
        return
    from harness.langsmith.export import log_test_case

    try:
        log_test_case(scenario, row, scores, trace)
    except Exception as exc:  # noqa: BLE001
        _LANGSMITH.notes.append(f"{scenario.id}: not logged to LangSmith ({type(exc).__name__})")


@pytest.fixture(scope="session")
def langsmith_experiment_metadata(request: pytest.FixtureRequest) -> dict[str, Any] | None:
    """Read by the langsmith plugin: tags the LangSmith experiment with the config and models as an export tags its
    experiments (`harness.langsmith.export.experiment_metadata`; None off a front)."""
    if request.config.stash.get(FRONT, None) is None:
        return None
    from harness.agent.assembly import agent_name
    from harness.langsmith.export import experiment_metadata
    from harness.runs.run import git_commit

    session = request.getfixturevalue("eval_session")
    cfg = session.config.to_dict()
    models = session.models
    return experiment_metadata(
        cfg,
        arm=cfg["name"],
        trigger=cfg["trigger"],
        model=models.agent_name,
        summary_model=models.summarizer_name,
        simulated=models.simulated,
        git_commit=git_commit(),
        agent=agent_name(session.run_settings.agent) if session.run_settings.agent is not None else None,
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):  # noqa: ANN201
    outcome = yield
    if FRONT in item.config.stash:
        mark_provider_error(outcome.get_result(), call)  # a provider error is an error, never a failure


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    return provider_error_status(report) if FRONT in config.stash else None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The validity matrix first: its groups are the longest work units (tens of seconds per eval), so under
    pytest-xdist they start at once on every worker instead of trailing behind everything else on one."""
    if FRONT in config.stash:
        items.sort(key=lambda item: item.get_closest_marker("validity") is None)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:  # pytest-xdist's hook, on the controller
    output = getattr(node, "workeroutput", {})
    if output.get("harness_run"):
        _WORKER_RUNS.append(output["harness_run"])
    if output.get(OUTAGE_KEY):
        _WORKER_OUTAGES.append(output[OUTAGE_KEY])
    if output.get(REFUSED_KEY):
        _WORKER_REFUSALS.append(output[REFUSED_KEY])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Exit 4 when the session (or an xdist worker's) stopped for an outage or refused its settings; the run
    directory finished with its report and langsmith.json; an xdist worker tells the controller where its results are."""
    if FRONT not in session.config.stash:
        return
    if _WORKER_REFUSALS:  # xdist printed the reason as it stopped the session (`pytest_runtestloop`)
        from harness.errors import EXIT_ERROR

        session.exitstatus = EXIT_ERROR
    session.config.stash[_OUTAGE] = outage_exit(session, _SESSION.stopped if _SESSION else None, _WORKER_OUTAGES)
    path = _SESSION.finish() if _SESSION is not None else None
    if path is None:
        return
    if _LANGSMITH is not None:
        import json

        (path / "langsmith.json").write_text(json.dumps({**_LANGSMITH.summary(), "notes": _LANGSMITH.notes}, indent=2) + "\n")
    from harness.report.run_report import write_report

    report = session.config.stash[REPORT] = write_report(path)
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["harness_run"] = str(report.parent)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    front = config.stash.get(FRONT, None)
    if front is None:
        return
    label = "harness" if front is OWN else "compaction-harness"
    if _LANGSMITH is not None and (_LANGSMITH.enabled or _LANGSMITH.problem):
        terminalreporter.write_line(_LANGSMITH.status_line())
    lines = upstream_summary_lines(terminalreporter)
    lines += [f"{label} results (one directory per xdist worker): {run}" for run in sorted(_WORKER_RUNS)]
    if (outage := config.stash.get(_OUTAGE, None)) is not None:
        lines.append(f"{label}: {outage}; exit 4")
    if _SESSION is not None and _SESSION.ahead_status:
        lines.append(f"{label}: {_SESSION.ahead_status}")
    if (report := config.stash.get(REPORT, None)) is not None:
        lines.append(f"{label} results: {report.parent} (report.md, token_curves.png, results.jsonl, traces/)")
    for line in lines:
        terminalreporter.write_line(line)
