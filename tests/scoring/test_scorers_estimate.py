"""The estimate eval's scores (`harness.scoring.scorers.estimate`): each check fails on a bad trace and holds on a
good one; every figure names the count it used."""

import pytest

from harness.scoring.scorers import outcome
from harness.scoring.scorers.estimate import TOLERANCE, UNDERCOUNT_KEY, check_key, estimate_scores
from harness.trace.exact_tokens import text_tokens
from tests._traces import Conversation

CHINESE = "仓库的货物已经运输，需要根据合同检查库存和发票。" * 40  # 1,000 characters: about 250 approximate tokens
ENGLISH = "The shipment was delayed at the harbor because the customs papers were late again. " * 8
WINDOW = 3_000


def _audit(text: str, documents: int, *, summarize_at: int | None = None, model: str = "reference-agent", **usage):
    """An archive review fetching ``documents`` copies of ``text`` under an 85 % trigger of a ``WINDOW`` window;
    deepagents summarizes before the call after document ``summarize_at`` (None: never)."""
    conv = Conversation(window=WINDOW, trigger=[["fraction", 0.85]], keep=["fraction", 0.1])
    conv.user("Review the archive: fetch every document in order.")
    for i in range(documents):
        if summarize_at is not None and i == summarize_at:
            conv.summarize("The review is under way; documents fetched so far are noted.", keep=2)
        conv.agent(tools=[("fetch_document", {"doc_id": f"DOC-{i + 1:03d}"}, f"DOC-{i + 1:03d}\n{text}")], **usage)
    conv.answer("All documents are reviewed.")
    trace = conv.trace(kind="goal")
    trace.agent_model = model
    return trace


def _scores(trace):
    return {s.key: s for s in estimate_scores(trace, None)}


def test_a_request_over_the_window_before_a_late_compaction_fails_and_is_the_upstream_undercount():
    # Chinese: the approximate count (about 4 characters a token) sees a third of the true size, so deepagents'
    # trigger (85 % by that count) fires long after the request passed the window by the exact count
    scores = _scores(_audit(CHINESE, 8, summarize_at=7))
    assert scores["trigger_reached"].value
    check = scores[UNDERCOUNT_KEY]
    assert check.value is False and "over the window" in check.explanation and "langchain#39754" in check.explanation
    assert scores["estimate_ratio"].value < 0.6 and scores["trigger_share_exact"].value > 1.0
    assert "exact o200k_base" in scores["estimate_exact_tokens"].explanation
    assert outcome(list(scores.values()), known_upstream=[UNDERCOUNT_KEY])[0] == "KNOWN_UPSTREAM"


def test_a_compaction_in_time_passes_on_the_same_content():
    # one document in, the conversation is still under the window by the exact count: compacting there is in time
    scores = _scores(_audit(CHINESE, 3, summarize_at=1))
    assert scores[UNDERCOUNT_KEY].value is True, scores[UNDERCOUNT_KEY].explanation
    assert scores["trigger_share_exact"].value < 1.0


def test_prose_that_passes_the_window_without_any_compaction_fails_and_is_no_upstream_failure():
    # English prose is over-counted, so a late trigger there is not the estimate's doing: the plain check fails
    trace = _audit(ENGLISH, 30)
    scores = _scores(trace)
    assert UNDERCOUNT_KEY not in scores and scores["estimate_ratio"].value > 1
    assert scores["trigger_reached"].value, scores["trigger_reached"].explanation
    assert scores["trigger_share_ok"].value is False and "before any compaction" in scores["trigger_share_ok"].explanation
    assert scores["trigger_share_exact"].value is None
    assert outcome(list(scores.values()), known_upstream=[UNDERCOUNT_KEY])[0] == "FAIL"


def test_a_case_that_never_reached_the_trigger_is_invalid_not_passed():
    scores = _scores(_audit(ENGLISH, 2))
    assert scores["trigger_reached"].value is False and "invalid" in scores["trigger_reached"].explanation
    assert outcome(list(scores.values()))[0] == "INVALID"


def test_a_compaction_within_the_tolerance_passes_even_when_a_later_request_passes_the_window():
    # a document of about a third of the window arrives after a compaction that fired near 85 %: in time, declared
    for documents in range(2, 40):
        scores = _scores(_audit(ENGLISH, documents, summarize_at=documents - 1))
        share = scores["trigger_share_exact"].value
        if share is not None and abs(share - 0.85) <= TOLERANCE * 0.85:
            break
    else:
        pytest.fail("no compaction point within the tolerance")
    assert scores["trigger_share_ok"].value is True and "within" in scores["trigger_share_ok"].explanation


def test_provider_usage_is_the_exact_count_of_a_request_when_reported():
    # usage above the window on every call: the requests passed it, whatever the tokenizer says
    scores = _scores(_audit(ENGLISH, 3, summarize_at=2, input_tokens=WINDOW + 1, output_tokens=5, total_tokens=WINDOW + 6))
    check = scores["trigger_share_ok"]
    assert check.value is False and "provider usage" in check.explanation


def test_a_model_with_no_exact_encoding_is_counted_by_the_simulated_tokenizer_and_says_so():
    scores = _scores(_audit(CHINESE, 3, summarize_at=1, model="anthropic:claude-sonnet-4-6"))
    assert "simulated" in scores["estimate_exact_tokens"].explanation


def test_the_key_names_the_undercount_only_below_one_and_where_no_usage_was_reported():
    assert check_key(0.99) == UNDERCOUNT_KEY and check_key(1.0) == check_key(None) == "trigger_share_ok"
    assert check_key(0.5, usage=True) == "trigger_share_ok"


def test_with_provider_usage_a_late_trigger_on_chinese_is_a_plain_failure_not_the_declared_upstream_one():
    # LangChain also triggers on the reported total: where usage was reported the estimate did not decide alone
    scores = _scores(_audit(CHINESE, 8, summarize_at=7, input_tokens=WINDOW + 1, output_tokens=5, total_tokens=WINDOW + 6))
    assert UNDERCOUNT_KEY not in scores and scores["trigger_share_ok"].value is False
    assert "provider usage was reported" in scores["trigger_share_ok"].explanation


def test_the_chinese_text_here_is_dense_by_the_exact_count():
    assert len(CHINESE) / text_tokens(CHINESE) < 2  # the premise of the tests above, measured
