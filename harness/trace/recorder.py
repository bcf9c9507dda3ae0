"""Recording what the model saw at every call, and each compaction event.

Two hooks feed one `Recorder`:

- `RecorderMiddleware` sits inside deepagents' summarization middleware, so each agent
  request it sees is the request the model gets (summary at the head, clipped
  arguments, eviction notices). It also sees the agent state *before* the call, which
  is how it tells that a summary was made during this very call and how big the
  conversation was before it (via the private-state adapter).
- `SummarizerCallback` is a LangChain callback handler passed to ``invoke``: the
  summarizer call happens inside the summarization middleware, outside every other
  middleware, and is tagged with run metadata ``lc_source == "summarization"``. It also
  records each model call made inside a subagent (the ``task`` tool runs the subagent's
  graph, so the call's ``checkpoint_ns`` names the tools node) as a ``subagent`` call,
  and each model call a tool made itself as a ``tool`` call (`call_role`), which the
  middleware, in the parent's stack only, never sees.

Messages are serialized once each (object identity first, content hash second), and
token counts are cached per message, so recording stays a small share of a run.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage, ToolMessage, message_to_dict
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from harness.compaction.config import DEFAULT_STRATEGY
from harness.redact import redact
from harness.trace.schema import OWN_MODEL_ROLES, SIMULATED_FINGERPRINT, SUBAGENT, TOOL
from harness.trace.subagents import SubagentProbe


class Recorder:
    """What the model saw, call by call: each model call's request (messages, approximate and provider tokens) and
    response, and each compaction event (summary, mask, trim, eviction, argument truncation, overflow recovery) with
    what it removed. Its middleware and callback feed it during a run; the runner makes the `Trace` from it."""

    def __init__(self, truncation_text: str = da.TRUNCATION_TEXT, strategy: str = DEFAULT_STRATEGY) -> None:
        self.truncation_text = truncation_text
        self.strategy = strategy
        self._summaries_seen: set[str] = set()
        self._masked: set[str] = set()
        self._trimmed = 0
        self._key_tokens: dict[str, int] = {}
        self._native_seen = False  # a provider-native compaction came back: requests are read as the provider sees them
        self._native_summaries: dict[str, BaseMessage] = {}  # summary text -> its message (one object: one hashing)
        from harness.compaction.strategies.registry import INFO  # local: the strategies import their middleware

        info = INFO.get(strategy)
        self._may_trim = info is None or "trim" in info.event_types  # else the state's size is read only when needed
        self.calls: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.turn = 0
        self._t0 = time.perf_counter()
        self._by_id: dict[int, tuple[BaseMessage, str, int]] = {}
        self._overhead: dict[tuple, int] = {}
        self._system_shas: dict[int, tuple[BaseMessage, str]] = {}
        self._system_keys: dict[str, str] = {}
        self._evicted: set[str] = set()
        self._truncated: set[str] = set()
        self._pending: dict[Any, tuple[dict[str, Any], float]] = {}  # summarizer run id -> (call, start time)
        self._awaiting: tuple[dict[str, Any], BaseMessage | None] | None = None  # agent call, its system prompt here
        self.served_simulated = False  # an answer came from `harness serve` (the reference models over HTTP)
        self.own_time_s = 0.0  # time spent in the recorder's own hooks (reported by harness bench)
        self.middleware = RecorderMiddleware(self)
        self.callback = SummarizerCallback(self)
        self.subagent_requests: list[dict[str, Any]] = []  # an eval's own subagents' requests (`trace.subagents`)
        self.subagent_middleware = SubagentProbe(self)

    # -- message table ----------------------------------------------------------
    def _entry(self, msg: BaseMessage) -> tuple[str, int]:
        hit = self._by_id.get(id(msg))
        if hit is not None and hit[0] is msg:
            return hit[1], hit[2]
        data = message_to_dict(msg)
        key = hashlib.sha1(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]
        self.messages.setdefault(key, data)
        tokens = count_tokens_approximately([msg])
        self._by_id[id(msg)] = (msg, key, tokens)  # holding msg keeps id() unique
        self._key_tokens[key] = tokens
        return key, tokens

    def _overhead_tokens(self, system: BaseMessage | None, tools: list[Any]) -> int:
        names = tuple(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else repr(t)) for t in tools or [])
        cache_key = (system.content if system is not None and isinstance(system.content, str) else id(system), names)
        if cache_key not in self._overhead:
            self._overhead[cache_key] = count_tokens_approximately([system] if system is not None else [], tools=tools or None)
        return self._overhead[cache_key]

    def _system_sha(self, system: BaseMessage | None) -> str | None:
        if system is None:
            return None
        hit = self._system_shas.get(id(system))
        if hit is None or hit[0] is not system:
            hit = (system, hashlib.sha1(str(system.content).encode()).hexdigest()[:12])
            self._system_shas[id(system)] = hit
        return hit[1]

    def _system_key(self, system: BaseMessage | None) -> str | None:
        """The system prompt's key in the message table, stored once per distinct prompt (a fact stated there is
        scored from it)."""
        sha = self._system_sha(system)
        if system is None or sha is None:
            return None
        if sha not in self._system_keys:
            self._system_keys[sha] = self._entry(system)[0]
        return self._system_keys[sha]

    def now(self) -> float:
        return time.perf_counter() - self._t0

    def new_call(self, role: str, keys: list[str], tokens: int, **extra: Any) -> dict[str, Any]:
        call = {
            "index": len(self.calls),
            "role": role,
            "turn": self.turn,
            "started_s": round(self.now(), 6),
            "duration_s": None,
            "message_keys": keys,
            "approx_tokens": tokens,
            "overhead_tokens": 0,
            "usage": None,
            "summary_at_head": False,
            "response": None,
            "error": None,
            "namespace": "",
            **extra,
        }
        self.calls.append(call)
        return call

    def event(
        self,
        kind: str,
        call: dict[str, Any],
        *,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
        dropped: dict[str, Any] | None = None,
        **data: Any,
    ) -> None:
        """One compaction event (trace schema 2): type, strategy, where, tokens before and after, what was dropped."""
        self.events.append(
            {
                "type": kind,
                "strategy": self.strategy,
                "call_index": call["index"],
                "turn": call["turn"],
                "tokens_before": tokens_before,
                "tokens_after": tokens_after,
                "dropped": dropped or {},
                **data,
            }
        )

    # -- agent calls ------------------------------------------------------------------
    def before_agent_call(self, request: Any) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            return self._before_agent_call(request)
        finally:
            self.own_time_s += time.perf_counter() - t0

    def _before_agent_call(self, request: Any) -> dict[str, Any]:
        msgs: list[Any] = list(request.messages)
        provider_summary = False
        if self._native_seen:  # only after a provider's compaction: other runs pay nothing for the look
            msgs, provider_summary = provider_view(msgs, self._native_summaries)
        entries = [self._entry(m) for m in msgs]
        overhead = self._overhead_tokens(request.system_message, request.tools)
        total = overhead + sum(t for _, t in entries)
        summary_head = bool(msgs) and (provider_summary or da.is_summary_message(msgs[0]))
        call = self.new_call(
            "agent",
            [k for k, _ in entries],
            total,
            overhead_tokens=overhead,
            summary_at_head=summary_head,
            system_sha=self._system_sha(request.system_message),
            system_key=self._system_key(request.system_message),
        )
        self._awaiting = (call, request.system_message)  # the callback reads the system prompt the model is sent
        state = request.state
        head_key = entries[0][0] if summary_head else None
        new_summary = head_key is not None and head_key not in self._summaries_seen
        if head_key is not None:
            self._summaries_seen.add(head_key)
        state_messages = list(state.get("messages", []))
        rewritten = summary_head and bool(state_messages) and state_messages[0] is msgs[0]  # msgs may be empty
        masked = [m.tool_call_id for m in msgs if da.is_masked_tool_result(m) and m.tool_call_id not in self._masked]
        # The conversation the request came from (deepagents' rebuild of the state): read only when an event needs it.
        before = None if rewritten or not (new_summary or masked or self._may_trim) else da.effective_messages(state)
        before_tokens = overhead + sum(self._entry(m)[1] for m in before) if before is not None else None
        if new_summary:
            previous = self._last_agent_call(exclude=call)
            overflow = bool(previous and (previous.get("error") or {}).get("context_overflow"))
            before_count: int | None
            if rewritten and previous is None:
                # LangChain's middleware rewrote the state before the first request (a replayed session's cut): what
                # it summarized was never sent, so its size is unknown here, never the kept messages' alone.
                before_tokens = before_count = None
            elif rewritten and previous is not None:
                # LangChain's middleware rewrote the state: "before" is the previous request plus what came since.
                known = set(previous["message_keys"])
                added = [(k, n) for k, n in entries[1:] if k not in known]
                before_tokens = previous["approx_tokens"] + sum(n for _, n in added)
                before_count = len(known) + len(added)
            else:
                before_count = len(before or [])
            self.event(
                "summary",
                call,
                tokens_before=before_tokens,
                tokens_after=total,
                messages_before=before_count,
                messages_after=len(msgs),
                history_path=da.history_path(msgs[0].text),
                summary_key=entries[0][0],
                cause="overflow" if overflow else "threshold",
                dropped={} if before_count is None else {"messages": max(0, before_count - (len(msgs) - 1))},
            )
            if overflow:
                self.event("overflow-recovery", call, failed_call_index=previous["index"] if previous else None)
        if masked:
            self._masked.update(masked)
            self.event(
                "mask",
                call,
                tool_call_ids=masked,
                masked_now=sum(da.is_masked_tool_result(m) for m in msgs),
                tokens_before=before_tokens,
                tokens_after=total,
                dropped={"tool_results": masked},
            )
        if before is not None and not new_summary:
            dropped = len(before) - len(msgs)
            if dropped > self._trimmed:
                self.event(
                    "trim",
                    call,
                    messages_dropped=dropped,
                    tokens_before=before_tokens,
                    tokens_after=total,
                    messages_before=len(before),
                    messages_after=len(msgs),
                    dropped={"messages": dropped},
                )
            if dropped > 0:  # the window's current reach: a trim event only when it moves further
                self._trimmed = dropped
        for msg in msgs:
            evicted = da.eviction_notice(msg)
            if evicted and evicted.tool_call_id not in self._evicted:
                self._evicted.add(evicted.tool_call_id)
                self.event(
                    "evict",
                    call,
                    tool_call_id=evicted.tool_call_id,
                    path=evicted.path,
                    dropped={"tool_results": [evicted.tool_call_id]},
                )
        clipped = [
            (key, ids)
            for msg, (key, _) in zip(msgs, entries)
            if key not in self._truncated and (ids := da.truncated_call_ids(msg, self.truncation_text))
        ]
        if clipped:
            self._truncated.update(k for k, _ in clipped)
            call_ids = [i for _, by_id in clipped for i in by_id]
            self.event(
                "truncate-args",
                call,
                messages=len(clipped),
                args=sum(sum(by_id.values()) for _, by_id in clipped),
                tool_call_ids=call_ids,
                dropped={"args": sum(sum(by_id.values()) for _, by_id in clipped), "tool_call_ids": call_ids},
            )
        return call

    def sent_system(self, batch: list[BaseMessage]) -> None:
        """The system prompt the model was sent at the agent call just recorded, kept as ``sent_system_key`` when it
        differs from the one the recorder saw: deepagents' tail (the memory and skills middleware, after every passed
        middleware) appends its sections after the recorder."""
        awaiting, self._awaiting = self._awaiting, None
        sent = batch[0] if batch and batch[0].type == "system" else None
        if awaiting is None or sent is None or sent is awaiting[1]:
            return
        if awaiting[1] is not None and sent.content == awaiting[1].content:
            return
        awaiting[0]["sent_system_key"] = self._entry(sent)[0]

    def _last_agent_call(self, exclude: dict[str, Any]) -> dict[str, Any] | None:
        for call in reversed(self.calls):
            if call is not exclude and call["role"] == "agent":
                return call
        return None

    def finish_call(
        self, call: dict[str, Any], started: float, message: BaseMessage | None = None, error: BaseException | None = None
    ) -> None:
        t0 = time.perf_counter()
        try:
            self._finish_call(call, started, message, error)
        finally:
            self.own_time_s += time.perf_counter() - t0

    def _finish_call(
        self, call: dict[str, Any], started: float, message: BaseMessage | None, error: BaseException | None
    ) -> None:
        call["duration_s"] = round(self.now() - started, 6)
        if error is not None:
            call["error"] = {
                "type": type(error).__name__,
                "message": redact(str(error))[:2000],
                "context_overflow": da.is_context_overflow(error),
            }
            return
        if message is not None:
            call["response"] = {
                "text": message.text if isinstance(message.content, (str, list)) else str(message.content),
                "tool_calls": [
                    {"name": tc["name"], "args": tc["args"], "id": tc.get("id")}
                    for tc in getattr(message, "tool_calls", []) or []
                ],
            }
            usage = getattr(message, "usage_metadata", None)
            call["usage"] = dict(usage) if usage else None
            meta = message.response_metadata
            passes = compaction_iterations(meta, message.content)
            if passes:
                call["compaction_usage"] = passes
            # chat completions and Anthropic messages carry it at the top; a Responses answer in its metadata
            if SIMULATED_FINGERPRINT in (meta.get("system_fingerprint"), (meta.get("metadata") or {}).get("system_fingerprint")):
                self.served_simulated = True
            if call["role"] not in OWN_MODEL_ROLES:  # a subagent's or a tool's request is not the parent's: no event of its
                self._native_events(call, message)

    def _native_events(self, call: dict[str, Any], message: BaseMessage) -> None:
        """What a provider-native strategy did to this call, from its response, recorded as what the model saw.

        A compaction block or item with a summary: the model answered from the summary alone, so the call's request
        becomes that summary (at the head, as the provider's next requests have it) and a ``summary`` event records the
        size before; a failed one (null content) marks the call ``native_compaction_failed``. Tool results the
        provider cleared (``applied_edits``: a count, the oldest first as Anthropic clears them): the request shows
        them as the placeholder the model saw, and a ``mask`` event names those cleared for the first time."""
        from harness.trace import native

        for found in native.compactions(message):
            if found.summary is None:
                call["native_compaction_failed"] = found.provider
                continue
            summary = self._native_summaries.setdefault(found.summary, native.summary_message(found.summary))
            key, tokens = self._entry(summary)
            self._summaries_seen.add(key)
            self._native_seen = True
            before, before_tokens = len(call["message_keys"]), call["approx_tokens"]
            call.update(message_keys=[key], summary_at_head=True, approx_tokens=call["overhead_tokens"] + tokens)
            self.event(
                "summary",
                call,
                tokens_before=before_tokens,
                tokens_after=call["approx_tokens"],
                messages_before=before,
                messages_after=1,
                history_path=None,
                summary_key=key,
                cause="threshold",
                native=found.provider,
                summary_readable=found.readable,
                dropped={"messages": before},
            )
        cleared = native.cleared_tool_uses(message)
        if cleared:
            self._provider_cleared(call, cleared)

    def _provider_cleared(self, call: dict[str, Any], count: int) -> None:
        keys = list(call["message_keys"])
        cleared_ids: list[str] = []
        for pos, key in enumerate(keys):
            data = self.messages[key]
            if len(cleared_ids) == count:
                break
            if data["type"] != "tool" or data["data"].get("content") == native_placeholder():
                continue
            call_id = data["data"]["tool_call_id"]
            keys[pos] = self._entry(ToolMessage(content=native_placeholder(), tool_call_id=call_id))[0]
            cleared_ids.append(call_id)
        before = call["approx_tokens"]
        call.update(message_keys=keys, approx_tokens=call["overhead_tokens"] + sum(self._tokens_of(k) for k in keys))
        new = [i for i in cleared_ids if i not in self._masked]
        if new:
            self._masked.update(new)
            self.event(
                "mask",
                call,
                tool_call_ids=new,
                masked_now=len(cleared_ids),
                tokens_before=before,
                tokens_after=call["approx_tokens"],
                native="anthropic",
                dropped={"tool_results": new},
            )

    def _tokens_of(self, key: str) -> int:
        return self._key_tokens[key]


def provider_view(messages: list[BaseMessage], made: dict[str, BaseMessage] | None = None) -> tuple[list[BaseMessage], bool]:
    """The request as a provider that compacted earlier sees it: from the latest native compaction (a block or item
    with a summary, in an AI message) on, the summary first (True), else the messages as they are (False). ``made``
    holds the summary messages already made, by text (the same object each time)."""
    from harness.trace import native

    made = {} if made is None else made
    for pos in range(len(messages) - 1, -1, -1):
        if messages[pos].type != "ai":
            continue
        readable = [c.summary for c in native.compactions(messages[pos]) if c.summary is not None]
        if readable:
            summary = made.setdefault(readable[-1], native.summary_message(readable[-1]))
            return [summary, *messages[pos:]], True
    return list(messages), False


def native_placeholder() -> str:
    """The text a provider's cleared tool result reads as: ``[cleared]`` (Anthropic's, `harness serve`'s and
    LangChain's)."""
    from harness.compaction.strategies.observation_masking import PLACEHOLDER

    return PLACEHOLDER


def compaction_iterations(response_metadata: dict[str, Any], content: Any = None) -> list[dict[str, Any]]:
    """The provider's server-side compaction passes of one response, as it billed them: Anthropic's
    ``usage.iterations`` entries of type ``compaction`` (the summary pass, billed only there). langchain-anthropic
    does not read ``iterations`` into ``usage_metadata``, but it copies the raw response fields (``usage`` among them,
    as the SDK parsed it, unknown fields kept) into ``response_metadata``; the recorder reads them from there, so the
    SDK and LangChain stay unpatched. A streamed Anthropic answer keeps no raw usage: when its ``content`` holds a
    compaction block, the pass is ``{"type": "compaction", "unreported": True}``, of unknown size (never a free one).
    Empty for any other response (the Responses API counts its pass in the response's own usage)."""
    usage = response_metadata.get("usage")
    entries = usage.get("iterations") if isinstance(usage, dict) else None
    if isinstance(entries, list):
        return [dict(e) for e in entries if isinstance(e, dict) and e.get("type") == "compaction"]
    compacted = isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "compaction" for b in content)
    if compacted and response_metadata.get("model_provider") == "anthropic":
        return [{"type": "compaction", "unreported": True}]
    return []


