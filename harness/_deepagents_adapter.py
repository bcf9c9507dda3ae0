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

import hashlib
import html
import itertools
import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage, ToolMessage

SUPPORTED_DEEPAGENTS = ("0.7.6", "0.7.32")
"""The deepagents releases this adapter reads, both ends included (measured 2026-11-26, docs/experiments.md "Version
against version, measured"): 0.7.6 to 0.7.31 number read_file pages in a gutter, 0.7.32 heads them with '@@ lines ...' (`READ_FORMATS`);
0.7.12 and earlier lack ``_is_context_overflow`` (0.7.20 has it). Before 0.7.6 the history file is named after the thread id, which the
runner draws at random, so offline runs are not reproducible; 0.6 and earlier refuse the harness's summarization
middleware (duplicate instances). A later release is unmeasured."""


def supports_deepagents(version: str) -> bool:
    """True when deepagents ``version`` is inside `SUPPORTED_DEEPAGENTS`."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(SUPPORTED_DEEPAGENTS[0]) <= Version(version) <= Version(SUPPORTED_DEEPAGENTS[1])
    except InvalidVersion:
        return False


EVENT_KEY = "_summarization_event"
SESSION_KEY = "_summarization_session_id"
SUMMARY_SOURCE = "summarization"
SUMMARIZATION_MIDDLEWARE_NAME = "SummarizationMiddleware"
CANNED_SUMMARIES = ("Previous conversation was too long to summarize.", "No previous conversation history.")
"""The sentences LangChain's ``_create_summary`` (which deepagents calls) returns instead of asking the summarizer:
trimming (``trim_tokens_to_summarize``) left nothing to summarize, or there was nothing to summarize (langchain 1.5.2)."""

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
    from deepagents.middleware import summarization

    test = getattr(summarization, "_is_context_overflow", None)
    if test is None:  # 0.7.12 and earlier (measured; 0.7.20 has it): deepagents answered only ContextOverflowError itself
        from langchain_core.exceptions import ContextOverflowError

        return isinstance(exc, ContextOverflowError)
    return isinstance(exc, Exception) and bool(test(exc))


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
TOOL_CALL_PATH_COMPONENT_BYTES = 128  # deepagents 0.7.32 hashes a longer tool_call_id into the evicted file's name
HISTORY_PREFIX = "/conversation_history/"


def eviction_paths(text: str) -> list[str]:
    """Paths of evicted tool results named anywhere in ``text`` (a notice, or a history page quoting one)."""
    return list(dict.fromkeys(_EVICTED_ANYWHERE.findall(text)))


def eviction_notice(msg: BaseMessage) -> Eviction | None:
    """Parse FilesystemMiddleware's "Tool result too large" replacement. The id is the message's own
    ``tool_call_id``: the notice shows an id over 32 characters cut short ("<first 32>...", deepagents 0.7.32)."""
    if not isinstance(msg, ToolMessage) or not isinstance(msg.content, str):
        return None
    match = _EVICTED.match(msg.content)
    return Eviction(msg.tool_call_id or match.group(1), match.group(2)) if match else None


_HUMAN_EVICTED = re.compile(r"Message content too large and was saved to the filesystem at: (\S+)")
HUMAN_EVICTION_TOKENS = 50_000  # FilesystemMiddleware's human_message_token_limit_before_evict default (0.7.32)


def evicted_message_path(text: str) -> str | None:
    """The file a user message too large for the request was saved to, when ``text`` is the notice that replaces it
    ("Message content too large and was saved to the filesystem at: <path>"), or None."""
    match = _HUMAN_EVICTED.search(text[:2000])
    return match.group(1) if match else None


def evicted_message_paths(text: str) -> list[str]:
    """Paths of saved user messages named anywhere in ``text`` (a notice, or a history page quoting one)."""
    return list(dict.fromkeys(_HUMAN_EVICTED.findall(text)))


# The history file's name: ``session_<hex>.md`` since deepagents 0.7.6, ``{thread_id}.md`` before.
_SESSION_FILE = re.compile(r"/session_[0-9a-f]+\.md$")


def history_naming(path: str) -> str:
    """Which naming scheme a history path follows: "session" (``session_<hex>.md``) or "thread" (anything else under
    the history prefix, the older ``{thread_id}.md``); "other" outside the prefix."""
    if not path.startswith(HISTORY_PREFIX):
        return "other"
    return "session" if _SESSION_FILE.search(path) else "thread"


def offloaded_in_history(message: Mapping[str, Any], history_text: str) -> bool:
    """True when the serialized message (``messages_to_dict`` form) is recorded in the history file's text: its
    text, escaped as deepagents' XML offload escapes it, or for an AI message its tool calls' ids. A message with
    nothing to find (no text, no calls) counts as recorded."""
    body = message.get("data", {})
    calls = [c.get("id") for c in body.get("tool_calls") or [] if c.get("id")]
    if calls:
        return all(f'<tool_call id="{html.escape(str(i))}"' in history_text for i in calls)
    content = body.get("content")
    text = (
        content
        if isinstance(content, str)
        else "\n".join(b.get("text", "") for b in content or [] if isinstance(b, Mapping) and b.get("type") == "text")
    )
    text = text.strip()
    return not text or html.escape(text, quote=False) in history_text


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
    ("| truncated due to size"). Releases before the header (`READ_FORMATS`) number each line in a gutter and end a
    partial page with ``[Read N lines (lines A-B of T total). R lines remaining from offset N.]``; the page is read
    from those (a page without the notice reached the end of the file).
    """
    match = _READ_HEADER.search(text[:2000])
    if match:
        first, last, total = match.group(1), match.group(2), match.group(3)
        nxt = _NEXT_OFFSET.search(match.group("rest") or "")
        return ReadPage(int(first), int(last), int(total) if total else None, int(nxt.group(1)) if nxt else None)
    rows = _gutter_rows(text)
    if rows is None:
        return None
    notice = _GUTTER_NOTICE.search(text[-300:])
    if notice:
        total = notice.group("total")
        return ReadPage(
            int(notice.group("first")), int(notice.group("last")), int(total) if total else None, int(notice.group("next"))
        )
    first, last = int(rows[0][0]), int(rows[-1][0].split(".")[0])
    return ReadPage(first, last, last, None)


