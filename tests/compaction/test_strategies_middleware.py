"""What the harness's own request middleware send: the sliding window's kept messages, a custom function's output,
hybrid's masked count, a model carrying the config's window, and the errors naming a bad custom function."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents.middleware import ClearToolUsesEdit
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.compaction.strategies.base import with_window
from harness.compaction.strategies.custom import CustomStrategyMiddleware, load_callable
from harness.compaction.strategies.hybrid import masked_counter
from harness.compaction.strategies.sliding_window import SlidingWindowMiddleware, window
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel
from tests._strategies import keep_task_and_last_six


class Request:
    """The two things the middleware use of LangChain's ModelRequest: its messages, and a copy with others."""

    def __init__(self, messages):
        self.messages = messages

    def override(self, *, messages):
        return Request(messages)


TASK = HumanMessage(content="t" * 400)  # 104 approximate tokens


def _turns():
    """The task, then five alternating turns: an AI turn is 56 approximate tokens, a user turn 54."""
    a1, h2, a3, h4, a5 = (
        AIMessage(content="a" * 200, id="a1"),
        HumanMessage(content="b" * 200, id="h2"),
        AIMessage(content="a" * 200, id="a3"),
        HumanMessage(content="b" * 200, id="h4"),
        AIMessage(content="a" * 200, id="a5"),
    )
    return [TASK, a1, h2, a3, h4, a5]


def _ids(messages):
    return [m.id for m in messages]


def test_the_turn_sizes_the_window_tests_rely_on():
    messages = _turns()
    assert [count_tokens_approximately([m]) for m in messages] == [104, 56, 54, 56, 54, 56]
    assert count_tokens_approximately(messages) == 380


# -- the sliding window ------------------------------------------------------------------------------------------


def test_messages_at_the_trigger_are_sent_as_they_are():
    messages = _turns()
    assert window(messages, trigger_tokens=380, keep_tokens=10, keep_messages=None) is messages
    assert window([], trigger_tokens=0, keep_tokens=10, keep_messages=None) == []


def test_past_the_trigger_the_newest_messages_within_keep_tokens_follow_the_pinned_task():
    messages = _turns()
    kept = window(messages, trigger_tokens=379, keep_tokens=104 + 54 + 56, keep_messages=None)
    assert kept[0] is TASK
    assert _ids(kept[1:]) == ["h4", "a5"]  # the task's own tokens count against keep


def test_keep_tokens_smaller_than_the_task_keeps_the_task_alone():
    kept = window(_turns(), trigger_tokens=0, keep_tokens=50, keep_messages=None)
    assert kept == [TASK]


def test_past_the_trigger_the_newest_keep_messages_follow_the_pinned_task():
    kept = window(_turns(), trigger_tokens=379, keep_tokens=None, keep_messages=3)
    assert kept[0] is TASK
    assert _ids(kept[1:]) == ["a3", "h4", "a5"]


def test_the_kept_messages_never_start_on_a_tool_result():
    call = {"name": "ls", "args": {}, "id": "c1", "type": "tool_call"}
    messages = [TASK, AIMessage(content="", tool_calls=[call], id="call"), ToolMessage("r" * 400, tool_call_id="c1", id="res")]
    messages.append(AIMessage(content="done", id="done"))
    kept = window(messages, trigger_tokens=0, keep_tokens=None, keep_messages=2)
    assert kept[0] is TASK and _ids(kept[1:]) == ["done"]


@pytest.mark.parametrize(("keep_tokens", "keep_messages"), [(10_000, None), (None, 50)])
def test_a_keep_larger_than_the_conversation_sends_every_message_the_task_once(keep_tokens, keep_messages):
    messages = _turns()
    kept = window(messages, trigger_tokens=0, keep_tokens=keep_tokens, keep_messages=keep_messages)
    assert kept == messages and kept is not messages


