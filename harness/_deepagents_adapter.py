"""The one place that knows deepagents' private state and message conventions.

deepagents does not rewrite ``state["messages"]`` when it summarizes. It keeps a
private ``_summarization_event`` (cutoff index, summary message, history file path)
and rebuilds the request on every call. It marks its summary message with
``additional_kwargs["lc_source"] == "summarization"`` and names the offloaded history
file inside it; it replaces over-large tool results by a fixed notice; it clips old
write/edit arguments with a fixed suffix; ``read_file`` pages carry an ``@@ ... @@``
header. All of that is read here, so a deepagents release that changes one of them
breaks one module, not the harness.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage, ToolMessage

EVENT_KEY = "_summarization_event"
SESSION_KEY = "_summarization_session_id"
SUMMARY_SOURCE = "summarization"
SUMMARIZATION_MIDDLEWARE_NAME = "SummarizationMiddleware"

_HISTORY_PATH = re.compile(r"has been saved to (\S+) should you need to refer back")
_SUMMARY_BODY = re.compile(r"<summary>\n?(.*?)\n?</summary>", re.DOTALL)
_NO_PATH_PREFIX = "Here is a summary of the conversation to date:"
_EVICTED = re.compile(
    r"^Tool result too large, the result of this tool call (\S+) was saved in the filesystem at this path: (\S+)"
)
_READ_HEADER = re.compile(r"^@@ lines (\d+)-(\d+)(?: of (\d+))?(?P<rest>(?: \| [^@|]+)*) @@$", re.MULTILINE)
_NEXT_OFFSET = re.compile(r"\| next offset (\d+)")


def is_context_overflow(exc: BaseException) -> bool:
    """deepagents' own test for a provider's context-length rejection (ContextOverflowError, or a 400/413/422
    whose text names the context limit): the errors it answers with a summary and a retry."""
    from deepagents.middleware.summarization import _is_context_overflow

    return isinstance(exc, Exception) and _is_context_overflow(exc)


SUMMARY_OPENINGS = ("You are in the middle of a conversation that has been summarized.", _NO_PATH_PREFIX)


def is_summary_message(msg: BaseMessage | None) -> bool:
    """deepagents' summary message, by the marker it sets (``lc_source``); the recorder's test."""
    return isinstance(msg, HumanMessage) and msg.additional_kwargs.get("lc_source") == SUMMARY_SOURCE


def reads_as_summary(msg: BaseMessage | None) -> bool:
    """A user message whose text opens the way deepagents' summary message does: what a model sees of a summary.
    The reference agent uses this, never the marker, so it decides the same in process and over HTTP."""
    return isinstance(msg, HumanMessage) and msg.text.lstrip().startswith(SUMMARY_OPENINGS)


def is_masked_tool_result(msg: BaseMessage) -> bool:
    """A tool result LangChain's ClearToolUsesEdit replaced with its placeholder (the recorder's test, by the marker
    the edit sets; the reference agent reads the placeholder text instead, as a model would)."""
    meta = getattr(msg, "response_metadata", None) or {}
    return getattr(msg, "type", "") == "tool" and bool((meta.get("context_editing") or {}).get("cleared"))


def is_summary_dict(data: Mapping[str, Any]) -> bool:
    """Same test on a serialized message (``messages_to_dict`` form)."""
    body = data.get("data", {})
    return data.get("type") == "human" and body.get("additional_kwargs", {}).get("lc_source") == SUMMARY_SOURCE


def history_path(summary_text: str) -> str | None:
    """The history file a summary message names, or None (offload failed)."""
    match = _HISTORY_PATH.search(summary_text)
    return match.group(1) if match else None


def summary_body(summary_text: str) -> str:
    """The summarizer's text inside a deepagents summary message."""
    match = _SUMMARY_BODY.search(summary_text)
    if match:
        return match.group(1)
    if summary_text.startswith(_NO_PATH_PREFIX):
        return summary_text[len(_NO_PATH_PREFIX) :].strip()
    return summary_text


