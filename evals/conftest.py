"""Eval session: options, LangSmith wiring, and a run directory written as tests finish.

Options (all optional): --model, --summary-model, --base-url, --summary-base-url,
--model-kwargs, --summary-model-kwargs (repeatable KEY=VALUE), --variant, --trigger
(repeatable), --keep, --window, --seed, --runs-dir, and the live limits --case-budget,
--max-rps, --max-tpm (as for `harness run`). Without --model the offline reference
models run.

A case that ends in a provider error after every retry (outcome ERROR) is reported by
pytest as an **error**, not a failure: the summary line reads "N errors" for an outage.
When --stop-after-errors cases in a row (default 3; 0: never) end in the same provider error,
the session stops spending retries: every later case is skipped with the cause and the count,
and pytest exits 4 (`harness.runs.outage`; under pytest-xdist each worker counts its own cases).
Nothing pytest prints (tracebacks, captured output) carries a secret: reports are passed
through `harness.redact`.

LangSmith: every eval carries ``@pytest.mark.langsmith``. With LANGSMITH_API_KEY set the
plugin turns the session into a LangSmith experiment and the scores are logged as
feedback (`harness.runs.langsmith_session`: tracing switched on as the plugin needs, a 30 s
budget and a breaker on every LangSmith request, a preflight that keeps the session local
when LangSmith does not answer, and only a compact trace summary unless
``--langsmith-traces full``). Without a key, test tracking and tracing are off before any
test runs, so nothing waits on the network. Results always go to the local run
directory, reports/runs/<run-id>/, with report.md, token_curves.png and langsmith.json.
"""

from __future__ import annotations

import os

if not os.environ.get("LANGSMITH_API_KEY"):
    # Without a key the langsmith pytest plugin would fail every marked test on
    # connection errors, and tracing would delay exit: keep both off.
    from harness.runs.langsmith_session import switch_off

    switch_off()

import pytest  # noqa: E402

from harness import _deepagents_adapter  # noqa: E402,F401  (fail early if deepagents is missing)
from harness.compaction.config import DEFAULT_PRESET  # noqa: E402
from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable  # noqa: E402
from harness.pytest_plugin import (  # noqa: E402
    OUTAGE_KEY,
    PytestEvalSession,
    mark_provider_error,
    outage_exit,
    provider_error_status,
)
from harness.runs.executor import EvalSession  # noqa: E402
from harness.scenarios.schema import Scenario  # noqa: E402
from harness.scoring.scorers import Score  # noqa: E402
from harness.suites.execute import eval_case_ids  # noqa: E402
from harness.suites.registry import SUITES  # noqa: E402

