"""A compaction config refuses every setting it cannot run, with an error that names the config and the option."""

from __future__ import annotations

import pytest

from harness.compaction.config import MIN_WINDOW, CompactionConfig, ContextSize
from harness.errors import ConfigError

TRIGGER = (ContextSize("fraction", 0.2),)
KEEP = ContextSize("fraction", 0.05)


def _config(**changes) -> CompactionConfig:
    settings = {"name": "x", "trigger": TRIGGER, "keep": KEEP, **changes}
    return CompactionConfig(**settings)


def _error(**changes) -> str:
    with pytest.raises(ConfigError) as err:
        _config(**changes)
    return str(err.value)


def test_the_defaults_are_deepagents_summarization_and_its_own_settings():
    cfg = _config()
    assert (cfg.window, cfg.strategy, cfg.mask_keep, cfg.eviction_tokens) == (64_000, "deepagents-summarization", 3, 20_000)
    assert (cfg.summary_prompt, cfg.summary_prompt_name, cfg.trim_tokens_to_summarize) == (None, "deepagents-default", None)
    assert (cfg.arg_truncation, cfg.summary_model, cfg.custom_strategy) == (None, None, None)


# -- strategy ----------------------------------------------------------------------------------------------------


def test_an_unknown_strategy_is_rejected_listing_the_known_ones_in_registry_order():
    assert _error(strategy="summarise") == (
        "config 'x': unknown strategy 'summarise'; known: deepagents-summarization, langchain-summarization, "
        "observation-masking, sliding-window, hybrid, none, summary-reinject, anthropic-compaction, anthropic-context-editing, "
        "openai-compaction, custom"
    )


@pytest.mark.parametrize(
    "strategy", ["deepagents-summarization", "langchain-summarization", "observation-masking", "sliding-window", "hybrid", "none"]
)
def test_every_registered_strategy_but_custom_is_accepted_without_a_function(strategy):
    assert _config(strategy=strategy).strategy == strategy


CUSTOM_MISMATCH = "config 'x': custom_strategy (module:function) goes with strategy custom, and only with it"


def test_the_custom_strategy_needs_its_function():
    assert _error(strategy="custom") == CUSTOM_MISMATCH


def test_a_function_without_the_custom_strategy_is_rejected():
    assert _error(custom_strategy="tests._strategies:keep_task_and_last_six") == CUSTOM_MISMATCH
    assert _error(strategy="hybrid", custom_strategy="tests._strategies:keep_task_and_last_six") == CUSTOM_MISMATCH


def test_the_custom_strategy_with_its_function_is_accepted():
    cfg = _config(strategy="custom", custom_strategy="tests._strategies:keep_task_and_last_six")
    assert (cfg.strategy, cfg.custom_strategy) == ("custom", "tests._strategies:keep_task_and_last_six")


# -- numbers -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mask_keep", [-1, True, 2.0, "3"])
def test_mask_keep_must_be_a_non_negative_integer(mask_keep):
    assert _error(mask_keep=mask_keep) == f"config 'x': mask_keep must be a non-negative integer, got {mask_keep!r}"


def test_mask_keep_zero_masks_every_tool_result_and_is_accepted():
    assert _config(mask_keep=0).mask_keep == 0


def test_at_least_one_trigger_is_required():
    assert _error(trigger=()) == "config 'x': at least one trigger is required"


@pytest.mark.parametrize("window", [MIN_WINDOW - 1, 0, True, 64_000.0, "64000"])
def test_the_window_must_be_an_integer_of_at_least_the_minimum(window):
    assert _error(window=window) == (f"config 'x': window must be an integer of at least 1000 tokens, got {window!r}")


def test_the_minimum_window_itself_is_accepted():
    cfg = _config(window=1000, trigger=(ContextSize("tokens", 500),), keep=ContextSize("tokens", 100))
    assert cfg.window == MIN_WINDOW == 1000


@pytest.mark.parametrize("tokens", [0, -1])
def test_eviction_tokens_must_be_positive(tokens):
    assert _error(eviction_tokens=tokens) == f"config 'x': eviction_tokens must be positive, got {tokens!r}"


def test_one_eviction_token_is_accepted():
    assert _config(eviction_tokens=1).eviction_tokens == 1


@pytest.mark.parametrize("tokens", [0, -1])
def test_trim_tokens_to_summarize_must_be_positive_or_none(tokens):
    assert _error(trim_tokens_to_summarize=tokens) == "config 'x': trim_tokens_to_summarize must be positive or None"


def test_one_trim_token_is_accepted():
    assert _config(trim_tokens_to_summarize=1).trim_tokens_to_summarize == 1


# -- keep below every trigger ------------------------------------------------------------------------------------


def test_keep_equal_to_the_trigger_is_rejected_showing_both_in_tokens():
    assert _error(trigger=(ContextSize("tokens", 2000),), keep=ContextSize("tokens", 2000)) == (
        "config 'x': keep (tokens:2000 = 2000 tokens) must be below the trigger (tokens:2000 = 2000 tokens), "
        "or every summary is followed by another"
    )


def test_keep_above_a_fraction_trigger_is_rejected_in_the_windows_tokens():
    assert _error(trigger=(ContextSize("fraction", 0.2),), keep=ContextSize("fraction", 0.3), window=10_000) == (
        "config 'x': keep (30% = 3000 tokens) must be below the trigger (20% = 2000 tokens), "
        "or every summary is followed by another"
    )


def test_every_trigger_of_several_is_checked_against_keep():
    triggers = (ContextSize("tokens", 9000), ContextSize("tokens", 1000))
    assert _error(trigger=triggers, keep=ContextSize("tokens", 1500)) == (
        "config 'x': keep (tokens:1500 = 1500 tokens) must be below the trigger (tokens:1000 = 1000 tokens), "
        "or every summary is followed by another"
    )


def test_keep_one_token_below_the_trigger_is_accepted():
    cfg = _config(trigger=(ContextSize("tokens", 2000),), keep=ContextSize("tokens", 1999))
    assert cfg.keep.tokens(cfg.window) == 1999


@pytest.mark.parametrize(
    ("trigger", "keep"),
    [
        (ContextSize("messages", 10), ContextSize("tokens", 50_000)),
        (ContextSize("tokens", 1000), ContextSize("messages", 500)),
        (ContextSize("messages", 10), ContextSize("messages", 50)),
    ],
)
def test_a_message_count_is_not_compared_with_tokens(trigger, keep):
    assert _config(trigger=(trigger,), keep=keep).keep == keep


# -- summary prompt ----------------------------------------------------------------------------------------------


def test_a_summary_prompt_without_its_placeholder_is_rejected_naming_the_config():
    assert _error(summary_prompt="Summarize the conversation.") == (
        "config 'x': summary prompt must contain the placeholder {messages}"
    )


def test_a_summary_prompt_with_its_placeholder_is_accepted():
    assert _config(summary_prompt="Summarize:\n{messages}").summary_prompt == "Summarize:\n{messages}"


def test_the_human_message_eviction_limit_is_a_positive_count():
    assert _config(human_eviction_tokens=1).human_eviction_tokens == 1
    with pytest.raises(ConfigError) as err:
        _config(human_eviction_tokens=0)
    assert str(err.value) == "config 'x': human_eviction_tokens must be positive, got 0"
