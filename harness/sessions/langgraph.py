"""The LangGraph reader: one thread of a SQLite checkpoint database, read through LangGraph's own API.

``harness import langgraph CHECKPOINTS.sqlite --thread ID``: the database `langgraph-checkpoint-sqlite`'s
`SqliteSaver` writes (the embedded default), opened read-only. deepagents keeps ``messages`` and ``files`` in delta
channels, so the newest checkpoint's blob is not the list: a graph compiled over deepagents' thread state
(`harness._deepagents_adapter.thread_state_schema`) with the database as its checkpointer answers ``get_state``, which
replays the deltas. Each summarization deepagents recorded in the thread (its private event, read by the adapter) is
a `Compaction` at the number of messages the state held when it was made; its summary message is not a message of the
session. A provider's server-side compaction (an Anthropic compaction block, an OpenAI Responses compaction item) is
kept by LangChain in the content of the AI message that answered from it: a `Compaction` just before that message
(`lc_messages.take_compactions`). The session's files and todos are the thread's last state. A ``task`` subagent's
own run, checkpointed in its own namespace, is not imported: the session says so (``meta["subagent_namespaces"]``
and a warning).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from harness import _deepagents_adapter as da
from harness.errors import ConfigError, DatasetError
from harness.sessions.lc_messages import take_compactions, to_openai
from harness.sessions.model import DEEPAGENTS_SUMMARY, Compaction, Session

FORMAT = "langgraph"
TABLES = ("checkpoints", "writes")  # what SqliteSaver.setup creates


def read(source: str, *, thread: str | None = None, **options: Any) -> Session:  # noqa: ANN401 - refused by name
    """The thread ``thread`` of the checkpoint database at ``source``. DatasetError names the file and the field
    (``thread``) of the first problem; nothing is written to the database."""
    if options:
        raise ConfigError(f"the {FORMAT} reader takes --thread only, not {', '.join(sorted(options))}")
    if not thread:
        raise DatasetError(source, None, "thread", "a checkpoint database holds many threads: name one (--thread ID)")
    conn = _open(source)
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(conn)
        config: RunnableConfig = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        latest = saver.get_tuple(config)
        if latest is None:
            raise DatasetError(source, None, "thread", f"no thread {thread!r} in this database; {_threads(conn)}")
        graph = _reader(saver)
        values = graph.get_state(config).values
        checkpoints = list(saver.list(config))  # newest first
        compactions = _compactions(checkpoints, graph)
        subagents = _subagent_namespaces(conn, thread)
    except sqlite3.DatabaseError as exc:
        raise DatasetError(source, None, None, f"the checkpoint database could not be read: {exc}") from None
    finally:
        conn.close()
    messages = list(values.get("messages") or [])
    taken = take_compactions(messages)  # a provider's server-side compactions, kept in its AI messages' content
    summaries = [replace(c, at=taken.position(c.at)) for c in compactions]
    return Session(
        format=FORMAT,
        source=_redacted(source),
        messages=to_openai(taken.messages, source, FORMAT),
        compactions=tuple(sorted([*summaries, *taken.compactions], key=lambda c: c.at)),
        files=_files(values.get("files") or {}),
        todos=tuple(dict(t) for t in values.get("todos") or ()),
        meta={
            "thread": thread,
            "checkpoint_id": latest.config["configurable"]["checkpoint_id"],
            "checkpoints": len(checkpoints),
            **_model(messages),
            **taken.counts,
            **({"subagent_namespaces": subagents} if subagents else {}),
        },
        warnings=(_subagents_left_out(thread, subagents),) if subagents else (),
    )


def _open(source: str) -> sqlite3.Connection:
    """The database at ``source``, read-only, after checking it is SQLite and has SqliteSaver's tables."""
    path = Path(source)
    if not path.is_file():
        raise DatasetError(source, None, None, "no such file")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise DatasetError(source, None, None, f"not a SQLite database ({exc})") from None
    if not set(TABLES) <= tables:
        conn.close()
        have = ", ".join(sorted(tables)) or "none"
        raise DatasetError(
            source, None, None, f"not a LangGraph checkpoint database: no {' and '.join(TABLES)} tables (tables: {have})"
        )
    return conn


