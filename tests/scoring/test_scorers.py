"""Every scorer passes on a healthy trace and fails on a bad one."""

import copy
import dataclasses

import pytest

from harness.agent.models import ModelChoice
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from harness.scoring.scorers import GATING, is_clarification_request, score_case, scores_by_key

pytestmark = pytest.mark.slow


def scored(trace, scenario):
    return scores_by_key(score_case(trace, scenario))


def run_with(scenario, summarizer, preset="forced-20"):
    cfg = make_config(preset)
    models = ModelChoice(
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}), summarizer, "reference-agent", "test-summarizer", True
    )
    return run_case(scenario, cfg, models)


class ClaimsEverythingDone(ReferenceSummarizerModel):
    """A summarizer that records every step as done: the agent then stops early."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        result = super()._generate(messages, stop, run_manager, **kwargs)
        msg = result.generations[0].message
        msg.content = msg.content + "\n" + "\n".join(f"- Step {n} done: (claimed)" for n in range(1, 200))
        return result


# -- healthy ------------------------------------------------------------------------------
def test_healthy_needle_trace_passes_every_hard_score(needle_trace, scenarios):
    scores = scored(needle_trace, scenarios[needle_trace.case_id])
    assert {k for k, s in scores.items() if s.role in GATING and not s.value} == set()
    assert scores["history_pages_read"].value >= 1 and scores["needle_in_summary"].value is False


def test_healthy_goal_trace_passes_every_hard_score(goal_trace, scenarios):
    scores = scored(goal_trace, scenarios[goal_trace.case_id])
    assert {k for k, s in scores.items() if s.role in GATING and not s.value} == set()
    assert scores["goal_steps_completed"].value == 1.0 and scores["goal_repeated_steps"].value == 0


# -- needle -------------------------------------------------------------------------------
def test_no_compaction_fails_compacted_and_summarized_away(scenarios):
    scenario = scenarios["needle-h24k-d025"]
    trace = run_with(scenario, ReferenceSummarizerModel(), preset="deepagents-85")
    scores = scored(trace, scenario)
    assert scores["compacted"].value == 0 and "invalid" in scores["compacted"].explanation
    assert scores["needle_summarized_away"].value is False
    assert scores["needle_via_history"].value is False  # answered from context, no history read
    assert scores["needle_correct"].value is True


def test_a_wrong_answer_fails_needle_correct(needle_trace, scenarios):
    bad = copy.deepcopy(needle_trace)
    bad.final["answers"][1] = "1234-WRONG"
    scores = scored(bad, scenarios[bad.case_id])
    assert scores["needle_correct"].value is False and "1234-WRONG" in scores["needle_correct"].explanation


def test_an_answer_not_read_from_history_fails_needle_via_history(needle_trace, scenarios):
    bad = copy.deepcopy(needle_trace)
    for call in bad.agent_calls(1):
        if call["response"]:
            call["response"]["tool_calls"] = []
    scores = scored(bad, scenarios[bad.case_id])
    assert scores["needle_via_history"].value is False and "never called read_file" in scores["needle_via_history"].explanation


def test_a_needle_substring_of_a_longer_value_is_not_correct(needle_trace, scenarios):
    bad = copy.deepcopy(needle_trace)
    bad.final["answers"][1] = "9" + scenarios[bad.case_id].needles[0].answer
    assert scored(bad, scenarios[bad.case_id])["needle_correct"].value is False


def test_a_run_error_fails_run_completed(needle_trace, scenarios):
    bad = copy.deepcopy(needle_trace)
    bad.final["error"] = {"type": "RuntimeError", "message": "summarizer exploded", "turn": 0, "where": "x.py:1"}
    score = scored(bad, scenarios[bad.case_id])["run_completed"]
    assert score.value is False and "summarizer exploded" in score.explanation


# -- goal ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def drifted(scenarios):
    scenario = scenarios["goal-ledgers-12"]
    return scenario, run_with(scenario, ReferenceSummarizerModel(intent_loss=1.0))


def test_a_summary_that_drops_the_task_fails_the_goal_scores(drifted):
    scenario, trace = drifted
    scores = scored(trace, scenario)
    assert scores["compacted"].value >= 1
    assert scores["goal_no_clarification"].value is False
    assert scores["goal_continued_after_summary"].value is False
    assert scores["goal_steps_completed"].value < 1.0
    assert scores["goal_preserved"].value is False
    assert scores["goal_no_premature_completion"].value is True  # asking is not claiming to be done


def test_a_summary_that_claims_the_work_is_done_fails_premature_completion(scenarios):
    scenario = scenarios["goal-ledgers-12"]
    trace = run_with(scenario, ClaimsEverythingDone())
    scores = scored(trace, scenario)
    assert scores["goal_no_premature_completion"].value is False
    assert "expected step(s) not done" in scores["goal_no_premature_completion"].explanation
    assert scores["goal_continued_after_summary"].value is False
    assert scores["goal_preserved"].value is False


def test_goal_without_compression_is_invalid(scenarios):
    scenario = scenarios["goal-ledgers-12"]
    trace = run_with(scenario, ReferenceSummarizerModel(), preset="deepagents-85")
    scores = scored(trace, scenario)
    assert scores["compacted"].value == 0 and scores["goal_preserved"].value is False
    assert scores["goal_continued_after_summary"].value is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have lost track of the task. Could you restate what you would like me to do next?", True),
        ("Which file should I read next?", True),
        ("Could you clarify the scope?", True),
        ("TASK COMPLETE. I finished all 25 steps.", False),
        ("4417-KESTREL", False),
        ("I read all ledgers and wrote the notes.", False),
    ],
)
def test_clarification_detector(text, expected):
    assert is_clarification_request(text) is expected


# -- structure ----------------------------------------------------------------------------
def test_healthy_requests_are_well_formed(needle_trace, goal_trace):
    from harness.scoring.scorers import structural_issues

    assert structural_issues(needle_trace) == [] and structural_issues(goal_trace) == []


def _tampered(trace, edit):
    bad = copy.deepcopy(trace)
    edit(bad)
    from harness.scoring.scorers import structure_ok

    return structure_ok(bad)


def test_a_dropped_tool_result_or_call_breaks_structure(goal_trace):
    def drop_result(tr):
        call = tr.agent_calls()[3]
        tool_key = next(k for k in call["message_keys"] if tr.messages[k]["type"] == "tool")
        call["message_keys"].remove(tool_key)

    def drop_call(tr):
        call = tr.agent_calls()[3]
        ai_key = next(k for k in call["message_keys"] if tr.messages[k]["type"] == "ai")
        call["message_keys"].remove(ai_key)

    score = _tampered(goal_trace, drop_result)
    assert score.value is False and "has no result" in score.explanation
    score = _tampered(goal_trace, drop_call)
    assert score.value is False and "has no tool call before it" in score.explanation


def test_a_summary_away_from_the_head_or_a_changed_system_prompt_breaks_structure(needle_trace):
    def move_summary(tr):
        call = next(c for c in tr.agent_calls() if c["summary_at_head"])
        keys = call["message_keys"]
        keys.insert(1, keys.pop(0))

    def change_system(tr):
        tr.agent_calls()[-1]["system_sha"] = "changed"

    assert "not at the head" in _tampered(needle_trace, move_summary).explanation
    assert "system prompt changed" in _tampered(needle_trace, change_system).explanation


# -- summaries ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "defect"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("I'm sorry, but I can't help with that.", "refusal"),
        ("Did stuff.", "too short"),
        ("## SESSION INTENT\nAudit the ledgers.\n## SUMMARY\n- Step 1 done: read_file /ledgers/ledger_01.md", None),
    ],
)
def test_summary_defects(text, defect):
    from harness.scoring.scorers import summary_defects

    found = summary_defects(text)
    assert (not found) if defect is None else (defect in found[0])


def test_a_failing_summarizer_loses_no_other_case(scenarios, tmp_path):
    """One case's summarizer fails; every other case of the suite is still run, scored and written."""
    from harness.runs.results import read_rows
    from harness.runs.run import RunSink
    from harness.suites.faults import FaultySummarizer

    class FailsOnNeedles(FaultySummarizer):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if "fetch_document" in messages[0].text:
                return super()._generate(messages, stop, run_manager, **kwargs)
            return ReferenceSummarizerModel._generate(self, messages, stop, run_manager, **kwargs)

    cases = [scenarios[c] for c in ("goal-ledgers-12", "needle-h24k-d000", "goal-ledgers-14")]
    cfg = make_config("forced-20")
    models = ModelChoice(
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}), FailsOnNeedles(fault="raise"), "reference-agent", "x", True
    )
    sink = RunSink(cases, cfg, seed=0, trials=1, out_dir=tmp_path, progress=lambda _: None)
    for case in cases:
        trace = run_case(case, cfg, models)
        sink.record(trace, score_case(trace, case), case)
    rows = read_rows(sink.path / "results.jsonl")
    assert [r["case_id"] for r in rows] == ["goal-ledgers-12", "needle-h24k-d000", "goal-ledgers-14"]
    assert [all(r["passed"].values()) for r in rows] == [True, False, True]
    assert rows[1]["error"]["type"] == "RuntimeError" and all((sink.path / r["trace"]).exists() for r in rows)


