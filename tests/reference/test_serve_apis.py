"""The three SDKs against `harness serve`'s Anthropic Messages and OpenAI Responses endpoints, with no patching.

anthropic.Anthropic and openai.OpenAI talk to the server by base URL; ChatAnthropic and ChatOpenAI(use_responses_api)
do too. A few requests each: the semantics themselves are unit-tested (tests/reference/test_serve_anthropic.py,
tests/reference/test_serve_responses.py); here the wire is: what the clients send is read, what the server sends is what
the clients parse, faults arrive as the errors the clients raise.
"""

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

from harness.reference import native
from harness.reference.serve import Fault, serving
from tests._wire import ANTHROPIC_TOOLS, BIG, RESPONSES_TOOLS, TASK, compact_edit

READ = {"name": "read_file", "args": {"file_path": "/ledgers/a.csv"}, "id": "toolu_read", "type": "tool_call"}
BIG_TURNS = [HumanMessage(TASK), AIMessage(content="", tool_calls=[READ]), ToolMessage(BIG, tool_call_id="toolu_read")]

pytestmark = [pytest.mark.live, pytest.mark.slow]
FAST = {"max_retries": 1, "timeout": 10}


@pytest.fixture(scope="module")
def server():
    with serving(max_seconds=600) as srv:
        yield srv


@pytest.fixture()
def srv(server):
    server.state.reset()
    return server


def claude(server, **kwargs):
    return ChatAnthropic(model="reference-agent", base_url=server.url[: -len("/v1")], api_key="sk-test", **{**FAST, **kwargs})


def test_the_anthropic_sdk_reads_messages_streamed_and_not(srv):
    client = anthropic.Anthropic(base_url=srv.url[: -len("/v1")], api_key="sk-test", max_retries=0)
    msg = client.messages.create(
        model="reference-agent", max_tokens=512, messages=[{"role": "user", "content": TASK}], tools=ANTHROPIC_TOOLS
    )
    assert msg.stop_reason == "tool_use" and msg.content[0].type == "tool_use" and msg.usage.input_tokens > 0
    with client.messages.stream(
        model="reference-agent", max_tokens=512, messages=[{"role": "user", "content": TASK}], tools=ANTHROPIC_TOOLS
    ) as stream:
        final = stream.get_final_message()
    assert final.content[0].type == "tool_use" and final.content[0].input == msg.content[0].input
    with pytest.raises(anthropic.BadRequestError, match="minimum of 50000"):
        client.beta.messages.create(
            model="reference-agent",
            max_tokens=512,
            messages=[{"role": "user", "content": TASK}],
            context_management=compact_edit(20_000),
            betas=["compact-2026-01-12"],
        )


