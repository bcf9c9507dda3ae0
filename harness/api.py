"""The Python face of the harness: run evals from a script or a notebook, read and plot what they wrote.

    import harness

    run = harness.evaluate("goal")               # every goal case, offline (simulated), as `pytest evals/ -m goal`
    print(run.outcomes())                        # {'PASS': 10}
    frame = run.frame()                          # one row per case, scores as columns (pandas)
    chart = harness.plot_token_curves(run.calls(), overlay=True)   # tokens over calls, compactions marked

`evaluate` is a thin caller of `harness.runs.executor` (the one definition of how an eval runs a case, which
`pytest evals/` and the validity matrix call too) and writes the run's report like `harness run`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.compaction.config import DEFAULT_PRESET
from harness.errors import HarnessError
from harness.rows import ResultRow
from harness.suites.registry import SUITES

if TYPE_CHECKING:  # the agent stack is imported by `evaluate` after its early checks (harness.runs.early)
    import pandas as pd

    from harness.suites.execute import CaseResult
    from harness.trace.schema import Trace


@dataclass
class EvalRun:
    """What `evaluate` returns: the run directory, each case's result, and the cases not run with why."""

    path: Path | None
    report: Path | None = None  # report.md beside results.jsonl
    results: list[CaseResult] = field(default_factory=list)
    not_run: list[tuple[str, str, str]] = field(default_factory=list)  # (eval, case, reason)
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # (eval, case, cause): ERROR, counted nowhere
    stopped: str | None = None  # why the run stopped early for an outage (its cases left out are in not_run)

    @property
    def rows(self) -> list[ResultRow]:
        """The result rows of the cases that ran (results.jsonl's rows, as `harness.runs.rows.ResultRow` types them)."""
        return [r.row for r in self.results if r.row is not None]

    def outcomes(self) -> dict[str, int]:
        """How many rows ended PASS, FAIL, INVALID or ERROR."""
        return dict(Counter(row["outcome"] for row in self.rows))

    def frame(self) -> pd.DataFrame:
        """The rows as a flat pandas frame (`harness.runs.results.read_results`): one row per case, scores as columns."""
        from harness.runs.results import read_results

        if self.path is None:
            raise HarnessError("no case ran: there is no results.jsonl to read")
        return read_results(self.path)

    def traces(self) -> list[Trace]:
        """Each case's trace (what the model saw at every call, and the compaction events), in row order."""
        from harness.trace.schema import load_trace

        if self.path is None:
            return []
        return [load_trace(self.path / row["trace"]) for row in self.rows]

    def calls(self) -> pd.DataFrame:
        """One row per model call of every case, events joined (`harness.trace.frames.calls_frame`): what
        `harness.plot_token_curves` draws; ``eval`` names what each case ran as."""
        from harness.trace.frames import calls_frame

        return calls_frame(self.traces(), self.rows)