def read_page_body(text: str) -> str | None:
    """The file lines a read_file page shows (after its header or without its gutter, without a trailing notice), or
    None if the text is not a read_file page."""
    match = _READ_HEADER.search(text[:2000])
    if not match:
        rows = _gutter_rows(text)
        if rows is None:
            return None
        lines: list[str] = []
        for marker, line in rows:  # a long line is cut into rows 5, 5.1, 5.2 ...: joined back
            if "." in marker and lines:
                lines[-1] += line
            else:
                lines.append(line)
        return "\n".join(lines)
    body = text[match.end() :].removeprefix("\n")
    notice = re.search(r"\n\n\[[^\n]*\]\s*$", body)  # e.g. the clamped-offset notice deepagents appends
    return body[: notice.start()] if notice else body


READ_FORMATS = {
    "header": "0.7.32: '@@ lines A-B of T | next offset N @@' heads the page, lines unnumbered",
    "gutter": "0.7.6 to 0.7.31: each line numbered in a gutter ('  7  text'), a '[Read N lines (lines A-B ...)]' notice at the end",
}
"""The read_file page formats `read_page_header` and `read_page_body` read (tests/bedrock/test_adapter_versions.py)."""
_GUTTER_ROW = re.compile(r"^ *(\d+(?:\.\d+)?)(?:  |\t)(.*)$")
_GUTTER_NOTICE = re.compile(
    r"\n\n\[Read \d+ lines? \(lines (?P<first>\d+)-(?P<last>\d+)(?: of (?P<total>\d+) total)?\)\. "
    r"(?:\d+ lines? remaining|More lines remain) from offset (?P<next>\d+)\.\]\s*$"
)


def _gutter_rows(text: str) -> list[tuple[str, str]] | None:
    """(marker, text) of each row of a gutter-numbered page, the trailing notices cut; None unless every row has a
    marker and the first marker is a whole line number."""
    body = re.sub(r"(?:\n\n\[[^\n]*\])+\s*$", "", text)
    rows = []
    for line in body.split("\n"):
        match = _GUTTER_ROW.match(line)
        if match is None:
            return None
        rows.append((match.group(1), match.group(2)))
    return rows if rows and "." not in rows[0][0] else None


_SESSION_ID = re.compile(r"session_[0-9a-f]{32}")
_EVICTED_MESSAGE_FILE = re.compile(r"/conversation_history/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.md")
_OFFLOAD_TIME = re.compile(r"## Summarized at \d{4}-\d\d-\d\dT[0-9:.]+(?:[+-]\d\d:\d\d|Z)?")


