"""A session case's window (`harness.compaction.config.session_window`): the arm's trigger fires at the first call
after the cut, and only the sizes a window moves are moved."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.compaction.config import (
    MIN_WINDOW,
    SESSION_TRIGGER_MARGIN,
    ContextSize,
    control_window,
    get_preset,
    session_window,
)


@pytest.mark.parametrize("first_call", [3_000, 15_013, 20_481, 123_457])
def test_the_window_puts_the_fraction_trigger_at_or_just_below_the_first_call(first_call):
    config = get_preset("forced-20")
    window = session_window(config, first_call)
    assert window == int(first_call * SESSION_TRIGGER_MARGIN / 0.2)
    chosen = replace(config, window=window)
    trigger = chosen.trigger_tokens()
    assert trigger is not None
    assert trigger <= first_call  # deepagents fires when the count reaches int(window x fraction)
    assert trigger >= first_call * SESSION_TRIGGER_MARGIN - 2  # ... and not far below: the largest such window
    assert chosen.keep.tokens(window) == int(window * 0.05)  # the keep stays the arm's share of the window


def test_with_several_triggers_the_lowest_fraction_decides():
    config = replace(
        get_preset("forced-20"),
        trigger=(ContextSize("fraction", 0.5), ContextSize("fraction", 0.25), ContextSize("messages", 90)),
    )
    assert session_window(config, 10_000) == int(10_000 * SESSION_TRIGGER_MARGIN / 0.25)


@pytest.mark.parametrize("trigger", [ContextSize("tokens", 6000), ContextSize("messages", 40)])
def test_a_trigger_in_tokens_or_messages_keeps_the_arms_window(trigger):
    keep = ContextSize("tokens", 1000) if trigger.unit == "tokens" else ContextSize("messages", 10)
    config = replace(get_preset("forced-20"), trigger=(trigger,), keep=keep)
    assert session_window(config, 50_000) is None


def test_a_session_too_short_for_the_trigger_gets_no_window():
    config = get_preset("forced-20")
    assert session_window(config, 150) is None  # 150 x 0.98 / 0.2 = 735 tokens: under the smallest window
    assert session_window(config, int(MIN_WINDOW * 0.2 / SESSION_TRIGGER_MARGIN) + 1) is not None


def test_the_controls_window_fits_the_prefix_and_its_probes_twice_and_never_shrinks_the_arms():
    config = get_preset("forced-20")
    assert control_window(config, 50_000) == 100_000
    assert control_window(config, 1_000) == config.window