def model_name(metadata: dict[str, Any]) -> str | None:
    """The model a call was made on, ``provider:model``, from the LangSmith parameters LangChain puts in a chat model's
    run metadata (``ls_provider``, ``ls_model_name``); None when the model names none."""
    name, provider = metadata.get("ls_model_name"), metadata.get("ls_provider")
    if not isinstance(name, str) or not name:
        return None
    return f"{provider}:{name}" if isinstance(provider, str) and provider and ":" not in name else name


TOOLS_NODE = "tools"  # the node LangChain's create_agent (every deepagents agent and subagent) runs tools in
SUMMARIZER = "summarizer"


def call_role(metadata: dict[str, Any]) -> str | None:
    """Whose model call a chat model's start is, from the run metadata LangGraph and deepagents give it: ``summarizer``
    (tagged ``lc_source == "summarization"``, a subagent's too), ``subagent`` (made by a graph run inside a tools node:
    deepagents' ``task`` tool runs the subagent's graph, whose model node makes it), ``tool`` (made in a tools node
    itself: a tool that invokes a chat model), or None: the parent agent's call, which its middleware records.

    LangGraph 1.2 gives every call made in a node ``langgraph_node`` (that node's name) and ``checkpoint_ns`` (the
    namespace of the outermost graph task it runs under): a subagent's model call has ``langgraph_node`` "model" under
    ``tools:<id>``, a tool's own call ``langgraph_node`` "tools" under ``tools:<id>``; the parent's calls
    ``model:<id>``."""
    if metadata.get("lc_source") == da.SUMMARY_SOURCE:
        return SUMMARIZER
    if "tools:" not in str(metadata.get("checkpoint_ns", "")):
        return None
    return TOOL if metadata.get("langgraph_node") == TOOLS_NODE else SUBAGENT


