"""Shared fixtures for the harness's own unit tests (offline, reference models)."""

from __future__ import annotations

import os

os.environ.setdefault("LANGSMITH_TRACING", "false")

import pytest  # noqa: E402

from harness.agent.models import choose_models  # noqa: E402
from harness.agent.runner import run_case  # noqa: E402
from harness.compaction.variants import make_config
from harness.scenarios.schema import all_scenario_files, load_scenarios  # noqa: E402


@pytest.fixture(scope="session")
def scenarios():
    return {s.id: s for s in load_scenarios(all_scenario_files())}


@pytest.fixture(scope="session")
def config():
    return make_config("forced-20")


@pytest.fixture(scope="session")
def models(config):
    return choose_models(None, None, window=config.window)


@pytest.fixture(scope="session")
def needle_trace(scenarios, config, models):
    """A healthy needle run: summaries in the task turn, needle recovered from history."""
    return run_case(scenarios["needle-h24k-d025"], config, models)


@pytest.fixture(scope="session")
def goal_trace(scenarios, config, models):
    return run_case(scenarios["goal-ledgers-12"], config, models)


@pytest.fixture
def captured(monkeypatch):
    """Every middleware list handed to langchain's create_agent: subagents first, the main agent last."""
    import deepagents.graph
    import deepagents.middleware.subagents

    stacks = []
    for module in (deepagents.graph, deepagents.middleware.subagents):
        real = module.create_agent

        def spy(*args, _real=real, **kwargs):
            stacks.append(list(kwargs.get("middleware", [])))
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, "create_agent", spy)
    return stacks
