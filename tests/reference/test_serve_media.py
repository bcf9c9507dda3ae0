"""`harness serve` with media (issue 20): an OpenAI chat request carrying an image (``image_url`` part) or a PDF
(``file`` part) in a tool or user message, as langchain-openai sends them, is answered from what the bytes carry; the
same request with the media stripped is not."""

from __future__ import annotations

import base64
import json

from harness.media_format import binary_with_text, png_with_text
from harness.reference.serve import answer

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {}}}}]
QUESTION = {"role": "user", "content": "Question: What is the badge code? Reply with the value only."}
PNG = "data:image/png;base64," + base64.b64encode(png_with_text("the badge code is KESTREL-42")).decode()
PDF = "data:application/pdf;base64," + base64.b64encode(binary_with_text("the badge code is KESTREL-42")).decode()
CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": json.dumps({"file_path": "/b.png"})}}


def _reply(messages: list[dict]) -> str | None:
    body = {"model": "reference-agent", "messages": messages, "tools": TOOLS}
    return answer(body, seed=0)["choices"][0]["message"]["content"]


def test_an_image_in_a_tool_message_is_seen_over_the_wire():
    tool = {"role": "tool", "tool_call_id": "c1", "content": [{"type": "image_url", "image_url": {"url": PNG}}]}
    read = [{"role": "user", "content": "Look."}, {"role": "assistant", "content": None, "tool_calls": [CALL]}, tool]
    assert _reply([*read, QUESTION]) == "KESTREL-42"
    stripped = {**tool, "content": [{"type": "text", "text": "(no image)"}]}
    assert _reply([*read[:2], stripped, QUESTION]) != "KESTREL-42"


def test_an_image_or_a_pdf_in_a_user_message_is_seen_over_the_wire():
    image = {
        "role": "user",
        "content": [{"type": "text", "text": "Here is the badge."}, {"type": "image_url", "image_url": {"url": PNG}}],
    }
    assert _reply([image, QUESTION]) == "KESTREL-42"
    pdf = {"role": "user", "content": [{"type": "file", "file": {"file_data": PDF, "filename": "badge.pdf"}}]}
    assert _reply([pdf, QUESTION]) == "KESTREL-42"
    assert _reply([{"role": "user", "content": "Here is the badge."}, QUESTION]) != "KESTREL-42"