# -- eviction -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def eviction_trace(scenarios):
    from dataclasses import replace as dc_replace

    cfg = make_config("eviction")
    models = ModelChoice(
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}),
        ReferenceSummarizerModel(),
        "reference-agent",
        "reference-summarizer",
        True,
    )
    return run_case(scenarios["needle-h24k-d025"], dc_replace(cfg), models)


def test_healthy_eviction_trace_passes(eviction_trace, scenarios):
    scores = scores_by_key(score_case(eviction_trace, scenarios["needle-h24k-d025"], "eviction"))
    assert all(s.value for s in scores.values() if s.role in GATING), {k: s.explanation for k, s in scores.items()}
    assert scores["eviction_pages_read"].value >= 1


def test_no_eviction_makes_the_eviction_case_invalid(needle_trace, scenarios):
    scores = scores_by_key(score_case(needle_trace, scenarios[needle_trace.case_id], "eviction"))
    assert scores["evicted"].value is False and "invalid" in scores["evicted"].explanation
    assert scores["needle_via_eviction_file"].value is False


def test_an_answer_not_read_from_the_evicted_file_fails(eviction_trace, scenarios):
    bad = copy.deepcopy(eviction_trace)
    for call in bad.agent_calls(1):
        if call["response"]:
            call["response"]["tool_calls"] = []
    scores = scores_by_key(score_case(bad, scenarios[bad.case_id], "eviction"))
    assert scores["needle_via_eviction_file"].value is False and scores["evicted"].value is True


