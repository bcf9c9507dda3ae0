"""The seeded faults that corrupt a request (`DropToolResult`, `DropToolCall`) do the same on the sync and the async
path: a live run through `harness serve` calls the model on an event loop, and a fault with no async path raised
NotImplementedError there instead of being injected."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness.suites.faults import DropToolCall, DropToolResult
from tests._recorder_inputs import request

CALL = AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "/a.md"}, "id": "c1", "type": "tool_call"}])
MESSAGES = [HumanMessage("Read /a.md."), CALL, ToolMessage("alpha", tool_call_id="c1"), AIMessage("Done.")]


@pytest.mark.parametrize(
    "fault, left",
    [(DropToolResult(), ["human", "ai", "ai"]), (DropToolCall(), ["human", "tool", "ai"])],
)
def test_a_request_fault_corrupts_the_request_alike_on_both_paths(fault, left):
    sent = fault.wrap_model_call(request(MESSAGES), lambda r: r)

    async def handler(r):  # noqa: ANN001, ANN202
        return r

    sent_async = asyncio.run(fault.awrap_model_call(request(MESSAGES), handler))
    assert [m.type for m in sent.messages] == left
    assert [m.type for m in sent_async.messages] == left