def evaluate(
    evals: str | Sequence[str],
    *,
    cases: Sequence[str] | None = None,
    sessions: Sequence[str | Path] = (),
    variant: str = DEFAULT_PRESET,
    trigger: Sequence[str] | None = None,
    keep: str | None = None,
    window: int | str | None = None,
    strategy: str | None = None,
    agent: str | Callable[[], Mapping[str, Any]] | None = None,
    model: str | None = None,
    summary_model: str | None = None,
    base_url: str | None = None,
    summary_base_url: str | None = None,
    model_kwargs: Mapping[str, Any] | Sequence[str] | None = None,
    summary_model_kwargs: Mapping[str, Any] | Sequence[str] | None = None,
    seed: int = 0,
    case_budget: float | None = None,
    max_rps: float | None = None,
    max_tpm: float | None = None,
    stop_after_errors: int | None = None,
    runs_dir: str | Path = "reports/runs",
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
    before_cases: Callable[[], None] | None = None,
) -> EvalRun:
    """Run every case of the evals ``evals`` (registry names: ``"needle"``, ``["needle", "goal"]``), or only ``cases``
    of them, as `pytest evals/ -m NAME` runs them, into one run directory with its report; offline (the reference
    models, simulated) unless ``model`` names a provider model. Offline, ``workers`` forked processes run cases ahead
    (`harness.runs.pool.RunAhead`; default one per extra core, at most 3; 0: none): the results are the same. When
    ``stop_after_errors`` cases in a row end in the same provider error (default 3; 0: never; `harness.runs.outage`)
    the rest are not run: each is in ``not_run`` with the reason, and ``stopped`` says why. The settings (``variant``
    to ``stop_after_errors``) are `harness.runs.settings.SETTINGS`, the ones `harness run` and `pytest evals/` take
    (``trigger=["20%"]``, ``model_kwargs={"temperature": 0}``); ``agent`` is the user's own assembly, ``"module:function"`` or
    the function itself (docs/your-agent.md); ``sessions``: session datasets (`harness import` writes them) whose cases the
    session eval runs instead of its shipped one (docs/sessions.md). ``before_cases`` is called once the early checks (each
    live model's spec, key and server) have passed, before the agent stack is imported or any case runs (`harness
    check` audits the compactor there). Returns an `EvalRun`. A mistake in what it is given (an unknown eval, naming the
    known ones; a bad setting; a factory or strategy that does not import) raises `harness.ConfigError` naming it, as
    `harness run` exits 2 for it; a missing key `LiveModelUnavailable`, a server that does not answer
    `EndpointUnreachable` (all `harness.HarnessError`)."""
    names = [evals] if isinstance(evals, str) else list(evals)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        from harness.errors import ConfigError

        raise ConfigError(f"no eval {unknown[0]!r}; the registry has {', '.join(SUITES)}")
    from harness.agent.endpoints import summary_model_for
    from harness.compaction.variants import make_config
    from harness.runs.early import early_checks
    from harness.runs.settings import endpoints

    config = make_config(
        variant, trigger=list(trigger) if trigger is not None else None, keep=keep, window=window, strategy=strategy
    )
    run_endpoints = endpoints(
        base_url=base_url,
        summary_base_url=summary_base_url,
        model_kwargs=model_kwargs,
        summary_model_kwargs=summary_model_kwargs,
        max_rps=max_rps,
        max_tpm=max_tpm,
    )
    # a live model's spec, key and server (and LangSmith tracing) before the agent stack is imported or a model built
    summaries = [summary_model_for(config.summary_model, summary_model, variant=config.name)]
    early = early_checks(model, summaries, run_endpoints, progress=progress, agent=agent)
    if before_cases is not None:
        before_cases()
    from harness.agent.endpoints import case_budget as checked_budget
    from harness.errors import ProviderOutage
    from harness.runs.executor import EvalSession
    from harness.runs.outage import OutageStopped
    from harness.suites.execute import NotRun, eval_case_ids

    session = EvalSession.from_options(
        config=config,
        model=model,
        summary_model=summary_model,
        agent=agent,
        endpoints=run_endpoints,
        seed=seed,
        case_budget_s=checked_budget(case_budget),
        runs_dir=runs_dir,
        stop_after_errors=stop_after_errors,
        endpoints_answered=early.endpoints_answered,
        sessions=sessions,
    )
    out = EvalRun(None)
    plan = [(name, case_id) for name in names for case_id in eval_case_ids(name, sessions) if cases is None or case_id in cases]
    session.run_ahead([(name, case_id, None) for name, case_id in plan], workers)
    for name, case_id in plan:
        try:
            result = session.run_eval(name, case_id)
        except (NotRun, OutageStopped) as exc:
            out.not_run.append((name, case_id, str(exc)))
            continue
        except ProviderOutage as exc:
            out.errors.append((name, case_id, str(exc)))  # its row is in results.jsonl, outcome ERROR
            continue
        out.results.append(result)
        if progress is not None:
            assert result.row is not None
            progress(f"{name} {case_id}: {result.row['outcome']}")
    out.stopped = session.stopped
    out.path = session.finish()
    if out.path is not None:
        from harness.report.run_report import write_report

        out.report = write_report(out.path)
    return out