def _tool_turn():
    """The task, a user turn, then an AI tool call (71 tokens), its result (105) and a reply (56)."""
    call = {"name": "ls", "args": {}, "id": "c1", "type": "tool_call"}
    return [
        TASK,
        HumanMessage(content="b" * 200, id="h1"),
        AIMessage(content="a" * 200, tool_calls=[call], id="call"),
        ToolMessage("r" * 400, tool_call_id="c1", id="res"),
        AIMessage(content="a" * 200, id="done"),
    ]


CALL, RESULT, REPLY = 71, 105, 56


def test_the_tool_turn_sizes_the_window_tests_rely_on():
    assert [count_tokens_approximately([m]) for m in _tool_turn()[2:]] == [CALL, RESULT, REPLY]


def test_a_token_keep_may_start_on_the_ai_message_that_called_the_tool():
    kept = window(_tool_turn(), trigger_tokens=0, keep_tokens=104 + CALL + RESULT + REPLY, keep_messages=None)
    assert kept[0] is TASK and _ids(kept[1:]) == ["call", "res", "done"]


def test_a_token_keep_never_starts_on_a_tool_result():
    kept = window(_tool_turn(), trigger_tokens=0, keep_tokens=104 + RESULT + REPLY, keep_messages=None)
    assert kept[0] is TASK and _ids(kept[1:]) == ["done"]


def test_without_a_leading_user_message_nothing_is_pinned():
    assert window(_turns()[1:], trigger_tokens=0, keep_tokens=None, keep_messages=50) == _turns()[1:]
    messages = [SystemMessage("s" * 400, id="sys"), *_turns()[1:]]
    assert _ids(window(messages, trigger_tokens=0, keep_tokens=None, keep_messages=2)) == ["h4", "a5"]
    assert _ids(window(messages, trigger_tokens=0, keep_tokens=54 + 56, keep_messages=None)) == ["h4", "a5"]


def test_the_middleware_sends_the_same_request_when_nothing_is_trimmed():
    middleware = SlidingWindowMiddleware(trigger_tokens=380, keep_tokens=100, keep_messages=None)
    request = Request(_turns())
    assert middleware.wrap_model_call(request, lambda r: r) is request


def test_the_middleware_sends_the_trimmed_messages_to_the_model():
    middleware = SlidingWindowMiddleware(trigger_tokens=379, keep_tokens=None, keep_messages=2)
    request = Request(_turns())
    sent = middleware.wrap_model_call(request, lambda r: r)
    assert sent.messages[0] is TASK and _ids(sent.messages[1:]) == ["h4", "a5"]
    assert len(request.messages) == 6


def test_the_async_middleware_sends_the_same_trimmed_messages():
    middleware = SlidingWindowMiddleware(trigger_tokens=379, keep_tokens=104 + 54 + 56, keep_messages=None)

    async def handler(r):
        return r

    sent = asyncio.run(middleware.awrap_model_call(Request(_turns()), handler))
    assert sent.messages[0] is TASK and _ids(sent.messages[1:]) == ["h4", "a5"]


# -- custom strategies -------------------------------------------------------------------------------------------


def test_a_custom_function_gets_the_messages_and_their_token_count_and_its_output_is_sent():
    seen = []

    def keep_last(messages, token_count):
        seen.append((list(messages), token_count))
        return messages[-1:]

    messages = _turns()
    middleware = CustomStrategyMiddleware(keep_last, "mod:keep_last")
    sent = middleware.wrap_model_call(Request(messages), lambda r: r)
    assert _ids(sent.messages) == ["a5"]
    assert seen == [(messages, 380)]


def test_the_async_custom_middleware_sends_the_functions_output():
    async def handler(r):
        return r

    middleware = CustomStrategyMiddleware(lambda messages, count: messages[:1], "mod:first")
    sent = asyncio.run(middleware.awrap_model_call(Request(_turns()), handler))
    assert sent.messages == [TASK]