# -- overflow -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def overflow_trace(scenarios):
    cfg = make_config("deepagents-85")
    agent = ReferenceAgentModel(profile={"max_input_tokens": cfg.window}, hard_input_limit=36_000)
    return run_case(
        scenarios["goal-ledgers-24"], cfg, ModelChoice(agent, ReferenceSummarizerModel(), "limited", "reference-summarizer", True)
    )


def test_healthy_overflow_trace_passes(overflow_trace, scenarios):
    scores = scores_by_key(score_case(overflow_trace, scenarios["goal-ledgers-24"], "overflow"))
    assert all(s.value for s in scores.values() if s.role in GATING), {k: s.explanation for k, s in scores.items() if not s.value}
    assert scores["overflowed"].value >= 1


def test_no_overflow_makes_the_overflow_case_invalid(goal_trace, scenarios):
    scores = scores_by_key(score_case(goal_trace, scenarios[goal_trace.case_id], "overflow"))
    assert scores["overflowed"].value == 0 and "invalid" in scores["overflowed"].explanation
    assert scores["overflow_recovered"].value is False


def test_an_unrecovered_overflow_fails(overflow_trace, scenarios):
    bad = copy.deepcopy(overflow_trace)
    bad.events = [e for e in bad.events if e["type"] != "overflow-recovery"]
    score = scores_by_key(score_case(bad, scenarios["goal-ledgers-24"], "overflow"))["overflow_recovered"]
    assert score.value is False and "had no recovery" in score.explanation