LANGSMITH = None  # the session's `harness.runs.langsmith_session.LangSmithSession`, set in pytest_configure


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """LangSmith set up (or off) before any test (`harness.runs.langsmith_session`), and pytest's terminal through
    `harness.redact`: no key in what it prints (tracebacks, warnings, summaries)."""
    global LANGSMITH
    from harness.runs.langsmith_session import start

    try:
        LANGSMITH = start(traces=config.getoption("--langsmith-traces", default="summary") or "summary")
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None
    from harness.redact import RedactingStream

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer = getattr(reporter, "_tw", None)
    if writer is not None and not isinstance(getattr(writer, "_file", None), RedactingStream):
        writer._file = RedactingStream(writer._file)  # noqa: SLF001 - TerminalWriter keeps its stream here


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("harness", "compaction harness evals")
    g.addoption("--model", default=None, help="agent model provider:name (default: offline reference agent)")
    g.addoption("--summary-model", default=None, help="summarizer model provider:name or 'reference'")
    g.addoption("--variant", default=DEFAULT_PRESET, help=f"threshold preset or variant file name (default {DEFAULT_PRESET})")
    g.addoption("--trigger", action="append", default=None, help="trigger size (20%%, tokens:12000, messages:40); repeatable")
    g.addoption("--keep", default=None, help="keep size, same syntax as --trigger")
    g.addoption("--window", default=None, help="declared context window in tokens")
    g.addoption(
        "--strategy",
        default=None,
        help="compaction strategy (harness/compaction/strategies/); evals that do not apply to it are skipped with the reason",
    )
    g.addoption("--seed", type=int, default=0, help="reference summarizer seed")
    g.addoption(
        "--validity-full",
        action="store_true",
        help="-m validity: the whole matrix (10 healthy seeds, every seeded fault; nightly) instead of CI's subset "
        "(3 seeds, the faults each eval names)",
    )
    g.addoption("--runs-dir", default="reports/runs", help="where the session's run directory goes")
    g.addoption(
        "--run-ahead",
        type=int,
        default=None,
        metavar="N",
        help="offline: N forked workers run the session's cases ahead of their tests (default: one per extra core, "
        "at most 3; 0: off). Results are recorded by the session in test order, identical to a run without",
    )
    g.addoption("--base-url", default=None, help="the agent model's OpenAI-compatible endpoint (vLLM, Ollama, harness serve)")
    g.addoption("--summary-base-url", default=None, help="the summarizer's endpoint (default: --base-url)")
    g.addoption("--model-kwargs", action="append", default=None, help="KEY=VALUE for init_chat_model (agent); repeatable")
    g.addoption("--summary-model-kwargs", action="append", default=None, help="KEY=VALUE for the summarizer; repeatable")
    from harness.cli.options import LIMIT_OPTIONS

    for flag, kwargs in LIMIT_OPTIONS:  # --case-budget, --max-rps, --max-tpm: as for `harness run`
        g.addoption(flag, **kwargs)
    g.addoption(
        "--langsmith-traces",
        default="summary",
        choices=["summary", "full"],
        help="with LANGSMITH_API_KEY: upload a compact trace summary per case (default) or every model call (full)",
    )


@pytest.fixture(scope="session")
def live_options(pytestconfig: pytest.Config) -> list[str]:
    """The options naming a live model or endpoint ("--model openai:gpt-5.2"), for the tests that prove the evals with
    the offline reference models only (the validity matrix, the reasoning eval's served arms): they skip under them."""
    return [
        f"{o} {v}"
        for o in ("--model", "--summary-model", "--base-url")
        if (v := pytestconfig.getoption(o)) not in (None, "reference")
    ]


def _eval_name(metafunc: pytest.Metafunc) -> str | None:
    names = [m.name for m in metafunc.definition.iter_markers() if m.name in SUITES]
    return names[0] if names else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``case``: the cases of the test's eval, from its registry entry (its marker names it)."""
    if "case" not in metafunc.fixturenames:
        return
    name = _eval_name(metafunc)
    if name is None:
        raise pytest.UsageError(f"{metafunc.definition.nodeid} takes `case` but carries no eval marker ({', '.join(SUITES)})")
    # Case ids, not Scenario objects: the langsmith plugin uploads a test's arguments as its inputs, and a
    # needle case's documents are ~100 KB.
    ids = eval_case_ids(name)
    metafunc.parametrize("case", ids, ids=ids)


class EvalsSession(PytestEvalSession):
    """The plugin's pytest session (a case not run is a skip), and the token-skew report in the run directory."""

    def token_skew(self, traces) -> dict:  # noqa: ANN001
        """Skew tables for ``traces``, also written to the session's run directory."""
        from harness.analysis.token_skew import skew
        from harness.report.skew_report import write_skew

        result = skew(traces)
        if self.sink is not None:
            write_skew(result, self.sink.path)
        return result


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ANN201
    outcome = yield
    mark_provider_error(outcome.get_result(), call)  # the plugin's rule: a provider error is an error, never a failure


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):  # noqa: ANN201
    return provider_error_status(report)


