"""Traces: what the model saw at every call of one case, schema-versioned.

A trace is one JSON document (gzip-compressed on disk). Messages are stored once, in
``messages`` keyed by a content hash, and each call lists the keys of the messages it
was sent, in order, so a 60-call run does not store its history 60 times.

Calls (``calls``): index, role ("agent", "summarizer", "subagent" or "tool"), user turn, timing, message
keys, approximate tokens of the whole request (``approx_tokens``; for agent calls this
includes the fixed ``overhead_tokens`` of system prompt and tool schemas), the
provider-reported ``usage`` when there is one, whether a summary heads the request,
the response (text and tool calls) or the error. An ``agent`` call is the parent's; a call a subagent's model made
(deepagents' ``task`` tool runs its graph) is a ``subagent`` call, with the ``model`` it was made on (schema 3; a
summary made inside a subagent is a ``summarizer`` call with ``namespace`` "subagent"); a call a tool made to a chat
model itself (a ``summarize_page`` tool invoking an LLM) is a ``tool`` call, recorded the same way (schema 4; before
it, such a call was recorded as a ``subagent`` call).

Provider retries (``provider_retries``, schema 5): the retries the provider SDKs (openai, anthropic) made inside the
client during the case, which no call record shows (`harness.agent.sdk_retries`): ``count``, ``backoff_s`` (the seconds
waited before them) and ``by_role`` (``agent``, ``summarizer``, ``other``: role -> ``count``, ``backoff_s``); None when
the case had no live model (in-process models have no SDK) or the trace was written before schema 5 counted them.

Events (``events``): ``summarization`` (tokens_before / tokens_after, messages before /
after, history_path, summary_key), ``eviction`` (tool_call_id, path),
``arg_truncation`` (messages, args, tool_call_ids: the calls first seen clipped), ``overflow_recovery`` (failed_call_index).

Read traces with `load_trace` and the accessors below; nothing else should parse the
JSON.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, messages_from_dict

from harness.errors import HarnessError
from harness.rows import Kind

SCHEMA_VERSION = 5
SIMULATED_FINGERPRINT = "harness-reference-simulated"  # `harness serve` marks its replies so: a served call is simulated
SUPPORTED_VERSIONS = (1, 2, 3, 4, 5)
SUBAGENT = "subagent"  # the role of a subagent's model call (schema 3)
TOOL = "tool"  # the role of a model call a tool made itself, not through a subagent's graph (schema 4)
OWN_MODEL_ROLES = (SUBAGENT, TOOL)
"""Roles whose calls name the model they were made on (``model``): neither the agent's nor the summarizer's model."""
TASK_TOOL = "task"  # deepagents' tool that runs a subagent

# One general compaction event: every event has `type`, `strategy`, `call_index`, `turn`, `tokens_before` and
# `tokens_after` (None where the request alone cannot tell: an eviction or a clipped argument replaced text the
# model never saw) and `dropped` (what left the request), plus fields of its type.
SUMMARY, MASK, TRIM = "summary", "mask", "trim"
EVICT, TRUNCATE_ARGS, OVERFLOW_RECOVERY = "evict", "truncate-args", "overflow-recovery"
EVENT_TYPES = (SUMMARY, MASK, TRIM, EVICT, TRUNCATE_ARGS, OVERFLOW_RECOVERY)
COMPACTION_EVENTS = (SUMMARY, MASK, TRIM)
"""Events that shrink what the model is sent, whatever the strategy (a summary, cleared tool results, a window)."""
V1_EVENT_TYPES = {
    "summarization": SUMMARY,
    "eviction": EVICT,
    "arg_truncation": TRUNCATE_ARGS,
    "overflow_recovery": OVERFLOW_RECOVERY,
}
"""Schema 1's event names (deepagents' mechanisms only), read as schema 2's."""


def upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 trace as schema 2: events renamed, the strategy (deepagents' summarization, the only one then)
    and the common fields added. The stored file is never rewritten."""
    events = []
    for event in data.get("events", []):
        new = {**event, "type": V1_EVENT_TYPES.get(event["type"], event["type"]), "strategy": "deepagents-summarization"}
        new.setdefault("tokens_before", None)
        new.setdefault("tokens_after", None)
        new.setdefault("dropped", _dropped_v1(event))
        events.append(new)
    return {**data, "events": events, "schema_version": 2, "upgraded_from": 1}


def upgrade_v2(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-2 trace as schema 3: nothing to rename, but schema 2 did not record a subagent's model calls, so the
    trace keeps where it came from (``upgraded_from``; `Trace.unrecorded_subagent_calls` reads it). The stored file is
    never rewritten."""
    return {**data, "schema_version": 3, "upgraded_from": data.get("upgraded_from") or 2}


def upgrade_v3(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-3 trace as schema 4: nothing to rename, but schema 3 recorded a model call a tool made itself as a
    ``subagent`` call (its ``subagent`` role holds them; each is still priced at the model it was made on, so the
    case's total is the same), so the trace keeps where it came from (``upgraded_from``). The stored file is never
    rewritten."""
    return {**data, "schema_version": 4, "upgraded_from": data.get("upgraded_from") or 3}


def upgrade_v4(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-4 trace as schema 5: schema 4 did not count the provider SDKs' retries, so ``provider_retries`` is None
    (not recorded, even for a live case) and the trace keeps where it came from (``upgraded_from``). The stored file is
    never rewritten."""
    return {**data, "provider_retries": None, "schema_version": SCHEMA_VERSION, "upgraded_from": data.get("upgraded_from") or 4}


def _dropped_v1(event: dict[str, Any]) -> dict[str, Any]:
    if event["type"] == "summarization":
        return {"messages": max(0, event.get("messages_before", 0) - event.get("messages_after", 0))}
    if event["type"] == "eviction":
        return {"tool_results": [event.get("tool_call_id")]}
    if event["type"] == "arg_truncation":
        return {"args": event.get("args", 0), "tool_call_ids": event.get("tool_call_ids", [])}
    return {}


@dataclass
class Trace:
    """What one case did: its configuration and models, every model call as sent, and the compaction events."""

    case_id: str
    kind: Kind
    run_id: str = ""
    trial: int = 0
    seed: int = 0
    config: dict[str, Any] = field(default_factory=dict)
    agent_model: str = ""
    summary_model: str = ""
    simulated: bool = True
    started_at: str = ""
    wall_time_s: float = 0.0
    turns: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    final: dict[str, Any] = field(default_factory=dict)
    provider_retries: dict[str, Any] | None = None  # the SDKs' retries (schema 5); None: no live model, or not recorded
    schema_version: int = SCHEMA_VERSION
    upgraded_from: int | None = None  # the schema version of the stored file when it was older (None: this one)

    # -- persistence ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The trace as plain data, a deep copy (``asdict``): safe to change without touching the trace."""
        return asdict(self)

    def to_json(self) -> str:
        """The trace as compact JSON, the text `save` writes: the same text as ``json.dumps(self.to_dict())``,
        made by the C encoder straight from the fields (``json.dump`` to a stream runs the pure-Python encoder,
        and the deep copy is not needed to serialize)."""
        return json.dumps({f: getattr(self, f) for f in self.__dataclass_fields__}, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trace:
        version = data.get("schema_version")
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"trace schema_version {version!r} is not supported (this harness reads {SUPPORTED_VERSIONS})")
        if version == 1:
            data = upgrade_v1(data)
        if version in (1, 2):
            data = upgrade_v2(data)
        if version in (1, 2, 3):
            data = upgrade_v3(data)
        if version in (1, 2, 3, 4):
            data = upgrade_v4(data)
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=6) as fh:
            fh.write(self.to_json())
        tmp.replace(path)
        return path

    # -- accessors -----------------------------------------------------------------
    def agent_calls(self, turn: int | None = None) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["role"] == "agent" and (turn is None or c["turn"] == turn)]

    def summarizer_calls(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c["role"] == "summarizer"]

    def subagent_calls(self) -> list[dict[str, Any]]:
        """The model calls made inside subagents (never among `agent_calls`: those are the parent's)."""
        return [c for c in self.calls if c["role"] == SUBAGENT]

    def tool_model_calls(self) -> list[dict[str, Any]]:
        """The model calls tools made themselves (role ``tool``; never among `agent_calls` or `subagent_calls`)."""
        return [c for c in self.calls if c["role"] == TOOL]

    def unrecorded_subagent_calls(self) -> bool:
        """Whether subagent model calls happened that the trace does not hold: it was written before schema 3 recorded
        them and the agent delegated (called the ``task`` tool)."""
        old = self.upgraded_from is not None and self.upgraded_from < 3
        return old and any(tc["name"] == TASK_TOOL for _, tc in self.tool_calls())

    def events_of(self, kind: str | tuple[str, ...], turn: int | None = None) -> list[dict[str, Any]]:
        kinds = (kind,) if isinstance(kind, str) else kind
        return [e for e in self.events if e["type"] in kinds and (turn is None or e.get("turn") == turn)]

    def compactions(self, turn: int | None = None) -> list[dict[str, Any]]:
        """Every compaction event (summary, mask, trim), in order."""
        return self.events_of(COMPACTION_EVENTS, turn)

    def call(self, index: int) -> dict[str, Any]:
        return self.calls[index]

    def message(self, key: str) -> BaseMessage:
        return self._message_objects[key]

    def request(self, call: dict[str, Any]) -> list[BaseMessage]:
        """The messages sent at ``call``, as LangChain messages."""
        return [self._message_objects[k] for k in call["message_keys"]]

    def system_text(self, call: dict[str, Any]) -> str | None:
        """The system prompt sent at ``call`` (None for calls recorded before it was kept, or without one)."""
        key = call.get("system_key")
        return self.message_text(key) if key else None

    def sent_system_text(self, call: dict[str, Any]) -> str | None:
        """The system prompt as the model received it at ``call``: with what deepagents' tail appended after the
        recorder (memory, skills) when it changed it (``sent_system_key``), else `system_text`."""
        key = call.get("sent_system_key") or call.get("system_key")
        return self.message_text(key) if key else None

    def request_text(self, call: dict[str, Any]) -> str:
        return "\n".join(_text(self.messages[k]) for k in call["message_keys"])

    def message_text(self, key: str) -> str:
        return _text(self.messages[key])

    def answer(self, turn: int) -> str | None:
        answers = self.final.get("answers", [])
        return answers[turn] if turn < len(answers) else None

    @property
    def error(self) -> dict[str, Any] | None:
        return self.final.get("error")

    def tool_calls(self, turn: int | None = None) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(call record, tool call) for every tool call the agent made, in order."""
        out = []
        for call in self.agent_calls(turn):
            for tc in (call.get("response") or {}).get("tool_calls", []):
                out.append((call, tc))
        return out

    def tool_result(self, tool_call_id: str) -> str | None:
        """The text of the tool result answering ``tool_call_id``, wherever it was seen."""
        for data in self.messages.values():
            if data.get("type") == "tool" and data.get("data", {}).get("tool_call_id") == tool_call_id:
                return _text(data)
        return None

    @cached_property
    def _message_objects(self) -> dict[str, BaseMessage]:
        keys = list(self.messages)
        objs = messages_from_dict([self.messages[k] for k in keys])
        return dict(zip(keys, objs))


# What differs between two runs of the same case and seed, offline: ids and times. Everything
# else in a trace is reproducible (see `comparable`).
VOLATILE_TRACE_FIELDS = ("run_id", "started_at", "wall_time_s")
VOLATILE_CALL_FIELDS = ("started_s", "duration_s")
VOLATILE_FINAL_FIELDS = ("recorder_time_s",)


def comparable(trace: Trace) -> dict[str, Any]:
    """The trace without what legitimately differs between two offline runs of the same case and seed:
    run id, start time and wall/call times, the recorder's own time, message ids, and deepagents' offload times
    (``## Summarized at <time>``) inside history-file text and the uuid4 name of a saved over-large user message
    (`offline_stable_text`); messages are inlined, so their keys (content hashes, which those ids change) do not
    matter. History-file names are kept: offline they come from the case (`StableSessions`), a subagent's too."""
    from harness._deepagents_adapter import offline_stable_text

    def stable(key: str) -> str:
        data = trace.messages[key]
        body = {k: v for k, v in data.get("data", {}).items() if k != "id"}  # langgraph gives messages uuid4 ids
        return offline_stable_text(json.dumps({**data, "data": body}, sort_keys=True))

    data = {k: v for k, v in trace.to_dict().items() if k not in (*VOLATILE_TRACE_FIELDS, "messages")}
    data["calls"] = [
        {
            **{k: v for k, v in c.items() if k not in VOLATILE_CALL_FIELDS},
            "message_keys": [stable(k) for k in c["message_keys"]],
            "response": json.loads(offline_stable_text(json.dumps(c.get("response")))),  # a saved message's uuid4 path in args
        }
        for c in trace.calls
    ]
    data["events"] = [
        {k: (stable(v) if k.endswith("_key") and v in trace.messages else v) for k, v in e.items()} for e in trace.events
    ]
    data["final"] = json.loads(
        offline_stable_text(json.dumps({k: v for k, v in trace.final.items() if k not in VOLATILE_FINAL_FIELDS}, sort_keys=True))
    )
    return data


def _text(data: dict[str, Any]) -> str:
    content = data.get("data", {}).get("content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
    return "".join(parts)


def load_trace(path: str | Path) -> Trace:
    """A trace file (``.json`` or ``.json.gz``) as a `Trace`, any supported schema version."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise HarnessError(f"{path}: no such trace file") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:  # BadGzipFile is an OSError
        raise HarnessError(f"{path}: not a readable trace ({type(exc).__name__}: {exc}); the file is damaged") from None
    return Trace.from_dict(data)
