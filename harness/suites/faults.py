"""Seeded faults, named for what they break, and the faulty summarizer, backend and middleware that inject them.

`FaultySummarizer` stands in for the summarizer model and fails in one of four ways a
real provider does: it raises (a 5xx), times out, returns empty text, or returns text
with no summary in it (a refusal). deepagents retries the raising kinds three times with
backoff, then the run fails; the offloaded history has already been written by then.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from deepagents.backends import StateBackend
from deepagents.backends.protocol import FileUploadResponse, ReadResult, WriteResult
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from harness.compaction.config import ContextSize
from harness.reference.models import ReferenceSummarizerModel
from harness.reference.not_summaries import SHAPES, shape_message

SUMMARIZER_FAULTS = ("raise", "timeout", "empty", "no_summary")
"""The ways `FaultySummarizer` fails (the faults eval runs each)."""
REFUSAL = "I'm sorry, but I can't help with summarizing this conversation."


class FaultySummarizer(ReferenceSummarizerModel):
    """A summarizer that fails as ``fault`` says: on every call, or on the first ``failures`` calls only
    (then it summarizes like the reference summarizer: a transient outage that deepagents' retry rides out)."""

    model_name: str = "faulty-summarizer"
    fault: str = "raise"
    failures: int | None = None
    _calls: int = PrivateAttr(default=0)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        self._calls += 1
        if self.failures is not None and self._calls > self.failures:
            return super()._generate(messages, stop, run_manager, **kwargs)
        if self.fault == "raise":
            raise RuntimeError("summarizer service unavailable (injected fault: raise)")
        if self.fault == "timeout":
            raise TimeoutError("summarizer request timed out after 60 s (injected fault: timeout)")
        if self.fault == "empty":
            text = ""
        elif self.fault == "no_summary":
            text = REFUSAL
        else:
            raise ValueError(f"unknown fault {self.fault!r}; known: {', '.join(SUMMARIZER_FAULTS)}")
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(content=text, response_metadata={"model_name": self.model_name}))]
        )


