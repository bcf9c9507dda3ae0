"""A session of evals written to one run directory: `harness.suites.execute` runs each case as its eval, and
`EvalSession` records it (results.jsonl, traces/), as `pytest evals/` and `harness.evaluate` both need."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from harness.agent.models import Endpoint, ModelChoice, summary_model_for
from harness.compaction.config import DEFAULT_PRESET, CompactionConfig
from harness.compaction.variants import make_config
from harness.rows import ResultRow
from harness.runs.jobs import Job as PlannedJob
from harness.runs.jobs import Preflight, RunSettings, check, preflight, run_job
from harness.runs.outage import OutageStopped, OutageWatch
from harness.runs.outage import stop_after_errors as stop_setting
from harness.scenarios.schema import Scenario
from harness.scoring.scorers import ERROR, Score
from harness.suites.execute import CaseResult, Settings, find_case, shipped_scenarios
from harness.suites.registry import SUITES
from harness.trace.schema import Trace

if TYPE_CHECKING:
    from harness.runs.ahead import Job, RunAhead
    from harness.runs.run import RunSink


class ProviderOutage(Exception):
    """The case ended in ERROR (a provider error after every retry): counted in no rate, never a failed eval."""


class EvalSession:
    """Cases run as evals under one session's settings, each recorded in one run directory as it finishes (results.jsonl,
    traces/, report.md when finished): what `pytest evals/` and `evaluate` both use.

    ``on_row(scenario, row, scores, trace)`` is called after each case (the pytest session logs it to LangSmith there);
    ``around_run`` wraps each agent run (the pytest session keeps LangSmith tracing quiet there); ``run_id_suffix``
    names the run directory after its process (pytest-xdist's worker). ``stop_after_errors`` is the outage stop
    (`harness.runs.outage`; None: the default, 0: never): once that many cases in a row end in the same provider
    error, every later case raises `OutageStopped` without running (``stopped`` says why)."""

    def __init__(
        self,
        settings: Settings,
        *,
        runs_dir: str | Path = "reports/runs",
        agent_model: str | None = None,
        summary_model: str | None = None,
        endpoints: tuple[Endpoint, Endpoint] | None = None,
        command: str = "harness.evaluate",
        run_id: str | None = None,
        run_id_suffix: str | None = None,
        on_row: Callable[[Scenario, ResultRow, list[Score], Trace], None] | None = None,
        around_run: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
        stop_after_errors: int | None = None,
        run_settings: RunSettings | None = None,
        checked: Preflight | None = None,
    ) -> None:
        self.settings = settings
        # what the session's jobs share (`harness.runs.jobs`), and its pre-flight when `from_options` made it
        self.run_settings = run_settings or RunSettings(agent_model, summary_model, endpoints or (Endpoint(), Endpoint()))
        self.checked = checked
        self.runs_dir = runs_dir
        self.agent_model, self.summary_model = agent_model, summary_model
        self.endpoints = endpoints or (Endpoint(), Endpoint())
        self.command, self.run_id, self.run_id_suffix = command, run_id, run_id_suffix
        self.on_row, self.around_run = on_row, around_run
        self.sink: RunSink | None = None
        self.ahead: RunAhead | None = None
        self.ahead_status = ""  # after `finish`: what ran ahead ("12 of 20 cases ran ahead in 1 forked worker")
        self.watch = OutageWatch(stop_setting(stop_after_errors))  # fed each case as it is recorded
        self.not_run_after_stop: list[str] = []  # "eval:case" of each case the stop left out

    @property
    def stopped(self) -> str | None:
        """Why the session stopped for an outage (`harness.runs.outage`), with how many cases it has left out since;
        None while it goes on."""
        if self.watch.message is None:
            return None
        return f"{self.watch.message}; {len(self.not_run_after_stop)} case(s) not run since"

    def _check_stopped(self, name: str, case_id: str) -> None:
        """Raise `OutageStopped` (and count the case as not run) once the session has stopped for an outage."""
        if self.watch.message is not None:
            self.not_run_after_stop.append(f"{name}:{case_id}")
            raise OutageStopped(f"not run: the session {self.watch.message}")

    @classmethod
    def from_options(
        cls,
        *,
        variant: str = DEFAULT_PRESET,
        trigger: list[str] | None = None,
        keep: str | None = None,
        window: int | str | None = None,
        strategy: str | None = None,
        model: str | None = None,
        summary_model: str | None = None,
        endpoints: tuple[Endpoint, Endpoint] | None = None,
        seed: int = 0,
        case_budget_s: float | None = None,
        endpoints_answered: bool = False,
        **session: Any,
    ) -> Self:
        """A session from the options `harness run` and `pytest evals/` take (``model=None``: the offline reference
        models). Raises ConfigError for a bad option, LiveModelUnavailable without a key, EndpointUnreachable when a
        base URL does not answer (checked once, before any case; not again when ``endpoints_answered``: the door's early
        checks asked, `harness.runs.early`)."""
        config = make_config(variant, trigger=trigger, keep=keep, window=window, strategy=strategy)
        summary = summary_model_for(config.summary_model, summary_model, variant=config.name)
        agent_endpoint, summary_endpoint = endpoints or (Endpoint(), Endpoint())
        run_settings = RunSettings(model, summary, (agent_endpoint, summary_endpoint), case_budget_s)
        with session.get("around_run", contextlib.nullcontext)():  # the overhead probe runs an agent too
            checked = preflight(
                [("", config)],
                shipped_scenarios(),
                run_settings,
                progress=lambda line: None,
                endpoints_answered=endpoints_answered,
            )
        settings = Settings(config, run_settings.models(config, seed), seed, case_budget_s)
        return cls(
            settings,
            agent_model=model,
            summary_model=summary,
            endpoints=(agent_endpoint, summary_endpoint),
            run_settings=run_settings,
            checked=checked,
            **session,
        )

    @property
    def config(self) -> CompactionConfig:
        return self.settings.config

    @property
    def models(self) -> ModelChoice:
        return self.settings.models

    def _sink(self) -> RunSink:
        if self.sink is None:
            from harness.runs.run import RunSink, new_run_id

            run_id = self.run_id
            if run_id is None and self.run_id_suffix:
                run_id = f"{new_run_id(self.config.name)}-{self.run_id_suffix}"
            with self.around_run():  # the overhead probe runs an agent too
                self.sink = RunSink(
                    shipped_scenarios(),
                    self.config,
                    agent_model=self.agent_model,
                    summary_model=self.summary_model,
                    seed=self.settings.seed,
                    trials=1,
                    out_dir=self.runs_dir,
                    command=self.command,
                    run_id=run_id,
                    progress=lambda line: None,
                    agent_endpoint=self.endpoints[0],
                    summary_endpoint=self.endpoints[1],
                    checked=self.checked,  # the session's pre-flight, run once by `from_options`
                )
        return self.sink

    @property
    def can_run_ahead(self) -> bool:
        """Cases may run ahead in forked workers (`run_ahead`): offline models only (a live model's calls belong under
        their test, and its rate limits in one process), on a machine with a second core."""
        return self.models.simulated and not self.models.endpoints and (os.cpu_count() or 1) > 1

    def run_ahead(self, jobs: list[Job], workers: int = 1) -> bool:
        """Start ``workers`` forked processes running ``jobs`` ((eval, case id, fault or None), in the order the
        caller will ask for them) from the end (`harness.runs.ahead`); `run_eval` and `run_with_fault` then take a
        job's result from them or run it in place. False (nothing started) when it cannot help or is not safe: a live
        session, one core, fewer than 4 jobs, or other threads running."""
        from harness._fork import can_fork
        from harness.runs.ahead import RunAhead

        if self.ahead is not None or len(jobs) < 4 or not self.can_run_ahead:
            return False
        self._sink()  # before the fork: the run id, and the overhead probe run once
        if not can_fork():
            return False
        self.ahead = RunAhead(jobs, self._run_job, workers)
        return True

    def _run_job(self, job: Job) -> CaseResult:
        name, case_id, fault = job
        return self._run(PlannedJob(name, find_case(case_id), self.config, 0, self.settings.seed, fault=fault))

    def _run(self, job: PlannedJob) -> CaseResult:
        """Run ``job`` (`harness.runs.jobs.run_job`) under the session's settings; NotRun before anything is written
        (a case not run leaves no run directory behind)."""
        check(job, self.run_settings)
        sink = self._sink()
        with self.around_run():
            return run_job(job, replace(self.run_settings, run_id=sink.run.run_id))

    def _taken(self, job: Job) -> CaseResult | None:
        if self.ahead is None:
            return None
        done, result = self.ahead.take(job)
        return result if done else None

    def run_eval(self, name: str, case: str | Scenario) -> CaseResult:
        """Run ``case`` as eval ``name`` (`run_eval_case`) and record it. Raises NotRun (a skip, with its reason),
        ProviderOutage (the case ended in ERROR: recorded, counted in no rate) and OutageStopped (not run: the session
        stopped for an outage)."""
        self._check_stopped(name, case.id if isinstance(case, Scenario) else case)
        if isinstance(case, Scenario):
            result = self._run(PlannedJob(name, case, self.config, 0, self.settings.seed))
        else:
            job = (name, case, None)
            result = self._taken(job) or self._run_job(job)
        return self._record(result, eval_name=name)

    def run_with_fault(self, case_id: str, fault: str) -> CaseResult:
        """Run ``case_id`` with the session's agent and an injected summarizer fault (the faults eval)."""
        self._check_stopped("faults", case_id)
        job = ("faults", case_id, fault)
        return self._record(self._taken(job) or self._run_job(job), eval_name="faults")

    def _record(self, result: CaseResult, *, eval_name: str) -> CaseResult:
        assert result.trace is not None
        scores = list(result.scores.values())
        scorers = SUITES[eval_name].scorers
        row = self._sink().record(result.trace, scores, result.scenario, scorers=scorers, eval_name=eval_name)
        result.row = row
        if self.on_row is not None:
            self.on_row(result.scenario, row, scores, result.trace)
        stops = self.watch.see(row.get("error"))
        if row["outcome"] == ERROR:
            cause = ", ".join(row["outcome_keys"])
            raise ProviderOutage(
                f"{result.scenario.id}: ERROR ({cause}), a provider error after every retry; counted in no rate, "
                f"not a failed eval: {(row.get('error') or {}).get('message', '')[:300]}"
                + (f"\nthe session {self.watch.message}: the cases after this one are not run" if stops else "")
            )
        return result

    def finish(self) -> Path | None:
        """Close the run directory (meta.json's finish time) and return it (None when no case ran). The report is the
        caller's (`harness.report.run_report.write_report`, a layer above)."""
        if self.ahead is not None:
            self.ahead.close()
            self.ahead_status = self.ahead.status_line()
            self.ahead = None
        if self.sink is None:
            return None
        if self.watch.message is not None:  # an outage stop: said in meta.json and the report, as `harness run` says it
            self.sink.stop(
                self.watch.message,
                [(entry, 0) for entry in self.not_run_after_stop],
                "run the same command again once the provider answers (this session's cases are not resumed)",
            )
        return self.sink.finish().path