def _threads(conn: sqlite3.Connection, shown: int = 10) -> str:
    """The threads the database holds, for the error that names a missing one."""
    names = [
        row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id LIMIT ?", (shown + 1,))
    ]
    if not names:
        return "it holds no thread"
    more = ", ..." if len(names) > shown else ""
    return "its threads: " + ", ".join(repr(n) for n in names[:shown]) + more


def _subagent_namespaces(conn: sqlite3.Connection, thread: str) -> list[str]:
    """The checkpoint namespaces of the thread other than the parent's (``""``): a deep agent's ``task`` subagent runs
    its own graph inside the parent's tools node, checkpointed under ``tools:<task id>``."""
    rows = conn.execute(
        "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != '' ORDER BY checkpoint_ns",
        (thread,),
    )
    return [str(row[0]) for row in rows]


def _subagents_left_out(thread: str, namespaces: list[str], shown: int = 10) -> str:
    """What the import says of the subagent runs it leaves out."""
    names = ", ".join(namespaces[:shown]) + (f", ... ({len(namespaces) - shown} more)" if len(namespaces) > shown else "")
    return (
        f"thread {thread!r} holds {len(namespaces)} subagent run(s) that are not imported (checkpoint namespaces: {names}): "
        "the session is the parent's conversation, where each subagent's work is its task call and the report it "
        "returned; the subagent's own messages (its tool calls and their results) are left out"
    )


def _reader(saver: Any) -> Any:  # noqa: ANN401 - LangGraph's compiled graph
    """A graph over deepagents' thread state that never runs: its checkpointer is the database, so ``get_state``
    rebuilds each channel as the agent's own graph would."""
    from langgraph.graph import END, START, StateGraph

    builder: Any = StateGraph(da.thread_state_schema())
    builder.add_node("read", lambda _state: {})
    builder.add_edge(START, "read")
    builder.add_edge("read", END)
    return builder.compile(checkpointer=saver)


def _compactions(checkpoints: list[Any], graph: Any) -> tuple[Compaction, ...]:  # noqa: ANN401 - LangGraph's
    """Each summarization the thread recorded, oldest first: a new event in a checkpoint's state (``checkpoints``, the
    thread's `CheckpointTuple`s newest first) is one."""
    found: list[Compaction] = []
    seen: set[tuple[int, str]] = set()
    for tup in reversed(checkpoints):
        summary = da.thread_summary(tup.checkpoint["channel_values"])
        if summary is None or (summary.cutoff, summary.summary) in seen:
            continue
        seen.add((summary.cutoff, summary.summary))
        at = summary.at
        if at is None:  # a release that did not record it: the messages of the state the summarizing step started from
            parent = graph.get_state(tup.parent_config) if tup.parent_config else None
            at = len(parent.values.get("messages") or []) if parent is not None else summary.cutoff
        found.append(Compaction(at=at, kind=DEEPAGENTS_SUMMARY, summary=summary.summary))
    return tuple(found)


def _files(files: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """(path, text) of every file in the thread's state, by path; a binary file (deepagents' base64 ``FileData``) as a
    base64 ``data:`` URL, the form a case's ``files`` hold binary content in."""
    import mimetypes

    out = []
    for path in sorted(files):
        data = files[path]
        if isinstance(data, dict) and data.get("encoding") == "base64":
            mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
            out.append((path, f"data:{mime};base64,{data.get('content') or ''}"))
        else:
            out.append((path, da.file_text(data)))
    return tuple(out)


def _model(messages: list[Any]) -> dict[str, Any]:
    """The model name the thread's last answer records, where it records one."""
    for message in reversed(messages):
        name = (getattr(message, "response_metadata", None) or {}).get("model_name")
        if message.type == "ai" and name:
            return {"model": str(name)}
    return {}


def _redacted(source: str) -> str:
    from harness.redact import redact

    return redact(source)
