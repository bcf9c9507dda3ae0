"""Reading a recorded session's file: strict UTF-8, then JSON or JSONL, every error naming the file, line and field.

Every reader starts here, so a truncated file, a byte that is not UTF-8 or a line that is not JSON is refused the
same way whatever the format: a `DatasetError` naming the file and the line (and column) where it went wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import DatasetError


def read_text(source: str) -> str:
    """The file ``source`` as text; a missing file, a directory or a byte that is not UTF-8 is a `DatasetError`."""
    path = Path(source)
    if not path.is_file():
        raise DatasetError(source, None, None, "no such file" if not path.exists() else "is not a file")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DatasetError(source, line, None, f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_json(source: str) -> Any:  # noqa: ANN401 - a JSON document
    """The one JSON document ``source`` holds."""
    text = read_text(source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(
            source, exc.lineno, None, f"invalid JSON ({exc.msg}, column {exc.colno}): truncated or not JSON"
        ) from None


def read_json_or_lines(source: str) -> Any:  # noqa: ANN401 - a JSON document, or the list of a JSONL file's values
    """A JSON document, or a JSONL file (one JSON value a line, blank lines skipped) as the list of its values."""
    text = read_text(source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as whole:
        lines = text.splitlines()
        if len([line for line in lines if line.strip()]) < 2:
            raise DatasetError(source, whole.lineno, None, f"invalid JSON ({whole.msg}, column {whole.colno})") from None
    values = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DatasetError(
                source, number, None, f"invalid JSON ({exc.msg}, column {exc.colno}): truncated, or not JSON lines"
            ) from None
    return values


def messages_field(data: Any, source: str, *, key: str = "messages") -> list[Any]:  # noqa: ANN401 - a JSON value
    """The list of messages a document holds: itself when it is a list, else its ``key`` field."""
    if isinstance(data, dict):
        if key not in data:
            raise DatasetError(source, None, key, f"expected a list of messages or an object with {key!r}")
        data = data[key]
    if not isinstance(data, list):
        raise DatasetError(source, None, key, f"expected a list of messages, got {type(data).__name__}")
    if not data:
        raise DatasetError(source, None, key, "the session has no messages")
    return data
