"""Injected summarizer faults, for the faults evals and the validity suite.

`FaultySummarizer` stands in for the summarizer model and fails in one of four ways a
real provider does: it raises (a 5xx), times out, returns empty text, or returns text
with no summary in it (a refusal). deepagents retries the raising kinds three times with
backoff, then the run fails; the offloaded history has already been written by then.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from harness.reference.models import ReferenceSummarizerModel

FAULTS = ("raise", "timeout", "empty", "no_summary")
REFUSAL = "I'm sorry, but I can't help with summarizing this conversation."


class FaultySummarizer(ReferenceSummarizerModel):
    """A summarizer that fails as ``fault`` says (every call)."""

    model_name: str = "faulty-summarizer"
    fault: str = "raise"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        if self.fault == "raise":
            raise RuntimeError("summarizer service unavailable (injected fault: raise)")
        if self.fault == "timeout":
            raise TimeoutError("summarizer request timed out after 60 s (injected fault: timeout)")
        if self.fault == "empty":
            text = ""
        elif self.fault == "no_summary":
            text = REFUSAL
        else:
            raise ValueError(f"unknown fault {self.fault!r}; known: {', '.join(FAULTS)}")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, response_metadata={"model_name": self.model_name}))])
