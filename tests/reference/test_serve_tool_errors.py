"""A failed tool result reaches the served reference agent as a failure, as it reaches the agent in process: the
conversation is written by the provider's own LangChain client (langchain-anthropic's, langchain-openai's), read back
by `harness serve`'s translation, and the agent decides the same. Anthropic's ``tool_result`` carries ``is_error``
(the ToolMessage's status): the translation keeps it. OpenAI's chat completions carry a tool message's content and id
alone: the agent reads the failure from the text, including the results LangChain and deepagents write with
``status="error"`` in text that does not begin with "Error"."""

from __future__ import annotations

import pytest
from langchain_anthropic.chat_models import _format_messages
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, convert_to_messages
from langchain_openai.chat_models.base import _convert_message_to_dict

from harness.reference.policy import GIVE_UP_AFTER
from harness.reference.prompt_cache import PromptCache
from harness.reference.replies import agent_reply
from harness.reference.serve import chat
from harness.reference.serve import messages as serve_anthropic
from harness.reference.view import is_error
from tests._wire import ANTHROPIC_TOOLS, TASK, messages_body

CHAT_TOOLS = [
    {"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}
    for t in ANTHROPIC_TOOLS
]
# the error texts deepagents and LangChain write with status="error" (deepagents 0.7.32, langchain 1.5.2)
NOT_FOUND = "Error: File '/ledgers/a.csv' not found"
UNFINISHED = (
    "Tool call read_file with id {id} did not complete - no result was recorded. It may have been cancelled or interrupted."
)
MALFORMED = "Tool call read_file with id {id} could not be executed - arguments were malformed or truncated."


def _failed_reads(text: str) -> list:
    out: list = [HumanMessage(TASK)]
    for k in range(GIVE_UP_AFTER):
        call = {"name": "read_file", "args": {"file_path": "/ledgers/a.csv"}, "id": f"toolu_{k}", "type": "tool_call"}
        out += [
            AIMessage("", tool_calls=[call]),
            ToolMessage(text.format(id=call["id"]), tool_call_id=call["id"], status="error"),
        ]
    return out


def _anthropic_sees(conversation: list) -> list:
    _, wire = _format_messages(conversation, model="reference-agent")
    return serve_anthropic.parse_request(messages_body(wire)).messages


def _openai_sees(conversation: list) -> list:
    return convert_to_messages([_convert_message_to_dict(m) for m in conversation])


def _chat_reply(conversation: list) -> dict:
    body = {"model": "reference-agent", "messages": [_convert_message_to_dict(m) for m in conversation], "tools": CHAT_TOOLS}
    return chat.answer(body, 0)["choices"][0]["message"]


def _anthropic_reply(conversation: list) -> list:
    _, wire = _format_messages(conversation, model="reference-agent")
    return serve_anthropic.answer(messages_body(wire), 0, PromptCache(), None).body["content"]


@pytest.mark.parametrize("text", [NOT_FOUND, UNFINISHED, MALFORMED], ids=["not-found", "unfinished", "malformed"])
def test_every_failed_result_is_a_failure_on_every_wire(text):
    conversation = _failed_reads(text)
    for seen in (conversation, _anthropic_sees(conversation), _openai_sees(conversation)):
        results = [m for m in seen if isinstance(m, ToolMessage)]
        assert len(results) == GIVE_UP_AFTER and all(is_error(m) for m in results), [(m.status, m.text) for m in results]


def test_the_anthropic_translation_keeps_is_error_as_the_results_status():
    conversation = _failed_reads(NOT_FOUND) + [AIMessage("", tool_calls=[{"name": "read_file", "args": {}, "id": "ok"}])]
    conversation.append(ToolMessage("ledger a", tool_call_id="ok"))
    seen = _anthropic_sees(conversation)
    assert [m.status for m in seen if isinstance(m, ToolMessage)] == ["error"] * GIVE_UP_AFTER + ["success"]


@pytest.mark.parametrize("text", [NOT_FOUND, UNFINISHED], ids=["not-found", "unfinished"])
def test_the_served_agent_stops_where_the_agent_in_process_stops(text):
    conversation = _failed_reads(text)
    in_process = agent_reply(conversation)
    assert not in_process.tool_calls and "stopping" in in_process.text
    assert _chat_reply(conversation) == {"role": "assistant", "content": in_process.text}
    assert _anthropic_reply(conversation) == [{"type": "text", "text": in_process.text}]