def in_subagent(metadata: dict[str, Any], role: str) -> bool:
    """Whether a recorded call ran inside a subagent: a summary or a subagent's call under a tools node; a tool's own
    call when its tools node is itself inside a graph that a tools node runs (a subagent's tool:
    ``langgraph_checkpoint_ns`` of two parts or more, ``tools:<id>|tools:<id>``)."""
    if role != TOOL:
        return "tools:" in str(metadata.get("checkpoint_ns", ""))
    return "|" in str(metadata.get("langgraph_checkpoint_ns", ""))


class RecorderMiddleware(AgentMiddleware):
    """Logs each agent model call as the model receives it (place inside summarization)."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    @property
    def name(self) -> str:
        return "HarnessRecorderMiddleware"

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        call, started = self._before(request)
        try:
            response = handler(request)
        except BaseException as exc:
            self.recorder.finish_call(call, started, error=exc)
            raise
        return self._after(call, started, response)

    async def awrap_model_call(self, request, handler):  # noqa: ANN001 - the same, for ainvoke (live runs)
        call, started = self._before(request)
        try:
            response = await handler(request)
        except BaseException as exc:
            self.recorder.finish_call(call, started, error=exc)
            raise
        return self._after(call, started, response)

    def _before(self, request):  # noqa: ANN001, ANN202
        return self.recorder.before_agent_call(request), self.recorder.now()

    def _after(self, call, started, response):  # noqa: ANN001, ANN202
        result = getattr(response, "result", None)
        if result is None and hasattr(response, "model_response"):
            result = response.model_response.result
        ai = next((m for m in reversed(result or []) if m.type == "ai"), None)
        self.recorder.finish_call(call, started, message=ai)
        return response


class SummarizerCallback(BaseCallbackHandler):
    """Logs the summarizer's model calls (run metadata lc_source == "summarization"), every model call made inside a
    subagent (role ``subagent``) and every model call a tool made itself (role ``tool``: each with its request, usage,
    model and error, so the case's cost counts it; `call_role` tells them apart), and the system prompt an agent call
    was sent (`Recorder.sent_system`)."""

    run_inline = True
    raise_error = False
    # Only chat-model starts/ends matter; skipping every other event keeps the callback manager cheap.
    ignore_chain = True
    ignore_agent = True
    ignore_retriever = True
    ignore_retry = True
    ignore_custom_event = True

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def on_chat_model_start(self, serialized, messages, *, run_id, metadata=None, **kwargs):  # noqa: ANN001
        metadata = metadata or {}
        role = call_role(metadata)
        if role is None:
            if self.recorder._awaiting is not None:  # an agent call was just recorded: this is its model's start
                t0 = time.perf_counter()
                self.recorder.sent_system(messages[0] if messages else [])
                self.recorder.own_time_s += time.perf_counter() - t0
            return
        t0 = time.perf_counter()
        rec = self.recorder
        batch = messages[0] if messages else []
        entries = [rec._entry(m) for m in batch]
        tokens = sum(t for _, t in entries)
        if role == SUMMARIZER:
            call = rec.new_call(SUMMARIZER, [k for k, _ in entries], tokens)
        else:  # its request as sent (system prompt among the messages) and its tool schemas, as an agent call is counted
            tools = (kwargs.get("invocation_params") or {}).get("tools") or []
            tokens += rec._overhead_tokens(None, tools) if tools else 0
            call = rec.new_call(role, [k for k, _ in entries], tokens, model=model_name(metadata))
        call["namespace"] = SUBAGENT if in_subagent(metadata, role) else ""
        rec._pending[run_id] = (call, rec.now())
        rec.own_time_s += time.perf_counter() - t0

    def on_llm_end(self, response, *, run_id, **kwargs):  # noqa: ANN001
        pending = self.recorder._pending.pop(run_id, None)
        if pending is None:
            return
        call, started = pending
        gens = response.generations[0] if response.generations else []
        message = getattr(gens[0], "message", None) if gens else None
        self.recorder.finish_call(call, started, message=message)

    def on_llm_error(self, error, *, run_id, **kwargs):  # noqa: ANN001
        pending = self.recorder._pending.pop(run_id, None)
        if pending is not None:
            self.recorder.finish_call(pending[0], pending[1], error=error)
