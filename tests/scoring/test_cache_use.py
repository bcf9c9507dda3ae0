"""The prompt cache per call and per compaction (`harness.scoring.cache_use`) and the cache eval's scores: each figure
from a hand-built trace, and the check failing on a prefix that changes on every call (no agent runs)."""

from __future__ import annotations

from langchain_core.messages import SystemMessage

from harness.scenarios.schema import Scenario
from harness.scoring.cache_use import REREAD_FRACTION, SERVED, SIMULATED, cache_calls, cache_metrics, compaction_damage
from harness.scoring.scorers import MEASURE, VALIDITY, outcome, score_case, scores_by_key
from harness.scoring.scorers.cache import cache_scores
from tests._traces import Conversation

BIG = "ledger entry " * 500  # about 1,600 approximate tokens: each tool result alone passes the 1,024-token minimum
RULES = "Keep every figure exact. " * 250  # a system prompt of about 1,500 tokens: a head the cache stores


def _scenario() -> Scenario:
    return Scenario(id="case-1", kind="goal", description="", task="Total the ledgers.")


def run(stamp: bool = False, summarize: bool = True, after: int = 2) -> Conversation:
    """Two fetches, a summary, then ``after`` more agent calls; ``stamp``: the system prompt changes on every call."""
    conv = Conversation(system=RULES)
    base = conv.system
    calls = 0

    def call(**kwargs):  # noqa: ANN003, ANN202
        nonlocal calls
        calls += 1
        if stamp:
            conv.system = SystemMessage(f"{base.content}\nRequest {calls} of this session.")
        return conv.agent(**kwargs)

    conv.user("Total the ledgers.")
    call(tools=[("fetch_document", {"doc_id": "L-1"}, BIG)])
    call(tools=[("fetch_document", {"doc_id": "L-2"}, BIG)])
    if summarize:
        conv.summarize("Ledgers L-1 and L-2 fetched; totals pending.")
    for k in range(after):
        call(tools=[("fetch_document", {"doc_id": f"L-{3 + k}"}, BIG)])
    return conv


def test_a_stable_prefix_is_read_back_after_the_summary_and_the_damage_is_the_summary_call():
    trace = run().trace(kind="goal")
    calls = [c for c in cache_calls(trace) if c.role == "agent"]
    first, second, summarized, after = calls
    assert first.read == 0 and first.write == first.tokens  # a new prefix over the minimum: written whole
    assert second.shared == first.tokens and second.read == first.tokens  # the first request, read back
    assert summarized.compaction == "summary" and summarized.read == 0 and summarized.write == summarized.tokens
    head = summarized.units[0][1]  # tools and system prompt: the only prefix the summary leaves
    assert summarized.shared == head
    assert after.read == summarized.tokens and after.source == SIMULATED  # the compacted request, read back
    (damage,) = compaction_damage(trace)
    assert damage["prefix_lost"] == second.tokens - head and damage["rewritten"] == summarized.tokens
    assert damage["rereads"] is True and damage["next_call"] == after.index
    # the second call's write (the summary came before any call read it) and the last call's are never read again
    assert [c.unread for c in calls] == [0, second.write, 0, after.write]
    metrics = cache_metrics(trace)
    assert metrics["cache_unread_write_tokens"] == second.write + after.write
    assert metrics["cache_compactions"] == 1 and metrics["cache_rewritten_tokens"] == summarized.tokens
    scores = scores_by_key(cache_scores(trace, _scenario()))
    assert scores["cache_compaction_followed"].value == 1 and scores["cache_compaction_followed"].role == VALIDITY
    assert scores["cache_reread_after_compaction"].value is True
    assert scores["cache_unread_write_tokens"].role == MEASURE


def test_a_system_prompt_that_changes_on_every_call_fails_the_check():
    trace = run(stamp=True).trace(kind="goal")
    calls = [c for c in cache_calls(trace) if c.role == "agent"]
    assert all(c.read == 0 for c in calls) and all(c.shared == 0 for c in calls)  # no prefix in common, nothing read
    assert sum(c.unread for c in calls) == sum(c.write for c in calls)  # every write wasted
    score = scores_by_key(cache_scores(trace, _scenario()))["cache_reread_after_compaction"]
    assert score.value is False and "opencode" in score.explanation


