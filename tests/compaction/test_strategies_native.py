"""The provider-native strategies: what each builds (the provider's model with its context_management settings, the
summarization slot vacated), the trigger the provider refuses, and what the recorder makes of a native compaction.

No agent runs and nothing is sent: models are built and read back; the recorder is fed hand-built responses."""

from __future__ import annotations

import dataclasses

import pytest
from deepagents.backends import StateBackend
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

from harness.agent.build import build_strategy
from harness.compaction.config import CompactionConfig, ContextSize
from harness.compaction.strategies.names import PROVIDER_NATIVE
from harness.compaction.strategies.none import VacatedSummarizationSlot
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel, native
from harness.reference.local import local_server
from harness.suites.registry import SUITES
from harness.trace import native as trace_native
from harness.trace.recorder import Recorder, provider_view
from tests._recorder_inputs import fetch, request

WINDOW = 250_000
ANTHROPIC = ChatAnthropic(model="claude-test", api_key="sk-test", max_retries=0)  # type: ignore[call-arg]
OPENAI = ChatOpenAI(model="gpt-test", api_key="sk-test", max_retries=0)  # type: ignore[call-arg]


def _config(strategy: str, trigger: str = "20%", window: int = WINDOW, **changes) -> CompactionConfig:  # noqa: ANN003
    return CompactionConfig(
        name="x", trigger=(ContextSize.parse(trigger),), keep=ContextSize("fraction", 0.05), window=window,
        strategy=strategy, **changes,
    )  # fmt: skip


def _build(config: CompactionConfig, model):  # noqa: ANN001, ANN202
    return build_strategy(config, model, backend=StateBackend(), summarizer=ReferenceSummarizerModel(seed=3))


def test_anthropic_compaction_builds_chat_anthropic_with_the_compaction_edit_at_the_trigger():
    stack = _build(_config("anthropic-compaction", summary_prompt=None), ANTHROPIC)
    assert isinstance(stack.slot, VacatedSummarizationSlot) and stack.inner == [] and stack.summarization is None
    assert isinstance(stack.model, ChatAnthropic) and stack.model is not ANTHROPIC  # a copy: the user's is untouched
    assert stack.model.context_management == {
        "edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]
    }
    assert stack.model.betas == ["compact-2026-01-12"] and stack.model.profile["max_input_tokens"] == WINDOW
    assert ANTHROPIC.context_management is None
    prompted = _build(_config("anthropic-compaction", summary_prompt="Keep every account number.\n\n{messages}"), ANTHROPIC)
    assert prompted.model.context_management["edits"][0]["instructions"].startswith("Keep every account number.")


def test_anthropic_context_editing_builds_the_clear_tool_uses_edit_keeping_mask_keep():
    stack = _build(_config("anthropic-context-editing", window=64_000, mask_keep=2), ANTHROPIC)
    assert isinstance(stack.slot, VacatedSummarizationSlot) and stack.inner == []
    (edit,) = stack.model.context_management["edits"]
    assert edit == {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 12_800},
        "keep": {"type": "tool_uses", "value": 2},
    }
    assert stack.model.betas == ["context-management-2025-06-27"]


def test_openai_compaction_builds_chat_openai_on_the_responses_api_with_the_threshold():
    stack = _build(_config("openai-compaction", window=64_000), OPENAI)
    assert isinstance(stack.slot, VacatedSummarizationSlot) and isinstance(stack.model, ChatOpenAI)
    assert stack.model.use_responses_api is True and OPENAI.use_responses_api is None
    assert stack.model.context_management == [{"type": "compaction", "compact_threshold": 12_800}]
    assert stack.inner == [] and stack.provider == "openai"  # nothing added inside the slot: the provider compacts