def test_the_simulated_provider_counts_numbers_heavier_and_prose_lighter(scenarios):
    from langchain_core.messages import HumanMessage
    from langchain_core.messages.utils import count_tokens_approximately

    from harness.reference.provider_tokens import provider_tokens

    prose = [HumanMessage(scenarios["needle-h24k-d000"].documents[0][1])]
    numbers = [HumanMessage('{"ids": [' + ", ".join(str(10_000_000 + 7919 * i) for i in range(400)) + "]}")]
    assert provider_tokens(prose) < count_tokens_approximately(prose)
    assert provider_tokens(numbers) > 1.3 * count_tokens_approximately(numbers)


def test_the_reference_agent_rejects_requests_over_its_hard_limit():
    from langchain_core.exceptions import ContextOverflowError
    from langchain_core.messages import HumanMessage

    model = ReferenceAgentModel(hard_input_limit=100).bind_tools([])
    with pytest.raises(ContextOverflowError, match="prompt is too long"):
        model.invoke([HumanMessage("1234567890 " * 100)])


# -- chain --------------------------------------------------------------------------------
def test_a_chain_case_with_too_few_summaries_is_invalid(scenarios):
    scenario = scenarios["chain-s8-d000"]
    ok = scores_by_key(score_case(run_with(scenario, ReferenceSummarizerModel()), scenario))
    assert ok["chain_length_reached"].value is True and ok["needle_correct"].value is True
    short = scores_by_key(score_case(run_with(scenario, ReferenceSummarizerModel(), preset="forced-25"), scenario))
    assert short["chain_length_reached"].value is False and "invalid" in short["chain_length_reached"].explanation


# -- subagents ----------------------------------------------------------------------------
def _delegation(batches, size, **kwargs):
    from harness.scenarios.generate import delegation_scenario
    from harness.scenarios.schema import _scenario

    scenario = _scenario(delegation_scenario(batches, size, seed=7), "mem")
    cfg = make_config("forced-20")
    models = ModelChoice(
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}),
        ReferenceSummarizerModel(),
        "reference-agent",
        "reference-summarizer",
        True,
    )
    return scenario, run_case(scenario, cfg, models, **kwargs)


def test_healthy_delegation_passes_and_compresses_inside_the_subagent():
    scenario, trace = _delegation(2, 8)
    scores = scores_by_key(score_case(trace, scenario, "subagent"))
    assert scores["subagent_compressed"].value >= 2 and scores["subagent_results_returned"].value is True
    assert trace.answer(0).startswith("TASK COMPLETE")


def test_small_batches_that_never_compress_are_invalid():
    scenario, trace = _delegation(2, 3)
    score = scores_by_key(score_case(trace, scenario, "subagent"))["subagent_compressed"]
    assert score.value == 0 and "invalid" in score.explanation


def test_a_lost_subagent_report_fails():
    from harness.suites.faults import LoseSubagentResult

    scenario, trace = _delegation(2, 8, middleware=(LoseSubagentResult(),))
    score = scores_by_key(score_case(trace, scenario, "subagent"))["subagent_results_returned"]
    assert score.value is False and "0/2" in score.explanation


# -- argument truncation --------------------------------------------------------------------
def run_report(scenario, preset="truncation", **agent_options):
    cfg = make_config(preset)
    agent = ReferenceAgentModel(profile={"max_input_tokens": cfg.window}, **agent_options)
    return run_case(
        scenario, cfg, ModelChoice(agent, ReferenceSummarizerModel(), "reference-agent", "reference-summarizer", True)
    )


@pytest.fixture(scope="module")
def truncation_trace(scenarios):
    return run_report(scenarios["truncation-report-06"])