def test_a_custom_function_that_returns_no_list_is_a_type_error_naming_it():
    middleware = CustomStrategyMiddleware(lambda messages, count: tuple(messages), "mod:fn")
    with pytest.raises(TypeError) as err:
        middleware.wrap_model_call(Request(_turns()), lambda r: r)
    assert str(err.value) == "custom strategy mod:fn returned tuple, not a list of messages"


def test_a_custom_function_is_imported_from_module_and_name():
    assert load_callable("tests._strategies:keep_task_and_last_six") is keep_task_and_last_six


@pytest.mark.parametrize("spec", ["", None, "tests._strategies", ":keep_task_and_last_six", "tests._strategies:"])
def test_a_spec_that_is_not_module_colon_function_is_rejected(spec):
    with pytest.raises(ConfigError) as err:
        load_callable(spec)
    assert str(err.value) == f"custom_strategy {spec!r}: write module:function"


def test_the_error_names_the_option_it_came_from():
    with pytest.raises(ConfigError) as err:
        load_callable("nothing", source="variant masked.md")
    assert str(err.value) == "variant masked.md 'nothing': write module:function"


def test_a_module_that_cannot_be_imported_is_named_with_the_reason():
    with pytest.raises(ConfigError) as err:
        load_callable("no_such_module_xyz:fn")
    assert str(err.value) == (
        "custom_strategy 'no_such_module_xyz:fn': cannot import 'no_such_module_xyz' (No module named 'no_such_module_xyz')"
    )


@pytest.mark.parametrize("attr", ["NOT_CALLABLE", "missing", "keep_task_and_last_six:x"])
def test_a_name_that_is_not_a_callable_of_the_module_is_rejected(attr):
    with pytest.raises(ConfigError) as err:
        load_callable(f"tests._strategies:{attr}")
    assert str(err.value) == f"custom_strategy 'tests._strategies:{attr}': tests._strategies has no callable {attr!r}"


# -- hybrid's masked count ---------------------------------------------------------------------------------------


def test_hybrid_counts_the_messages_as_masking_would_send_them_tools_included():
    calls = [{"name": "read_file", "args": {}, "id": f"c{i}", "type": "tool_call"} for i in (1, 2)]
    messages = [
        TASK,
        AIMessage(content="", tool_calls=[calls[0]]),
        ToolMessage("x" * 4000, tool_call_id="c1"),
        AIMessage(content="", tool_calls=[calls[1]]),
        ToolMessage("y" * 4000, tool_call_id="c2"),
    ]
    tools = [{"type": "function", "function": {"name": "read_file", "description": "d" * 800, "parameters": {}}}]
    count = masked_counter(ClearToolUsesEdit(trigger=0, keep=1, placeholder="[cleared]"))
    masked = [*messages[:2], messages[2].model_copy(update={"content": "[cleared]"}), *messages[3:]]
    assert count(messages, tools=tools) == count_tokens_approximately(masked, tools=tools)
    assert count(messages) == count_tokens_approximately(masked) < count_tokens_approximately(masked, tools=tools)
    assert messages[2].content == "x" * 4000


# -- the window the summarizing model carries -----------------------------------------------------------------


def test_a_model_already_carrying_the_window_is_used_as_it_is():
    model = ReferenceAgentModel(profile={"max_input_tokens": 9000})
    assert with_window(model, 9000) is model


def test_a_model_for_another_window_is_copied_with_the_configs_window_and_its_other_limits():
    model = ReferenceAgentModel(profile={"max_input_tokens": 9000, "max_output_tokens": 500})
    copy = with_window(model, 12_000)
    assert copy.profile == {"max_input_tokens": 12_000, "max_output_tokens": 500}
    assert model.profile == {"max_input_tokens": 9000, "max_output_tokens": 500}


def test_a_model_without_a_profile_gets_one_with_the_window():
    model = ReferenceAgentModel()
    assert with_window(model, 12_000).profile == {"max_input_tokens": 12_000}
    assert model.profile is None