def previous_event(state: Mapping[str, Any]) -> Mapping[str, Any] | None:
    event = state.get(EVENT_KEY)
    return event if isinstance(event, Mapping) else None


def effective_messages(state: Mapping[str, Any]) -> list[AnyMessage]:
    """What the agent would send without a new summarization: deepagents' own rebuild."""
    from deepagents.middleware.summarization import _DeepAgentsSummarizationMiddleware

    event: Any = previous_event(state)  # deepagents' SummarizationEvent, a TypedDict read from the state
    return _DeepAgentsSummarizationMiddleware._apply_event_to_messages(list(state.get("messages", [])), event)


def is_new_summary(request_messages: Sequence[BaseMessage], state: Mapping[str, Any]) -> bool:
    """True when this request is headed by a summary made during this very call."""
    if not request_messages or not is_summary_message(request_messages[0]):
        return False
    event = previous_event(state)
    if event is None:
        return True
    old = event.get("summary_message")
    return old is None or old.content != request_messages[0].content


@dataclass(frozen=True)
class Eviction:
    tool_call_id: str
    path: str


_EVICTED_ANYWHERE = re.compile(r"was saved in the filesystem at this path: (\S+)")
LARGE_RESULTS_PREFIX = "/large_tool_results/"
HISTORY_PREFIX = "/conversation_history/"


def eviction_paths(text: str) -> list[str]:
    """Paths of evicted tool results named anywhere in ``text`` (a notice, or a history page quoting one)."""
    return list(dict.fromkeys(_EVICTED_ANYWHERE.findall(text)))


def eviction_notice(msg: BaseMessage) -> Eviction | None:
    """Parse FilesystemMiddleware's "Tool result too large" replacement."""
    if not isinstance(msg, ToolMessage) or not isinstance(msg.content, str):
        return None
    match = _EVICTED.match(msg.content)
    return Eviction(match.group(1), match.group(2)) if match else None


TRUNCATION_TEXT = "...(argument truncated)"  # deepagents' default suffix for a clipped argument
TRUNCATED_TOOLS = frozenset({"write_file", "edit_file"})


def is_clipped(value: object, truncation_text: str = TRUNCATION_TEXT) -> bool:
    """True for a write/edit argument deepagents clipped (its first 20 characters plus the suffix)."""
    return isinstance(value, str) and value.endswith(truncation_text)


def truncated_call_ids(msg: BaseMessage, truncation_text: str = TRUNCATION_TEXT) -> dict[str, int]:
    """{tool_call_id: clipped argument count} for the write_file/edit_file calls in ``msg`` deepagents clipped."""
    out = {}
    for call in getattr(msg, "tool_calls", None) or []:
        if call.get("name") in TRUNCATED_TOOLS:
            n = sum(1 for v in call.get("args", {}).values() if is_clipped(v, truncation_text))
            if n:
                out[call.get("id") or ""] = n
    return out


@dataclass(frozen=True)
class ReadPage:
    first_line: int
    last_line: int
    total_lines: int | None
    next_offset: int | None


def read_page_header(text: str) -> ReadPage | None:
    """Parse the ``@@ lines A-B of T | next offset N @@`` header of a read_file result.

    The header may follow a notice (deepagents puts "[Output was truncated ...]" first when
    the page is cut to the tool-output budget) and may carry more fields
    ("| truncated due to size").
    """
    match = _READ_HEADER.search(text[:2000])
    if not match:
        return None
    first, last, total = match.group(1), match.group(2), match.group(3)
    nxt = _NEXT_OFFSET.search(match.group("rest") or "")
    return ReadPage(int(first), int(last), int(total) if total else None, int(nxt.group(1)) if nxt else None)


