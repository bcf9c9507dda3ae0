"""Traces for the scorers' unit tests, made by the real Recorder from a scripted conversation (no agent runs).

`Conversation` plays what the agent loop would: each user turn, each agent call (the request as the recorder
middleware receives it, then the model's answer), each tool result, a deepagents summary replacing the head of the
request, a summarizer call. The recorder turns that into calls, events and messages exactly as in a real run, so a
scorer reads here the same trace shapes it reads after `harness run`.

    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "the vault code is TANGO-7")])
    conv.summarize("The archive review is under way.")   # the next agent call has the summary at its head
    conv.user("What was the vault code?")
    conv.agent(tools=[("read_file", {"file_path": HISTORY}, "... TANGO-7 ...")])
    conv.answer("The code is TANGO-7.")
    trace = conv.trace()
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from harness import _deepagents_adapter as da
from harness.trace.recorder import Recorder
from harness.trace.schema import Trace
from tests._messages import summary_message
from tests._recorder_inputs import HISTORY, SYSTEM, request

__all__ = ["HISTORY", "Conversation"]

ToolUse = tuple[str, dict[str, Any], str | None]
"""(tool name, arguments, result text; None: the call gets no result)."""


class Conversation:
    def __init__(self, strategy: str = "deepagents-summarization", *, system: str | None = None, **config: Any) -> None:
        """``system``: text added to the system prompt every agent call is sent (a system-prompt fact)."""
        self.rec = Recorder(strategy=strategy)
        self.system = SystemMessage(f"{SYSTEM.content}\n{system}") if system else SYSTEM
        self.config = {"strategy": strategy, **config}
        self.history: list[BaseMessage] = []  # the agent state's messages: every message, summarized or not
        self.head: HumanMessage | None = None  # deepagents' summary message, once there is one
        self.cutoff = 0  # history[:cutoff] is summarized away
        self.path: str | None = None
        self._event: dict[str, Any] | None = None  # deepagents' summarization event in the state (after the call)
        self.turns: list[dict[str, Any]] = []
        self.answers: list[str | None] = []
        self._ids = 0

    # -- the user ---------------------------------------------------------------------------------------------------
    def user(self, text: str) -> Conversation:
        """A new user turn (the task is turn 0)."""
        turn = len(self.turns)
        self.rec.turn = turn
        self.turns.append({"index": turn, "text": text, "first_call": len(self.rec.calls)})
        self.history.append(HumanMessage(text))
        return self

    # -- the agent --------------------------------------------------------------------------------------------------
    def agent(self, text: str = "", tools: list[ToolUse] = (), **usage: int) -> dict[str, Any]:  # type: ignore[assignment]
        """One agent call: the recorder sees the request, then the model's answer (``text`` and ``tools`` calls); each
        tool's result joins the conversation. Returns the call record."""
        call = self.rec.before_agent_call(request(self.request(), state=self._state(), system=self.system))
        tool_calls = [{"name": n, "args": a, "id": self._id(), "type": "tool_call"} for n, a, _ in tools]
        reply = AIMessage(text, tool_calls=tool_calls)
        if usage:
            reply.usage_metadata = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, **usage}  # type: ignore[typeddict-item]
        self.rec.finish_call(call, self.rec.now(), message=reply)
        self._commit()
        self.history.append(reply)
        for tc, (name, _, result) in zip(tool_calls, tools):
            if result is not None:
                self.history.append(ToolMessage(result, tool_call_id=tc["id"], name=name))
        return call

    def answer(self, text: str) -> dict[str, Any]:
        """The agent's last call of the turn: its text is the turn's answer."""
        call = self.agent(text)
        self.answers.append(text)
        return call

    def fail(self, error: BaseException) -> dict[str, Any]:
        """An agent call that raised (recorded with its error; the conversation does not change)."""
        call = self.rec.before_agent_call(request(self.request(), state=self._state(), system=self.system))
        self.rec.finish_call(call, self.rec.now(), error=error)
        return call

    # -- compaction -------------------------------------------------------------------------------------------------
    def summarize(self, summary: str, path: str | None = HISTORY, keep: int = 0, *, attempts: list[Any] = ()) -> None:  # type: ignore[assignment]
        """deepagents summarizes: the summarizer is called (each of ``attempts`` an exception for a failed try before
        the good one), then the next request starts with the summary message naming ``path`` and keeps the last
        ``keep`` messages."""
        for error in attempts:
            self.summarizer_call(error=error)
        self.summarizer_call(reply=summary)
        self.head = summary_message(summary, path)
        self.path = path
        self.cutoff = len(self.history) - keep

    def summarizer_call(self, reply: str = "", error: BaseException | None = None) -> dict[str, Any]:
        """One call of the summarizer model, seen through the recorder's callback as deepagents makes it."""
        run_id = uuid.uuid4()
        cb = self.rec.callback
        cb.on_chat_model_start({}, [self.request()], run_id=run_id, metadata={"lc_source": da.SUMMARY_SOURCE})
        call = self.rec.calls[-1]
        if error is not None:
            cb.on_llm_error(error, run_id=run_id)
        else:
            cb.on_llm_end(LLMResult(generations=[[ChatGeneration(message=AIMessage(reply))]]), run_id=run_id)
        return call

    # -- the trace --------------------------------------------------------------------------------------------------
    def trace(self, case_id: str = "case-1", kind: str = "needle", **final: Any) -> Trace:
        """The trace as the runner finishes it (``final`` adds or overrides final-state fields, e.g. ``error``)."""
        return Trace(
            case_id=case_id,
            kind=kind,
            config=dict(self.config),
            turns=list(self.turns),
            calls=self.rec.calls,
            events=self.rec.events,
            messages=self.rec.messages,
            final={"answers": list(self.answers), "error": None, **final},
        )

    def request(self) -> list[BaseMessage]:
        """The messages the model is sent now: the summary and what followed the cutoff, or everything."""
        return [self.head, *self.history[self.cutoff :]] if self.head is not None else list(self.history)

    def _state(self) -> dict[str, Any]:
        """The state the call is made from: a summary made in this very call is written to it only afterwards."""
        state: dict[str, Any] = {"messages": list(self.history)}
        if self._event is not None:
            state[da.EVENT_KEY] = self._event
        return state

    def _commit(self) -> None:
        if self.head is not None:
            self._event = {"cutoff_index": self.cutoff, "summary_message": self.head, "file_path": self.path}

    def _id(self) -> str:
        self._ids += 1
        return f"call_{self._ids}"
