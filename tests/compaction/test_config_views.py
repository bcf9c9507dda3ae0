"""What a config resolves to: deepagents' trigger argument, token thresholds, overhead flags, overrides, its label,
its stored dict and the presets' exact sizes."""

from __future__ import annotations

import pytest

from harness.compaction.config import (
    PRESETS,
    ArgTruncation,
    CompactionConfig,
    ContextSize,
    _forced,
    get_preset,
    overhead_level,
)
from harness.compaction.prompts import prompt_fingerprint
from harness.errors import ConfigError

F20 = ContextSize("fraction", 0.2)
F5 = ContextSize("fraction", 0.05)
M40 = ContextSize("messages", 40)
T5000 = ContextSize("tokens", 5000)


def _config(**changes) -> CompactionConfig:
    settings = {"name": "x", "trigger": (F20,), "keep": F5, **changes}
    return CompactionConfig(**settings)


# -- deepagents' arguments ---------------------------------------------------------------------------------------


def test_one_trigger_is_passed_as_a_tuple():
    assert _config().trigger_arg() == ("fraction", 0.2)


def test_several_triggers_are_passed_as_a_list_of_tuples():
    assert _config(trigger=(F20, M40)).trigger_arg() == [("fraction", 0.2), ("messages", 40)]


def test_argument_truncation_follows_the_first_trigger_and_keep_unless_set():
    clip = _config(trigger=(F20, T5000)).effective_truncation()
    assert (clip.trigger, clip.keep, clip.max_length) == (F20, F5, 2000)
    own = ArgTruncation(trigger=ContextSize("fraction", 0.1), keep=ContextSize("fraction", 0.025))
    assert _config(arg_truncation=own).effective_truncation() is own


@pytest.mark.parametrize(
    ("trigger", "window", "tokens"),
    [
        ((F20,), 64_000, 12_800),
        ((F20, T5000), 64_000, 5000),
        ((T5000, F20), 20_000, 4000),
        ((M40, F20), 64_000, 12_800),
        ((M40,), 64_000, None),
    ],
)
def test_the_trigger_in_tokens_is_the_lowest_token_threshold(trigger, window, tokens):
    assert _config(trigger=trigger, window=window, keep=ContextSize("tokens", 100)).trigger_tokens() == tokens


# -- the fixed per-call overhead ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trigger", "overhead", "level"),
    [(99, 100, "error"), (100, 100, "error"), (101, 100, "warning"), (199, 100, "warning"), (200, 100, None), (900, 100, None)],
)
def test_a_trigger_at_or_below_the_overhead_is_an_error_and_below_twice_it_a_warning(trigger, overhead, level):
    assert overhead_level(trigger, overhead) == level


def test_a_trigger_at_the_overhead_is_an_error_saying_both_sizes():
    cfg = _config(trigger=(ContextSize("tokens", 4000),), keep=ContextSize("tokens", 1000))
    assert cfg.overhead_error(4000) == (
        "config 'x': the trigger (4,000 tokens) is at or below the fixed per-call overhead (4,000 tokens of tool "
        "schemas and system prompt): summarization would fire on every call. Raise --window or the trigger "
        "(harness audit explains)"
    )
    assert cfg.overhead_error(3999) is None


def test_a_message_count_trigger_has_no_overhead_error_or_warning():
    cfg = _config(trigger=(M40,))
    assert cfg.overhead_error(10**9) is None
    assert cfg.overhead_warning(10**9) is None


def test_a_trigger_under_twice_the_overhead_is_warned_with_the_window_that_would_clear_it():
    cfg = _config(trigger=(ContextSize("fraction", 0.125), M40), keep=ContextSize("tokens", 100), window=32_000)
    assert cfg.overhead_warning(3000) == (
        "trigger 4000 tokens (12.5%, messages:40 of a 32000-token window) is not well above the fixed per-call "
        "overhead of 3000 tokens (tool schemas and system prompt): summarization will fire on almost every call. "
        "Raise --window (>= 48001 tokens) or the trigger."
    )


