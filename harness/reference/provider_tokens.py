"""The token counts the reference models report: exact where an encoding exists, simulated where none does.

With an ``encoding`` (o200k_base or cl100k_base: `harness.trace.exact_tokens`) a count is exact: what `harness serve`
reports over OpenAI's APIs and what the reference agent's simulated input limit compares (it stands in for a
current OpenAI model). Without one (Anthropic's API: its tokenizer is not published) it is the simulated provider
tokenizer below, labelled simulated wherever it is shown: calibrated to the ratios measured against cl100k in the
design notes (the approximate counter, 4 characters a token, over-counts English prose by about 1.37x and under-counts
numeric content by up to 35-60 %). Per character: a letter weighs 0.17 token, a digit 0.45, whitespace 0.1, anything
else 0.5.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata

from harness.trace import exact_tokens

WEIGHTS = {"letter": 0.17, "digit": 0.45, "space": 0.1, "other": 0.5}


_LETTER, _DIGIT, _SPACE = re.compile(r"[^\W\d_]"), re.compile(r"\d"), re.compile(r"\s")
# The same classes over ASCII, as bytes to delete: what the three patterns match among the 128 ASCII characters
# (checked against them character by character in tests/reference/test_provider_tokens.py).
ASCII_CLASSES = (
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    b"0123456789",
    b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ",
)
TEXT_CACHE_SIZE = 8192  # distinct texts remembered: a live run re-sends each message of a case with every request


def class_counts(text: str) -> tuple[int, int, int]:
    """(letters, digits, whitespace) in ``text``, as ``[^\\W\\d_]``, ``\\d`` and ``\\s`` count them; ASCII text by
    deleting each class's bytes (C speed), other text with the patterns."""
    if text.isascii():
        raw = text.encode("ascii")
        return tuple(len(raw) - len(raw.translate(None, chars)) for chars in ASCII_CLASSES)  # type: ignore[return-value]
    return len(_LETTER.findall(text)), len(_DIGIT.findall(text)), len(_SPACE.findall(text))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def text_tokens(text: str) -> float:
    """Simulated tokens of ``text`` (a pure function of it, so cached: the history repeats in every request)."""
    letters, digits, spaces = class_counts(text)
    other = len(text) - letters - digits - spaces
    return letters * WEIGHTS["letter"] + digits * WEIGHTS["digit"] + spaces * WEIGHTS["space"] + other * WEIGHTS["other"]


def counted_text(text: str, encoding: str | None = None) -> int:
    """Tokens of ``text``: exact with ``encoding``, else simulated (`text_tokens`, rounded down)."""
    return exact_tokens.text_tokens(text, encoding) if encoding else int(text_tokens(text))


def provider_tokens(messages: Sequence[BaseMessage], tools: Sequence[Any] | None = None, encoding: str | None = None) -> int:
    """Token count of a request: messages (content and tool calls) and tool schemas; exact with ``encoding``
    (`harness.trace.exact_tokens.request_tokens`), else simulated."""
    if encoding:
        return exact_tokens.request_tokens(messages, tools, encoding)
    total = 0.0
    for msg in messages:
        total += 4 + text_tokens(msg.text if isinstance(msg.content, (str, list)) else str(msg.content))
        for call in getattr(msg, "tool_calls", None) or []:
            total += text_tokens(call.get("name", "") + json.dumps(call.get("args", {})))
    if tools:
        total += text_tokens(json.dumps(list(tools), default=str))
    return int(total)


def output_tokens(reply: AIMessage, encoding: str | None = None) -> int:
    """Output tokens of a reply: its text and tool-call arguments, plus one (the end of the reply); exact with
    ``encoding``, else simulated."""
    if encoding:
        calls = sum(counted_text(c["name"], encoding) + counted_text(json.dumps(c["args"]), encoding) for c in reply.tool_calls)
        return counted_text(reply.text, encoding) + calls + 1
    return int(text_tokens(reply.text + json.dumps([c["args"] for c in reply.tool_calls]))) + 1


def simulated_usage(
    messages: Sequence[BaseMessage], tools: Sequence[Any] | None, reply: AIMessage, encoding: str | None = None
) -> UsageMetadata:
    """The usage a reference model reports for answering ``messages`` (with ``tools``) by ``reply``: the request's
    `provider_tokens`, and the reply's `output_tokens` (exact with ``encoding``; the reply itself is simulated)."""
    completion = output_tokens(reply, encoding)
    prompt = provider_tokens(messages, tools, encoding)
    return UsageMetadata(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
