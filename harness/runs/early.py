"""The checks every door makes before it imports the agent stack or builds a model (`early_checks`).

`harness run`, `harness experiment run`, `harness.evaluate` and the pytest plugin call it first. This module imports
the standard library, the bedrock, `harness.agent.endpoints` and `harness.langsmith.session` only, so each check
is said before langchain, deepagents, the scenarios, pandas or matplotlib are imported (tests/cli/test_startup.py
holds that for every door); nothing is asked twice (the plan's pre-flight, `harness.runs.jobs.preflight`, is told the
servers answered, and LangSmith is asked once per process).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.agent.endpoints import Endpoint, check_endpoints_answer, live_endpoints

if TYPE_CHECKING:
    from harness.agent.assembly import AgentSpec
    from harness.langsmith.session import LangSmithSession


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

    ``summary_specs``: every summarizer the plan uses (none: the agent's). Raises ConfigError (a malformed spec or an
    unknown provider, named by ``options``: exit 2), LiveModelUnavailable (a key not set: exit 3) and
    EndpointUnreachable (nothing answers at a live model's base URL: exit 4), in that order. Then LangSmith, never an
    error. Between the two, when ``agent`` names the user's own assembly, its factory is imported and called once and
    what it returns checked (`harness.agent.assembly.assembly_kwargs`: ConfigError, exit 2, before anything is
    written). LangSmith: with ``LANGSMITH_TRACING=true`` tracing goes through the one bounded client (`bound_tracing`); with
    ``upload`` (the plan's results will be uploaded) it is asked now, and a warning says when the results stay local."""
    from harness.langsmith import session as langsmith_session

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
