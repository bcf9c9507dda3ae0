"""`harness serve` refuses a request holding a tool result whose call is not before it, as each provider does (the
request a cut leaves after summarizing a call away: langchain#38352), and one holding a call left unanswered before
the next message: in each API's words and error shape, through the real SDK clients, which raise the provider's
BadRequestError; a well-paired request with parallel calls is answered. The readings themselves:
tests/reference/test_serve_pairing.py."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import anthropic
import openai
import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

from harness.reference.serve import serving
from harness.reference.serve.pairing import CHAT_ORPHAN
from harness.reference.serve.wire import RequestError
from tests._wire import TASK

pytestmark = [pytest.mark.live, pytest.mark.slow]
FAST = {"max_retries": 0, "timeout": 10}


def _fetch(call_id: str, doc: str) -> dict:
    return {"name": "fetch_document", "args": {"doc_id": doc}, "id": call_id, "type": "tool_call"}


PAIRED = [
    HumanMessage(TASK),
    AIMessage("", tool_calls=[_fetch("call_a", "DOC-001"), _fetch("call_b", "DOC-002")]),
    ToolMessage("DOC-001 text", tool_call_id="call_a"),
    ToolMessage("DOC-002 text", tool_call_id="call_b"),
]
UNANSWERED = [*PAIRED[:3], HumanMessage("Go on.")]  # call_b's result never sent
ORPHANED = [
    HumanMessage("Here is a summary of the conversation to date: ..."),
    ToolMessage("DOC-002 text", tool_call_id="call_b"),
]


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=600) as srv:
        yield srv


def test_the_sdks_get_the_providers_400_for_an_orphan_and_an_answer_for_parallel_pairs(server) -> None:
    chat = ChatOpenAI(model="reference-agent", base_url=server.url, api_key="sk-test", **FAST)
    responses = ChatOpenAI(model="reference-agent", base_url=server.url, api_key="sk-test", use_responses_api=True, **FAST)
    claude = ChatAnthropic(model="reference-agent", base_url=server.url[: -len("/v1")], api_key="sk-test", **FAST)
    tools = [{"type": "function", "function": {"name": "fetch_document", "parameters": {"type": "object", "properties": {}}}}]
    for model in (chat, responses, claude):
        assert isinstance(model.bind_tools(tools).invoke(PAIRED), AIMessage)
    with pytest.raises(openai.BadRequestError, match="must be a response to a preceeding message with 'tool_calls'"):
        chat.bind_tools(tools).invoke(ORPHANED)
    with pytest.raises(openai.BadRequestError, match="No tool call found for function call output with call_id call_b"):
        responses.bind_tools(tools).invoke(ORPHANED)
    with pytest.raises(anthropic.BadRequestError, match="corresponding `tool_use` block in the previous message"):
        claude.bind_tools(tools).invoke(ORPHANED)


def test_the_sdks_get_the_providers_400_for_a_call_left_unanswered(server) -> None:
    chat = ChatOpenAI(model="reference-agent", base_url=server.url, api_key="sk-test", **FAST)
    responses = ChatOpenAI(model="reference-agent", base_url=server.url, api_key="sk-test", use_responses_api=True, **FAST)
    claude = ChatAnthropic(model="reference-agent", base_url=server.url[: -len("/v1")], api_key="sk-test", **FAST)
    tools = [{"type": "function", "function": {"name": "fetch_document", "parameters": {"type": "object", "properties": {}}}}]
    with pytest.raises(openai.BadRequestError, match="did not have response messages: call_b") as err:
        chat.bind_tools(tools).invoke(UNANSWERED)
    assert err.value.body["param"] == "messages.[3].role"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError, match="No tool output found for function call call_b"):
        responses.bind_tools(tools).invoke(UNANSWERED)
    # langchain-anthropic sends the result and the next user text as one user message: call_b is missing from it
    with pytest.raises(anthropic.BadRequestError, match="messages.1: `tool_use` ids were found without `tool_result` blocks"):
        claude.bind_tools(tools).invoke(UNANSWERED)


def test_a_run_resumed_after_an_interrupted_call_sends_what_the_stricter_rule_takes() -> None:
    """deepagents answers a call an interrupted run left (`PatchToolCallsMiddleware`, before the agent runs again) with
    a ToolMessage right after the calling message, so the next request, as langchain-openai and langchain-anthropic
    write it, keeps every call answered in its place."""
    from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
    from langchain_anthropic.chat_models import _format_messages
    from langchain_openai.chat_models.base import _construct_responses_api_input, _convert_message_to_dict

    from harness.reference.serve.pairing import check_chat, check_messages, check_responses

    interrupted = [*PAIRED[:3], HumanMessage("Stop, and fetch DOC-003 instead.")]  # call_b never ran
    patched = PatchToolCallsMiddleware().before_agent({"messages": interrupted}, None)["messages"][1:]  # type: ignore[arg-type, index]
    assert [m.type for m in patched] == ["human", "ai", "tool", "tool", "human"]
    check_chat([_convert_message_to_dict(m) for m in patched])
    check_messages(_format_messages(patched, model="reference-agent")[1])
    check_responses(_construct_responses_api_input(patched))
    with pytest.raises(RequestError):  # and without the patch it is refused
        check_chat([_convert_message_to_dict(m) for m in interrupted])


def test_the_chat_error_body_names_the_message(server) -> None:
    body = {
        "model": "reference-agent",
        "messages": [{"role": "user", "content": TASK}, {"role": "tool", "tool_call_id": "call_b", "content": "x"}],
        "tools": [{"type": "function", "function": {"name": "fetch_document", "parameters": {}}}],
    }
    request = urllib.request.Request(
        server.url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400
    assert json.loads(err.value.read())["error"] == {
        "message": CHAT_ORPHAN,
        "type": "invalid_request_error",
        "param": "messages.[1].role",
        "code": None,
    }
