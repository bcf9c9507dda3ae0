"""A session of evals written to one run directory: `harness.suites.execute` runs each case as its eval, and
`EvalSession` records it (results.jsonl, traces/), as `pytest evals/` and `harness.evaluate` both need."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from harness.agent.assembly import AgentSpec
from harness.agent.models import Endpoint, summary_model_for
from harness.compaction.config import DEFAULT_PRESET, CompactionConfig
from harness.compaction.variants import make_config
from harness.errors import ProviderOutage
from harness.rows import ResultRow
from harness.runs.jobs import Job, Preflight, RunSettings, check, preflight, run_job
from harness.runs.outage import OutageStopped, OutageWatch
from harness.runs.outage import stop_after_errors as stop_setting
from harness.scenarios.schema import Scenario
from harness.scoring.scorers import ERROR, Score
from harness.suites.execute import CaseResult, find_case, session_scenarios, shipped_scenarios
from harness.trace.schema import Trace

if TYPE_CHECKING:
    from harness.runs.pool import RunAhead
    from harness.runs.run import RunSink

AheadKey = tuple[str, str, str | None]  # a job run ahead: (eval, case id, seeded summarizer fault or None)


class EvalSession:
    """Cases run as evals under one session's settings, each recorded in one run directory as it finishes: what
    `pytest evals/` and `evaluate` both use. ``on_row(scenario, row, scores, trace)`` is called after each case and
    ``around_run`` wraps each agent run (the pytest session's LangSmith logging and quiet tracing); ``run_id_suffix``
    names the run directory after its process (an xdist worker); after the outage stop (``stop_after_errors``,
    `harness.runs.outage`) every later case raises `OutageStopped` without running."""

    def __init__(
        self,
        config: CompactionConfig,
        run_settings: RunSettings,
        *,
        seed: int = 0,
        checked: Preflight | None = None,
        runs_dir: str | Path = "reports/runs",
        command: str = "harness.evaluate",
        run_id: str | None = None,
        run_id_suffix: str | None = None,
        on_row: Callable[[Scenario, ResultRow, list[Score], Trace], None] | None = None,
        around_run: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
        stop_after_errors: int | None = None,
        sessions: Sequence[str | Path] = (),
    ) -> None:
        self.config, self.run_settings, self.seed, self.checked = config, run_settings, seed, checked
        self.sessions = tuple(str(p) for p in sessions)  # session datasets: the session eval's cases (`eval_cases`)
        self.models = run_settings.models(config, seed)
        self.runs_dir, self.command, self.run_id, self.run_id_suffix = runs_dir, command, run_id, run_id_suffix
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
        config: CompactionConfig | None = None,
        agent: AgentSpec | None = None,
        **session: Any,
    ) -> Self:
        """A session from the options `harness run` and `pytest evals/` take (``model=None``: the offline reference
        models). Raises ConfigError for a bad option, LiveModelUnavailable without a key, EndpointUnreachable when a
        base URL does not answer (checked once, before any case; not again when ``endpoints_answered``: the door's early
        checks asked, `harness.runs.early`). ``config``: the config a door already made from ``variant`` to ``strategy``
        for its early checks, so it is not made twice; ``agent``: the user's own assembly every case runs on
        (`harness.agent.assembly`)."""
        if config is None:
            config = make_config(variant, trigger=trigger, keep=keep, window=window, strategy=strategy)
        summary = summary_model_for(config.summary_model, summary_model, variant=config.name)
        run_settings = RunSettings(model, summary, endpoints or (Endpoint(), Endpoint()), case_budget_s, agent=agent)
        with session.get("around_run", contextlib.nullcontext)():  # the overhead probe runs an agent too
            checked = preflight(
                [("", config)],
                shipped_scenarios(),
                run_settings,
                progress=lambda line: None,
                endpoints_answered=endpoints_answered,
            )
        return cls(config, run_settings, seed=seed, checked=checked, **session)

    def _settings(self) -> RunSettings:
        """The settings the session's jobs run under, the run directory made first (its run id goes in every trace)."""
        if self.sink is None:
            from harness.runs.run import RunSink, new_run_id

            run_id = self.run_id
            if run_id is None and self.run_id_suffix:
                run_id = f"{new_run_id(self.config.name)}-{self.run_id_suffix}"
            with self.around_run():  # the overhead probe runs an agent too
                self.sink = RunSink(
                    [*session_scenarios(self.sessions), *shipped_scenarios()],  # meta.json hashes every dataset used
                    self.config,
                    self.run_settings,
                    seed=self.seed,
                    trials=1,
                    out_dir=self.runs_dir,
                    command=self.command,
                    run_id=run_id,
                    progress=lambda line: None,
                    checked=self.checked,  # the session's pre-flight, run once by `from_options`
                )
        return replace(self.run_settings, run_id=self.sink.run.run_id)

    @property
    def can_run_ahead(self) -> bool:
        """Cases may run ahead in forked workers (`run_ahead`): offline models only (a live model's calls belong under
        their test, and its rate limits in one process), on a machine with a second core, and an assembly (``agent``)
        named as ``module:function`` when there is one (a function given itself may not travel to a worker)."""
        agent = self.run_settings.agent
        travels = agent is None or isinstance(agent, str)
        return travels and self.models.simulated and not self.models.endpoints and (os.cpu_count() or 1) > 1

    def run_ahead(self, jobs: list[AheadKey], workers: int | None = None) -> bool:
        """Start ``workers`` forked processes (None: `harness.runs.pool.default_workers`) running ``jobs`` ((eval, case
        id, fault or None), in the order the caller will ask for them) from the end (`harness.runs.pool.RunAhead`);
        `run_eval` then takes a job's result from them or runs it in place. False (nothing started) when it cannot help
        or is not safe: no workers, a live session, one core, fewer than 4 jobs, or other threads running."""
        from harness._fork import can_fork
        from harness.runs.pool import RunAhead, default_workers

        workers = default_workers() if workers is None else workers
        if workers < 1 or self.ahead is not None or len(jobs) < 4 or not self.can_run_ahead:
            return False
        settings = self._settings()  # before the fork: the run id, and the overhead probe run once
        if not can_fork():
            return False
        planned = {key: Job(key[0], find_case(key[1], self.sessions), self.config, 0, self.seed, fault=key[2]) for key in jobs}
        self.ahead = RunAhead(planned, settings, workers)
        return True

    def run_eval(self, name: str, case: str | Scenario, fault: str | None = None) -> CaseResult:
        """Run ``case`` as eval ``name`` (`run_eval_case`; ``fault``: a seeded summarizer fault, the faults eval) and
        record it. Raises NotRun (a skip, with its reason), ProviderOutage (the case ended in ERROR: recorded, counted
        in no rate) and OutageStopped (not run: the session stopped for an outage)."""
        case_id = case.id if isinstance(case, Scenario) else case
        if self.watch.message is not None:
            self.not_run_after_stop.append(f"{name}:{case_id}")
            raise OutageStopped(f"not run: the session {self.watch.message}")
        scenario = case if isinstance(case, Scenario) else find_case(case, self.sessions)
        job = Job(name, scenario, self.config, 0, self.seed, fault=fault)
        if self.ahead is not None and not isinstance(case, Scenario) and (taken := self.ahead.take((name, case_id, fault)))[0]:
            return self._record(job, taken[1])
        check(job, self.run_settings)  # NotRun before anything is written: a case not run leaves no run directory
        settings = self._settings()
        with self.around_run():
            result = run_job(job, settings)
        return self._record(job, result)  # outside ``around_run``: the pytest session logs the row to LangSmith here

    def _record(self, job: Job, result: CaseResult) -> CaseResult:
        assert result.trace is not None and self.sink is not None
        row = result.row = self.sink.done(job, result)  # the row and trace as `harness run` writes them
        assert row is not None
        if self.on_row is not None:
            self.on_row(result.scenario, row, list(result.scores.values()), result.trace)
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