def _quiet():  # noqa: ANN202
    """Around an agent run: no LangSmith tracing of its model calls unless --langsmith-traces full."""
    import contextlib

    return LANGSMITH.quiet() if LANGSMITH is not None else contextlib.nullcontext()


def _log_to_langsmith(scenario: Scenario, row: dict, scores: list[Score], trace=None) -> None:  # noqa: ANN001
    """Inputs, a compact trace summary and the case's feedback by the one rule of every LangSmith path
    (`harness.runs.langsmith_export.feedback_for`). A LangSmith problem never fails an eval."""
    if LANGSMITH is None or not LANGSMITH.enabled:
        return
    from langsmith import testing as t

    try:
        t.log_inputs(
            {"case_id": scenario.id, "kind": scenario.kind, "task": scenario.task, "followups": list(scenario.followups)}
        )
        t.log_outputs(
            {
                "outcome": row["outcome"],
                "answers": row["answers"],
                "error": row["error"],
                "events": row["events"],
                "tokens": row["tokens"],
                "trace_summary": _trace_summary(trace),
            }
        )
        from harness.runs.langsmith_export import log_row_feedback

        # the export's rule (`feedback_for`): an INVALID or ERROR case adds nothing to a check's average
        log_row_feedback(row, {s.key: s.explanation for s in scores}, t.log_feedback)
    except Exception as exc:  # noqa: BLE001
        LANGSMITH.notes.append(f"{scenario.id}: not logged to LangSmith ({type(exc).__name__})")


def _trace_summary(trace) -> dict:  # noqa: ANN001
    """What the model saw, compactly: tokens per agent call and where compaction happened (no message bodies)."""
    if trace is None:
        return {}
    return {
        "agent_call_tokens": [c["approx_tokens"] for c in trace.agent_calls()],
        "events": [{"type": e["type"], "call": e.get("call")} for e in trace.events],
        "summarizer_calls": len(trace.summarizer_calls()),
    }


_SESSION: EvalSession | None = None


@pytest.fixture(scope="session")
def eval_session(pytestconfig: pytest.Config, request: pytest.FixtureRequest) -> EvalSession:
    global _SESSION
    opt = pytestconfig.getoption
    from types import SimpleNamespace

    from harness.agent.runner import case_budget
    from harness.cli.main import endpoints_from_args

    try:

        def given(*names: str) -> dict:
            """The session's options by their Python names (``summary_base_url`` is ``--summary-base-url``)."""
            return {name: opt("--" + name.replace("_", "-")) for name in names}

        endpoint_options = ("base_url", "summary_base_url", "model_kwargs", "summary_model_kwargs", "max_rps", "max_tpm")
        endpoints = endpoints_from_args(SimpleNamespace(**given(*endpoint_options)))
        _SESSION = EvalsSession.from_options(
            **given("variant", "trigger", "keep", "window", "strategy", "model", "summary_model", "seed"),
            endpoints=endpoints,
            case_budget_s=case_budget(opt("--case-budget")),
            runs_dir=opt("--runs-dir"),
            command="pytest evals/",
            run_id_suffix=os.environ.get("PYTEST_XDIST_WORKER"),  # under -n N, one run directory per worker (…-gw0)
            on_row=_log_to_langsmith,
            around_run=_quiet,
            stop_after_errors=opt("--stop-after-errors"),
        )
    except LiveModelUnavailable as exc:
        pytest.skip(str(exc))
    except EndpointUnreachable as exc:  # a provider problem, found before any case: ERROR's exit code, as the CLI's
        from harness.cli.options import EXIT_ERROR

        pytest.exit(f"error: {exc}", returncode=EXIT_ERROR)
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None
    workers = opt("--run-ahead")
    if workers is None:
        from harness.runs.ahead import default_workers

        workers = default_workers()
    under_xdist = os.environ.get("PYTEST_XDIST_WORKER") is not None  # a worker runs only the tests it is handed
    if workers > 0 and not under_xdist and (LANGSMITH is None or not LANGSMITH.enabled):
        _SESSION.run_ahead(_jobs(request.session.items), workers)
    return _SESSION


