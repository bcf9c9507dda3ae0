"""Eval session: options, LangSmith wiring, and a run directory written as tests finish.

Options (all optional): --model, --summary-model, --base-url, --summary-base-url,
--model-kwargs, --summary-model-kwargs (repeatable KEY=VALUE), --variant, --trigger
(repeatable), --keep, --window, --seed, --runs-dir, and the live limits --case-budget,
--max-rps, --max-tpm (as for `harness run`). Without --model the offline reference
models run.

A case that ends in a provider error after every retry (outcome ERROR) is reported by
pytest as an **error**, not a failure: the summary line reads "N errors" for an outage.
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

from dataclasses import dataclass  # noqa: E402

import pytest  # noqa: E402

from harness.agent import _deepagents_adapter  # noqa: E402,F401  (fail early if deepagents is missing)
from harness.agent.models import choose_models, summary_model_for  # noqa: E402
from harness.agent.runner import run_case_for  # noqa: E402
from harness.compaction.config import DEFAULT_PRESET
from harness.compaction.variants import make_config
from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable  # noqa: E402
from harness.runs.run import RunSink  # noqa: E402
from harness.scenarios.generate import generated_case  # noqa: E402
from harness.scenarios.schema import Scenario, all_scenario_files, load_scenarios, select  # noqa: E402
from harness.scoring.scorers import ERROR, VALIDITY, Score, score_case, scores_by_key  # noqa: E402
from harness.suites.registry import SUITES, EvalSuite  # noqa: E402

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


_SCENARIOS: list[Scenario] | None = None


def _scenarios() -> list[Scenario]:
    global _SCENARIOS
    if _SCENARIOS is None:
        _SCENARIOS = load_scenarios(all_scenario_files())
    return _SCENARIOS


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
    suite = SUITES[name]
    # Case ids, not Scenario objects: the langsmith plugin uploads a test's arguments as its inputs, and a
    # needle case's documents are ~100 KB.
    ids = [c.id for c in select(_scenarios(), kind=suite.kind)] if suite.kind else list(suite.case_ids)
    metafunc.parametrize("case", ids, ids=ids)


def _find_case(case_id: str) -> Scenario:
    found = next((s for s in _scenarios() if s.id == case_id), None)
    return found if found is not None else generated_case(case_id)


@dataclass
class CaseResult:
    scenario: Scenario
    scores: dict[str, Score]
    row: dict
    trace: object = None
    strategy: str = "deepagents-summarization"

    def require(self, key: str) -> None:
        """Assert one validity score or check, failing with its explanation."""
        score = self.scores.get(key)
        assert score is not None, f"{self.scenario.id}: no score {key!r}"
        label = "INVALID (the case did not test what it claims)" if score.role == VALIDITY else "failed"
        assert score.value, f"{self.scenario.id}: {key} {label}: {score.explanation}"

    def require_eval(self, name: str) -> None:
        """Assert everything eval ``name`` asserts (its ``required`` in ``harness.suites.registry``, the list the
        validity matrix proves): its validity scores first, then its checks, in order."""
        required = SUITES[name].required_of(self.strategy, set(self.scores))
        for key in sorted(required, key=lambda k: self.scores[k].role != VALIDITY if k in self.scores else False):
            self.require(key)


class EvalSession:
    def __init__(self, config: pytest.Config) -> None:
        opt = config.getoption
        self.seed = opt("--seed")
        self.config = make_config(
            opt("--variant"), trigger=opt("--trigger"), keep=opt("--keep"), window=opt("--window"), strategy=opt("--strategy")
        )
        self.agent_model = opt("--model")
        self.summary_model = summary_model_for(self.config.summary_model, opt("--summary-model"), variant=self.config.name)
        from types import SimpleNamespace

        from harness.cli.main import endpoints_from_args

        self.endpoints = endpoints_from_args(
            SimpleNamespace(
                base_url=opt("--base-url"),
                summary_base_url=opt("--summary-base-url"),
                model_kwargs=opt("--model-kwargs"),
                summary_model_kwargs=opt("--summary-model-kwargs"),
                max_rps=opt("--max-rps"),
                max_tpm=opt("--max-tpm"),
            )
        )
        from harness.agent.runner import case_budget

        self.case_budget_s = case_budget(opt("--case-budget"))
        self.models = choose_models(
            self.agent_model,
            self.summary_model,
            window=self.config.window,
            seed=self.seed,
            agent_endpoint=self.endpoints[0],
            summary_endpoint=self.endpoints[1],
        )
        if self.models.endpoints:  # once, before any case: a server that is not there stops the session (exit 4)
            from harness.agent.models import check_endpoints_answer

            check_endpoints_answer(*self.endpoints)
        self.runs_dir = opt("--runs-dir")
        self.sink: RunSink | None = None

    def run_with_fault(self, case_id: str, fault: str) -> CaseResult:
        """Run ``case_id`` with the session's agent and an injected summarizer fault."""
        from dataclasses import replace

        from harness.suites.faults import FaultySummarizer

        scenario = _find_case(case_id)
        models = replace(
            self.models, summarizer=FaultySummarizer(fault=fault), summarizer_name=f"faulty-summarizer:{fault}", simulated=True
        )
        # Its own variant label, so the session report does not pool injected failures with healthy runs.
        return self.run(
            scenario, models=models, config=replace(self.config, name=f"{self.config.name}+fault-{fault}"), eval_name="faults"
        )

    def run_eval(self, name: str, case: str | Scenario) -> CaseResult:
        """Run ``case`` as eval ``name``'s registry entry says: its preset (on the session's window unless the entry
        keeps the preset's), its scorer set, and for overflow a provider that rejects requests over its hard limit."""
        from dataclasses import replace

        suite: EvalSuite = SUITES[name]
        reason = suite.not_applicable_reason(self.config.strategy)
        if reason:
            pytest.skip(reason)
        scenario = case if isinstance(case, Scenario) else _find_case(case)
        config, models = self.config, self.models
        if suite.preset is not None:
            config = replace(
                make_config(suite.preset), strategy=self.config.strategy, custom_strategy=self.config.custom_strategy
            )
            if not suite.keep_preset_window:
                config = replace(config, window=self.config.window)
        if suite.hard_limit is not None:
            from harness.reference import ReferenceAgentModel

            agent = ReferenceAgentModel(profile={"max_input_tokens": config.window}, hard_input_limit=suite.hard_limit)
            models = replace(self.models, agent=agent, agent_name=f"reference-agent+limit-{suite.hard_limit}", simulated=True)
            config = replace(config, name=name)
        return self.run(scenario, models=models, config=config, scorers=suite.scorers, eval_name=name)

    def token_skew(self, traces) -> dict:  # noqa: ANN001
        """Skew tables for ``traces``, also written to the session's run directory."""
        from harness.analysis.token_skew import skew, write_skew

        result = skew(traces)
        if self.sink is not None:
            write_skew(result, self.sink.path)
        return result

    def run(self, scenario: Scenario | str, models=None, config=None, scorers: str = "default", eval_name=None) -> CaseResult:  # noqa: ANN001
        if isinstance(scenario, str):
            scenario = _find_case(scenario)
        from harness.agent.runner import offline_skip_reason

        reason = offline_skip_reason(scenario, models or self.models)
        if reason:
            pytest.skip(f"{scenario.id}: {reason}")
        if self.sink is None:
            with _quiet():  # the overhead probe runs an agent too
                self.sink = RunSink(
                    _scenarios(),
                    self.config,
                    agent_model=self.agent_model,
                    summary_model=self.summary_model,
                    seed=self.seed,
                    trials=1,
                    out_dir=self.runs_dir,
                    command="pytest evals/",
                    run_id=_run_id(self.config),
                    progress=lambda line: None,
                    agent_endpoint=self.endpoints[0],
                    summary_endpoint=self.endpoints[1],
                )
        with _quiet():
            trace = run_case_for(
                scenario,
                config or self.config,
                models or self.models,
                run_id=self.sink.run.run_id,
                seed=self.seed,
                budget_s=self.case_budget_s,
            )
        scores = score_case(trace, scenario, scorers)
        row = self.sink.record(trace, scores, scenario, scorers=scorers, eval_name=eval_name)
        _log_to_langsmith(scenario, row, scores, trace)
        if row["outcome"] == ERROR:
            cause = ", ".join(row["outcome_keys"])
            raise ProviderOutage(
                f"{scenario.id}: ERROR ({cause}), a provider error after every retry; counted in no rate, "
                f"not a failed eval: {(row.get('error') or {}).get('message', '')[:300]}"
            )
        return CaseResult(scenario, scores_by_key(scores), row, trace, (config or self.config).strategy)


