"""`harness serve`'s per-run cache scope: the same case gives the same cache and dollar figures whatever ran before or
beside it, when its requests carry a scope (the ``X-Harness-Cache-Scope`` header); without one the cache is shared
and the figures depend on the order, as before. Over HTTP with the raw wire (fast), then end to end: the real deep
agent through ChatAnthropic, whose requests the harness's live client scopes per case run."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest

from harness.agent import cache_scope
from harness.agent.cache_scope import CACHE_SCOPE_HEADER
from harness.reference.serve import serving
from tests._wire import messages_body, tool_turns

pytestmark = [pytest.mark.live, pytest.mark.slow]
SYSTEM = "You are an agent. " * 100
MARK = {"type": "ephemeral"}


def requests_of_a_case() -> list[dict[str, Any]]:
    """Three requests of one conversation, each extending the one before (a breakpoint on the last message)."""
    turns = tool_turns(6, size=200)
    return [messages_body(turns[: 2 * k + 1], system=SYSTEM, cache_control=MARK) for k in (2, 4, 6)]


def post(url: str, body: dict[str, Any], scope: str | None) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json", "x-api-key": "sk-test", "anthropic-version": "2023-06-01"}
    if scope is not None:
        headers[CACHE_SCOPE_HEADER] = scope
    request = urllib.request.Request(f"{url}/messages", data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def case_figures(url: str, scope: str | None) -> list[tuple[int, int, int]]:
    """(input, cache read, cache write) of each request of the case."""
    out = []
    for body in requests_of_a_case():
        status, answer = post(url, body, scope)
        assert status == 200, answer
        u = answer["usage"]
        out.append((u["input_tokens"], u["cache_read_input_tokens"], u["cache_creation_input_tokens"]))
    return out


def test_without_a_scope_a_case_run_again_reads_what_the_first_run_wrote():
    with serving() as server:
        first, second = case_figures(server.url, None), case_figures(server.url, None)
    assert first != second  # the order decides: the second run reads the first's entries
    assert first[1][1] == 0 and second[1][1] > 0  # (the first request is under the 1,024-token minimum: never stored)


def test_with_a_scope_the_same_case_has_the_same_figures_in_either_order_and_concurrently():
    with serving() as server:
        alone = case_figures(server.url, "run-a")
        after = case_figures(server.url, "run-b")  # the same case again, after the first: a scope of its own
        server.state.reset()
        reverse = [case_figures(server.url, s) for s in ("run-b", "run-a")]
        server.state.reset()
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda s: case_figures(server.url, s), ("run-a", "run-b", "run-c", "run-d")))
        unscoped = case_figures(server.url, None)  # beside them, a client without a scope: the shared entries, as before
    assert alone == after == reverse[0] == reverse[1] and all(t == alone for t in together)
    assert alone[1][1] == 0 and alone[2][1] > 0  # within the run the cache still works
    assert unscoped == alone  # the shared entries were empty: scoped runs wrote none of them


def test_an_empty_scope_is_a_400_naming_the_header():
    with serving() as server:
        status, answer = post(server.url, requests_of_a_case()[0], " ")
    assert status == 400 and CACHE_SCOPE_HEADER in answer["error"]["message"]


def _served_case(server, *, concurrent: bool = False) -> list[dict[str, Any]]:  # noqa: ANN001
    """The cost of one short case run twice through /v1/messages by the real agent: one after the other, or at once."""
    from harness.agent.models import Endpoint, choose_models
    from harness.agent.runner import arun_case, run_async, run_case
    from harness.compaction.variants import make_config
    from harness.scenarios.schema import all_scenario_files, load_scenarios
    from harness.scoring.cost import case_cost

    (scenario,) = [s for s in load_scenarios(all_scenario_files()) if s.id == "goal-ledgers-12"]
    config = make_config("forced-20")
    endpoint = Endpoint(server.url[: -len("/v1")], {"timeout": 10, "max_retries": 1})
    models = choose_models(
        "anthropic:reference-agent", "anthropic:reference-summarizer", window=config.window, agent_endpoint=endpoint
    )
    # the served models are the reference ones: history files named from the case, not uuid4, so the two runs of the
    # case send the same requests (what the runner does for any model it knows to be simulated)
    models = replace(models, simulated=True)
    if concurrent:

        async def both():  # noqa: ANN202
            return await asyncio.gather(*(arun_case(scenario, config, models) for _ in range(2)))

        traces = run_async(both())
    else:
        traces = [run_case(scenario, config, models) for _ in range(2)]
    assert all(t.error is None for t in traces)
    return [case_cost(t) for t in traces]


def test_the_live_client_scopes_each_case_run_so_a_case_costs_the_same_run_again_or_beside_another(monkeypatch):
    with serving(max_seconds=600) as server:
        first, again = _served_case(server)
        assert first == again and first["roles"]["agent"]["cache_read"] > 0
        server.state.reset()
        assert _served_case(server, concurrent=True) == [first, first]
        server.state.reset()
        monkeypatch.setattr(cache_scope, "CACHE_SCOPE_HEADER", "X-Not-A-Scope")  # as before: the server sees no scope
        before, rerun = _served_case(server)
    assert before == first  # the first run on an empty cache: the same either way
    assert rerun != before and rerun["roles"]["agent"]["cache_read"] > before["roles"]["agent"]["cache_read"]
