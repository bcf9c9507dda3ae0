"""A recorded session as every reader returns it: OpenAI chat messages, the compactions it recorded, its files.

The messages are the format a case's conversation file holds (`harness.scenarios.conversation`): ``role`` system,
user, assistant or tool; ``content`` a string or a list of text parts; an assistant's ``tool_calls``; a tool
result's ``tool_call_id``. A reader maps its source onto that format and keeps nothing it cannot place there; a
recorded compaction (a deepagents summary message, an Anthropic compaction block, a compaction step) is not a
message but a `Compaction` at the position where it happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Compaction:
    """A compaction the session recorded: ``at`` messages came before it (the first ``at`` messages were what it
    compacted, whole or in part); ``kind`` names what recorded it; ``summary`` is its text when the source kept it."""

    at: int
    kind: str
    summary: str | None = None


@dataclass(frozen=True)
class Session:
    """One recorded session: ``messages`` in OpenAI chat format, ``compactions`` in order, the ``files`` (path, text)
    and ``todos`` its agent had where the source keeps them (a LangGraph thread), the ``format`` of its reader and
    the ``source`` as the user named it (redacted), ``meta`` (model name, the source's own token counts), and
    ``warnings``: what the reader left out that a user would not expect (`harness import` says each on stderr)."""

    format: str
    source: str
    messages: tuple[dict[str, Any], ...]
    compactions: tuple[Compaction, ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    todos: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


CONTINUE_TASK = "Continue the task from where the conversation above left off."
"""The task of every imported session case (`harness import`): the user turn after the recorded prefix, before the
probes are asked (a session case's ``task``; one constant, so every imported case continues the same way)."""
DEFAULT_STEPS = 10
"""`harness import --steps`'s default: the model calls an agent that follows the task makes of its own after the cut
(`harness.scenarios.model.SessionInfo.steps`), enough to see it carry on, few enough that a replay's cost is bounded."""


DEEPAGENTS_SUMMARY = "deepagents-summary"
"""`Compaction.kind` of a deepagents summarization: its summary message in a recorded request, or its event in a
LangGraph thread's state."""
PROVIDER_KINDS = {"anthropic": "anthropic-compaction", "openai": "openai-compaction"}
"""`Compaction.kind` of a provider's server-side compaction, by provider (the names of the strategies that make them):
Anthropic's ``compaction`` block, OpenAI's Responses compaction item."""
FAILED_COMPACTIONS = "failed_compactions"
"""The `Session.meta` count of provider compaction blocks whose summary is null: the compaction failed and the provider
treated the block as a no-op, so nothing was compacted there and it is no `Compaction`."""


def provider_compaction(block: Any, at: int, counts: dict[str, int]) -> Compaction | None:  # noqa: ANN401 - any JSON value
    """The `Compaction` after ``at`` messages that one content block records when it is a provider's server-side
    compaction (`harness.trace.native.block_compaction`: the one rule every reader and the recorder share): kind
    `PROVIDER_KINDS` of its provider, its summary the text the provider returned (None when the provider keeps it
    encrypted). None for any other block; a failed compaction is None too, counted in ``counts`` under
    `FAILED_COMPACTIONS` (the reader's meta), so it is not dropped silently."""
    from harness.trace.native import block_compaction

    found = block_compaction(block)
    if found is None:
        return None
    if found.summary is None:
        counts[FAILED_COMPACTIONS] = counts.get(FAILED_COMPACTIONS, 0) + 1
        return None
    return Compaction(at, PROVIDER_KINDS[found.provider], found.summary if found.readable else None)
