"""The messages a `Session` holds, built one way by every reader: OpenAI chat messages with only the fields a case's
conversation file keeps.

A message is ``{"role", "content"}`` with a string content (the text parts of a list joined by a newline), an
assistant's ``tool_calls`` (``{"id", "type": "function", "function": {"name", "arguments"}}``, the arguments a JSON
string) and a tool result's ``tool_call_id``. Anything else a source carries (a tool message's ``name``, provider
fields, images) is left out; a reader counts what it left out in the session's ``meta``, so nothing goes silently.
"""

from __future__ import annotations

import json
from typing import Any

from harness.errors import DatasetError


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:  # noqa: ANN401 - a JSON object or its text
    """One tool call in OpenAI form; ``arguments`` an object (dumped as JSON) or the JSON text a source recorded."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def message(
    role: str, content: str, *, tool_calls: list[dict[str, Any]] | None = None, tool_call_id: str | None = None
) -> dict[str, Any]:
    """One message in the session's form."""
    msg: dict[str, Any] = {"role": role, "content": content}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    if tool_call_id is not None:
        msg["tool_call_id"] = tool_call_id
    return msg


def text_of(content: Any, source: str, where: str, dropped: dict[str, int]) -> str:  # noqa: ANN401 - a JSON value
    """The text of a content value: a string, or a list of parts whose ``text`` parts are joined by a newline (other
    parts are counted in ``dropped`` by type); anything else is a `DatasetError` naming ``where``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise DatasetError(source, None, where, f"expected a string or a list of content parts, got {type(content).__name__}")
    texts = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text"):
            if not isinstance(part.get("text"), str):
                raise DatasetError(source, None, f"{where}[{i}].text", "a text part needs its text")
            texts.append(part["text"])
        elif isinstance(part, dict):
            kind = str(part.get("type", "untyped"))
            dropped[kind] = dropped.get(kind, 0) + 1
        else:
            raise DatasetError(source, None, f"{where}[{i}]", f"expected a content part object, got {type(part).__name__}")
    return "\n".join(texts)


def arguments_text(arguments: Any, source: str, where: str) -> str:  # noqa: ANN401 - a JSON value
    """A tool call's arguments as the JSON text of an object: an object is dumped, a string must parse as one."""
    if isinstance(arguments, dict):
        return json.dumps(arguments, ensure_ascii=False)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            raise DatasetError(source, None, where, "is not valid JSON") from None
        if not isinstance(parsed, dict):
            raise DatasetError(source, None, where, f"expected a JSON object, got {type(parsed).__name__}")
        return arguments if arguments.strip() else "{}"
    raise DatasetError(source, None, where, f"expected a JSON object or its text, got {type(arguments).__name__}")