@pytest.mark.parametrize(
    ("strategy", "cls", "path"),
    [("anthropic-compaction", ChatAnthropic, "anthropic_api_url"), ("openai-compaction", ChatOpenAI, "openai_api_base")],
)
def test_offline_the_reference_agent_is_served_by_a_loopback_harness_serve(strategy, cls, path):
    stack = _build(_config(strategy), ReferenceAgentModel(profile={"max_input_tokens": WINDOW}))
    server = local_server(seed=3)  # the summarizer's seed: the served answers are the in-process ones
    assert isinstance(stack.model, cls) and server.state.seed == 3 and local_server(seed=3) is server
    assert getattr(stack.model, path).rstrip("/") in (server.url, server.url.removesuffix("/v1"))
    assert (stack.model.model_name if cls is ChatOpenAI else stack.model.model) == "reference-agent"


def test_a_model_of_another_provider_is_refused_and_an_unknown_double_is_left_alone():
    with pytest.raises(ConfigError, match="Anthropic's server-side context management: run it with --model anthropic:NAME"):
        _build(_config("anthropic-compaction"), OPENAI)
    with pytest.raises(ConfigError, match="OpenAI's server-side context management: run it with --model openai:NAME"):
        _build(_config("openai-compaction"), ANTHROPIC)
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    assert _build(_config("openai-compaction"), FakeListChatModel(responses=["x"])).model is None


def test_a_trigger_under_anthropics_minimum_is_refused_naming_the_minimum_and_the_window_that_reaches_it():
    with pytest.raises(ConfigError) as err:
        _config("anthropic-compaction", window=64_000)
    text = str(err.value)
    assert "12,800 input tokens" in text and "minimum of 50,000" in text and "at least 250,000 tokens" in text
    with pytest.raises(ConfigError, match="minimum of 50,000"):
        _config("anthropic-compaction", trigger="tokens:49999", window=64_000)
    assert _config("anthropic-compaction", trigger="tokens:50000", window=64_000).trigger_tokens() == 50_000
    with pytest.raises(ConfigError, match="triggers in input tokens"):
        _config("openai-compaction", trigger="messages:40")
    assert _config("openai-compaction", window=64_000).strategy == "openai-compaction"  # no minimum there
    assert PROVIDER_NATIVE["anthropic-compaction"] == native.ANTHROPIC_MIN_TRIGGER
    with pytest.raises(ConfigError, match="minimum of 50,000"):  # a config changed later is checked again
        dataclasses.replace(_config("anthropic-compaction"), window=64_000)


def test_the_needle_eval_asks_each_native_strategy_for_the_recovery_it_allows():
    needle = SUITES["needle"]
    for strategy in ("anthropic-compaction", "openai-compaction"):
        assert "needle_via_history" not in needle.required_for(strategy) and "needle_correct" in needle.required_for(strategy)
    assert "needle_via_recall" in needle.required_for("anthropic-context-editing")
    assert not SUITES["eviction"].applies_to("openai-compaction")


SUMMARY = "## SUMMARY\nRead DOC-001 to DOC-006."


def _compaction_reply(provider: str, summary: str | None) -> AIMessage:
    call = {"name": "fetch_document", "args": {"doc_id": "DOC-007"}, "id": "c7", "type": "tool_call"}
    if provider == "anthropic":
        block = {"type": "compaction", "content": summary}
    else:
        block = {"type": "compaction", "id": "cmp_1", "encrypted_content": native.encode_compaction(summary or "")}
    return AIMessage(content=[block], tool_calls=[call])


def test_native_compactions_are_read_from_anthropic_blocks_and_openai_items():
    assert trace_native.compactions(_compaction_reply("anthropic", SUMMARY)) == [
        trace_native.NativeCompaction("anthropic", SUMMARY, True)
    ]
    assert trace_native.compactions(_compaction_reply("openai", SUMMARY)) == [
        trace_native.NativeCompaction("openai", SUMMARY, True)
    ]
    assert trace_native.compactions(_compaction_reply("anthropic", None))[0].summary is None  # a failed compaction
    opaque = AIMessage(content=[{"type": "compaction", "id": "cmp_2", "encrypted_content": "gAAAAreal-ciphertext"}])
    assert trace_native.compactions(opaque) == [trace_native.NativeCompaction("openai", trace_native.OPAQUE, False)]
    assert trace_native.compactions(AIMessage(content="no compaction")) == []
    edited = AIMessage(content="x", response_metadata={"context_management": {"applied_edits": [{"cleared_tool_uses": 4}]}})
    assert trace_native.cleared_tool_uses(edited) == 4 and trace_native.cleared_tool_uses(AIMessage(content="x")) == 0