def test_no_warning_at_twice_the_overhead_nor_at_the_error_level():
    cfg = _config(trigger=(ContextSize("tokens", 4000),), keep=ContextSize("tokens", 100))
    assert cfg.overhead_warning(2000) is None
    assert cfg.overhead_warning(4000) is None
    assert cfg.overhead_warning(2001) is not None


# -- overrides ---------------------------------------------------------------------------------------------------


def test_no_override_returns_the_same_config():
    cfg = _config()
    assert cfg.with_overrides() is cfg
    assert cfg.with_overrides(trigger=[]) is cfg
    assert cfg.with_overrides(strategy="deepagents-summarization") is cfg


def test_a_strategy_override_keeps_the_name():
    cfg = _config().with_overrides(strategy="sliding-window")
    assert (cfg.name, cfg.strategy, cfg.custom_strategy) == ("x", "sliding-window", None)
    assert (cfg.trigger, cfg.keep, cfg.window) == ((F20,), F5, 64_000)


def test_a_custom_strategy_override_sets_the_function():
    cfg = _config().with_overrides(strategy="custom", custom_strategy="tests._strategies:keep_task_and_last_six")
    assert (cfg.name, cfg.strategy, cfg.custom_strategy) == ("x", "custom", "tests._strategies:keep_task_and_last_six")


@pytest.mark.parametrize(
    ("override", "field", "value"),
    [
        ({"trigger": [F20, M40]}, "trigger", (F20, M40)),
        ({"keep": ContextSize("fraction", 0.1)}, "keep", ContextSize("fraction", 0.1)),
        ({"window": 80_000}, "window", 80_000),
    ],
)
def test_a_size_override_marks_the_name_custom(override, field, value):
    cfg = _config().with_overrides(**override)
    assert cfg.name == "x+custom"
    assert getattr(cfg, field) == value
    assert type(cfg.trigger) is tuple


def test_an_override_is_validated_like_a_new_config():
    with pytest.raises(ConfigError, match="^config 'x\\+custom': keep"):
        _config().with_overrides(keep=ContextSize("fraction", 0.3))


# -- label and stored dict ---------------------------------------------------------------------------------------


def test_the_label_of_a_default_strategy_config():
    assert _config().label() == "x (trigger 20%, keep 5%, window 64000)"


def test_the_label_names_another_strategy_every_trigger_and_the_argument_clipping():
    cfg = _config(
        strategy="hybrid",
        trigger=(F20, M40),
        keep=ContextSize("tokens", 2000),
        arg_truncation=ArgTruncation(trigger=ContextSize("fraction", 0.1), keep=ContextSize("fraction", 0.025)),
        window=50_000,
    )
    assert cfg.label() == (
        "x (strategy hybrid; trigger 20% or messages:40, keep tokens:2000; write/edit args clipped from 10%, "
        "keep 2.5%, window 50000)"
    )


def _stored(**extra):
    return {
        "name": "x",
        "trigger": [["fraction", 0.2]],
        "keep": ["fraction", 0.05],
        "window": 64_000,
        "summary_prompt_name": "deepagents-default",
        "trim_tokens_to_summarize": None,
        "arg_truncation": {
            "trigger": ["fraction", 0.2],
            "keep": ["fraction", 0.05],
            "max_length": 2000,
            "truncation_text": "...(argument truncated)",
        },
        "eviction_tokens": 20_000,
        "summary_model": None,
        "summary_prompt_sha": prompt_fingerprint(None),
        **extra,
    }


def test_the_stored_dict_of_a_default_strategy_config_has_no_strategy_keys():
    assert _config().to_dict() == _stored()


def test_the_stored_dict_of_another_strategy_names_it_and_its_settings():
    data = _config(strategy="observation-masking", mask_keep=5).to_dict()
    assert data == _stored(strategy="observation-masking", mask_keep=5, custom_strategy=None)


def test_the_stored_dict_lists_every_trigger_and_the_explicit_truncation():
    cfg = _config(
        trigger=(F20, T5000),
        summary_prompt="Sum up {messages}",
        arg_truncation=ArgTruncation(trigger=M40, keep=ContextSize("messages", 4), max_length=99, truncation_text="~"),
    )
    data = cfg.to_dict()
    assert data["trigger"] == [["fraction", 0.2], ["tokens", 5000]]
    assert data["arg_truncation"] == {
        "trigger": ["messages", 40],
        "keep": ["messages", 4],
        "max_length": 99,
        "truncation_text": "~",
    }
    assert data["summary_prompt_sha"] == prompt_fingerprint("Sum up {messages}") != prompt_fingerprint(None)
    assert "summary_prompt" not in data