def read_page_body(text: str) -> str | None:
    """The file lines a read_file page shows (after its header, without a trailing notice), or None if no header."""
    match = _READ_HEADER.search(text[:2000])
    if not match:
        return None
    body = text[match.end() :].removeprefix("\n")
    notice = re.search(r"\n\n\[[^\n]*\]\s*$", body)  # e.g. the clamped-offset notice deepagents appends
    return body[: notice.start()] if notice else body


_SESSION_ID = re.compile(r"session_[0-9a-f]{32}")
_OFFLOAD_TIME = re.compile(r"## Summarized at \d{4}-\d\d-\d\dT[0-9:.]+(?:[+-]\d\d:\d\d|Z)?")


def run_stable_text(text: str) -> str:
    """``text`` without what deepagents makes different on every run: the history file's
    ``session_<uuid4 hex>`` and each offload section's ``## Summarized at <time>`` heading."""
    return _OFFLOAD_TIME.sub("## Summarized at <time>", _SESSION_ID.sub("session_<id>", text))


def stable_session_middleware() -> Any:
    """A middleware that names the history file from the conversation, not from uuid4.

    deepagents names it ``session_<uuid4 hex>`` unless the private state already holds a
    session id, which it then reuses. This middleware sets that id before the agent's first
    step to a hash of the first user message, so two runs of the same case write and read
    the same path. Used offline only (reference models), where runs must be reproducible;
    a subagent's first message is its own task, so its history file keeps a name of its own.
    """
    import hashlib

    from langchain.agents.middleware import AgentMiddleware

    class StableHistoryPath(AgentMiddleware):
        def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:  # noqa: ARG002
            if state.get(SESSION_KEY):
                return None
            first = next((m for m in state.get("messages", []) if isinstance(m, HumanMessage)), None)
            text = first.text if first is not None else ""
            return {SESSION_KEY: "session_" + hashlib.sha256(text.encode()).hexdigest()[:32]}

    return StableHistoryPath()


