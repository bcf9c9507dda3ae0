"""The pairing rules (`harness.tool_pairs`) and each served API's reading of them (`harness.reference.serve.pairing`):
a tool result whose call is not where the API wants it, and a call left unanswered there, are each refused in the
API's words, naming where and which id; a well-paired request, parallel calls included, is not."""

from __future__ import annotations

import pytest

from harness.reference.serve.pairing import CHAT_ORPHAN, CHAT_UNANSWERED, check_chat, check_messages, check_responses
from harness.reference.serve.wire import RequestError
from harness.tool_pairs import Orphan, ToolPairs, Unanswered, adjacency, orphans


def test_the_one_rule_finds_a_result_with_no_call_before_it() -> None:
    assert orphans([((), None), (("a", "b"), None), ((), "a"), ((), "b")]) == []
    assert orphans([((), None), ((), "b"), (("b",), None)]) == [Orphan(1, "b")]  # the call after its result counts not


def test_the_pairs_name_the_calls_no_result_answered() -> None:
    pairs = ToolPairs()
    pairs.call(["a", "b"], 1)
    assert pairs.answer("a", 2) is None and pairs.answer("z", 3) == Orphan(3, "z")
    assert pairs.unanswered() == ["b"]


def test_the_stricter_rule_wants_the_results_right_after_their_calls() -> None:
    parallel = [((), ()), (("a", "b"), ()), ((), ("b",)), ((), ("a",)), ((), ())]
    assert adjacency(parallel, results_in="run") is None
    # a message between the calls and a result: the call is unanswered there, then the result is out of place
    assert adjacency([(("a",), ()), ((), ()), ((), ("a",))], results_in="run") == Unanswered(0, ("a",), 1)
    # a result answering an earlier message's call, after a later message's calls: out of place
    assert adjacency([(("a",), ()), (("b",), ()), ((), ("a",)), ((), ("b",))], results_in="run") == Unanswered(0, ("a",), 1)
    assert adjacency([(("a",), ()), ((), ("a",)), ((), ()), ((), ("a",))], results_in="run") == Orphan(3, "a")
    assert adjacency([(("a", "b"), ()), ((), ("a",))], results_in="run") == Unanswered(0, ("b",), None)
    assert adjacency([((), ()), (("a", "b"), ())], results_in="run") is None  # the calls end the list: nothing due yet
    assert adjacency([(("a", "b"), ()), ((), ("a",))], results_in="next") == Unanswered(0, ("b",), 1)
    # Anthropic's shape: one next message holds them all; a second message of results is too late
    assert adjacency([(("a", "b"), ()), ((), ("a", "b"))], results_in="next") is None
    assert adjacency([(("a", "b"), ()), ((), ("a",)), ((), ("b",))], results_in="next") == Unanswered(0, ("b",), 1)
    assert adjacency([(("a", "b"), ()), ((), ("a",)), ((), ("b",))], results_in="run") is None


def _raised(check, messages) -> RequestError:
    with pytest.raises(RequestError) as err:
        check(messages)
    return err.value


CALLS = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_a"}, {"id": "call_b"}]}


def _tool(call_id: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": "x"}


def test_chat_refuses_each_break_in_openais_words() -> None:
    user = {"role": "user", "content": "hi"}
    err = _raised(check_chat, [user, _tool("call_b")])  # an orphan
    assert str(err) == CHAT_ORPHAN and err.param == "messages.[1].role" and err.status == 400
    err = _raised(check_chat, [user, CALLS, _tool("call_a"), user, _tool("call_b")])  # a user message before call_b's
    assert str(err) == CHAT_UNANSWERED + "call_b" and err.param == "messages.[3].role"
    err = _raised(check_chat, [user, CALLS, user])  # neither answered
    assert str(err).endswith("did not have response messages: call_a, call_b") and err.param == "messages.[2].role"
    err = _raised(check_chat, [user, CALLS, _tool("call_a")])  # the request ends in the run, call_b's result lost
    assert str(err) == CHAT_UNANSWERED + "call_b" and err.param == "messages"
    check_chat([user, CALLS])  # the request ends with the calls: no result is due yet
    later = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_c"}]}
    err = _raised(check_chat, [user, {**CALLS, "tool_calls": [{"id": "call_a"}]}, _tool("call_a"), later, _tool("call_a")])
    assert str(err) == CHAT_ORPHAN and err.param == "messages.[4].role"  # answers a call of an earlier message
    check_chat([user, CALLS, _tool("call_b"), _tool("call_a"), {"role": "assistant", "content": "done"}])


def test_anthropic_refuses_each_break_in_its_words() -> None:
    user = {"role": "user", "content": "hi"}
    uses = {"role": "assistant", "content": [{"type": "tool_use", "id": f"tu_{x}", "name": "f", "input": {}} for x in "ab"]}

    def results(*ids: str) -> dict:
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "x"} for i in ids]}

    with pytest.raises(
        RequestError, match=r"^messages\.1\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: tu_b\. "
    ):
        check_messages([user, results("tu_b")])
    err = _raised(check_messages, [user, uses, results("tu_a"), results("tu_b")])
    assert str(err) == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: tu_b. Each `tool_use` block "
        "must have a corresponding `tool_result` block in the next message."
    )
    assert str(_raised(check_messages, [user, uses, results("tu_a")])).startswith("messages.1: `tool_use` ids were found")
    err = _raised(check_messages, [user, uses, {"role": "user", "content": "go on"}])
    assert str(err).startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: tu_a, tu_b."
    )
    later = {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_c", "name": "f", "input": {}}]}
    with pytest.raises(
        RequestError, match=r"^messages\.4\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: tu_a\."
    ):
        check_messages([user, {**uses, "content": uses["content"][1:]}, results("tu_b"), later, results("tu_c", "tu_a")])
    check_messages([user, uses, results("tu_b", "tu_a"), {"role": "assistant", "content": "done"}])
    check_messages([user, uses])  # the request ends with the calls (a stand-in request the serve tests send)


def test_responses_refuses_a_missing_call_or_output_in_its_words() -> None:
    user = {"type": "message", "role": "user", "content": "hi"}
    call_a, call_b = ({"type": "function_call", "call_id": c, "name": "f", "arguments": "{}"} for c in ("fc_a", "fc_b"))
    out_a, out_b = ({"type": "function_call_output", "call_id": c, "output": "x"} for c in ("fc_a", "fc_b"))
    err = _raised(check_responses, [user, out_b])
    assert str(err) == "No tool call found for function call output with call_id fc_b." and err.param == "input"
    err = _raised(check_responses, [user, call_a, call_b, out_b])
    assert str(err) == "No tool output found for function call fc_a." and err.param == "input"
    check_responses([user, call_a, call_b, out_b, out_a, {"type": "message", "role": "assistant", "content": "done"}])