def test_a_query_string_does_not_change_the_route(srv):
    request = urllib.request.Request(  # older Anthropic SDKs' beta client posts to /v1/messages?beta=true
        srv.url + "/messages?beta=true",
        data=json.dumps({"model": "reference-agent", "max_tokens": 64, "messages": [{"role": "user", "content": TASK}]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.loads(answer.read())["type"] == "message"


def test_chat_anthropic_compacts_and_the_next_request_drops_what_the_summary_replaced(srv):
    model = claude(srv, context_management=compact_edit(), betas=["compact-2026-01-12"]).bind_tools(ANTHROPIC_TOOLS)
    first = model.invoke(BIG_TURNS)
    assert [b["type"] for b in first.content][:1] == ["compaction"] and first.tool_calls[0]["name"] == "write_file"
    assert first.usage_metadata["input_tokens"] < 1_000  # langchain-anthropic reads the top-level usage only...
    compaction, _ = first.response_metadata["usage"]["iterations"]  # ...the summary pass is only here
    assert compaction["type"] == "compaction" and compaction["input_tokens"] > 50_000
    second = model.invoke([*BIG_TURNS, first, ToolMessage("written", tool_call_id=first.tool_calls[0]["id"])])
    assert "TASK COMPLETE" in second.text  # step 3, from the summary and the result after it
    assert second.usage_metadata["input_tokens"] < 1_000  # the big turn before the compaction block was dropped


def test_a_streamed_compaction_block_sent_back_is_accepted_since_langchain_anthropic_1_7_10_langchain_36976(srv):
    """langchain#36976: langchain-anthropic kept the stream's ``index`` on a streamed compaction block and sent it back,
    which the API refuses (a 400 on the request after every streamed compaction, up to 1.7.7). 1.7.10 drops ``index``
    from a compaction block it sends, as it did for ``advisor_tool_result``: the next request is accepted. The server
    still refuses the field, so the pass is the client's fix, not a looser server."""
    model = claude(srv, context_management=compact_edit(), betas=["compact-2026-01-12"], streaming=True).bind_tools(
        ANTHROPIC_TOOLS
    )
    first = model.invoke(BIG_TURNS)
    block = next(b for b in first.content if b["type"] == "compaction")
    assert "index" in block  # langchain-anthropic still keeps the stream's index on the block it returns...
    second = model.invoke([*BIG_TURNS, first, ToolMessage("written", tool_call_id=first.tool_calls[0]["id"])])
    assert "TASK COMPLETE" in second.text  # ...and no longer sends it: step 3, from the summary and the result after it
    client = anthropic.Anthropic(base_url=srv.url[: -len("/v1")], api_key="sk-test", max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="compaction.index: Extra inputs are not permitted"):
        client.beta.messages.create(  # the block as 1.7.7 sent it: with its index
            model="reference-agent",
            max_tokens=512,
            messages=[
                {"role": "user", "content": TASK},
                {"role": "assistant", "content": [block]},
                {"role": "user", "content": "go on"},
            ],
            context_management=compact_edit(),
            betas=["compact-2026-01-12"],
        )


def test_compaction_faults_on_the_messages_path(srv):
    srv.add_fault(Fault("null-compaction", count=1))
    model = claude(srv, context_management=compact_edit(), betas=["compact-2026-01-12"]).bind_tools(ANTHROPIC_TOOLS)
    failed = model.invoke(BIG_TURNS)
    assert failed.content[0]["type"] == "compaction" and failed.content[0]["content"] is None
    srv.add_fault(Fault("compaction-midstream", count=1))
    streaming = claude(srv, context_management=compact_edit(), betas=["compact-2026-01-12"], streaming=True).bind_tools(
        ANTHROPIC_TOOLS
    )
    with pytest.raises(anthropic.APIStatusError, match="compaction failed mid-stream"):
        streaming.invoke(BIG_TURNS)
    assert srv.state.stats()["faults_injected"] == {"null-compaction@agent": 1, "compaction-midstream@agent": 1}
    assert srv.state.stats()["compactions"] == {"messages": 2}  # the failed ones count: the server made them


def test_existing_faults_reach_the_anthropic_client_in_its_shape(srv):
    srv.add_fault(Fault("429", count=1, retry_after=0.1))
    assert claude(srv).bind_tools(ANTHROPIC_TOOLS).invoke([HumanMessage(TASK)]).tool_calls  # retried by the SDK
    srv.add_fault(Fault("context", count=1))
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        claude(srv, max_retries=0).bind_tools(ANTHROPIC_TOOLS).invoke([HumanMessage(TASK)])
    srv.add_fault(Fault("auth", count=1))
    with pytest.raises(anthropic.AuthenticationError, match="sk-test"):
        claude(srv).invoke([HumanMessage(TASK)])


def test_the_openai_sdk_reads_responses_compact_and_refuses_a_compaction_id(srv):
    client = openai.OpenAI(base_url=srv.url, api_key="sk-test", max_retries=0)
    resp = client.responses.create(model="reference-agent", input=TASK, tools=RESPONSES_TOOLS)
    assert resp.output[0].type == "function_call" and resp.usage.input_tokens > 0
    streamed = list(client.responses.create(model="reference-agent", input=TASK, tools=RESPONSES_TOOLS, stream=True))
    assert streamed[-1].type == "response.completed" and streamed[-1].response.output[0].arguments == resp.output[0].arguments
    compacted = client.responses.compact(model="gpt-5.4", input=[{"role": "user", "content": TASK}])
    assert srv.state.stats()["compactions"] == {"compact": 1}
    assert compacted.output[-1].type == "compaction" and "1. Read" in native.decode_compaction(
        compacted.output[-1].encrypted_content
    )
    with pytest.raises(openai.BadRequestError, match="is a compaction, not a response"):
        client.responses.create(model="reference-agent", input="go on", previous_response_id=compacted.id)


def test_chat_openai_responses_api_compacts_and_carries_the_item_forward(srv):
    model = ChatOpenAI(
        model="reference-agent",
        base_url=srv.url,
        api_key="sk-test",
        use_responses_api=True,
        context_management=[{"type": "compaction", "compact_threshold": 20_000}],
        **FAST,
    ).bind_tools(RESPONSES_TOOLS)
    first = model.invoke(BIG_TURNS)
    assert [b["type"] for b in first.content][0] == "compaction" and first.tool_calls[0]["name"] == "write_file"
    second = model.invoke([*BIG_TURNS, first, ToolMessage("written", tool_call_id=first.tool_calls[0]["id"])])
    assert "TASK COMPLETE" in second.text
    assert second.usage_metadata["input_tokens"] < 2_000  # the compaction item replaced the big turn


def test_existing_faults_reach_the_responses_client(srv):
    def model(retries):
        return ChatOpenAI(
            model="reference-agent", base_url=srv.url, api_key="sk-test", use_responses_api=True, timeout=10, max_retries=retries
        )

    srv.add_fault(Fault("503", count=1))
    assert isinstance(model(1).invoke([HumanMessage(TASK)]), AIMessage)  # retried by the SDK
    srv.add_fault(Fault("malformed", count=1))
    with pytest.raises(json.JSONDecodeError):  # the body the client cannot read, as on the chat path
        model(0).invoke([HumanMessage(TASK)])
    srv.add_fault(Fault("auth", count=1))
    with pytest.raises(openai.AuthenticationError, match="sk-test"):
        model(0).invoke([HumanMessage(TASK)])
    assert srv.state.stats()["faults_injected"] == {"503@summary": 1, "malformed@summary": 1, "auth@summary": 1}


MALFORMED = [
    ("/messages", {"messages": "hi"}, "messages: at least one message is required"),
    ("/messages", {"messages": [1]}, "messages.0.role"),
    ("/messages", {"messages": [{"role": "user", "content": TASK}], "system": 5}, "system: a list of objects"),
    ("/messages", {"messages": [{"role": "user", "content": TASK}], "tools": "x"}, "tools: a list of objects"),
    ("/messages", {"messages": [{"role": "user", "content": 7}]}, "messages.0.content: a string or a list"),
    (
        "/messages",
        {
            "messages": [{"role": "user", "content": TASK}],
            "context_management": {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": "x"}}]},
        },
        "trigger.value: a whole number",
    ),
    ("/responses", {"input": 5}, "input: a string or a list of items"),
    ("/responses", {"input": TASK, "tools": [1]}, "tools.0: an object is required"),
    ("/responses/compact", {"input": 5}, "input: a string or a list of items"),
]


@pytest.mark.parametrize(("path", "body", "message"), MALFORMED, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(MALFORMED)])
def test_a_malformed_body_is_a_400_naming_the_field_never_a_500_the_sdks_would_retry(srv, path, body, message):
    request = urllib.request.Request(
        srv.url + path,
        data=json.dumps({"model": "reference-agent", "max_tokens": 64, **body}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400 and message in err.value.read().decode()