def offline_stable_text(text: str) -> str:
    """``text`` without what deepagents makes different on every offline run: each offload section's ``## Summarized at
    <time>`` heading and the ``<uuid4>.md`` file an over-large user message is saved to (`trace.comparable`)."""
    return _OFFLOAD_TIME.sub("## Summarized at <time>", _EVICTED_MESSAGE_FILE.sub("/conversation_history/<message>.md", text))


def run_stable_text(text: str) -> str:
    """`offline_stable_text` without the history file's ``session_<hex>`` too, which a live run draws from uuid4: what
    the reference models hash, so they choose alike in process and behind any agent over HTTP."""
    return offline_stable_text(_SESSION_ID.sub("session_<id>", text))


class StableSessions:
    """Offline, one case run's history-file names, from the conversation, not uuid4 (deepagents' unless the state holds
    an id). `middleware` sets the main agent's before its first step: a hash of the first user message. deepagents keeps
    private state out of a subagent's input (a fork's too) and gives its general-purpose subagent no harness middleware
    but the summarization slot: `install` makes deepagents' summarization name a file it has no id for the same way from
    the state it summarizes (a subagent's first message is its task), hashing a name this run already gave again with a
    count (a fork's first message is its parent's; parallel tasks of one text may take the counts in either order)."""

    def __init__(self) -> None:
        self.given: set[str] = set()
        self._lock = threading.Lock()  # parallel task calls run their subagents in threads

    def name(self, state: Mapping[str, Any]) -> str:
        text = next((m.text for m in state.get("messages", []) if isinstance(m, HumanMessage)), "")
        seeds = (f"{text}\n#{n}" if n else text for n in itertools.count())  # the first user message, then counted
        names = ("session_" + hashlib.sha256(seed.encode()).hexdigest()[:32] for seed in seeds)
        with self._lock:
            session = next(name for name in names if name not in self.given)
            self.given.add(session)
        return session

    def middleware(self) -> Any:
        from langchain.agents.middleware import AgentMiddleware

        names = self

        class StableHistoryPath(AgentMiddleware):
            def before_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:  # noqa: ARG002
                return None if state.get(SESSION_KEY) else {SESSION_KEY: names.name(state)}

        return StableHistoryPath()

    def install(self, summarization: Any) -> None:
        """deepagents' ``summarization`` names from `name` a file whose state holds no id (its own ``_get_session_id``: uuid4)."""
        if callable(getattr(summarization, "_get_session_id", None)):
            summarization._get_session_id = lambda state: state.get(SESSION_KEY) or self.name(state)


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


BINARY_OFFLOAD = "offload_binary_content"
"""FilesystemMiddleware's option that offloads binary ``read_file`` results to a content-addressed blob store and
rehydrates them on each request (the blobs eval, the media-blobs preset): in 0.7.32, not in 0.7.6."""


def binary_offload_missing() -> str | None:
    """Why the installed deepagents cannot offload binary ``read_file`` content (its FilesystemMiddleware has no
    ``offload_binary_content``), None when it can."""
    import inspect

    from deepagents.middleware import FilesystemMiddleware

    if BINARY_OFFLOAD in inspect.signature(FilesystemMiddleware.__init__).parameters:
        return None
    from harness._version import package_versions

    version = package_versions(("deepagents",)).get("deepagents")
    return f"deepagents {version} has no {BINARY_OFFLOAD} (FilesystemMiddleware's binary read_file offload to a blob store)"


def missing_blob_text() -> str:
    """The text deepagents puts in place of an offloaded binary block whose blob is gone ("... no longer available.
    Re-read the file ..."). ImportError for a deepagents without binary offload (`binary_offload_missing`)."""
    from deepagents.middleware._blob_offload import _MISSING_BLOB_TEXT

    return _MISSING_BLOB_TEXT


def is_missing_blob(text: str) -> bool:
    """``text`` carries deepagents' missing-blob notice (or its opening, as a summary quoting a result's first words
    does); never, for a deepagents without binary offload (0.7.6 has no notice to carry)."""
    try:
        notice = missing_blob_text()
    except ImportError:
        return False
    return notice[:MISSING_BLOB_OPENING] in text


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
    if not isinstance(content, list):
        return []
    try:
        from deepagents.middleware._blob_offload import _BLOB_REF_KEY
    except ImportError:  # a deepagents without binary offload refers to no blob
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