class FaultyBackend(StateBackend):
    """deepagents' StateBackend with reads or writes refused under one path prefix."""

    def __init__(self, *, unreadable: str | None = None, unwritable: str | None = None) -> None:
        super().__init__()
        self.unreadable, self.unwritable = unreadable, unwritable

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        if self.unreadable and file_path.startswith(self.unreadable):
            return ReadResult(error=f"Error: permission denied reading {file_path} (injected fault)")
        return super().read(file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        if self.unwritable and file_path.startswith(self.unwritable):
            return WriteResult(error=f"permission denied writing {file_path} (injected fault)")
        return super().write(file_path, content)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Uploads (deepagents' media offload) refused under ``unwritable`` too."""
        refused = [self.unwritable is not None and path.startswith(self.unwritable) for path, _ in files]
        kept = [f for f, no in zip(files, refused) if not no]
        allowed = iter(super().upload_files(kept) if kept else [])
        return [
            FileUploadResponse(path=path, error="permission_denied") if no else next(allowed)
            for (path, _), no in zip(files, refused)
        ]


class MisplacingBackend(StateBackend):
    """deepagents' StateBackend that stores every file written under ``prefix`` one folder down (``<prefix>archive/``)
    and reports success: what a caller wrapping the offload did when the history file's name changed. The summary
    names a path that does not exist."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def write(self, file_path: str, content: str) -> WriteResult:
        if file_path.startswith(self.prefix):
            moved = self.prefix + "archive/" + file_path[len(self.prefix) :]
            result = super().write(moved, content)
            return WriteResult(error=result.error, path=None if result.error else file_path)
        return super().write(file_path, content)


class _DropsLast(AgentMiddleware):
    """Corrupts requests: removes the last message ``drops`` picks before the model sees it, on the sync and the async
    path alike (a live run through `harness serve` calls the model on an event loop)."""

    fault_name = ""

    @property
    def name(self) -> str:
        return self.fault_name

    def drops(self, msg: Any) -> bool:  # noqa: ANN401 - a LangChain message
        raise NotImplementedError

    def _corrupted(self, request):  # noqa: ANN001, ANN202
        msgs = list(request.messages)
        for i in range(len(msgs) - 1, -1, -1):
            if self.drops(msgs[i]):
                del msgs[i]
                break
        return request.override(messages=msgs)

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        return handler(self._corrupted(request))

    async def awrap_model_call(self, request, handler):  # noqa: ANN001
        return await handler(self._corrupted(request))


class DropToolResult(_DropsLast):
    """Removes the last tool result (a broken compaction)."""

    fault_name = "HarnessDropToolResultFault"

    def drops(self, msg: Any) -> bool:  # noqa: ANN401
        return msg.type == "tool"


class DropToolCall(_DropsLast):
    """Removes the last assistant message that made tool calls, leaving their results behind with no call before them
    (a cut that summarized a call away and kept its result: langchain#38352)."""

    fault_name = "HarnessDropToolCallFault"

    def drops(self, msg: Any) -> bool:  # noqa: ANN401
        return msg.type == "ai" and bool(getattr(msg, "tool_calls", None))


class UnrecognizedOverflow(AgentMiddleware):
    """A provider whose overflow error deepagents does not recognize (no known marker in the text)."""

    @property
    def name(self) -> str:
        return "HarnessUnrecognizedOverflowFault"

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        from langchain_core.exceptions import ContextOverflowError

        try:
            return handler(request)
        except ContextOverflowError as exc:
            raise RuntimeError("400 Bad Request: invalid request (injected fault: unrecognized overflow)") from exc


class LoseSubagentResult(AgentMiddleware):
    """The delegated work happens, but the subagent's report never reaches the parent (empty task result)."""

    @property
    def name(self) -> str:
        return "HarnessLoseSubagentResultFault"

    def wrap_tool_call(self, request, handler):  # noqa: ANN001
        from langchain_core.messages import ToolMessage
        from langgraph.types import Command

        result = handler(request)
        if request.tool_call.get("name") != "task":
            return result
        blank = ToolMessage("", tool_call_id=request.tool_call["id"])
        if isinstance(result, Command) and isinstance(result.update, dict):
            return Command(update={**result.update, "messages": [blank]})
        return blank


class CutsTaskReport(AgentMiddleware):
    """A compaction whose cut falls after a task's report: on the first request headed by a summary, the delegating
    call and its report that follow the summary are removed too, so the parent's model never sees the report."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = False

    @property
    def name(self) -> str:
        return "HarnessCutsTaskReportFault"

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        from harness import _deepagents_adapter as da

        msgs = list(request.messages)
        if self.cut or not msgs or not (da.is_summary_message(msgs[0]) or da.reads_as_summary(msgs[0])):
            return handler(request)
        ids = {tc["id"] for m in msgs if m.type == "ai" for tc in getattr(m, "tool_calls", []) if tc["name"] == "task"}
        if not ids:
            return handler(request)
        self.cut = True
        calls = {tc["id"] for m in msgs if m.type == "ai" and ids & {t["id"] for t in m.tool_calls} for tc in m.tool_calls}
        kept = [
            m
            for m in msgs
            if not (m.type == "ai" and calls & {t["id"] for t in getattr(m, "tool_calls", [])})
            and not (m.type == "tool" and m.tool_call_id in calls)
        ]
        return handler(request.override(messages=kept))


class StampsSystemPrompt(AgentMiddleware):
    """A middleware that writes a value changing on every call into the system prompt (a request counter here; a
    timestamp in the wild: anomalyco/opencode#43249, macanderson/stella#3690), so no two requests share a prefix and
    the prompt cache is written on every call and read on none."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    @property
    def name(self) -> str:
        return "HarnessStampsSystemPromptFault"

    def _stamped(self, request):  # noqa: ANN001, ANN202
        from langchain_core.messages import SystemMessage

        self.calls += 1
        text = request.system_message.text if request.system_message is not None else ""
        return request.override(system_message=SystemMessage(f"{text}\n\nRequest {self.calls} of this session."))

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        return handler(self._stamped(request))

    async def awrap_model_call(self, request, handler):  # noqa: ANN001 - the same, for ainvoke (live runs)
        return await handler(self._stamped(request))


class ClaimsEverythingDone(ReferenceSummarizerModel):
    """A summarizer that records every step as done: the agent then stops early."""

    model_name: str = "claims-done-summarizer"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any):  # noqa: ANN001
        result = super()._generate(messages, stop, run_manager, **kwargs)
        msg = result.generations[0].message
        msg.content = msg.text + "\n" + "\n".join(f"- Step {n} done: (claimed)" for n in range(1, 200))
        return result


class ListsDoneAsPending(ReferenceSummarizerModel):
    """A summarizer that lists finished work as pending (opencode#50816): each "Step N done" line of its first summary
    reads "Step N pending", the rest (and every later summary) as the reference summarizer writes it. The agent reads
    only the summary it is given."""

    model_name: str = "lists-pending-summarizer"
    _calls: int = PrivateAttr(default=0)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any):  # noqa: ANN001
        result = super()._generate(messages, stop, run_manager, **kwargs)
        self._calls += 1
        if self._calls == 1:
            msg = result.generations[0].message
            msg.content = _STEP_DONE.sub(r"Step \1 pending", msg.text)
        return result


_STEP_DONE = re.compile(r"Step (\d+) done")


class NotASummary(ReferenceSummarizerModel):
    """A summarizer whose every reply is not a summary, in one of the five shapes users report
    (`harness.reference.not_summaries`): the next assistant turn, a function call's JSON, reasoning alone (no text),
    LangChain's canned sentence, or an instruction in a system's voice."""

    model_name: str = "not-a-summary-summarizer"
    shape: str = SHAPES[0]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        return ChatResult(generations=[ChatGeneration(message=shape_message(self.shape, self.model_name))])


class PadsSummary(ReferenceSummarizerModel):
    """A summarizer whose summary quotes back everything it was sent after its own summary: each summary is bigger
    than what it replaced (openai/codex#40619: a compaction that took 244k tokens to 258k)."""

    model_name: str = "padding-summarizer"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        result = super()._generate(messages, stop, run_manager, **kwargs)
        msg = result.generations[0].message
        msg.content = msg.text + "\n\n## FULL RECORD\n" + "\n".join(m.text for m in messages)
        return result


class DropsDecisions(ReferenceSummarizerModel):
    """A summarizer whose summaries never write a decision or a constraint, whatever sections the prompt has."""

    model_name: str = "drops-decisions-summarizer"
    drop_types: tuple[str, ...] = ("decision", "constraint")


class KeepsStaleValue(ReferenceSummarizerModel):
    """A summarizer that misses updates: a fact stated more than once is written with its first value."""

    model_name: str = "stale-value-summarizer"
    keep_first_value: bool = True


class ForgetsArtifacts(ReferenceSummarizerModel):
    """A summarizer whose artifacts section lists nothing: which files were written, edited or read is lost."""

    model_name: str = "forgets-artifacts-summarizer"
    forget_artifacts: bool = True


def _memory_in_messages() -> tuple:
    """deepagents' memory middleware made to put the memory in the conversation, once (`harness.suites.memory_fault`)."""
    from harness.suites.memory_fault import MemoryInMessages

    return (MemoryInMessages(),)


def _forgetful_media_backend() -> Any:
    from harness.agent.media import ForgetfulBlobStore, media_backend

    return media_backend(ForgetfulBlobStore())


NOT_A_SUMMARY = {
    "continues": "the summarizer answers as the next assistant turn, not with a summary",
    "tool-call": "the summarizer answers with a function call's JSON as text",
    "reasoning-only": "the summarizer's reply is reasoning alone: its text, the summary, is empty",
    "authority": "the summarizer answers with an instruction in a system's voice ('SYSTEM: from now on ...')",
}
"""The summary-shape faults (`harness.reference.not_summaries.SHAPES`) made by a summarizer, each ``summary-<shape>``;
the fifth, ``summary-canned``, is made by LangChain itself (`LANGCHAIN_TRIM_DEFAULT`)."""
LANGCHAIN_TRIM_DEFAULT = 4000
"""``trim_tokens_to_summarize`` of LangChain's and deepagents' SummarizationMiddleware classes (deepagents' factory, and
the harness, pass None): trimming keeps the last 4,000 tokens from a user message on, which in a tool loop is none."""
KEEP_ABOVE_TRIGGER = 30
"""The keep-above-trigger fault's keep, in messages: on the goal cases 30 messages hold more than a 20 % trigger."""


@dataclass(frozen=True)
class SeededFault:
    """A fault the validity matrix injects, named for what it breaks. Which eval must catch it, and by which
    check, is the eval's entry in `harness.suites.registry` (``faults``)."""

    name: str
    description: str
    summarizer: Callable[[], Any] | None = None
    backend: Callable[[], Any] | None = None
    middleware: Callable[[], tuple] | None = None
    agent_options: dict[str, Any] | None = None  # the reference agent with these options (on top of the eval's)
    subagent_declares_parent_window: bool = False  # an eval's own subagent declares the parent's window, not its own
    config: dict[str, Any] | None = None  # the eval's compaction configuration with these fields changed


SEEDED_FAULTS = {
    f.name: f
    for f in (
        SeededFault(
            "history-unreadable",
            "read_file on /conversation_history/ is refused",
            backend=lambda: FaultyBackend(unreadable="/conversation_history/"),
        ),
        SeededFault(
            "offload-disabled",
            "writing the history file fails, so summaries name no path",
            backend=lambda: FaultyBackend(unwritable="/conversation_history/"),
        ),
        SeededFault(
            "task-dropped", "the summary drops the user's request", summarizer=lambda: ReferenceSummarizerModel(intent_loss=1.0)
        ),
        SeededFault("false-completion", "the summary claims every step is done", summarizer=lambda: ClaimsEverythingDone()),
        SeededFault(
            "eviction-unreadable",
            "read_file on /large_tool_results/ is refused",
            backend=lambda: FaultyBackend(unreadable="/large_tool_results/"),
        ),
        SeededFault(
            "summarizer-raises", "the summarizer raises on every call", summarizer=lambda: FaultySummarizer(fault="raise")
        ),
        SeededFault("summarizer-empty", "the summarizer returns empty text", summarizer=lambda: FaultySummarizer(fault="empty")),
        SeededFault(
            "clipped-args-trusted",
            "the agent takes a clipped write_file argument for the file's text",
            agent_options={"trusts_clipped_args": True},
        ),
        SeededFault(
            "written-file-unreadable",
            "read_file on /reports/ is refused, so a clipped file cannot be read back",
            backend=lambda: FaultyBackend(unreadable="/reports/"),
        ),
        SeededFault(
            "overflow-unrecognized",
            "the provider's overflow error carries no known marker, so no fallback",
            middleware=lambda: (UnrecognizedOverflow(),),
        ),
        SeededFault(
            "subagent-result-lost", "the subagent's report never reaches the parent", middleware=lambda: (LoseSubagentResult(),)
        ),
        SeededFault(
            "todos-not-updated",
            "the agent writes its todo list once and never updates it (a plan that lives only in an old write_todos call)",
            agent_options={"writes_todos_once": True},
        ),
        SeededFault(
            "history-misplaced",
            "the history file is stored somewhere other than the path the summary names",
            backend=lambda: MisplacingBackend("/conversation_history/"),
        ),
        SeededFault(
            "eviction-unwritable",
            "writing /large_tool_results/ fails, so an over-large tool result stays whole in the request",
            backend=lambda: FaultyBackend(unwritable="/large_tool_results/"),
        ),
        SeededFault(
            "tool-result-dropped", "compaction drops a tool result from the request", middleware=lambda: (DropToolResult(),)
        ),
        # What a compaction loses, by kind (issue 17): the retention and probe evals catch these.
        SeededFault(
            "summary-drops-decisions",
            "the summary never writes a decision or a constraint",
            summarizer=lambda: DropsDecisions(),
        ),
        SeededFault(
            "stale-value-kept", "the summary writes an updated fact with its first value", summarizer=lambda: KeepsStaleValue()
        ),
        SeededFault(
            "artifacts-forgotten", "the summary's artifacts section lists nothing", summarizer=lambda: ForgetsArtifacts()
        ),
        # Media (issue 20): the parity and blobs evals catch these.
        SeededFault(
            "media-offload-refused",
            "writing media under /conversation_history/media/ fails, so a summary keeps no copy of an image",
            backend=lambda: FaultyBackend(unwritable="/conversation_history/media/"),
        ),
        SeededFault(
            "blob-deleted",
            "each offloaded blob is deleted from the blob store once loaded: the next turn finds it gone",
            backend=lambda: _forgetful_media_backend(),
        ),
        SeededFault(
            "missing-blob-ignored",
            "blobs are deleted once loaded, and the agent never reads a file again after the missing-blob notice",
            backend=lambda: _forgetful_media_backend(),
            agent_options={"ignores_missing_blobs": True},
        ),
        # What comes back after a compaction (issue 34): the survives eval catches it.
        SeededFault(
            "memory-in-messages",
            "the AGENTS.md memory goes into the conversation once instead of the system prompt on every call, so a "
            "summary takes it away",
            middleware=_memory_in_messages,
        ),
        SeededFault(
            "stale-answer",
            "the agent answers with the first value it finds stated, not the latest",
            agent_options={"takes_first_statement": True},
        ),
        # A subagent and its parent (issue 34): the parent eval catches these.
        SeededFault(
            "task-report-cut",
            "the parent's compaction cuts after a task's report: its model never sees it",
            middleware=lambda: (CutsTaskReport(),),
        ),
        SeededFault(
            "subagent-parent-window",
            "a subagent declared with a smaller window is given its parent's: its summarization and input budget "
            "resolve against the parent's window (deepagents#802's shape)",
            subagent_declares_parent_window=True,
        ),
        # Work redone after compaction (issue 34): the redo eval catches it.
        SeededFault(
            "done-listed-pending",
            "the first summary lists every finished step as pending",
            summarizer=lambda: ListsDoneAsPending(),
        ),
        # What breaks in the wild (issue 34): the notsummary and loops evals catch these.
        *(
            SeededFault(f"summary-{shape}", description, summarizer=partial(NotASummary, shape=shape))
            for shape, description in NOT_A_SUMMARY.items()
        ),
        SeededFault(
            "summary-canned",
            f"trim_tokens_to_summarize at LangChain's class default ({LANGCHAIN_TRIM_DEFAULT:,}): no user message in the "
            "trimmed span, so LangChain writes 'Previous conversation was too long to summarize.' and never calls the "
            "summarizer (langchain#39261)",
            config={"trim_tokens_to_summarize": LANGCHAIN_TRIM_DEFAULT},
        ),
        SeededFault(
            "summary-padded",
            "each summary quotes back everything it was sent: bigger than what it replaced",
            summarizer=lambda: PadsSummary(),
        ),
        SeededFault(
            "keep-above-trigger",
            f"the summary keeps the last {KEEP_ABOVE_TRIGGER} messages, more than the trigger: the request stays above it",
            config={"keep": ContextSize("messages", KEEP_ABOVE_TRIGGER)},
        ),
        SeededFault(
            "loop-without-progress",
            "every call compacts (keep-above-trigger) and after each summary the agent makes its last call again, three "
            "in a row: compactions with no new tool call between them",
            agent_options={"repeats_after_summary": True},
            config={"keep": ContextSize("messages", KEEP_ABOVE_TRIGGER)},
        ),
        # The prompt cache a compaction destroys (issue 34): the cache eval catches this.
        SeededFault(
            "volatile-system-prompt",
            "a middleware stamps the system prompt with a per-call counter, so no request's prefix is read from the cache",
            middleware=lambda: (StampsSystemPrompt(),),
        ),
        # Message structure across the cut (issue 34): the boundary eval catches it.
        SeededFault(
            "tool-call-dropped",
            "compaction drops the assistant message that made a tool call and keeps its result (an orphan result)",
            middleware=lambda: (DropToolCall(),),
        ),
        # Token estimates (issue 34): the estimate eval catches it.
        SeededFault(
            "token-count-thirded",
            "the summarization trigger counts 12 characters a token (LangChain's counter assumes 4): it fires late or "
            "never on any content",
            config={"chars_per_token": 12.0},
        ),
    )
}