def _jobs(items: list[pytest.Item]) -> list[tuple[str, str, str | None]]:
    """The session's eval cases in test order, as `EvalSession.run_ahead` takes them: (eval, case id, fault or None)
    for every test with a ``case`` parameter and an eval marker."""
    jobs = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        names = [m.name for m in item.iter_markers() if m.name in SUITES]
        if "case" in params and names and isinstance(params["case"], str):
            jobs.append((names[0], params["case"], params.get("fault")))
    return jobs


@pytest.fixture(scope="session")
def langsmith_experiment_metadata(eval_session: EvalSession) -> dict:
    """Read by the langsmith plugin: tags the LangSmith experiment with the config and models."""
    from harness._version import __version__
    from harness.runs.run import git_commit

    cfg = eval_session.config.to_dict()
    return {
        "arm": cfg["name"],
        "strategy": cfg.get("strategy"),
        "trigger": cfg["trigger"],
        "keep": cfg["keep"],
        "window": cfg["window"],
        "summary_prompt": cfg["summary_prompt_name"],
        "model": eval_session.models.agent_name,
        "summary_model": eval_session.models.summarizer_name,
        "simulated": eval_session.models.simulated,
        "harness_version": __version__,
        "git_commit": git_commit(),
    }


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    global _OUTAGE
    _OUTAGE = outage_exit(session, _SESSION.stopped if _SESSION is not None else None, _WORKER_OUTAGES)  # exit 4
    if _SESSION is None:
        return
    from harness.report.run_report import write_report

    path = _SESSION.finish()
    if path is None:
        return
    if LANGSMITH is not None:
        import json

        (path / "langsmith.json").write_text(json.dumps({**LANGSMITH.summary(), "notes": LANGSMITH.notes}, indent=2) + "\n")
    report = write_report(path)
    session.config._harness_report = report  # noqa: SLF001
    if hasattr(session.config, "workeroutput"):  # an xdist worker: tell the controller where its results are
        session.config.workeroutput["harness_run"] = str(report.parent)


_WORKER_RUNS: list[str] = []
_WORKER_OUTAGES: list[str] = []  # on the xdist controller: why a worker's session stopped for an outage
_OUTAGE: str | None = None  # why this session (or a worker's) stopped for an outage, for the terminal summary


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ANN001 - pytest-xdist's hook, on the controller
    output = getattr(node, "workeroutput", {})
    if output.get("harness_run"):
        _WORKER_RUNS.append(output["harness_run"])
    if output.get(OUTAGE_KEY):
        _WORKER_OUTAGES.append(output[OUTAGE_KEY])


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ANN001
    if LANGSMITH is not None and (LANGSMITH.enabled or LANGSMITH.problem):
        terminalreporter.write_line(LANGSMITH.status_line())
    from harness.pytest_plugin import upstream_summary_lines

    for line in upstream_summary_lines(terminalreporter):
        terminalreporter.write_line(line)
    for run in sorted(_WORKER_RUNS):
        terminalreporter.write_line(f"harness results (one directory per xdist worker): {run}")
    if _OUTAGE is not None:
        terminalreporter.write_line(f"harness: {_OUTAGE}; exit 4")
    if _SESSION is not None and _SESSION.ahead_status:
        terminalreporter.write_line(f"harness: {_SESSION.ahead_status}")
    report = getattr(config, "_harness_report", None)
    if report is not None:
        terminalreporter.write_line(f"harness results: {report.parent} (report.md, token_curves.png, results.jsonl, traces/)")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The validity matrix first: its groups are the longest work units (tens of seconds per eval), so under
    pytest-xdist they start at once on every worker instead of trailing behind everything else on one."""
    items.sort(key=lambda item: item.get_closest_marker("validity") is None)