# -- presets -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "trigger", "keep", "window", "eviction", "clip"),
    [
        ("forced-10", 0.10, 0.025, 64_000, 20_000, None),
        ("forced-15", 0.15, 0.0375, 64_000, 20_000, None),
        ("forced-20", 0.20, 0.05, 64_000, 20_000, None),
        ("forced-25", 0.25, 0.0625, 64_000, 20_000, None),
        ("tokens", 0.90, 0.10, 40_000, 20_000, None),
        ("eviction", 0.85, 0.10, 64_000, 1000, None),
        ("truncation", 0.85, 0.10, 64_000, 20_000, (0.10, 0.025)),
        ("deepagents-85", 0.85, 0.10, 64_000, 20_000, None),
    ],
)
def test_each_preset_s_exact_settings(name, trigger, keep, window, eviction, clip):
    cfg = get_preset(name)
    assert cfg is PRESETS[name]
    assert cfg.name == name
    assert cfg.trigger == (ContextSize("fraction", trigger),)
    assert cfg.keep == ContextSize("fraction", keep)
    assert (cfg.window, cfg.eviction_tokens, cfg.strategy) == (window, eviction, "deepagents-summarization")
    expected_clip = None if clip is None else ArgTruncation(ContextSize("fraction", clip[0]), ContextSize("fraction", clip[1]))
    assert cfg.arg_truncation == expected_clip


def test_an_unknown_preset_is_rejected_listing_the_known_ones_sorted():
    with pytest.raises(ConfigError) as err:
        get_preset("forced-99")
    assert str(err.value) == (
        "unknown variant 'forced-99'; known: deepagents-85, estimate, eviction, forced-10, forced-15, forced-20, forced-25, "
        "media, media-blobs, parent, pasted, tokens, truncation"
    )


@pytest.mark.parametrize(("percent", "keep"), [(10, 0.025), (12, 0.03), (30, 0.075), (100, 0.25)])
def test_a_forced_preset_triggers_at_its_percent_and_keeps_a_quarter_of_it(percent, keep):
    cfg = _forced(percent)
    assert cfg.name == f"forced-{percent}"
    assert cfg.trigger == (ContextSize("fraction", percent / 100),)
    assert cfg.keep == ContextSize("fraction", keep)
    assert cfg == CompactionConfig(name=f"forced-{percent}", trigger=cfg.trigger, keep=cfg.keep)


def _prompt(chars: int) -> str:
    return "{messages}" + "x" * (chars - len("{messages}"))


def test_a_summary_prompt_of_half_the_window_or_more_is_warned_about_with_both_sizes():
    """Approximate tokens are characters // 4: 3,999 characters are 999 tokens, under half a 2,000-token window."""
    assert _config(window=2000).prompt_warning() is None  # the installed prompt: not the harness's to size
    assert _config(window=2000, summary_prompt=_prompt(3999)).prompt_warning() is None
    assert _config(window=2000, summary_prompt=_prompt(4000)).prompt_warning() == (
        "config 'x': the summary prompt is about 1,000 tokens (4,000 characters), 50% of the declared 2,000-token "
        "window: every summary request is that prompt plus the messages to summarize, so it leaves them little room. "
        "Shorten the prompt or raise --window"
    )
    assert (
        _config(window=2000, summary_prompt=_prompt(7999))
        .prompt_warning()
        .endswith(  # type: ignore[union-attr]
            "1,999 tokens (7,999 characters), 100% of the declared 2,000-token window: every summary request is that "
            "prompt plus the messages to summarize, so it leaves them little room. Shorten the prompt or raise --window"
        )
    )
    assert "so it leaves them no room at all. Shorten" in (
        _config(window=2000, summary_prompt=_prompt(8000)).prompt_warning() or ""
    )
