"""Which middleware each strategy builds, in which place of deepagents' stack, with which of the config's settings.

No agent is built: each strategy's ``build`` is called with the offline reference models and a state backend, and
the released middleware's own attributes are read back."""

from __future__ import annotations

import pytest
from deepagents.backends import StateBackend
from deepagents.middleware import SummarizationMiddleware as DeepAgentsSummarization
from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware
from langchain.agents.middleware import SummarizationMiddleware as LangChainSummarization
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.agent.build import build_strategy
from harness.compaction.config import ArgTruncation, CompactionConfig, ContextSize
from harness.compaction.prompts import deepagents_default_prompt
from harness.compaction.strategies import registry
from harness.compaction.strategies.custom import CustomStrategyMiddleware
from harness.compaction.strategies.none import VacatedSummarizationSlot
from harness.compaction.strategies.sliding_window import SlidingWindowMiddleware
from harness.compaction.strategies.summary_reinject import ReinjectAfterSummary
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from tests._strategies import keep_task_and_last_six

WINDOW = 50_000
CUSTOM = "tests._strategies:keep_task_and_last_six"


def _config(strategy="deepagents-summarization", **changes) -> CompactionConfig:
    settings = {
        "name": "x",
        "trigger": (ContextSize("fraction", 0.2),),
        "keep": ContextSize("fraction", 0.05),
        "window": WINDOW,
        "strategy": strategy,
        "custom_strategy": CUSTOM if strategy == "custom" else None,
        **changes,
    }
    return CompactionConfig(**settings)


def _model(window=WINDOW):
    return ReferenceAgentModel(profile={"max_input_tokens": window})


def _build(config, model=None, summarizer=None, backend=None):
    return build_strategy(config, model or _model(config.window), backend=backend or StateBackend(), summarizer=summarizer)


def _conversation():
    """A task, two tool calls with long results, and a reply: masking with keep=1 clears the first result only."""
    call = {"name": "read_file", "args": {"path": "/a"}, "id": "c1", "type": "tool_call"}
    call2 = {"name": "read_file", "args": {"path": "/b"}, "id": "c2", "type": "tool_call"}
    return [
        HumanMessage(content="the task"),
        AIMessage(content="", tool_calls=[call]),
        ToolMessage(content="x" * 4000, tool_call_id="c1", name="read_file"),
        AIMessage(content="", tool_calls=[call2]),
        ToolMessage(content="y" * 4000, tool_call_id="c2", name="read_file"),
        AIMessage(content="done"),
    ]


# -- the registry ------------------------------------------------------------------------------------------------


def test_the_registry_lists_every_strategy_in_its_order_with_its_description():
    assert registry.NAMES == (
        "deepagents-summarization",
        "langchain-summarization",
        "observation-masking",
        "sliding-window",
        "hybrid",
        "none",
        "summary-reinject",
        "anthropic-compaction",
        "anthropic-context-editing",
        "openai-compaction",
        "custom",
    )
    assert all(registry.INFO[name].name == name for name in registry.NAMES)


@pytest.mark.parametrize(
    ("strategy", "slot", "inner", "summarization"),
    [
        ("deepagents-summarization", DeepAgentsSummarization, [], True),
        ("langchain-summarization", LangChainSummarization, [], False),
        ("observation-masking", VacatedSummarizationSlot, [ContextEditingMiddleware], False),
        ("sliding-window", VacatedSummarizationSlot, [SlidingWindowMiddleware], False),
        ("hybrid", DeepAgentsSummarization, [ContextEditingMiddleware], True),
        ("none", VacatedSummarizationSlot, [], False),
        ("summary-reinject", DeepAgentsSummarization, [ReinjectAfterSummary], True),
        ("custom", VacatedSummarizationSlot, [CustomStrategyMiddleware], False),
    ],
)
def test_each_strategy_fills_the_summarization_slot_and_adds_its_own_middleware(strategy, slot, inner, summarization):
    stack = _build(_config(strategy))
    assert type(stack.slot) is slot
    assert stack.slot.name == "SummarizationMiddleware"
    assert [type(m) for m in stack.inner] == inner
    assert stack.summarization is (stack.slot if summarization else None)