def _run_id(config) -> str | None:  # noqa: ANN001
    """Under pytest-xdist (-n N) each worker writes its own run directory, named after the worker (…-gw0, …-gw1)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return None
    from harness.runs.run import new_run_id

    return f"{new_run_id(config.name)}-{worker}"


class ProviderOutage(Exception):
    """A case ended in ERROR. pytest reports it as an error (see `pytest_report_teststatus`), never as a failure."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ANN201
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(ProviderOutage):
        report.user_properties.append(("harness_outcome", ERROR))
    _redact_report(report)


def _redact_report(report: pytest.TestReport) -> None:
    """No secret in what pytest prints: the traceback and captured output go through `harness.redact`."""
    from harness.redact import redact

    if report.longrepr is not None and not isinstance(report.longrepr, tuple):
        text = str(report.longrepr)
        clean = redact(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(name, redact(content)) for name, content in report.sections]


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):  # noqa: ANN201
    if report.when == "call" and report.failed and ("harness_outcome", ERROR) in report.user_properties:
        return "error", "E", "ERROR"
    return None


def _quiet():  # noqa: ANN202
    """Around an agent run: no LangSmith tracing of its model calls unless --langsmith-traces full."""
    import contextlib

    return LANGSMITH.quiet() if LANGSMITH is not None else contextlib.nullcontext()


