"""The ``memory-in-messages`` seeded fault: deepagents' memory middleware made to put the AGENTS.md text into the
conversation once, as a message in state, instead of into the system prompt on every call.

It is how an assembly loses its context to a summary (deer-flow#5454: a prompt held in message state is summarized like
any other message). It takes the memory middleware's place by its name, loads the same files the same way (once per
thread, into ``memory_contents``), and appends the same ``<agent_memory>`` text as a system message after the first
user message; the system prompt then carries no memory section.
"""

from __future__ import annotations

from typing import Any

from deepagents.backends import StateBackend
from deepagents.middleware.memory import MemoryMiddleware
from langchain_core.messages import SystemMessage

from harness.scenarios.survives import MEMORY_FILE


class MemoryInMessages(MemoryMiddleware):
    """deepagents' `MemoryMiddleware` whose memory is a message in the conversation (the module docstring)."""

    def __init__(self, sources: tuple[str, ...] = (MEMORY_FILE,)) -> None:
        super().__init__(backend=StateBackend(), sources=list(sources))

    @property
    def name(self) -> str:
        return "MemoryMiddleware"  # deepagents replaces its own entry by this name

    def _as_message(self, update: Any) -> Any:
        if update is None:
            return None
        return {**update, "messages": [SystemMessage(self._format_agent_memory(update["memory_contents"]))]}

    def before_agent(self, state, runtime, config):  # type: ignore[override]  # noqa: ANN001, ANN201 - MemoryMiddleware's own signature
        return self._as_message(super().before_agent(state, runtime, config))

    async def abefore_agent(self, state, runtime, config):  # type: ignore[override]  # noqa: ANN001, ANN201
        return self._as_message(await super().abefore_agent(state, runtime, config))

    def modify_request(self, request):  # noqa: ANN001, ANN201
        return request
