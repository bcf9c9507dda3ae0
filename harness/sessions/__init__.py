"""Recorded sessions: read from the tools people record with (`harness import`), cut, turned into ``session`` cases.

A reader turns one recorded session into a `Session` (`harness.sessions.model`): its messages as OpenAI chat
messages, where it recorded a compaction, and the files and todos it had. `FORMATS` names every reader once, by the
format name `harness import` takes, as ``module:function`` so that nothing is imported before it is used.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.sessions.model import Compaction, Session

__all__ = ["FORMATS", "Compaction", "Session", "read_session"]

FORMATS: dict[str, tuple[str, str]] = {
    "openai": ("harness.sessions.openai:read", 'OpenAI chat messages: a JSON array, JSONL, or {"messages": [...]}'),
    "anthropic": ("harness.sessions.anthropic:read", "Anthropic Messages: a list of messages or a request body with system"),
    "langchain": (
        "harness.sessions.langchain:read",
        "LangChain message dicts (messages_to_dict, or what convert_to_messages takes)",
    ),
    "atif": ("harness.sessions.atif:read", "Harbor ATIF v1.x trajectory.json (Terminal-Bench, agent CLIs)"),
    "mini-swe-agent": (
        "harness.sessions.mini_swe_agent:read",
        "mini-swe-agent .traj.json (mini-swe-agent-1 text actions or 1.1 tool calls)",
    ),
    "langgraph": ("harness.sessions.langgraph:read", "a LangGraph thread: a SQLite checkpoint database and --thread ID"),
    "langsmith": (
        "harness.sessions.langsmith:read",
        "a LangSmith run: its id, or --project P [--filter F] (with LANGSMITH_API_KEY), or its exported JSON file",
    ),
}
"""format name -> (``module:function`` of its reader, one line for ``harness import --help``). Each reader is
``read(source: str, **options) -> Session`` and raises `harness.errors.DatasetError` naming the file, line or step,
and field of the first problem."""


def read_session(fmt: str, source: str, **options: Any) -> Session:  # noqa: ANN401 - a reader's own options
    """The session ``source`` holds, read by the reader of ``fmt`` (a name in `FORMATS`)."""
    if fmt not in FORMATS:
        from harness.errors import ConfigError

        raise ConfigError(f"unknown session format {fmt!r}: expected one of {', '.join(sorted(FORMATS))}")
    module, _, function = FORMATS[fmt][0].partition(":")
    return getattr(importlib.import_module(module), function)(source, **options)
