"""Provider-native compaction, simulated: the summary pass, the OpenAI envelope, and the trigger minimum.

Both providers' server-side compaction is served by ``harness serve`` (``serve_anthropic.py``,
``serve_responses.py``) from the same reference summarizer deepagents' own summaries use, so a
native arm and a deepagents arm differ only in where the summary is made and what is kept:

- `compaction_summary`: the summary of a request's messages, shaped by ``instructions`` (the
  provider's custom summarization prompt, which replaces the default one, as Anthropic documents)
  and rendered as LangChain's summarization prompt renders messages (``get_buffer_string`` XML).
- `summary_message`: how the reference models see a compaction block or item on a later request:
  a user turn that opens as deepagents' summary without a history file does, so the reference agent
  resumes from it (a native summary leaves no history file to page).
- `encode_compaction` / `decode_compaction`: OpenAI's ``compaction`` item carries an opaque
  ``encrypted_content``; offline it is a versioned envelope (``ENVELOPE_PREFIX`` then base64 of a
  JSON object with the marker, the version and the summary) that the harness decodes without a key,
  so an offline run's compactions stay auditable (docs/design.md, "The live path").
- `low_trigger_window`: Anthropic refuses a trigger under ``ANTHROPIC_MIN_TRIGGER`` input tokens, so
  a harness trigger at a low fraction of the window needs a large declared window; this computes it
  and says so in the error text.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, get_buffer_string

from harness import _deepagents_adapter as da
from harness.errors import ConfigError
from harness.reference import summarizer

ANTHROPIC_MIN_TRIGGER = 50_000  # compact_20260112: a trigger under this is a 400
ANTHROPIC_DEFAULT_TRIGGER = 150_000  # compact_20260112's trigger when none is given
ENVELOPE_MARKER = "harness-simulated-compaction"
ENVELOPE_VERSION = 1
ENVELOPE_PREFIX = "hsc1."  # encrypted_content = prefix + base64(JSON envelope)
NATIVE_SUMMARY_OPENING = da.SUMMARY_OPENINGS[1]  # "Here is a summary of the conversation to date:"

DEFAULT_COMPACTION_INSTRUCTIONS = """You have written a partial transcript for the task above. Write a summary of it
that lets you continue the work from the summary alone. Use these sections:

## SESSION INTENT
The user's request, as they stated it.

## SUMMARY
What was done so far, the decisions, constraints and facts stated.

## ARTIFACTS
The files created, modified or read.

## NEXT STEPS
What remains to be done.
"""


def compaction_summary(messages: Sequence[BaseMessage], instructions: str | None = None, *, seed: int = 0) -> str:
    """The reference summarizer's summary of ``messages`` for a native compaction, shaped by ``instructions``
    (None: `DEFAULT_COMPACTION_INSTRUCTIONS`). A pure function of its arguments."""
    prompt = (instructions or DEFAULT_COMPACTION_INSTRUCTIONS).rstrip() + "\n\n" + get_buffer_string(list(messages), format="xml")
    return summarizer.summarize(prompt, seed=seed)


def summary_message(summary: str) -> HumanMessage:
    """What the reference models see in place of a compaction block or item: the summary as a user turn."""
    return HumanMessage(content=f"{NATIVE_SUMMARY_OPENING}\n\n{summary}")


def encode_compaction(summary: str, *, source: str = "responses") -> str:
    """The ``encrypted_content`` of a simulated OpenAI compaction item: a versioned, marked base64 JSON envelope."""
    envelope = {"marker": ENVELOPE_MARKER, "version": ENVELOPE_VERSION, "source": source, "summary": summary}
    return ENVELOPE_PREFIX + base64.urlsafe_b64encode(json.dumps(envelope, sort_keys=True).encode()).decode()


def decode_compaction(encrypted_content: str) -> str:
    """The summary inside an ``encrypted_content`` made by `encode_compaction`; ValueError names what is wrong
    (not one of ours, a broken envelope, a version this harness does not read)."""
    if not isinstance(encrypted_content, str) or not encrypted_content.startswith(ENVELOPE_PREFIX):
        raise ValueError(f"not a harness compaction envelope (it does not start with {ENVELOPE_PREFIX!r})")
    try:
        envelope = json.loads(base64.urlsafe_b64decode(encrypted_content[len(ENVELOPE_PREFIX) :].encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("a harness compaction envelope whose body is not base64 JSON") from None
    if not isinstance(envelope, dict) or envelope.get("marker") != ENVELOPE_MARKER:
        raise ValueError(f"a compaction envelope without the marker {ENVELOPE_MARKER!r}")
    if envelope.get("version") != ENVELOPE_VERSION:
        raise ValueError(f"compaction envelope version {envelope.get('version')!r}: this harness reads {ENVELOPE_VERSION}")
    if not isinstance(envelope.get("summary"), str):
        raise ValueError("a compaction envelope without a summary")
    return envelope["summary"]


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
