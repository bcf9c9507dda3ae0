"""What the provider-native strategies share: the trigger the provider accepts, in input tokens.

A provider-native strategy (``anthropic-compaction``, ``anthropic-context-editing``, ``openai-compaction``) compacts on
the provider's side. Its `StrategyStack` names the provider and the settings of its LangChain model
(``ChatAnthropic(context_management=..., betas=...)``, ``ChatOpenAI(use_responses_api=True, context_management=...)``)
and leaves deepagents' summarization slot to `none.VacatedSummarizationSlot`, so neither deepagents' nor LangChain's
summarization runs in the arm; `harness.agent.native_models` builds that model (the user's live one, or offline the
reference agent behind a loopback `harness serve`). The trigger is the config's, in input tokens; Anthropic refuses a
compaction trigger under ``ANTHROPIC_MIN_TRIGGER``, and `low_trigger_window` says which declared window reaches a
fraction (configs check it when they are made, so a refused trigger is exit 2 before any case).
"""

from __future__ import annotations

import math
from typing import Any

from harness.errors import ConfigError

ANTHROPIC_MIN_TRIGGER = 50_000  # compact_20260112: a trigger under this is a 400


def trigger_tokens(config: Any, minimum: int = 0) -> int:
    """The config's trigger in input tokens, as the provider's setting: the lowest of its token triggers. A trigger
    under the provider's ``minimum`` is a ConfigError (exit 2) from `low_trigger_window`, naming the minimum and
    the declared window that reaches the fraction; a trigger of messages only has no provider equivalent."""
    tokens = config.trigger_tokens()
    if tokens is None:
        raise ConfigError(
            f"config {config.name!r}: strategy {config.strategy} triggers in input tokens; give a fraction or tokens "
            f"trigger, not {', '.join(map(str, config.trigger))}"
        )
    if tokens < minimum:
        try:
            low_trigger_window(min(tokens / config.window, 1.0), config.window, minimum)
        except ConfigError as exc:
            raise ConfigError(f"config {config.name!r}: strategy {config.strategy}: {exc}") from None
    return tokens


def trigger_error(trigger: int, minimum: int = ANTHROPIC_MIN_TRIGGER) -> str | None:
    """Anthropic's 400 text for a ``compact_20260112`` trigger under the minimum, or None when it is allowed."""
    if trigger >= minimum:
        return None
    return (
        f"context_management.edits.compact_20260112.trigger.value: {trigger} is below the minimum of {minimum} input "
        f"tokens; compaction triggers must be at least {minimum}"
    )


def low_trigger_window(fraction: float, window: int, minimum: int = ANTHROPIC_MIN_TRIGGER) -> int:
    """The trigger in input tokens for a harness trigger at ``fraction`` of a declared ``window``, checked against
    the provider's ``minimum``: ConfigError (exit 2) naming the minimum and the declared window that reaches that
    fraction when the trigger would be refused."""
    if not 0 < fraction <= 1:
        raise ConfigError(f"trigger fraction {fraction}: must be in (0, 1]")
    if window <= 0:
        raise ConfigError(f"declared window {window}: must be positive")
    trigger = int(fraction * window)
    if trigger >= minimum:
        return trigger
    needed = math.ceil(minimum / fraction)
    other = f" (or trigger at {math.ceil(100 * minimum / window)}% or more of this window)" if minimum <= window else ""
    raise ConfigError(
        f"a trigger at {fraction:.0%} of a {window:,}-token window is {trigger:,} input tokens, below the provider's "
        f"compaction minimum of {minimum:,}; declare a window of at least {needed:,} tokens to trigger at "
        f"{fraction:.0%}{other}"
    )
