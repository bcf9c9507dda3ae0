"""A plan's jobs and what they share: every door (`harness run`, `harness experiment run`, `harness.evaluate`, the
pytest session, version arms) turns its input into `Job`s and runs them with one `RunSettings` through
`harness.runs.pool.execute`.

A job is one case run as one eval (`harness.suites.execute.run_eval_case`: the eval's preset, scorer set and known
upstream failures), or as no eval (``eval`` None: an ad-hoc run under the job's configuration, scored with the default
set; its row says ``eval: null``). `preflight` is everything checked once per plan before a directory is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from harness.agent.assembly import AgentSpec
from harness.agent.endpoints import arm_summary_model
from harness.agent.models import Endpoint
from harness.compaction.config import CompactionConfig
from harness.errors import ConfigError
from harness.scenarios.schema import Scenario

if TYPE_CHECKING:
    from harness.agent.models import ModelChoice
    from harness.suites.execute import CaseResult, Settings


@dataclass(frozen=True)
class Job:
    """One case to run: as eval ``eval`` (None: as no eval), under ``config`` (the arm's, at its threshold: an eval
    with a preset runs under the preset), trial ``trial`` with ``seed``. ``threshold`` and ``attempt`` are a grid
    cell's; ``fault`` a seeded summarizer fault (the faults eval)."""

    eval: str | None
    case: Scenario
    config: CompactionConfig
    trial: int = 0
    seed: int = 0
    threshold: str | None = None
    fault: str | None = None
    attempt: int = 1
    key: str = ""  # the door's own id of the job (a grid's cell id), for its sink

    @property
    def arm(self) -> str:
        """The compared configuration: the arm's config name."""
        return self.config.name

    @property
    def scorers(self) -> str:
        """The scorer set the job's row is scored with: its eval's, else the default set."""
        from harness.suites.registry import SUITES

        return SUITES[self.eval].scorers if self.eval is not None else "default"


@dataclass(frozen=True)
class RunSettings:
    """What every job of a plan shares: the models (by name, with their endpoints), the per-case budget, the run id
    traces carry and the user's own agent assembly (``agent``: `harness.agent.assembly`; None: the harness's own
    agent). A config's own summarizer wins over ``summary_model`` (a variant file's ``summary_model``)."""

    agent_model: str | None = None
    summary_model: str | None = None
    endpoints: tuple[Endpoint, Endpoint] = field(default_factory=lambda: (Endpoint(), Endpoint()))
    case_budget_s: float | None = None
    run_id: str = ""
    options: tuple[str, str] = ("--model", "--summary-model")  # where the model names came from, for errors
    agent: AgentSpec | None = None

    def summary_for(self, config: CompactionConfig) -> str | None:
        return arm_summary_model(config.summary_model, self.summary_model)

    def models(self, config: CompactionConfig, seed: int) -> ModelChoice:
        """The models of a job under ``config`` with ``seed`` (`choose_models`: raises ConfigError or
        LiveModelUnavailable for a bad name or a missing key)."""
        from harness.agent.models import choose_models

        agent_endpoint, summary_endpoint = self.endpoints
        return choose_models(
            self.agent_model,
            self.summary_for(config),
            window=config.window,
            seed=seed,
            options=self.options,
            agent_endpoint=agent_endpoint,
            summary_endpoint=summary_endpoint,
        )

    def for_job(self, job: Job) -> Settings:
        """The eval settings ``job`` runs under (`harness.suites.execute.Settings`), its fault's summarizer included."""
        from harness.suites.execute import Settings

        models = self.models(job.config, job.seed)
        config = job.config
        if job.fault is not None:
            from harness.suites.faults import FaultySummarizer

            name = f"faulty-summarizer:{job.fault}"
            models = replace(models, summarizer=FaultySummarizer(fault=job.fault), summarizer_name=name, simulated=True)
            config = replace(config, name=f"{config.name}+fault-{job.fault}")  # not pooled with healthy runs
        return Settings(config, models, job.seed, self.case_budget_s, self.agent)

    def picklable(self) -> RunSettings:
        """These settings without the run's shared limiters (they live in one process): what a worker process gets."""
        from harness.agent.parallel import without_limiter

        return replace(self, endpoints=(without_limiter(self.endpoints[0])[0], without_limiter(self.endpoints[1])[0]))


def check(job: Job, settings: RunSettings) -> None:
    """Raise NotRun when ``job`` is not run (the eval does not apply, the installed deepagents lacks what it needs, the
    offline models cannot run the case): decided when the plan is made, before anything runs."""
    from harness.suites.execute import prepared

    prepared(job.eval, job.case, settings.for_job(job), None)


def run_job(job: Job, settings: RunSettings) -> CaseResult:
    """Run ``job`` in this thread (a live model on its own event loop under the case budget). Raises NotRun."""
    from harness.suites.execute import run_eval_case

    return run_eval_case(job.eval, job.case, settings.for_job(job), run_id=settings.run_id, trial=job.trial)


async def arun_job(job: Job, settings: RunSettings) -> CaseResult:
    """`run_job` on the running event loop (many live cases in flight). Raises NotRun."""
    from harness.suites.execute import arun_eval_case

    return await arun_eval_case(job.eval, job.case, settings.for_job(job), run_id=settings.run_id, trial=job.trial)


@dataclass(frozen=True)
class Preflight:
    """What `preflight` found: the fixed overhead of the first config (tokens) and the warnings to show and keep."""

    overhead: int
    warnings: list[str]
    endpoints: dict[str, str]  # role -> provider of each live model that has an endpoint (`ModelChoice.endpoints`)


def preflight(
    configs: Iterable[tuple[str, CompactionConfig]],
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    *,
    progress: Callable[[str], None] = print,
    endpoints_answered: bool = False,
) -> Preflight:
    """Everything a plan checks once, before it writes anything: each config's models can be built, the fixed overhead
    (probed once) fits each config, and every live model's server answers (unless ``endpoints_answered``: the door's
    early checks asked). ``configs``: (where, config) pairs, ``where`` prefixing an error. Prints and returns the
    warnings: each config's traps (once per name), then the scenario rows' (`schema.case_warnings`)."""
    from harness.agent.models import check_endpoints_answer
    from harness.agent.preflight import fixed_overhead_tokens

    overhead: int | None = None
    warnings: list[str] = []
    live: list[Endpoint] = []
    roles: dict[str, str] = {}
    named: set[str] = set()
    for where, config in configs:
        checked = settings.models(config, 0)
        overhead = overhead if overhead is not None else fixed_overhead_tokens(config, scenarios, agent=settings.agent)
        error = config.overhead_error(overhead)
        if error:
            raise ConfigError(f"{where}{error}")
        if config.name not in named:
            named.add(config.name)
            warnings += [f"{where}{w}" for w in (config.overhead_warning(overhead), config.prompt_warning()) if w]
        agent_endpoint, summary_endpoint = settings.endpoints
        live += [e for role, e in (("agent", agent_endpoint), ("summarizer", summary_endpoint)) if role in checked.endpoints]
        roles.update(checked.endpoints)
    if not endpoints_answered:
        check_endpoints_answer(*live)
    warnings += [w for s in scenarios for w in s.warnings]
    for w in warnings:
        progress(f"warning: {w}")
    return Preflight(overhead or 0, warnings, roles)
