"""The reference agent and summarizer on media (issue 20): what an image it is sent shows, a file whose blob is gone
read again (unless the seeded fault), media a summary or history page names read back, the summarizer keeping media
references, and the adapter's readings of deepagents' media formats. Each shown failing on the bad input."""

from __future__ import annotations

import base64

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness.media_format import png_with_text
from harness.reference.policy import decide
from harness.reference.summarizer import summarize
from harness.reference.view import ReplyAction, ToolAction
from harness.task_format import STEP_TOOLS, Step, parse_steps, render_task
from tests._messages import summary_message

QUESTION = HumanMessage("Question: What is the badge code? Reply with the value only.")
IMAGE = "/images/badge.png"
PNG = base64.b64encode(png_with_text("the badge code is KESTREL-42")).decode()


def _read(result_content: list | str, path: str = IMAGE, call: str = "c1") -> list:
    return [
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": path}, "id": call, "type": "tool_call"}]),
        ToolMessage(result_content, tool_call_id=call, name="read_file"),
    ]


def _missing(path: str = IMAGE, call: str = "c1") -> list:
    return _read([{"type": "text", "text": da.missing_blob_text()}], path, call)


def test_the_agent_answers_from_the_image_it_is_sent_and_not_from_a_text_only_request():
    seen = [HumanMessage("Look at the badge."), *_read([{"type": "image", "base64": PNG, "mime_type": "image/png"}]), QUESTION]
    assert decide(seen) == ReplyAction("KESTREL-42")
    blind = [HumanMessage("Look at the badge."), *_read("Error: no such file"), QUESTION]
    assert decide(blind) != ReplyAction("KESTREL-42")


def test_a_missing_blob_is_read_again_and_the_seeded_fault_does_not():
    missing = [HumanMessage("Look at the badge."), *_missing(), QUESTION]
    assert decide(missing) == ToolAction("read_file", {"file_path": IMAGE})
    assert decide(missing, ignores_missing_blobs=True) != ToolAction("read_file", {"file_path": IMAGE})
    # given up after three reads that all came back missing (a store that keeps losing it)
    thrice = [HumanMessage("Look."), *_missing(call="a"), *_missing(call="b"), *_missing(call="c"), QUESTION]
    assert decide(thrice) != ToolAction("read_file", {"file_path": IMAGE})


def test_media_a_summary_names_or_a_summarized_missing_read_is_read():
    named = [summary_message('Progress.\n## MEDIA\n- <image url="/conversation_history/media/ab12.png" />'), QUESTION]
    assert decide(named) == ToolAction("read_file", {"file_path": "/conversation_history/media/ab12.png"})
    quoted = f'- Step 7 done: read_file {IMAGE} (begins "{da.missing_blob_text()[:80]}")'
    assert decide([summary_message(quoted), QUESTION]) == ToolAction("read_file", {"file_path": IMAGE})
    plain = [summary_message("- Step 7 done: read_file /notes/a.md"), QUESTION]
    assert decide(plain) != ToolAction("read_file", {"file_path": IMAGE})


def test_compact_conversation_is_a_step_the_agent_takes_and_then_moves_on():
    task = render_task("Check.", [Step(1, "compact_conversation"), Step(2, "reply")])
    assert [s.tool for s in parse_steps(task)] == ["compact_conversation", "reply"] and "compact_conversation" in STEP_TOOLS
    assert decide([HumanMessage(task)]) == ToolAction("compact_conversation", {})
    call = {"name": "compact_conversation", "args": {}, "id": "k1", "type": "tool_call"}
    done = [HumanMessage(task), AIMessage("", tool_calls=[call]), ToolMessage("Conversation compacted.", tool_call_id="k1")]
    assert isinstance(decide(done), ReplyAction)


def test_the_summarizer_keeps_media_references_and_invents_none():
    prompt = (
        "## SESSION INTENT\n## ARTIFACTS\n<messages>\n"
        '<message type="tool"><image url="/conversation_history/media/ab12.png" /></message>\n</messages>'
    )
    assert '<image url="/conversation_history/media/ab12.png" />' in summarize(prompt)
    assert "url=" not in summarize(prompt.replace('<image url="/conversation_history/media/ab12.png" />', ""))


def test_adapter_reads_media_references_archived_reads_and_missing_blob_records():
    assert da.media_references('<image url="/m/a.png" /> and <file url="/m/b.pdf" /> <image url="/m/a.png" />') == [
        "/m/a.png",
        "/m/b.pdf",
    ]
    assert da.media_references("no media here") == []
    archive = (
        '<message type="ai">\n  <tool_call id="c1" name="read_file">{"file_path": "/images/badge.png"}</tool_call>\n'
        '</message>\n<message type="tool"></message>\n'
        '<message type="ai">\n  <tool_call id="c2" name="read_file">{"file_path": "/data/s.pdf"}</tool_call>\n'
        f'</message>\n<message type="tool">{da.missing_blob_text()}</message>\n'
    )
    assert da.archived_reads(archive) == {"/images/badge.png": "", "/data/s.pdf": da.missing_blob_text()}
    assert da.missing_blob_reads(archive) == ["/data/s.pdf"]
    assert da.missing_blob_reads(archive.replace(da.missing_blob_text(), "fine")) == []
    assert da.blob_refs([{"type": "image", "deepagents_blob": "ab" * 32}, {"type": "text", "text": "x"}]) == ["ab" * 32]
    assert da.blob_refs("text") == []