def _log_to_langsmith(scenario: Scenario, row: dict, scores: list[Score], trace=None) -> None:  # noqa: ANN001
    """Inputs, a compact trace summary and one feedback per score. A LangSmith problem never fails an eval."""
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
        for score in scores:
            if isinstance(score.value, (bool, int, float)) and score.value is not None:
                t.log_feedback(key=score.key, score=float(score.value), comment=score.explanation[:500])
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
def eval_session(pytestconfig: pytest.Config) -> EvalSession:
    global _SESSION
    try:
        _SESSION = EvalSession(pytestconfig)
    except LiveModelUnavailable as exc:
        pytest.skip(str(exc))
    except EndpointUnreachable as exc:  # a provider problem, found before any case: ERROR's exit code, as the CLI's
        from harness.cli.options import EXIT_ERROR

        pytest.exit(f"error: {exc}", returncode=EXIT_ERROR)
    except HarnessError as exc:
        raise pytest.UsageError(str(exc)) from None
    return _SESSION


@pytest.fixture(scope="session")
def langsmith_experiment_metadata(eval_session: EvalSession) -> dict:
    """Read by the langsmith plugin: tags the LangSmith experiment with the config and models."""
    from harness import __version__
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
    if _SESSION is None or _SESSION.sink is None:
        return
    from harness.report.run_report import write_report

    run = _SESSION.sink.finish()
    if LANGSMITH is not None:
        import json

        (run.path / "langsmith.json").write_text(json.dumps({**LANGSMITH.summary(), "notes": LANGSMITH.notes}, indent=2) + "\n")
    report = write_report(run.path)
    session.config._harness_report = report  # noqa: SLF001
    if hasattr(session.config, "workeroutput"):  # an xdist worker: tell the controller where its results are
        session.config.workeroutput["harness_run"] = str(report.parent)


_WORKER_RUNS: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ANN001 - pytest-xdist's hook, on the controller
    run = getattr(node, "workeroutput", {}).get("harness_run")
    if run:
        _WORKER_RUNS.append(run)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ANN001
    if LANGSMITH is not None and (LANGSMITH.enabled or LANGSMITH.problem):
        terminalreporter.write_line(LANGSMITH.status_line())
    for run in sorted(_WORKER_RUNS):
        terminalreporter.write_line(f"harness results (one directory per xdist worker): {run}")
    report = getattr(config, "_harness_report", None)
    if report is not None:
        terminalreporter.write_line(f"harness results: {report.parent} (report.md, token_curves.png, results.jsonl, traces/)")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The validity matrix first: its groups are the longest work units (tens of seconds per eval), so under
    pytest-xdist they start at once on every worker instead of trailing behind everything else on one."""
    items.sort(key=lambda item: item.get_closest_marker("validity") is None)
