"""`harness import langchain`: LangChain message dicts, as ``messages_to_dict`` writes them or as ``convert_to_messages`` takes them.

Each message is read by LangChain itself: ``{"type": ..., "data": {...}}`` by ``messages_from_dict``, the
``{"type": "human", "content": ...}`` and ``{"role": ...}`` shapes by ``convert_to_messages``; then
``convert_to_openai_messages`` gives the OpenAI form the session keeps (`harness.sessions.openai.from_messages`).
deepagents' summary message (its ``lc_source`` marker, `harness._deepagents_adapter.is_summary_message`) is the
compaction it records, at its position, not a message; so is a provider's server-side compaction block in an AI
message's content (`lc_messages.take_compactions`). A JSON array, JSONL, or ``{"messages": [...]}`` (a graph state)
is read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.errors import DatasetError
from harness.sessions.lc_messages import revive, take_compactions
from harness.sessions.model import Compaction, Session
from harness.sessions.openai import from_messages
from harness.sessions.source import messages_field, read_json_or_lines


def read(source: str, **options: Any) -> Session:  # noqa: ANN401 - no options
    """The session in ``source``; a `DatasetError` names the file and ``messages[i]`` LangChain could not read."""
    from langchain_core.messages import convert_to_openai_messages

    from harness._deepagents_adapter import is_summary_message

    raw = messages_field(read_json_or_lines(source), source)
    converted: list[dict[str, Any]] = []
    summaries: set[int] = set()
    native: list[Compaction] = []
    counts: dict[str, int] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise DatasetError(source, None, f"messages[{i}]", f"a message must be a JSON object, got {type(item).__name__}")
        try:
            msg = revive(item)  # every shape LangChain writes a message in, read by LangChain (`lc_messages.revive`)
            taken = take_compactions([msg])  # a provider's compaction: after the messages before this one
            native.extend(replace(c, at=len(converted) - len(summaries)) for c in taken.compactions)
            counts.update({k: counts.get(k, 0) + n for k, n in taken.counts.items()})
            if not taken.messages:
                continue
            msg = taken.messages[0]
            oai = convert_to_openai_messages([msg])
        except (ValueError, KeyError, TypeError, NotImplementedError) as exc:
            raise DatasetError(source, None, f"messages[{i}]", f"LangChain cannot read it: {exc}".splitlines()[0]) from None
        if is_summary_message(msg):
            summaries.add(len(converted))
        converted.extend(oai)
    session = from_messages(converted, source, "langchain", summaries=frozenset(summaries))
    if not native and not counts:
        return session
    compactions = tuple(sorted([*session.compactions, *native], key=lambda c: c.at))
    return replace(session, compactions=compactions, meta={**session.meta, **counts})
