"""The cache eval live: its case run as the eval by the real deep agent through `harness serve`'s Anthropic Messages API
(ChatAnthropic, deepagents' prompt-caching middleware setting the breakpoint), scored on the cache figures the server
reported for the case run's own scope; healthy it passes, under its seeded fault the check fails."""

from __future__ import annotations

import pytest

from harness.agent.models import Endpoint, choose_models
from harness.compaction.variants import make_config
from harness.reference.serve import serving
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.cache_use import SERVED, cache_calls
from harness.suites.execute import Settings, run_eval_case
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import SUITES

pytestmark = [pytest.mark.live, pytest.mark.slow]
EVAL = SUITES["cache"]


@pytest.fixture(scope="module")
def settings():
    with serving(max_seconds=600) as server:
        config = make_config("forced-20")
        endpoint = Endpoint(server.url[: -len("/v1")], {"timeout": 10, "max_retries": 1})
        models = choose_models(
            "anthropic:reference-agent", "anthropic:reference-summarizer", window=config.window, agent_endpoint=endpoint
        )
        yield Settings(config, models)


def _case():
    (scenario,) = [s for s in load_scenarios(all_scenario_files()) if s.id == EVAL.case_ids[0]]
    return scenario


def test_the_cache_eval_passes_through_harness_serve_on_the_servers_own_figures(settings):
    result = run_eval_case("cache", _case(), settings)
    assert result.trace is not None and result.trace.error is None and result.trace.simulated
    agent = [c for c in cache_calls(result.trace) if c.role == "agent"]
    assert agent and all(c.source == SERVED for c in agent)  # every agent call's cache figures came from the server
    assert sum(c.served_read or 0 for c in agent) > 0
    result.require_eval()
    assert "served" in result.scores["cache_reread_after_compaction"].explanation


def test_a_system_prompt_stamped_per_call_fails_the_check_through_harness_serve(settings):
    result = run_eval_case("cache", _case(), settings, fault=SEEDED_FAULTS["volatile-system-prompt"])
    assert result.scores["cache_compaction_followed"].value  # valid: compactions were followed by calls
    assert "cache_reread_after_compaction" in result.failed(), result.failed()
    assert "did not read" in result.scores["cache_reread_after_compaction"].explanation
    # the request check sees it too (the system prompt changed during the run); the cache check is the one named
    assert set(result.failed()) <= {"cache_reread_after_compaction", "structure_ok"}, result.failed()