# -- deepagents summarization ------------------------------------------------------------------------------------


def test_deepagents_summarization_gets_the_configs_trigger_keep_and_default_prompt_untrimmed():
    model, backend = _model(), StateBackend()
    mw = _build(_config(), model=model, backend=backend).slot
    helper = mw._lc_helper
    assert (helper.trigger, helper.keep) == (("fraction", 0.2), ("fraction", 0.05))
    assert helper.summary_prompt == deepagents_default_prompt()
    assert helper.trim_tokens_to_summarize is None  # the factory's default, not the class's 4000
    assert mw.model is model and mw._backend is backend
    assert helper._summary_chat_model is model and helper.summarizer is None


def test_deepagents_summarization_gets_several_triggers_the_prompt_trim_and_summarizer():
    summarizer = ReferenceSummarizerModel()
    config = _config(
        trigger=(ContextSize("fraction", 0.2), ContextSize("messages", 40)),
        keep=ContextSize("messages", 6),
        summary_prompt="Sum up {messages}",
        trim_tokens_to_summarize=700,
    )
    helper = _build(config, summarizer=summarizer).slot._lc_helper
    assert (helper.trigger, helper.keep) == ([("fraction", 0.2), ("messages", 40)], ("messages", 6))
    assert (helper.summary_prompt, helper.trim_tokens_to_summarize) == ("Sum up {messages}", 700)
    assert helper._summary_chat_model is summarizer


def test_deepagents_argument_truncation_follows_summarization_unless_set():
    mw = _build(_config()).slot
    assert (mw._truncate_args_trigger, mw._truncate_args_keep) == (("fraction", 0.2), ("fraction", 0.05))
    assert (mw._max_arg_length, mw._truncation_text) == (2000, "...(argument truncated)")
    clip = ArgTruncation(ContextSize("fraction", 0.1), ContextSize("messages", 3), max_length=300, truncation_text="[cut]")
    mw = _build(_config(arg_truncation=clip)).slot
    assert (mw._truncate_args_trigger, mw._truncate_args_keep) == (("fraction", 0.1), ("messages", 3))
    assert (mw._max_arg_length, mw._truncation_text) == (300, "[cut]")


def test_deepagents_summarization_counts_the_whole_request_by_default():
    messages = _conversation()
    assert _build(_config()).slot.token_counter(messages) == count_tokens_approximately(messages)


# -- hybrid: masking inside summarization -----------------------------------------------------------------------


def test_hybrid_masks_with_the_configs_trigger_in_tokens_and_mask_keep():
    stack = _build(_config("hybrid", mask_keep=1))
    (masking,) = stack.inner
    (edit,) = masking.edits
    assert type(edit) is ClearToolUsesEdit
    assert (edit.trigger, edit.keep, edit.placeholder) == (10_000, 1, "[cleared]")
    assert stack.slot._lc_helper.trigger == ("fraction", 0.2)


def test_hybrid_summarization_counts_the_request_as_masking_leaves_it():
    messages = _conversation()
    config = _config("hybrid", trigger=(ContextSize("tokens", 500),), keep=ContextSize("tokens", 100), mask_keep=1)
    counter = _build(config).slot.token_counter
    masked = [*messages[:2], messages[2].model_copy(update={"content": "[cleared]"}), *messages[3:]]
    assert counter(messages) == count_tokens_approximately(masked) < count_tokens_approximately(messages)
    assert messages[2].content == "x" * 4000  # the state's messages are not masked


def test_hybrid_with_the_deepagents_settings_of_summarization():
    summarizer, model, backend = ReferenceSummarizerModel(), _model(), StateBackend()
    config = _config("hybrid", keep=ContextSize("messages", 6), summary_prompt="S {messages}", trim_tokens_to_summarize=9)
    mw = _build(config, model=model, summarizer=summarizer, backend=backend).slot
    assert mw.model is model and mw._backend is backend
    helper = mw._lc_helper
    assert (helper.keep, helper.summary_prompt, helper.trim_tokens_to_summarize) == (("messages", 6), "S {messages}", 9)
    assert helper._summary_chat_model is summarizer


