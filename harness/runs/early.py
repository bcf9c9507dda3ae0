"""The checks every door makes before it imports the agent stack or builds a model (`early_checks`).

`harness run`, `harness experiment run`, `harness.evaluate` and the pytest plugin (both fronts) call it first, in this
order: each live model's spec and key (a malformed spec is bad input, exit 2; a missing key skips, exit 3), whether
anything answers at each live model's base URL (exit 4, nothing written), then LangSmith when the plan talks to it
(never an error: when it does not answer the plan runs and its results stay local). This module imports the standard
library, the bedrock, `harness.agent.endpoints` and `harness.runs.langsmith_session` only, so each of these is said
before langchain, deepagents, the scenarios, pandas or matplotlib are imported (tests/cli/test_startup.py holds that for
every door). Nothing is asked twice: the plan's own pre-flight (`harness.runs.jobs.preflight`: models, the fixed
overhead) is told the servers answered (``endpoints_answered``), and LangSmith is asked once per process
(`harness.runs.langsmith_session.check`), its answer reused by tracing, the export and the pytest session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.agent.endpoints import Endpoint, check_endpoints_answer, live_endpoints

if TYPE_CHECKING:
    from harness.agent.assembly import AgentSpec
    from harness.runs.langsmith_session import LangSmithSession


@dataclass(frozen=True)
class EarlyChecks:
    """What `early_checks` asked: every live model's server answered (the plan's pre-flight need not ask again), and
    LangSmith's answer when the plan talks to it (None when it does not)."""

    endpoints_answered: bool
    langsmith: LangSmithSession | None = None


def early_checks(
    agent_spec: str | None,
    summary_specs: Iterable[str | None],
    endpoints: tuple[Endpoint, Endpoint],
    *,
    options: tuple[str, str] = ("--model", "--summary-model"),
    upload: bool = False,
    progress: Callable[[str], None] | None = None,
    agent: AgentSpec | None = None,
) -> EarlyChecks:
    """Check the plan's live models and ask their servers and LangSmith, once each, before anything is built.

    ``summary_specs``: every summarizer the plan uses (a grid's arms may name their own; none: the agent's). Raises
    ConfigError (a malformed spec or an unknown provider, named by ``options``), LiveModelUnavailable (a provider's key
    is not set) and EndpointUnreachable (nothing answers at a live model's base URL), in that order; then, when
    ``agent`` names the user's own assembly, its factory is imported and called once and what it returns checked
    (`harness.agent.assembly.assembly_kwargs`: ConfigError, exit 2, before anything is written). Then LangSmith:
    with ``LANGSMITH_TRACING=true`` LangChain's tracing goes through the one bounded client (`bound_tracing`, which
    switches tracing off when LangSmith does not answer); with ``upload`` (the plan's results will be uploaded, e.g.
    `harness experiment run`'s export with LANGSMITH_API_KEY set) LangSmith is asked now, and when it does not answer
    a warning says the results stay local (the export says so again when it builds them). Never raises for LangSmith."""
    from harness.runs import langsmith_session

    agent_endpoint, summary_endpoint = endpoints
    live: list[Endpoint] = []
    for summary_spec in dict.fromkeys(summary_specs) or (None,):
        live += live_endpoints(agent_spec, summary_spec, agent_endpoint, summary_endpoint, options)
    check_endpoints_answer(*live)
    if agent is not None:  # the user's factory imports deepagents: after every check that needs none
        from harness.agent.assembly import assembly_kwargs

        assembly_kwargs(agent, options[0].removesuffix("model") + "agent")  # named as the door names it
    say = progress or print
    langsmith = None
    if langsmith_session.tracing_requested():
        langsmith = langsmith_session.bound_tracing(progress)
    elif upload and langsmith_session.upload_requested():
        langsmith = langsmith_session.check()
        if langsmith.problem:
            say(f"warning: LangSmith: {langsmith.problem}. The run goes on; its results stay local (nothing is uploaded).")
    return EarlyChecks(endpoints_answered=True, langsmith=langsmith)