TASK = HumanMessage("Review the archive.")
A1, T1 = fetch("c1", "document one " * 40)
A2, T2 = fetch("c2", "document two " * 40)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_compaction_in_the_response_is_a_summary_event_and_the_call_shows_what_the_model_saw(provider):
    rec = Recorder(strategy=f"{provider}-compaction")
    call = rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    before = call["approx_tokens"]
    reply = _compaction_reply(provider, SUMMARY)
    rec.finish_call(call, 0.0, message=reply)
    (event,) = rec.events
    summary_key = rec._entry(native.summary_message(SUMMARY))[0]
    assert event["type"] == "summary" and event["native"] == provider and event["history_path"] is None
    assert event["summary_key"] == summary_key and event["tokens_before"] == before > event["tokens_after"]
    assert call["message_keys"] == [summary_key] and call["summary_at_head"] and call["approx_tokens"] < before
    # the next request, as the provider sees it: the summary, then the reply that carried the compaction, then on
    later = rec.before_agent_call(request([TASK, A1, T1, A2, T2, reply, ToolMessage("doc 7", tool_call_id="c7")]))
    assert later["message_keys"][0] == summary_key and later["summary_at_head"] and len(later["message_keys"]) == 3
    assert len(rec.events) == 1  # the summary is not reported again when it heads the next request


def test_a_failed_compaction_is_marked_on_the_call_and_makes_no_event():
    rec = Recorder(strategy="anthropic-compaction")
    call = rec.before_agent_call(request([TASK, A1, T1]))
    keys = list(call["message_keys"])
    rec.finish_call(call, 0.0, message=_compaction_reply("anthropic", None))
    assert rec.events == [] and call["native_compaction_failed"] == "anthropic" and call["message_keys"] == keys
    assert provider_view([TASK, _compaction_reply("anthropic", None)]) == ([TASK, _compaction_reply("anthropic", None)], False)


