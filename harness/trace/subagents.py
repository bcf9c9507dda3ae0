"""What a subagent's model was sent: the size of each request an eval's own subagent made, against its model's window.

The recorder's middleware sits in the parent's stack only (deepagents gives a subagent its own stack), so a
subagent's agent calls are not among the trace's calls. For the subagents the harness declares itself (an eval's:
`harness.agent.build.build_agent`'s ``subagent_models``) this probe, placed after the summarization slot in the
subagent's stack, records each request as its model gets it: the approximate tokens of system prompt, tool schemas
and messages (the quantity deepagents' trigger and input budget compare, counted as the recorder counts an agent
call), the size of everything the run's subagents were sent so far, each message once and summaries left out (what
one request would hold had nothing been compacted), the window its model declares, whether a summary heads it, and
whether the model refused it as too long.
The runner keeps them in ``trace.final["subagent_requests"]``.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import AgentMiddleware

from harness import _deepagents_adapter as da


class SubagentProbe(AgentMiddleware):
    """Records each request of the subagent it sits in (`Recorder.subagent_requests`); changes nothing."""

    def __init__(self, recorder: Any) -> None:  # the `harness.trace.recorder.Recorder` (not imported: no cycle)
        super().__init__()
        self.recorder = recorder
        self._seen: dict[str, int] = {}  # every message a subagent was sent (not a summary), by key: its tokens

    @property
    def name(self) -> str:
        return "HarnessSubagentProbe"

    def wrap_model_call(self, request, handler):  # noqa: ANN001
        entry = self._before(request)
        try:
            return handler(request)
        except Exception as exc:
            self._failed(entry, exc)
            raise

    async def awrap_model_call(self, request, handler):  # noqa: ANN001 - the same, for ainvoke (live runs)
        entry = self._before(request)
        try:
            return await handler(request)
        except Exception as exc:
            self._failed(entry, exc)
            raise

    def _before(self, request: Any) -> dict[str, Any]:
        rec = self.recorder
        msgs = list(request.messages)
        overhead = rec._overhead_tokens(request.system_message, request.tools)
        entries = [rec._entry(m) for m in msgs]
        summary_head = bool(msgs) and (da.is_summary_message(msgs[0]) or da.reads_as_summary(msgs[0]))
        self._seen.update(entries[1:] if summary_head else entries)
        profile = getattr(request.model, "profile", None)
        window = profile.get("max_input_tokens") if isinstance(profile, dict) else None
        entry = {
            "turn": rec.turn,
            "approx_tokens": overhead + sum(t for _, t in entries),
            "conversation_tokens": overhead + sum(self._seen.values()),
            "window": window if isinstance(window, int) else None,
            "summary_at_head": summary_head,
            "error": None,
            "context_overflow": False,
        }
        rec.subagent_requests.append(entry)
        return entry

    @staticmethod
    def _failed(entry: dict[str, Any], exc: Exception) -> None:
        entry["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        entry["context_overflow"] = da.is_context_overflow(exc)
