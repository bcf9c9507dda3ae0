"""Reading tool calls back from deepagents' history file (messages offloaded as get_buffer_string's XML)."""

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, get_buffer_string

from harness._deepagents_adapter import OffloadedCall, offloaded_calls


def _ai(*calls: tuple[str, dict, str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls])


def _xml(*messages) -> str:
    return get_buffer_string(list(messages), format="xml")


def test_each_call_is_paired_with_the_tool_messages_after_its_ai_message_in_order():
    text = _xml(
        HumanMessage("go"),
        _ai(("write_file", {"file_path": "/a&b.md", "content": "x<y>\nz"}, "1"), ("read_file", {"file_path": "/l.md"}, "2")),
        ToolMessage("Updated file /a&b.md", tool_call_id="1"),
        ToolMessage("Error: no <file>", tool_call_id="2"),
    )
    assert offloaded_calls(text) == [
        OffloadedCall("write_file", {"file_path": "/a&b.md", "content": "x<y>\nz"}, "Updated file /a&b.md"),
        OffloadedCall("read_file", {"file_path": "/l.md"}, "Error: no <file>"),
    ]


def test_a_stretch_cut_mid_conversation_keeps_what_it_can_tell():
    text = _xml(
        ToolMessage("an answer whose call is on an earlier page", tool_call_id="0"),
        _ai(("edit_file", {"file_path": "/r.md", "old_string": "a", "new_string": "b"}, "1")),
        ToolMessage("Edited /r.md", tool_call_id="1"),
        _ai(("write_file", {"file_path": "/n.md", "content": "n"}, "2")),
    )
    calls = offloaded_calls(text)
    assert [(c.name, c.args["file_path"], c.result) for c in calls] == [
        ("edit_file", "/r.md", "Edited /r.md"),
        ("write_file", "/n.md", None),
    ]
    unclosed = _xml(_ai(("write_file", {"file_path": "/n.md"}, "1")), ToolMessage("Updated", tool_call_id="1")).removesuffix(
        "</message>"
    )
    assert offloaded_calls(unclosed) == [OffloadedCall("write_file", {"file_path": "/n.md"}, None)]  # answer cut off


def test_a_call_line_cut_short_still_gives_its_path():
    text = _xml(_ai(("write_file", {"file_path": "/n.md", "content": "x" * 50}, "1")), ToolMessage("ok", tool_call_id="1"))
    cut = "\n".join(line[:60] if "<tool_call" in line else line for line in text.splitlines())
    assert offloaded_calls(cut) == [OffloadedCall("write_file", {"file_path": "/n.md"}, "ok")]


def test_a_user_message_between_a_call_and_a_tool_message_breaks_the_pairing():
    text = _xml(_ai(("write_file", {"file_path": "/n.md"}, "1")), HumanMessage("next"), ToolMessage("ok", tool_call_id="1"))
    assert offloaded_calls(text) == [OffloadedCall("write_file", {"file_path": "/n.md"}, None)]
