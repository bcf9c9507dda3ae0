"""Context sizes: what each written form parses to, how many tokens it is for a window, how it prints, and the error
that names a bad one."""

from __future__ import annotations

import pytest

from harness.compaction.config import ArgTruncation, ContextSize
from harness.errors import ConfigError


def _error(fn, *args, **kwargs) -> str:
    with pytest.raises(ConfigError) as err:
        fn(*args, **kwargs)
    return str(err.value)


# -- construction: which values a unit accepts ---------------------------------------------------------------------


@pytest.mark.parametrize("value", [1, 1.0, 0.000001, 0.5])
def test_a_fraction_in_the_half_open_unit_interval_is_accepted(value):
    assert ContextSize("fraction", value).value == value


@pytest.mark.parametrize("value", [0, 0.0, -0.1, 1.000001, 2])
def test_a_fraction_outside_the_half_open_unit_interval_is_rejected_with_its_value(value):
    assert _error(ContextSize, "fraction", value) == f"fraction must be in (0, 1], got {value!r}"


@pytest.mark.parametrize("unit", ["tokens", "messages"])
@pytest.mark.parametrize("value", [1, 6000, 2.0])
def test_a_count_that_is_a_positive_whole_number_is_accepted(unit, value):
    assert ContextSize(unit, value).value == value


@pytest.mark.parametrize("unit", ["tokens", "messages"])
@pytest.mark.parametrize("value", [0, -1, 1.5, 0.5])
def test_a_count_that_is_not_a_positive_whole_number_is_rejected_naming_the_unit(unit, value):
    assert _error(ContextSize, unit, value) == f"{unit} must be a positive integer, got {value!r}"


@pytest.mark.parametrize("unit", ["fraction", "tokens", "messages"])
def test_a_boolean_is_not_a_size_in_any_unit(unit):
    assert _error(ContextSize, unit, True) == f"{unit} value must be a number, got True"


def test_an_unknown_unit_is_rejected_listing_the_known_units():
    assert _error(ContextSize, "bytes", 10) == "unknown context-size unit 'bytes'; use one of fraction, tokens, messages"


# -- parsing the written forms -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("20%", "fraction", 0.2),
        (" 12.5% ", "fraction", 0.125),
        ("100%", "fraction", 1.0),
        ("fraction:0.15", "fraction", 0.15),
        ("tokens:6000", "tokens", 6000),
        (" tokens : 6000 ", "tokens", 6000),
        ("messages:40", "messages", 40),
        (("tokens", "6000"), "tokens", 6000),
        (["messages", 3], "messages", 3),
        (("fraction", 0.25), "fraction", 0.25),
    ],
)
def test_every_written_form_parses_to_its_unit_and_value(text, unit, value):
    size = ContextSize.parse(text)
    assert (size.unit, size.value) == (unit, value)


def test_parsing_a_context_size_returns_it_unchanged():
    size = ContextSize("tokens", 500)
    assert ContextSize.parse(size) is size


@pytest.mark.parametrize("text", [("tokens",), ("tokens", 1, 2), []])
def test_a_sequence_that_is_not_a_unit_value_pair_is_rejected_with_it(text):
    assert _error(ContextSize.parse, text) == f"context size must be (unit, value), got {text!r}"


@pytest.mark.parametrize(
    ("text", "context"),
    [
        (("tokens", "many"), "('tokens', 'many')"),
        (("tokens", None), "('tokens', None)"),
        ("x%", "x%"),
        (" tokens:lots ", "tokens:lots"),
    ],
)
def test_a_value_that_is_not_a_number_is_rejected_quoting_what_was_written(text, context):
    assert _error(ContextSize.parse, text) == f"cannot read a number from {context!r}"


def test_text_with_neither_percent_nor_unit_is_rejected_showing_the_forms():
    assert _error(ContextSize.parse, " 6000 ") == (
        "cannot read context size '6000': write fraction:0.2, 20%, tokens:6000 or messages:20"
    )