def test_healthy_truncation_trace_passes(truncation_trace, scenarios):
    scores = scored(truncation_trace, scenarios["truncation-report-06"])
    assert all(s.value for s in scores.values() if s.role in GATING), {k: s.explanation for k, s in scores.items()}
    assert scores["args_clipped"].value >= 1 and scores["reread_chars"].value > 0


def test_an_agent_that_trusts_clipped_arguments_fails_reread_and_file_intact(scenarios):
    scenario = scenarios["truncation-report-06"]
    scores = scored(run_report(scenario, trusts_clipped_args=True), scenario)
    assert scores["args_clipped"].value >= 1  # valid: the clipping happened
    assert (
        scores["reread_after_clipping"].value is False
        and "without reading the file back" in scores["reread_after_clipping"].explanation
    )
    assert scores["file_intact"].value is False and "truncation marker" in scores["file_intact"].explanation


def test_no_clipping_makes_the_truncation_case_invalid(scenarios):
    scenario = scenarios["truncation-report-06"]
    scores = scored(run_report(scenario, preset="deepagents-85"), scenario)
    assert scores["args_clipped"].value == 0 and "invalid" in scores["args_clipped"].explanation
    assert scores["reread_after_clipping"].value is False
    assert scores["file_intact"].value is True  # nothing was lost, but nothing was tested either


def test_rewrites_with_no_read_back_fail_reread(truncation_trace, scenarios):
    bad = copy.deepcopy(truncation_trace)
    for call in bad.agent_calls():
        if call["response"]:
            call["response"]["tool_calls"] = [tc for tc in call["response"]["tool_calls"] if tc["name"] != "read_file"]
    assert scored(bad, scenarios[bad.case_id])["reread_after_clipping"].value is False


def test_a_lost_section_or_a_missing_file_fails_file_intact(truncation_trace, scenarios):
    scenario = scenarios[truncation_trace.case_id]
    path, value = scenario.expected_files[0].path, scenario.expected_files[0].contains[0]
    lost = copy.deepcopy(truncation_trace)
    lost.final["written_files"][path] = lost.final["written_files"][path].replace(value, "")
    assert scored(lost, scenario)["file_intact"].value is False and value in scored(lost, scenario)["file_intact"].explanation
    gone = copy.deepcopy(truncation_trace)
    del gone.final["written_files"][path]
    assert "never written" in scored(gone, scenario)["file_intact"].explanation
    old = copy.deepcopy(truncation_trace)
    del old.final["written_files"]
    assert "no file contents" in scored(old, scenario)["file_intact"].explanation


def test_an_unreadable_report_stops_the_agent_and_fails(scenarios):
    from harness.suites.faults import FaultyBackend

    scenario = scenarios["truncation-report-06"]
    cfg = make_config("truncation")
    models = ModelChoice(
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}), ReferenceSummarizerModel(), "a", "s", True
    )
    scores = scored(run_case(scenario, cfg, models, backend=FaultyBackend(unreadable="/reports/")), scenario)
    assert scores["goal_no_premature_completion"].value is False and scores["file_intact"].value is False


def test_edit_file_appends_read_back_when_healthy_and_loop_on_a_clipped_anchor_when_trusting(scenarios):
    scenario = scenarios["truncation-edits-06"]
    healthy = scored(run_report(scenario), scenario)
    assert all(s.value for s in healthy.values() if s.role in GATING), {k: s.explanation for k, s in healthy.items()}
    trusting = scored(run_report(scenario, trusts_clipped_args=True), scenario)
    # Its anchor is the clipped text, which is not in the file: the edit fails, fails again, and the agent gives the step
    # up (`policy.GIVE_UP_AFTER`; it used to retry until LangGraph's recursion limit). Failed edits change nothing, so
    # they are not rewrites that needed a read; the file lacks the sections, and the task stopped short.
    assert trusting["file_intact"].value is False and "lacks" in trusting["file_intact"].explanation
    stopped = trusting["goal_no_premature_completion"]
    assert stopped.value is False and "I cannot do step" in stopped.explanation and "edit_file" in stopped.explanation