# -- LangChain summarization -------------------------------------------------------------------------------------


def test_langchain_summarization_gets_the_configs_sizes_and_default_prompt():
    mw = _build(_config("langchain-summarization")).slot
    assert (mw.trigger, mw.keep) == (("fraction", 0.2), ("fraction", 0.05))
    assert (mw.summary_prompt, mw.trim_tokens_to_summarize) == (deepagents_default_prompt(), None)


def test_langchain_summarization_gets_several_triggers_the_prompt_and_trim():
    config = _config(
        "langchain-summarization",
        trigger=(ContextSize("tokens", 9000), ContextSize("messages", 40)),
        keep=ContextSize("messages", 6),
        summary_prompt="Sum up {messages}",
        trim_tokens_to_summarize=700,
    )
    mw = _build(config).slot
    assert (mw.trigger, mw.keep) == ([("tokens", 9000), ("messages", 40)], ("messages", 6))
    assert (mw.summary_prompt, mw.trim_tokens_to_summarize) == ("Sum up {messages}", 700)


def test_langchain_summarization_reads_the_configs_window_from_the_model_it_summarizes_with():
    agent = _model(window=WINDOW)
    mw = _build(_config("langchain-summarization"), model=agent).slot
    assert mw.model is agent  # already the config's window: no copy

    other = _model(window=8000)
    mw = _build(_config("langchain-summarization"), model=other).slot
    assert type(mw.model) is ReferenceAgentModel and mw.model.profile == {"max_input_tokens": WINDOW}
    assert other.profile == {"max_input_tokens": 8000}

    summarizer = ReferenceSummarizerModel(seed=7)
    mw = _build(_config("langchain-summarization"), model=agent, summarizer=summarizer).slot
    assert type(mw.model) is ReferenceSummarizerModel and mw.model.seed == 7
    assert mw.model.profile == {"max_input_tokens": WINDOW} and summarizer.profile is None


# -- observation masking, sliding window, custom -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trigger", "mask_keep", "expected"),
    [
        ((ContextSize("fraction", 0.2),), 3, (10_000, 3)),
        ((ContextSize("messages", 30), ContextSize("tokens", 7000)), 0, (7000, 0)),
        ((ContextSize("messages", 30),), 2, (0, 2)),
    ],
)
def test_observation_masking_clears_past_the_trigger_in_tokens_keeping_mask_keep_results(trigger, mask_keep, expected):
    config = _config("observation-masking", trigger=trigger, keep=ContextSize("messages", 4), mask_keep=mask_keep)
    (masking,) = _build(config).inner
    (edit,) = masking.edits
    assert type(edit) is ClearToolUsesEdit
    assert (edit.trigger, edit.keep) == expected
    assert edit.placeholder == "[cleared]"
    assert (edit.clear_at_least, edit.clear_tool_inputs, tuple(edit.exclude_tools)) == (0, False, ())


@pytest.mark.parametrize(
    ("trigger", "keep", "expected"),
    [
        ((ContextSize("fraction", 0.2),), ContextSize("fraction", 0.05), (10_000, 2500, None)),
        ((ContextSize("tokens", 9000),), ContextSize("tokens", 1200), (9000, 1200, None)),
        ((ContextSize("fraction", 0.2),), ContextSize("messages", 12), (10_000, None, 12)),
        ((ContextSize("messages", 30),), ContextSize("messages", 12), (0, None, 12)),
    ],
)
def test_the_sliding_window_trims_past_the_trigger_in_tokens_to_keep_in_tokens_or_messages(trigger, keep, expected):
    (middleware,) = _build(_config("sliding-window", trigger=trigger, keep=keep)).inner
    assert (middleware.trigger_tokens, middleware.keep_tokens, middleware.keep_messages) == expected
    assert middleware.keep_messages is None or type(middleware.keep_messages) is int


def test_the_custom_strategy_wraps_the_named_function():
    (middleware,) = _build(_config("custom")).inner
    assert middleware.fn is keep_task_and_last_six
    assert middleware.spec == CUSTOM