def with_bound_reasoning_restored(request_messages: Sequence[BaseMessage], state: Mapping[str, Any]) -> list[BaseMessage]:
    """``request_messages`` with every AI message replaced by the state's own copy (same id): the reasoning
    deepagents' ``_drop_bound_reasoning`` took from the messages kept across a summary put back. The seeded fault
    ``keeps-bound-reasoning`` (a middleware that forgets Claude binds reasoning to the conversation before it)."""
    originals = {m.id: m for m in state.get("messages", []) if m.type == "ai" and m.id}
    return [originals.get(m.id, m) if m.type == "ai" and m.id else m for m in request_messages]


# -- a thread read back from a checkpointer (`harness import langgraph`) ---------------------------------------------
def thread_state_schema() -> type:
    """deepagents' thread state as one TypedDict: the channels a deep agent's checkpoints hold (``messages`` and
    ``files`` in the delta channels deepagents declares, ``todos``, the summarization event). A graph compiled over it
    with the thread's checkpointer answers ``get_state``, which replays the deltas: the newest blob alone is not the
    list."""
    from typing import TypedDict, get_type_hints

    from deepagents.middleware.filesystem import FilesystemState
    from deepagents.middleware.summarization import SummarizationState
    from langchain.agents.middleware.todo import PlanningState

    try:
        from deepagents.graph import DeepAgentState as base  # messages in a DeltaChannel (0.7.32)
    except ImportError:  # a release that keeps messages in LangChain's own channel
        from langchain.agents.middleware.types import AgentState as base  # noqa: N813
    fields: dict[str, Any] = {}
    for schema in (PlanningState, SummarizationState, FilesystemState, base):  # deepagents' own `messages` last
        fields.update(get_type_hints(schema, include_extras=True))
    return TypedDict("DeepAgentThread", fields)  # type: ignore[operator]  # a TypedDict made at run time


@dataclass(frozen=True)
class ThreadSummary:
    """A summarization a thread's state records (`EVENT_KEY`): ``at`` state messages when it was made (deepagents'
    ``created_at_index``; None where the release did not record it), ``cutoff`` the first message kept verbatim, the
    summarizer's text and the history file the older messages were offloaded to."""

    at: int | None
    cutoff: int
    summary: str
    history_path: str | None


def thread_summary(values: Mapping[str, Any]) -> ThreadSummary | None:
    """The summarization event in a thread's state values (a checkpoint's ``channel_values``), or None."""
    event = previous_event(values)
    if event is None or not isinstance(event.get("cutoff_index"), int):
        return None
    message = event.get("summary_message")
    text = message.text if isinstance(message, BaseMessage) else str(message or "")
    at = event.get("created_at_index")
    path = event.get("file_path")
    return ThreadSummary(at if isinstance(at, int) else None, event["cutoff_index"], summary_body(text), path)


# -- what the memory and skills middleware add to the system prompt on every call ------------------------------------------
_SKILL_LINE = re.compile(r"^- \*\*[^*\n]+\*\*: .+$", re.MULTILINE)  # SkillsMiddleware._format_skills_list's entry line


def memory_sections(text: str) -> list[str]:
    """The memory text MemoryMiddleware put in ``text`` (``<agent_memory>`` blocks of its MEMORY_SYSTEM_PROMPT, each
    "<path>\\n\\n<file text>"), blank ones and its "(No memory loaded)" aside."""
    from deepagents.middleware.memory import MEMORY_SYSTEM_PROMPT

    head, _, tail = MEMORY_SYSTEM_PROMPT.partition("{agent_memory}")
    opening, closing = head.strip().rsplit("\n", 1)[-1], tail.strip().split("\n", 1)[0]
    found = re.findall(
        f"^{re.escape(opening)}$(.*?)^{re.escape(closing)}$", text, re.DOTALL | re.MULTILINE
    )  # tags on lines of their own
    return [s.strip() for s in found if s.strip() and s.strip() != "(No memory loaded)"]


def skill_entries(text: str) -> list[str]:
    """The skills SkillsMiddleware lists in ``text``: the "- **name**: description" lines of its skills list (between
    the lines its SKILLS_SYSTEM_PROMPT puts before and after ``{skills_list}``)."""
    from deepagents.middleware.skills import SKILLS_SYSTEM_PROMPT

    head, _, tail = SKILLS_SYSTEM_PROMPT.partition("{skills_list}")
    opening, closing = head.strip().rsplit("\n", 1)[-1], tail.strip().split("\n", 1)[0]
    lists = re.findall(re.escape(opening) + r"(.*?)" + re.escape(closing), text, re.DOTALL)
    return [line.strip() for block in lists for line in _SKILL_LINE.findall(block)]