# -- validity is a kind of score ------------------------------------------------------------
def test_every_validity_key_is_scored_as_validity_and_makes_the_case_invalid(
    needle_trace, eviction_trace, overflow_trace, truncation_trace, scenarios
):
    from harness.runs.results import LEGACY_VALIDITY_KEYS
    from harness.scoring.scorers import INVALID, VALIDITY, outcome

    chain = scenarios["chain-s2-d000"]
    scenario, delegated = _delegation(2, 8)
    scored_sets = [
        score_case(needle_trace, scenarios[needle_trace.case_id]),
        score_case(run_with(chain, ReferenceSummarizerModel()), chain),
        score_case(eviction_trace, scenarios["needle-h24k-d025"], "eviction"),
        score_case(overflow_trace, scenarios["goal-ledgers-24"], "overflow"),
        score_case(truncation_trace, scenarios["truncation-report-06"]),
        score_case(delegated, scenario, "subagent"),
    ]
    validity = {s.key for scores in scored_sets for s in scores if s.role == VALIDITY}
    # the fallback for old rows names the same keys (old rows say "compressed" for what is now "compacted")
    assert validity == {"compacted" if k == "compressed" else k for k in LEGACY_VALIDITY_KEYS}
    for scores in scored_sets:
        for key in {s.key for s in scores if s.role == VALIDITY}:
            broken = [dataclasses.replace(s, value=False) if s.key == key else s for s in scores]
            assert outcome(broken) == (INVALID, [key]), key


def test_a_needle_read_from_history_but_not_in_the_reply_is_not_via_history(needle_trace, scenarios):
    bad = copy.deepcopy(needle_trace)
    bad.final["answers"][1] = "I could not find it."
    scores = scored(bad, scenarios[bad.case_id])
    assert scores["needle_correct"].value is False
    assert scores["needle_via_history"].value is False and "did not carry it" in scores["needle_via_history"].explanation


def test_an_evicted_needle_read_but_not_in_the_reply_is_not_via_the_eviction_file(eviction_trace, scenarios):
    bad = copy.deepcopy(eviction_trace)
    bad.final["answers"][1] = "unknown"
    scores = scores_by_key(score_case(bad, scenarios["needle-h24k-d025"], "eviction"))
    assert (
        scores["needle_via_eviction_file"].value is False and "did not carry it" in scores["needle_via_eviction_file"].explanation
    )


def test_several_needles_are_scored_once_per_key_over_all_of_them():
    from harness.scenarios.generate import niah_scenario
    from harness.scenarios.schema import _scenario

    scenario = _scenario(niah_scenario(24_000, 0.0, 7, needles=3, distractors=2), "test")
    trace = run_with(scenario, ReferenceSummarizerModel())
    scores = score_case(trace, scenario)
    keys = [s.key for s in scores]
    assert len(keys) == len(set(keys))  # one score per key, not the last needle's
    by_key = scores_by_key(scores)
    assert by_key["needle_correct"].value is True and by_key["needle_correct"].explanation.startswith("all 3 needles")
    bad = copy.deepcopy(trace)
    bad.final["answers"][2] = "no idea"
    worse = scored(bad, scenario)
    assert worse["needle_correct"].value is False and worse["needle_correct"].explanation.startswith("needle 2 of 3")


def test_a_summary_request_that_succeeds_on_retry_is_ok_and_says_so(scenarios):
    from harness.suites.faults import FaultySummarizer

    scenario = scenarios["goal-ledgers-12"]
    trace = run_with(scenario, FaultySummarizer(fault="raise", failures=1))
    attempts = [c for c in trace.summarizer_calls()]
    assert attempts[0].get("error") and not attempts[1].get("error")  # the first attempt failed, deepagents retried
    score = scored(trace, scenario)["summaries_ok"]
    assert score.value is True and "recovered after 2 attempts (RuntimeError)" in score.explanation
    assert trace.error is None
    always = run_with(scenario, FaultySummarizer(fault="raise"))
    failed = scored(always, scenario)["summaries_ok"]
    assert failed.value is False and "3 summarizer call(s) failed, last with RuntimeError" in failed.explanation