def seed_files(files: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Files for ``agent.invoke({"files": ...})`` in StateBackend's FileData shape; a file given as a base64 ``data:``
    URL (an image, a binary file: `harness.media_format.data_url`) is stored as base64, as deepagents stores binary."""
    from harness.media_format import from_data_url

    def one(content: str) -> dict[str, str]:
        decoded = from_data_url(content)
        return {"content": decoded[1], "encoding": "base64"} if decoded else {"content": content, "encoding": "utf-8"}

    return {path: one(content) for path, content in files.items()}


# -- media: binary read_file results, their content-addressed blobs, and media offloaded with a summary -------------
MEDIA_PREFIX = "/conversation_history/media/"  # automatic summarization writes inline media here (sha256[:16].ext)
BLOBS_PREFIX = "/blobs/"  # offload_binary_content: read_file's binary results, by sha256
_MEDIA_REF = re.compile(r'<(?:image|audio|video|file) url="([^"]+)"')


def missing_blob_text() -> str:
    """The text deepagents puts in place of an offloaded binary block whose blob is gone ("... no longer available.
    Re-read the file ...")."""
    from deepagents.middleware._blob_offload import _MISSING_BLOB_TEXT

    return _MISSING_BLOB_TEXT


def is_missing_blob(text: str) -> bool:
    """``text`` carries deepagents' missing-blob notice (or its opening, as a summary quoting a result's first words
    does)."""
    return missing_blob_text()[:MISSING_BLOB_OPENING] in text


MISSING_BLOB_OPENING = 48  # characters of the notice that identify it ("[Binary content from an earlier read_file ca")
_SUMMARY_READ_LINE = re.compile(r"read_file (/\S+) \(begins \"(.*)$", re.MULTILINE)


def missing_blob_reads(text: str) -> list[str]:
    """The files whose ``read_file`` result a history page or a summary records as the missing-blob notice, in order:
    the archived result itself (``offloaded_calls``) or a summary's progress line quoting the result's opening."""
    paths = [
        str(c.args.get("file_path"))
        for c in offloaded_calls(text)
        if c.name == "read_file" and c.result is not None and is_missing_blob(c.result)
    ]
    paths += [m.group(1) for m in _SUMMARY_READ_LINE.finditer(text) if is_missing_blob(m.group(2))]
    return list(dict.fromkeys(paths))


def media_references(text: str) -> list[str]:
    """The backend paths of media a text refers to as deepagents writes them (``<image url="..." />``, ``<file url=
    "..." />``: the history file's and a summary's media references), in order, each once."""
    return list(dict.fromkeys(_MEDIA_REF.findall(text)))


def archived_reads(text: str) -> dict[str, str]:
    """What a history file records as the result of each ``read_file`` of a file outside the harness's own offload
    folders (a seeded or written file: an image, say), by path, the last read winning: an image offloaded with the
    summary reads ``<image url="/conversation_history/media/..." />``; one the offload dropped reads ``""``."""
    return {
        str(c.args.get("file_path")): c.result
        for c in offloaded_calls(text)
        if c.name == "read_file" and c.result is not None and not str(c.args.get("file_path", "")).startswith(HISTORY_PREFIX)
    }


def blob_refs(content: Any) -> list[str]:
    """The sha256 digests of the offloaded blobs a message's content refers to (deepagents' ``deepagents_blob`` key):
    what a state message holds in place of binary ``read_file`` content."""
    from deepagents.middleware._blob_offload import _BLOB_REF_KEY

    if not isinstance(content, list):
        return []
    return [b[_BLOB_REF_KEY] for b in content if isinstance(b, dict) and isinstance(b.get(_BLOB_REF_KEY), str)]


def file_text(file_data: Any) -> str:
    from deepagents.backends.utils import file_data_to_string

    return file_data_to_string(file_data)


# -- the history file: messages offloaded as get_buffer_string(..., format="xml") --------------------------------------
_XML_MESSAGE = re.compile(r'<message type="(\w+)">')
_XML_CALL = re.compile(r'<tool_call id="[^"]*" name="([^"]+)">([^\n]*?)(?:</tool_call>|$)', re.MULTILINE)
_XML_ARG = re.compile(r'"(doc_id|file_path)":\s*"([^"]+)"')


@dataclass(frozen=True)
class OffloadedCall:
    """A tool call as deepagents' history file records it, with the tool message that answered it."""

    name: str
    args: dict[str, Any]  # the JSON arguments; only doc_id / file_path when the line was cut short
    result: str | None  # the tool's reply, None when it is not (wholly) in the text


def offloaded_calls(text: str) -> list[OffloadedCall]:
    """The tool calls in a stretch of deepagents' history file, in order, each paired with the tool message after its
    AI message (the k-th call with the k-th tool message, as the offload writes them). A stretch may start or end
    mid-message (a page of the file): a tool message whose call is not in the text is skipped, and a call whose answer
    is not in the text has ``result`` None."""
    calls: list[OffloadedCall] = []
    pending: list[int] = []  # indices into calls still waiting for their tool message
    tags = list(_XML_MESSAGE.finditer(text))
    for n, tag in enumerate(tags):
        body = text[tag.end() : tags[n + 1].start() if n + 1 < len(tags) else len(text)]
        if tag.group(1) == "ai":
            pending = []
            for match in _XML_CALL.finditer(body):
                raw = html.unescape(match.group(2))
                try:
                    args = json.loads(raw)
                except ValueError:
                    args = dict(_XML_ARG.findall(raw))
                pending.append(len(calls))
                calls.append(OffloadedCall(match.group(1), args if isinstance(args, dict) else {}, None))
        elif tag.group(1) == "tool" and pending:
            at, close = pending.pop(0), body.find("</message>")
            if close >= 0:
                calls[at] = OffloadedCall(calls[at].name, calls[at].args, html.unescape(body[:close]))
        else:
            pending = []
    return calls
