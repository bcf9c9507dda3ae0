"""The native fault modes end as the live rules say (issue 19): a provider error after every retry is ERROR, a
compaction the provider reports as failed is a FAIL of `summaries_ok` (a finding about the strategy, as a failed
summary is), a provider that never compacts leaves the case INVALID, and a fault that fires once is retried or
compacted past (PASS). Each runs the real deep agent with a native strategy against this process's loopback
`harness serve` (`harness.reference.local.local_server`) with the fault injected there; the trigger the provider
refuses (exit 2) and the streamed-block trap (langchain#36976, fixed in langchain-anthropic 1.7.10) are in
tests/compaction/test_native_strategies.py and tests/reference/test_serve_apis.py."""

from __future__ import annotations

import time

import pytest

from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.reference.local import local_server
from harness.reference.serve import Fault
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import ERROR, FAIL, INVALID, PASS, outcome, score_case

pytestmark = [pytest.mark.live, pytest.mark.slow]

OPENAI = ("openai-compaction", "goal-ledgers-12", "20%")
ANTHROPIC = ("anthropic-compaction", "goal-ledgers-28", "tokens:50000")  # the one goal case past Anthropic's 50,000
# arm, fault mode, count (None: every compacting request), outcome, failed keys
MATRIX = [
    (OPENAI, "null-compaction", 1, PASS, []),  # no compaction item: the next request compacts
    (OPENAI, "null-compaction", None, INVALID, ["compacted"]),  # never compacted: the case proves nothing
    (OPENAI, "compaction-midstream", 1, PASS, []),  # a 500 the SDK retries
    (OPENAI, "compaction-midstream", None, ERROR, ["agent: HTTP 500 InternalServerError"]),
    (ANTHROPIC, "null-compaction", 1, FAIL, ["summaries_ok"]),  # a compaction block with null content
    (ANTHROPIC, "compaction-midstream", None, ERROR, ["agent: HTTP 500 InternalServerError"]),
]


@pytest.fixture
def server():
    """This process's loopback server, its faults and counts cleared before and after: a fault left behind would fire
    in the next native run of this process (tests/compaction/test_native_strategies.py shares the server)."""
    served = local_server(0)
    served.state.reset()
    yield served
    served.state.reset()


@pytest.fixture(scope="module")
def scenarios():
    return {s.id: s for s in load_scenarios(all_scenario_files())}


@pytest.mark.parametrize(
    ("arm", "mode", "count", "expected", "keys"),
    MATRIX,
    ids=[f"{a[0]}-{m}-{'once' if c else 'always'}" for a, m, c, _, _ in MATRIX],
)
def test_a_native_fault_mode_gives_its_outcome(server, scenarios, arm, mode, count, expected, keys):
    strategy, case, trigger = arm
    server.add_fault(Fault(mode, count=count, scope="agent"))
    config = make_config("forced-20", trigger=[trigger], strategy=strategy)
    started = time.perf_counter()
    trace = run_case(scenarios[case], config, choose_models(None, None, window=config.window))
    result = outcome(score_case(trace, scenarios[case]), trace.error)
    assert server.state.stats()["faults_injected"].get(f"{mode}@agent", 0) >= 1  # the fault fired
    assert result == (expected, keys), trace.error
    if expected == ERROR:
        assert trace.error["provider_error"]["model"] == "agent"
    assert time.perf_counter() - started < 120  # within the case budget: every wait is bounded
