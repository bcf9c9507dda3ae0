"""The reference agent's and summarizer's replies as LangChain messages: pure functions of the messages they read.

The in-process models (`harness.reference.models`) and `harness serve` (`harness.reference.serve`) both answer
with these, so a model called in process and the same model called over HTTP reply alike.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from harness.reference import policy, summarizer
from harness.reference.names import AGENT_NAME, SUMMARIZER_NAME
from harness.reference.view import ParallelCalls, ToolAction, call_id


def agent_reply(messages: list[BaseMessage], *, model_name: str = AGENT_NAME, **faults: bool) -> AIMessage:
    """The reference agent's next move on ``messages``: one tool call, several in one message (a parallel step), or a
    text reply; ``faults`` are the seeded faults `policy.decide` takes (``trust_clipped_args``, ``takes_first_statement``,
    ...)."""
    action = policy.decide(messages, **faults)
    if isinstance(action, (ToolAction, ParallelCalls)):
        calls = action.calls if isinstance(action, ParallelCalls) else (action,)
        message = AIMessage(
            content="",
            tool_calls=[{"name": c.name, "args": c.args, "id": call_id(messages, c), "type": "tool_call"} for c in calls],
        )
    else:
        message = AIMessage(content=action.text)
    message.response_metadata["model_name"] = model_name
    return message


def summary_reply(messages: list[BaseMessage], *, model_name: str = SUMMARIZER_NAME, **options: Any) -> AIMessage:
    """The reference summarizer's summary of the prompt ``messages`` hold; ``options`` are `summarizer.summarize`'s
    (``seed``, the losses and the seeded faults)."""
    text = summarizer.summarize("\n".join(m.text for m in messages), **options)
    return AIMessage(content=text, response_metadata={"model_name": model_name})