def test_tool_results_the_provider_cleared_show_as_the_placeholder_and_a_mask_event_oldest_first():
    rec = Recorder(strategy="anthropic-context-editing")
    call = rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    before = call["approx_tokens"]
    meta = {"context_management": {"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1}]}}
    rec.finish_call(call, 0.0, message=AIMessage(content="next", response_metadata=meta))
    (event,) = rec.events
    assert event["type"] == "mask" and event["tool_call_ids"] == ["c1"] and event["native"] == "anthropic"
    cleared = rec.messages[call["message_keys"][2]]["data"]
    assert cleared["content"] == "[cleared]" and cleared["tool_call_id"] == "c1"
    assert rec.messages[call["message_keys"][4]]["data"]["content"] == T2.content  # the newest kept
    assert event["tokens_before"] == before > call["approx_tokens"] == event["tokens_after"]
    again = rec.before_agent_call(request([TASK, A1, T1, A2, T2]))
    rec.finish_call(again, 0.0, message=AIMessage(content="next", response_metadata=meta))
    assert len(rec.events) == 1  # the same result cleared again is not a new event


def test_the_lowest_trigger_anthropic_takes_is_said_with_the_window_that_reaches_it_or_the_percent_of_this_one():
    from harness.compaction.strategies.provider_native import low_trigger_window, trigger_error

    assert low_trigger_window(0.2, 250_000) == 50_000  # at the minimum: allowed
    assert low_trigger_window(1.0, 50_000) == 50_000
    assert low_trigger_window(0.5, 1_000, minimum=400) == 500
    with pytest.raises(ConfigError) as err:
        low_trigger_window(0.2, 64_000)
    assert str(err.value) == (
        "a trigger at 20% of a 64,000-token window is 12,800 input tokens, below the provider's compaction minimum of "
        "50,000; declare a window of at least 250,000 tokens to trigger at 20% (or trigger at 79% or more of this window)"
    )
    with pytest.raises(ConfigError) as err:
        low_trigger_window(0.2, 249_999)
    assert "is 49,999 input tokens" in str(err.value) and str(err.value).endswith("(or trigger at 21% or more of this window)")
    with pytest.raises(ConfigError) as err:  # a window under the minimum: no share of it reaches the minimum
        low_trigger_window(0.5, 40_000)
    assert str(err.value).endswith("declare a window of at least 100,000 tokens to trigger at 50%")
    for fraction in (0, -0.1, 1.01):
        with pytest.raises(ConfigError) as err:
            low_trigger_window(fraction, 64_000)
        assert str(err.value) == f"trigger fraction {fraction}: must be in (0, 1]"
    for window in (0, -5):
        with pytest.raises(ConfigError) as err:
            low_trigger_window(0.5, window)
        assert str(err.value) == f"declared window {window}: must be positive"
    assert trigger_error(50_000) is None and trigger_error(9, minimum=9) is None
    assert trigger_error(49_999) == (
        "context_management.edits.compact_20260112.trigger.value: 49999 is below the minimum of 50000 input tokens; "
        "compaction triggers must be at least 50000"
    )


def test_a_native_strategys_trigger_is_its_lowest_token_trigger_and_a_refusal_names_the_config_and_strategy():
    from harness.compaction.strategies.provider_native import trigger_tokens

    config = _config("openai-compaction", trigger="tokens:12000", window=64_000)
    assert trigger_tokens(config) == 12_000 and trigger_tokens(config, minimum=12_000) == 12_000
    with pytest.raises(ConfigError) as err:
        trigger_tokens(config, minimum=12_001)
    assert str(err.value) == (
        "config 'x': strategy openai-compaction: a trigger at 19% of a 64,000-token window is 12,000 input tokens, below "
        "the provider's compaction minimum of 12,001; declare a window of at least 64,006 tokens to trigger at 19% (or "
        "trigger at 19% or more of this window)"
    )
    with pytest.raises(ConfigError) as err:
        _config("openai-compaction", trigger="messages:40")
    assert str(err.value) == (
        "config 'x': strategy openai-compaction triggers in input tokens; give a fraction or tokens trigger, not messages:40"
    )


def test_the_edges_of_the_providers_minimum_a_window_of_it_and_a_trigger_past_the_window():
    from harness.compaction.strategies.provider_native import low_trigger_window, trigger_tokens

    with pytest.raises(ConfigError) as err:  # a window of exactly the minimum: only all of it reaches it
        low_trigger_window(0.5, 50_000)
    assert str(err.value).endswith("to trigger at 50% (or trigger at 100% or more of this window)")
    assert low_trigger_window(1.0, 1, minimum=1) == 1  # a 1-token window is a window
    # a trigger exactly at the minimum is taken, even where tokens / window * window rounds under it
    at_minimum = _config("openai-compaction", trigger="tokens:50000", window=65_692)
    assert trigger_tokens(at_minimum, minimum=50_000) == 50_000
    past = _config("openai-compaction", trigger="tokens:70000", window=64_000)  # past the window: all of it
    with pytest.raises(ConfigError) as err:
        trigger_tokens(past, minimum=80_000)
    assert "a trigger at 100% of a 64,000-token window is 64,000 input tokens, below the provider's" in str(err.value)
    two = dataclasses.replace(_config("openai-compaction"), strategy="deepagents-summarization")
    two = dataclasses.replace(
        two, trigger=(ContextSize("messages", 40), ContextSize("messages", 60)), keep=ContextSize("messages", 5)
    )
    with pytest.raises(ConfigError) as err:
        trigger_tokens(two)
    assert str(err.value).endswith("give a fraction or tokens trigger, not messages:40, messages:60")
