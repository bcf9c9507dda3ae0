"""Message builders for tests, using deepagents' own code for its formats."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_buffer_string

from harness.task_format import Step, render_question, render_task

TASK = render_task(
    "Review the archive.",
    [
        Step(1, "fetch_document", "DOC-001"),
        Step(2, "fetch_document", "DOC-002"),
        Step(3, "read_file", "/ledgers/a.md"),
        Step(4, "write_file", "/notes/a.md", "/ledgers/a.md"),
        Step(5, "reply"),
    ],
)
QUESTION = render_question("access code for the north vault")


def summary_message(summary: str, path: str | None = "/conversation_history/session_abc.md") -> HumanMessage:
    """The exact message deepagents puts at the head of a summarized request."""
    from deepagents.backends import StateBackend
    from deepagents.middleware import SummarizationMiddleware

    from harness.reference import ReferenceAgentModel

    mw = SummarizationMiddleware(model=ReferenceAgentModel(), backend=StateBackend(), trigger=("tokens", 1000))
    return mw._build_new_messages_with_path(summary, path)[0]


def call(name: str, args: dict, result: str, call_id: str) -> list:
    return [
        AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]),
        ToolMessage(result, tool_call_id=call_id, name=name),
    ]


def summary_prompt(messages: list, prompt: str | None = None) -> str:
    from harness.compaction.prompts import deepagents_default_prompt

    return (prompt or deepagents_default_prompt()).format(messages=get_buffer_string(messages, format="xml"))
