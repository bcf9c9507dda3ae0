"""``summary-reinject``: deepagents' summary, plus what Claude Code publishes it brings back after a compaction (the
reference arm of the survives eval).

Claude Code's documentation (2026-10, "what survives compaction"): memory files, unscoped rules and the plan are
re-injected from disk; at most 5 recently read files come back, a file over 5,000 tokens only as its path. deepagents
already re-injects its memory files on every call (MemoryMiddleware's section of the system prompt, loaded into state
once) and its skills list, so this arm adds the rest: deepagents' own SummarizationMiddleware in the slot and, inside
it, `ReinjectAfterSummary`. After each summary it puts, right behind the summary, the current todo list (``todos`` in
state) and the files read with read_file in the span the summary took out of view (the `MAX_FILES` most recent ones,
read again from the backend; one over `FILE_TOKEN_LIMIT` tokens by its path only), each as a tool call with its result
(``write_todos`` / ``read_file``), the form a model knows the plan and a file's text in; their ids start with
`REINJECTED_ID`. What it adds is fixed when the summary first appears and sent on every call while that summary heads
the request (deepagents rebuilds the request from state on every call; nothing is written to state)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from harness.compaction.strategies.base import StrategyInfo, StrategyStack

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from harness.compaction.config import CompactionConfig

INFO = StrategyInfo(
    "summary-reinject",
    "deepagents' summary, then Claude Code's re-injection set: the plan and the 5 most recently read files (over "
    "5,000 tokens, the path only) put back after each summary",
    "the re-injected files and plan; else the offloaded history file, paged with read_file",
    "needle_via_history",
    True,
    ("summary",),
)

MAX_FILES = 5  # Claude Code: at most 5 recently read files come back
FILE_TOKEN_LIMIT = 5_000  # Claude Code: a file over 5k tokens comes back as its path only
REINJECTED_ID = "reinjected-"
"""The tool-call id prefix of what `ReinjectAfterSummary` puts back (the survives audit tells it from the conversation)."""
_SKIPPED = (da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX)  # the compaction's own archive is not a file the agent worked on


def _is_error(msg: BaseMessage) -> bool:
    return getattr(msg, "status", None) == "error" or str(msg.text).lstrip().lower().startswith("error")


def recent_reads(summarized: list[BaseMessage]) -> list[str]:
    """The paths read successfully with read_file in ``summarized``, the `MAX_FILES` most recent, oldest first."""
    results = {m.tool_call_id: m for m in summarized if isinstance(m, ToolMessage)}
    paths: list[str] = []
    for msg in summarized:
        for call in getattr(msg, "tool_calls", None) or []:
            path = (call.get("args") or {}).get("file_path")
            result = results.get(call.get("id") or "")
            if call.get("name") != "read_file" or not isinstance(path, str) or path.startswith(_SKIPPED):
                continue
            if result is not None and not _is_error(result):
                paths = [p for p in paths if p != path] + [path]
    return paths[-MAX_FILES:]


class ReinjectAfterSummary(AgentMiddleware):
    """Puts the plan and the recently read files back after each deepagents summary (the module docstring)."""

    def __init__(self, backend: Any) -> None:
        super().__init__()
        self.backend = backend
        self._made: dict[str, list[BaseMessage]] = {}  # summary text hash -> what follows it

    @property
    def name(self) -> str:
        return "HarnessReinjectAfterSummary"

    def _file_text(self, path: str) -> str | None:
        try:
            found = self.backend.download_files([path])[0]
        except Exception:  # noqa: BLE001 - a backend that cannot read it back: the file is not re-injected
            return None
        return found.content.decode("utf-8", "replace") if found.error is None and found.content is not None else None

    def _reinjection(self, request: Any) -> list[BaseMessage]:
        summary = request.messages[0]
        key = hashlib.sha1(str(summary.text).encode()).hexdigest()
        if key in self._made:
            return self._made[key]
        in_request = {m.id for m in request.messages if m.id} | {id(m) for m in request.messages}
        summarized = [m for m in request.state.get("messages", []) if m.id not in in_request and id(m) not in in_request]
        calls: list[dict[str, Any]] = []
        results: list[ToolMessage] = []
        todos = request.state.get("todos")
        if isinstance(todos, list) and todos:
            items = [dict(t) for t in todos]
            calls.append({"name": "write_todos", "args": {"todos": items}, "id": f"{REINJECTED_ID}{key[:8]}-todos"})
            results.append(ToolMessage(f"Updated todo list to {json.dumps(items)}", tool_call_id=calls[-1]["id"]))
        for n, path in enumerate(recent_reads(summarized)):
            text = self._file_text(path)
            if text is None:
                continue
            call_id = f"{REINJECTED_ID}{key[:8]}-file{n}"
            tokens = count_tokens_approximately([ToolMessage(text, tool_call_id=call_id)])
            if tokens > FILE_TOKEN_LIMIT:
                text = f"(not re-read after the summary: {tokens:,} tokens, over {FILE_TOKEN_LIMIT:,}; read {path} again if you need it)"
            calls.append({"name": "read_file", "args": {"file_path": path}, "id": call_id})
            results.append(ToolMessage(text, tool_call_id=call_id))
        made: list[BaseMessage] = [AIMessage("", tool_calls=calls), *results] if calls else []
        self._made[key] = made
        return made

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        return handler(self._with_reinjection(request))

    async def awrap_model_call(self, request, handler):  # noqa: ANN001
        return await handler(self._with_reinjection(request))

    def _with_reinjection(self, request: Any) -> Any:
        msgs = list(request.messages)
        if not msgs or not da.is_summary_message(msgs[0]):
            return request
        added = self._reinjection(request)
        return request.override(messages=[msgs[0], *added, *msgs[1:]]) if added else request


def build(
    config: CompactionConfig, model: BaseChatModel, *, backend: Any, summarizer: BaseChatModel | None = None
) -> StrategyStack:
    from harness.compaction.strategies.deepagents_summarization import summarization

    middleware = summarization(config, model, backend=backend, summarizer=summarizer)
    return StrategyStack(slot=middleware, inner=[ReinjectAfterSummary(backend)], summarization=middleware)
