"""Media the scenarios carry and the reference agent "sees", written and read in one place.

An image is a small PNG whose ``tEXt`` chunk (keyword ``Comment``) holds a sentence in the task grammar ("the badge
code is KESTREL-42"); a binary file is a PDF (binary from its second line) whose comment line holds one. A PDF, not an
arbitrary binary type: deepagents sends a model a non-PDF binary ``file`` block only when it is OpenAI's Responses API
and replaces it with a "not attached" notice otherwise (``UnsupportedContentMiddleware``). The generator writes them
deterministically (`png_with_text`, `binary_with_text`); the reference agent decodes them from the base64 content
blocks it is sent (`media_texts`), so what it sees in an image is a pure function of the message bytes, as for a
vision model. Nothing here is stored as binary in the repository.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from typing import Any

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BINARY_MAGIC = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n% "  # a PDF header, its binary comment line, then the text's comment
TEXT_KEYWORD = b"Comment"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_with_text(text: str, *, size: int = 4) -> bytes:
    """A valid ``size`` x ``size`` grey PNG whose tEXt chunk holds ``text`` (the same bytes for the same text)."""
    header = struct.pack(">IIBBBBB", size, size, 8, 0, 0, 0, 0)  # 8-bit greyscale
    pixels = b"".join(b"\x00" + bytes([(17 * (x + y)) % 256 for x in range(size)]) for y in range(size))
    return (
        PNG_SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"tEXt", TEXT_KEYWORD + b"\x00" + text.encode("latin-1"))
        + _chunk(b"IDAT", zlib.compress(pixels, 9))
        + _chunk(b"IEND", b"")
    )


def binary_with_text(text: str) -> bytes:
    """A binary PDF file (not UTF-8: its second line is binary, as PDF writers do) that carries ``text`` in a comment."""
    return BINARY_MAGIC + text.encode("utf-8") + b"\n%%EOF\n"


def decoded_text(data: bytes) -> str | None:
    """The sentence ``data`` carries: a PNG's tEXt ``Comment``, or a binary file's text after the magic; None for
    bytes of neither shape (or a corrupt PNG chunk)."""
    if data.startswith(BINARY_MAGIC):
        return data[len(BINARY_MAGIC) :].split(b"\n", 1)[0].decode("utf-8", "replace")
    if not data.startswith(PNG_SIGNATURE):
        return None
    at = len(PNG_SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if len(body) != length:
            return None
        if kind == b"tEXt" and body.startswith(TEXT_KEYWORD + b"\x00"):
            return body[len(TEXT_KEYWORD) + 1 :].decode("latin-1")
        at += 12 + length
    return None


def block_bytes(block: Any) -> bytes | None:
    """The bytes an inline media content block carries: a ``base64`` field (LangChain's standard blocks), a ``data:``
    URL (``url``, OpenAI's ``image_url``, or a ``file`` part's ``file_data``); None for any other block."""
    if not isinstance(block, dict):
        return None
    payload = block.get("base64") or block.get("data")
    if not isinstance(payload, str):
        url = block.get("url") or (block.get("image_url") or {}).get("url") or (block.get("file") or {}).get("file_data")
        if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
            return None
        payload = url.split(";base64,", 1)[1]
    try:
        return base64.b64decode(payload, validate=True)
    except (ValueError, binascii.Error):
        return None


def media_texts(content: Any) -> list[str]:
    """The sentences the media blocks of a message's ``content`` carry, in order (none for text-only content)."""
    if not isinstance(content, list):
        return []
    found = (decoded_text(raw) for block in content if (raw := block_bytes(block)) is not None)
    return [text for text in found if text]


def data_url(mime: str, data: bytes) -> str:
    """``data`` as a base64 ``data:`` URL (how a scenario file holds binary content)."""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def from_data_url(text: str) -> tuple[str, str] | None:
    """(mime, base64 payload) of a base64 ``data:`` URL, None for any other text."""
    if not text.startswith("data:") or ";base64," not in text:
        return None
    head, payload = text[5:].split(";base64,", 1)
    return head or "application/octet-stream", payload