def test_a_compaction_nothing_follows_or_no_compaction_is_invalid_not_passed():
    for conv in (run(after=0), run(summarize=False)):
        trace = conv.trace(kind="goal")
        scores = cache_scores(trace, _scenario())
        by = scores_by_key(scores)
        assert not by["cache_compaction_followed"].value and by["cache_reread_after_compaction"].value is False
        assert outcome(scores)[0] == "INVALID"


def test_the_providers_figures_decide_when_it_reported_them():
    trace = run().trace(kind="goal")
    after = [c for c in trace.calls if c["role"] == "agent"][3]  # the call after the summary
    after["usage"] = {"input_tokens": 4000, "output_tokens": 10, "input_token_details": {"cache_read": 0, "cache_creation": 0}}
    calls = cache_calls(trace)
    served = next(c for c in calls if c.index == after["index"])
    assert served.source == SERVED and served.read_share == 0.0
    assert compaction_damage(trace, calls)[0]["rereads"] is False  # the provider read nothing: not read again
    after["usage"]["input_token_details"]["cache_read"] = 3990
    assert compaction_damage(trace)[0]["rereads"] is True
    del after["usage"]["input_token_details"]["cache_creation"]  # a usage without both cache fields: simulated again
    assert next(c for c in cache_calls(trace) if c.index == after["index"]).source == SIMULATED


def test_a_read_under_the_fraction_of_the_new_head_is_not_a_reread():
    trace = run().trace(kind="goal")
    calls = cache_calls(trace)
    summarized = next(c for c in calls if c.compaction)
    record = [c for c in trace.calls if c["role"] == "agent"][3]  # the call after the summary
    size = next(c for c in calls if c.index == record["index"]).tokens  # served input in the approximate count: shares equal
    needed = REREAD_FRACTION * summarized.head
    for read, rereads in ((int(needed) - 1, False), (int(needed) + 1, True)):
        record["usage"] = {
            "input_tokens": size,
            "output_tokens": 1,
            "input_token_details": {"cache_read": read, "cache_creation": 0},
        }
        assert compaction_damage(trace)[0]["rereads"] is rereads, read


def test_the_cache_scorer_set_scores_the_eval_keys_and_the_control_arm_measures_them():
    trace = run().trace(kind="goal")
    keys = {s.key for s in score_case(trace, _scenario(), "cache")}
    assert {"compacted", "cache_compaction_followed", "cache_reread_after_compaction", "run_completed"} <= keys
    trace.config["strategy"] = "none"
    by = scores_by_key(score_case(trace, _scenario(), "cache"))
    assert by["cache_reread_after_compaction"].role == MEASURE and by["cache_compaction_followed"].role == MEASURE


def test_a_compaction_the_next_call_compacts_again_is_not_read_again():
    conv = run(summarize=False, after=0)
    conv.summarize("Ledgers L-1 and L-2 fetched.")
    conv.agent(tools=[("fetch_document", {"doc_id": "L-3"}, BIG)])
    conv.summarize("Ledgers L-1 to L-3 fetched.")  # the next request is headed by another summary: the first's write wasted
    conv.agent(tools=[("fetch_document", {"doc_id": "L-4"}, BIG)])
    conv.agent(tools=[("fetch_document", {"doc_id": "L-5"}, BIG)])
    trace = conv.trace(kind="goal")
    first, second = compaction_damage(trace)
    assert first["rereads"] is False and second["rereads"] is True
    assert scores_by_key(cache_scores(trace, _scenario()))["cache_reread_after_compaction"].value is False


def test_a_tools_and_a_subagents_own_model_calls_are_not_the_parents_cache():
    """Their requests start from their own prompt: they neither read nor write the parent's prefix (a tool's call read
    as the parent's would have read the prefix back and moved every figure after it)."""
    trace = run().trace(kind="goal")
    plain = [(c.role, c.read, c.write, c.unread) for c in cache_calls(trace)]
    first = trace.calls[0]
    for pos, role in ((1, "tool"), (3, "subagent")):
        trace.calls.insert(pos, {**first, "role": role, "model": "openai:gpt-5-mini", "response": None})
    for k, call in enumerate(trace.calls):
        call["index"] = k
    calls = cache_calls(trace)
    assert [(c.role, c.read, c.write, c.unread) for c in calls] == plain  # the parent's calls, as without them
    assert {c.role for c in calls} == {"agent", "summarizer"} and len(calls) == len(trace.calls) - 2
