"""Summarizer tokens are counted on every path, now that langchain 1.5 tags the summary call ``nostream``.

langchain 1.5 (`langchain.agents.middleware.summarization._summary_config`) sends every summary call with the tag
``TAG_NOSTREAM``, so LangGraph's ``stream_mode="messages"`` never shows it. The harness reads summarizer calls from a
callback (`harness.trace.recorder.SummarizerCallback`), which the tag does not touch; these tests hold that on each
path a summary call reaches the figures: the offline recorder (the reference models report no usage: the call and
its approximate tokens are counted, its provider tokens are unknown, never 0), a run through `harness serve` on the
OpenAI and Anthropic APIs (every summary request the server answered is a recorded call with the usage it reported),
the cost figures (`harness.scoring.cost`) and the LangSmith export (`harness.langsmith.llm`). Each fails if the
summarizer's calls or tokens go uncounted.
"""

from __future__ import annotations

import pytest
from langgraph.constants import TAG_NOSTREAM

from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.langsmith.llm import llm_runs
from harness.reference.serve import serving
from harness.scoring.cost import case_cost
from harness.trace import recorder as recorder_module
from tests._wire import served_reference_models

pytestmark = pytest.mark.slow
CASE = "needle-h24k-d025"  # forced-20: summaries in the task turn (the conftest's needle_trace)


@pytest.fixture
def summary_tags(monkeypatch):
    """The tags of every summary call's start, as the recorder's callback received them."""
    seen: list[list[str]] = []
    start = recorder_module.SummarizerCallback.on_chat_model_start

    def spy(self, serialized, messages, *, run_id, metadata=None, **kwargs):  # noqa: ANN001
        if (metadata or {}).get("lc_source") == "summarization":
            seen.append(list(kwargs.get("tags") or []))
        return start(self, serialized, messages, run_id=run_id, metadata=metadata, **kwargs)

    monkeypatch.setattr(recorder_module.SummarizerCallback, "on_chat_model_start", spy)
    return seen


def _summaries_reach_cost_and_langsmith(trace) -> list[dict]:  # noqa: ANN001
    """The summarizer's calls, checked to be in the row's cost and in the LangSmith llm runs, one for one."""
    calls = trace.summarizer_calls()
    assert calls, "a compaction happened, so the summarizer was called"
    assert len(calls) == len(trace.events_of("summary"))  # one call per summary, none lost
    cost = case_cost(trace)["roles"]["summarizer"]
    assert cost["calls"] == len(calls)
    runs = [r for r in llm_runs(trace) if r["metadata"]["role"] == "summarizer"]
    assert [r["metadata"]["call_index"] for r in runs] == [c["index"] for c in calls]
    assert all(c["approx_tokens"] > 0 for c in calls)
    return calls


def test_offline_every_summary_call_is_recorded_with_its_tokens_and_none_is_counted_as_free(
    scenarios, config, models, summary_tags
):
    trace = run_case(scenarios[CASE], config, models)
    calls = _summaries_reach_cost_and_langsmith(trace)
    assert summary_tags and all(TAG_NOSTREAM in tags for tags in summary_tags)  # the 1.5 path: tagged, still seen
    assert len(summary_tags) == len(calls)
    cost = case_cost(trace)["roles"]["summarizer"]
    assert cost["input"] is None and cost["output"] is None  # the in-process reference reports no usage: unknown...
    assert all("usage_metadata" not in r["outputs"] for r in llm_runs(trace) if r["metadata"]["role"] == "summarizer")
    from harness.runs.results import result_row
    from harness.scoring.scorers import score_case

    row = result_row(trace, score_case(trace, scenarios[CASE]), trace_file="x.json", scenario=scenarios[CASE])
    assert row["calls"]["summarizer"] == len(calls)  # ...but the calls and their approximate tokens are counted
    assert row["tokens"]["summarizer_input"] == sum(c["approx_tokens"] for c in calls) > 0


@pytest.mark.live
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_through_harness_serve_every_summary_request_is_a_recorded_call_with_its_reported_usage(
    scenarios, provider, summary_tags
):
    config = make_config("forced-20")
    with serving(max_seconds=600) as srv:
        models = served_reference_models(provider, srv, config.window, timeout=10)
        trace = run_case(scenarios[CASE], config, models)
        served = srv.state.stats()["requests"].get("summary", 0)
    assert trace.error is None and trace.simulated
    calls = _summaries_reach_cost_and_langsmith(trace)
    assert served == len(calls) > 0  # every summary request the server answered was recorded
    assert summary_tags and all(TAG_NOSTREAM in tags for tags in summary_tags)
    usage = [c["usage"] for c in calls]
    assert all(u and u["input_tokens"] > 0 and u["output_tokens"] > 0 for u in usage), usage
    cost = case_cost(trace)["roles"]["summarizer"]
    assert cost["input"] == sum(u["input_tokens"] for u in usage)
    assert cost["output"] == sum(u["output_tokens"] for u in usage)
    if provider == "anthropic":  # priced at the list price it is simulated as (claude-haiku-4-5)
        assert cost["usd"] is not None and cost["usd"] > 0
    else:  # chat completions report no cache writes, which that price bills apart: unknown dollars, never 0
        assert cost["cache_write"] is None and cost["usd"] is None
    runs = [r for r in llm_runs(trace) if r["metadata"]["role"] == "summarizer"]
    assert [r["outputs"]["usage_metadata"]["input_tokens"] for r in runs] == [u["input_tokens"] for u in usage]