def test_the_value_after_the_first_colon_is_the_value():
    assert _error(ContextSize.parse, "tokens:1:2") == "cannot read a number from 'tokens:1:2'"


# -- what a size is, for deepagents and in tokens ---------------------------------------------------------------


def test_as_tuple_gives_a_float_fraction_and_integer_counts():
    fraction = ContextSize("fraction", 1).as_tuple()
    tokens = ContextSize("tokens", 6000.0).as_tuple()
    messages = ContextSize("messages", 20.0).as_tuple()
    assert fraction == ("fraction", 1.0) and type(fraction[1]) is float
    assert tokens == ("tokens", 6000) and type(tokens[1]) is int
    assert messages == ("messages", 20) and type(messages[1]) is int


@pytest.mark.parametrize(
    ("size", "window", "tokens"),
    [
        (ContextSize("fraction", 0.2), 64_000, 12_800),
        (ContextSize("fraction", 0.15), 1001, 150),  # 150.15, rounded down
        (ContextSize("fraction", 1), 40_000, 40_000),
        (ContextSize("tokens", 6000), 64_000, 6000),
        (ContextSize("tokens", 6000), None, 6000),
        (ContextSize("fraction", 0.2), None, None),
        (ContextSize("messages", 20), 64_000, None),
        (ContextSize("messages", 20), None, None),
    ],
)
def test_tokens_for_a_window(size, window, tokens):
    got = size.tokens(window)
    assert got == tokens and (tokens is None or type(got) is int)


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (ContextSize("fraction", 0.2), "20%"),
        (ContextSize("fraction", 0.125), "12.5%"),
        (ContextSize("fraction", 1), "100%"),
        (ContextSize("tokens", 6000.0), "tokens:6000"),
        (ContextSize("messages", 20), "messages:20"),
    ],
)
def test_a_size_prints_as_it_is_written_on_the_command_line(size, text):
    assert str(size) == text
    assert ContextSize.parse(text) == size


# -- argument truncation settings -------------------------------------------------------------------------------


SIZE = ContextSize("fraction", 0.2)
KEEP = ContextSize("messages", 4)


def test_argument_truncation_defaults_to_deepagents_length_and_marker():
    clip = ArgTruncation(trigger=SIZE, keep=KEEP)
    assert (clip.max_length, clip.truncation_text) == (2000, "...(argument truncated)")


def test_argument_truncation_settings_are_deepagents_dict():
    clip = ArgTruncation(trigger=SIZE, keep=KEEP, max_length=21, truncation_text="[cut]")
    assert clip.to_settings() == {
        "trigger": ("fraction", 0.2),
        "keep": ("messages", 4),
        "max_length": 21,
        "truncation_text": "[cut]",
    }


@pytest.mark.parametrize("max_length", [20, 0, -5, True, 300.0, "300"])
def test_a_max_length_that_is_not_an_integer_above_20_is_rejected(max_length):
    assert _error(ArgTruncation, trigger=SIZE, keep=KEEP, max_length=max_length) == (
        f"arg_truncation.max_length must be an integer above 20 (the kept prefix), got {max_length!r}"
    )


def test_an_empty_truncation_marker_is_rejected_saying_why():
    assert _error(ArgTruncation, trigger=SIZE, keep=KEEP, truncation_text="") == (
        "arg_truncation.truncation_text must not be empty: the recorder detects truncation by it"
    )


def test_a_size_that_is_not_finite_is_refused_with_the_finite_check_s_own_words_and_its_unit():
    assert _error(ContextSize.parse, "tokens:inf") == "must be a finite number, got 'inf'"
    assert _error(ContextSize, "tokens", float("nan")) == "tokens value: must be a finite number, got nan"
    assert _error(ContextSize.parse, "tokens:lots") == "cannot read a number from 'tokens:lots'"
