"""The one pairing rule (`harness.tool_pairs`) and each served API's reading of it (`harness.reference.serve.pairing`):
a tool result whose call is not before it is refused in the API's words, naming where it is; a paired one is not."""

from __future__ import annotations

import pytest

from harness.reference.serve.pairing import CHAT_ORPHAN, check_chat, check_messages, check_responses
from harness.reference.serve.wire import RequestError
from harness.tool_pairs import Orphan, ToolPairs, orphans


def test_the_one_rule_finds_a_result_with_no_call_before_it() -> None:
    assert orphans([((), None), (("a", "b"), None), ((), "a"), ((), "b")]) == []
    assert orphans([((), None), ((), "b"), (("b",), None)]) == [Orphan(1, "b")]  # the call after its result counts not


def test_each_api_reading_refuses_an_orphan_in_its_words() -> None:
    with pytest.raises(RequestError) as err:
        check_chat([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_b", "content": "x"}])
    assert str(err.value) == CHAT_ORPHAN and err.value.param == "messages.[1].role"
    with pytest.raises(
        RequestError, match=r"messages\.1\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: tu_b"
    ):
        check_messages(
            [
                {"role": "user", "content": "hi"},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_b", "content": "x"}]},
            ]
        )
    with pytest.raises(RequestError, match="No tool call found for function call output with call_id fc_b"):
        check_responses(
            [{"type": "message", "role": "user", "content": "hi"}, {"type": "function_call_output", "call_id": "fc_b"}]
        )
    check_chat([{"role": "assistant", "tool_calls": [{"id": "a"}]}, {"role": "tool", "tool_call_id": "a", "content": "x"}])


def test_the_pairs_name_the_calls_no_result_answered() -> None:
    pairs = ToolPairs()
    pairs.call(["a", "b"], 1)
    assert pairs.answer("a", 2) is None and pairs.answer("z", 3) == Orphan(3, "z")
    assert pairs.unanswered() == ["b"]
