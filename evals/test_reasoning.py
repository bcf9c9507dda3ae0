"""Reasoning blocks across a deepagents summary, over `harness serve` (harness.suites.reasoning).

One short case per provider arm: ChatAnthropic with thinking on (the endpoint checks each thinking block's binding to
the conversation before it, as Claude does) and ChatOpenAI on the Responses API with reasoning on. Validity first (a
summary happened with reasoning-bearing turns kept across it), then the arm's checks; the seeded fault (the dropped
blocks put back) must be refused by the endpoint and caught by the checks.
"""

import pytest

from harness.suites.reasoning import CHECKS, FAULT, PROVIDERS, VALIDITY, run_reasoning_case, score_reasoning

pytestmark = pytest.mark.reasoning


@pytest.fixture(autouse=True)
def offline_only(live_options):
    """The arms are ChatAnthropic and ChatOpenAI against `harness serve` with the reference models behind it: a live
    --model does not change them, so under one they skip instead of passing as if the live model had run."""
    if live_options:
        why = f"the reasoning eval runs its own served arms with the reference models; it does not use {', '.join(live_options)}"
        pytest.skip(why)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_reasoning_across_a_summary_is_what_the_provider_accepts(provider):
    run = run_reasoning_case(provider)
    scores = score_reasoning(run.verdicts)
    valid, why = scores[VALIDITY]
    assert valid, f"INVALID: {why}"
    failed = {k: scores[k][1] for k in CHECKS[provider] if not scores[k][0]}
    assert not failed, failed
    assert run.trace.error is None, run.trace.error


def test_keeping_claudes_bound_reasoning_after_a_summary_is_refused_and_caught():
    run = run_reasoning_case("anthropic", fault=FAULT)
    scores = score_reasoning(run.verdicts)
    assert scores[VALIDITY][0], scores[VALIDITY][1]
    assert not scores["bound_reasoning_dropped"][0] and not scores["requests_accepted"][0], scores
    assert "bound to a different conversation" in scores["requests_accepted"][1]
