"""What one request shows the reference agent, parsed (`View`), the actions it answers with, and the deterministic
ids of its tool calls: the reading every part of its policy shares."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness.media_format import media_texts
from harness.task_format import Step, find_facts, parse_statements, parse_steps, wants_long_ids

HISTORY_PAGE_LINES = 200


@dataclass(frozen=True)
class ToolAction:
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ParallelCalls:
    """Several tool calls in one assistant message (a parallel fetch step)."""

    calls: tuple[ToolAction, ...]


@dataclass(frozen=True)
class ReplyAction:
    text: str


Action = ToolAction | ParallelCalls | ReplyAction


@dataclass
class View:
    """What one request shows the agent, parsed."""

    summary: str | None = None  # summarizer text inside the summary message
    history_path: str | None = None
    user_messages: list[str] = field(default_factory=list)
    calls: list[tuple[dict, ToolMessage | None]] = field(default_factory=list)
    history_pages: list[str] = field(default_factory=list)  # read_file results of the history file, in view order
    # Everything readable: the system prompt, user and assistant text (scripted turns and the agent's own replies),
    # the summary, tool results.
    texts: list[str] = field(default_factory=list)
    # When each text's content was said, for taking the latest statement of a fact: the system prompt (before
    # everything), pages of the history file (the offloaded span, the oldest part of the conversation, by offset), then
    # the summary, then the messages after it.
    said_at: list[tuple[int, int, int]] = field(default_factory=list)
    request_at: int = 0  # len(calls) when the latest user message was seen: calls after it answer that request

    @classmethod
    def of(cls, messages: list[BaseMessage]) -> View:
        view = cls()
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
        calls_by_id: dict[str, dict] = {}
        for i, msg in enumerate(messages):
            text: str = str(msg.text) if isinstance(msg.content, (str, list)) else str(msg.content)
            seen = media_texts(msg.content)  # what an image or binary file it was sent shows (the sentence it carries)
            if seen:
                text = "\n".join([text, *seen]).strip()
            if isinstance(msg, SystemMessage):
                view._read(text, (-1, 0, i))
            elif da.reads_as_summary(msg):
                view.summary = da.summary_body(text)
                view.history_path = da.history_path(text)
                view._read(view.summary, (1, 0, i))
            elif isinstance(msg, HumanMessage):
                view.user_messages.append(text)
                view._read(text, (2, i, 0))
                view.request_at = len(view.calls)
            elif isinstance(msg, AIMessage):
                if text.strip():
                    view._read(text, (2, i, 0))
                for call in msg.tool_calls:
                    view.calls.append((dict(call), results.get(call.get("id") or "")))
                    calls_by_id[call.get("id") or ""] = dict(call)
            elif isinstance(msg, ToolMessage):
                args = calls_by_id.get(msg.tool_call_id, {}).get("args") or {}
                page = view.history_path is not None and args.get("file_path") == view.history_path
                view._read(text, (0, int(args.get("offset") or 0), i) if page else (2, i, 0))
                if page:
                    view.history_pages.append(text)
        return view

    def _read(self, text: str, said_at: tuple[int, int, int]) -> None:
        self.texts.append(text)
        self.said_at.append(said_at)

    def latest_statement(self, key: str) -> str | None:
        """The value last stated for ``key`` in what is in view (a fact updated later answers with its new value)."""
        stated = [(at, n, v) for at, text in zip(self.said_at, self.texts) for n, v in enumerate(find_facts(key, text))]
        return max(stated)[2] if stated else None

    def stated_values(self, key: str) -> list[str]:
        """Every value stated for ``key`` in view, oldest first, each once; the earlier value a changed statement
        names (", not X") counts as stated just before it, on its line."""
        norm = " ".join(key.split()).lower()
        stated: list[tuple[tuple[int, int, int], int, int, int, str]] = []
        for at, text in zip(self.said_at, self.texts):
            for line_no, line in enumerate(text.splitlines()):
                replaced = [s.replaces for s in parse_statements(line) if s.replaces and s.key.lower() == norm]
                stated += [(at, line_no, 0, n, v) for n, v in enumerate(replaced) if v]
                stated += [(at, line_no, 1, n, v) for n, v in enumerate(find_facts(key, line))]
        first: dict[str, str] = {}
        for *_, value in sorted(stated):
            first.setdefault(value.lower(), value)
        return list(first.values())

    def rejected(self, key: str, latest: str) -> list[str]:
        """The values stated for ``key`` in view other than ``latest``, oldest first: the choices it replaced."""
        return [v for v in self.stated_values(key) if v.lower() != latest.lower()]

    def latest_request(self) -> str | None:
        if self.user_messages:
            return self.user_messages[-1]
        if self.summary:
            return quoted_block(self.summary, "Latest request:") or quoted_block(self.summary, "Original request:")
        return None

    def plan(self) -> list[Step]:
        """The step list in view: a user's request first, else what the summary quotes or plans."""
        for text in reversed(self.user_messages):
            steps = parse_steps(text)
            if steps:
                return steps
        return parse_steps(self.summary or "")

    def successful_calls(self) -> list[dict]:
        return [call for call, result in self.calls if result is not None and not is_error(result)]


def is_error(result: ToolMessage) -> bool:
    """Whether a tool result failed: its status (in process, and Anthropic's ``is_error``) or its text, which is all
    OpenAI's wires carry (langchain-openai sends a tool message's content and id alone), so that a result read over
    HTTP is an error exactly when it is one in process."""
    return result.status == "error" or is_error_text(result.text)


_UNFINISHED_CALL = re.compile(r"Tool call \S+ with id \S+ (?:did not complete|could not be executed)")
"""The results LangChain (`create_agent`, a call with malformed arguments) and deepagents (`PatchToolCallsMiddleware`,
a call left without a result) write with ``status="error"`` in text that does not begin with "Error"."""


def is_error_text(text: str) -> bool:
    stripped = text.lstrip()
    return stripped.lower().startswith("error") or _UNFINISHED_CALL.match(stripped) is not None


def quoted_block(text: str, label: str) -> str | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == label:
            block = []
            for follow in lines[i + 1 :]:
                if not follow.startswith(">"):
                    break
                block.append(follow[1:].removeprefix(" "))
            return "\n".join(block) if block else None
    return None


LONG_ID_CHARS = 240


def call_id(messages: list[BaseMessage], action: ToolAction) -> str:
    """A deterministic tool-call id: the same request yields the same id, run after run
    (deepagents' offload times in history pages and the uuid4 names of saved user messages are left out). A user message asking for long ids
    (`harness.task_format.LONG_IDS_REQUEST`) gets ids of `LONG_ID_CHARS` characters."""
    digest = hashlib.sha256()
    for msg in messages:
        digest.update(type(msg).__name__.encode())
        digest.update(da.run_stable_text(str(msg.content)).encode())
    digest.update(da.run_stable_text(repr(sorted(action.args.items()))).encode())
    hexdigest = digest.hexdigest()
    if any(isinstance(m, HumanMessage) and wants_long_ids(m.text) for m in messages):
        return ("call_" + hexdigest * 4)[:LONG_ID_CHARS]
    return "call_" + hexdigest[:16]
