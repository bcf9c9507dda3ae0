"""Provider-native compaction, simulated: the summary pass, the OpenAI envelope, and the trigger minimum.

Both providers' server-side compaction is served by ``harness serve`` (`harness.reference.serve.messages`,
`harness.reference.serve.responses`) from the same reference summarizer deepagents' own summaries use, so a
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
  so an offline run's compactions stay auditable (docs/live.md, "How the live path is built").
- `low_trigger_window`: Anthropic refuses a trigger under ``ANTHROPIC_MIN_TRIGGER`` input tokens, so
  a harness trigger at a low fraction of the window needs a large declared window; this computes it
  and says so in the error text.

The envelope and `summary_message` are defined in `harness.trace.native` and the trigger minimum in
`harness.compaction.strategies.provider_native` (the recorder and the configs read them, and sit in lower layers);
they are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, get_buffer_string

from harness.compaction.strategies.provider_native import (  # noqa: F401 - the trigger minimum lives below (configs check it)
    ANTHROPIC_MIN_TRIGGER,
    low_trigger_window,
    trigger_error,
)
from harness.reference import summarizer
from harness.trace.native import (  # noqa: F401 - the envelope and the summary turn live below (the recorder reads them)
    ENVELOPE_MARKER,
    ENVELOPE_PREFIX,
    ENVELOPE_VERSION,
    NATIVE_SUMMARY_OPENING,
    decode_compaction,
    encode_compaction,
    summary_message,
)

ANTHROPIC_DEFAULT_TRIGGER = 150_000  # compact_20260112's trigger when none is given

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
