"""Secrets never leave the process: one function scrubs every text the harness writes or prints.

Redacted: the value of every environment variable whose name ends in ``_API_KEY``,
``_TOKEN``, ``_SECRET`` or ``_PASSWORD`` (or is ``LANGSMITH_API_KEY``-like), the value after
Authorization, x-api-key, api_key and Bearer when it is shaped like a credential (a
digit, inner capitals or 24+ characters: help text that names ``LANGSMITH_API_KEY:`` keeps
its words), and anything shaped like a provider key (``sk-...``, ``lsv2_...``,
``sk-ant-...``, ``AIza...``, ``gsk_...``, ``xai-...``), wherever it appears: provider error
bodies that echo the key, exception text, tracebacks, reports. Names are never masked.
"""

from __future__ import annotations

import os
import re
from typing import Any

MASK = "[REDACTED]"
_SECRET_ENV = re.compile(r"(_API_KEY|_TOKEN|_SECRET|_PASSWORD|_KEY)$")
# A name, then its value: the value is masked when it is shaped like a secret (`_secret_shaped`), so prose that names
# a key ("with LANGSMITH_API_KEY: upload a trace") keeps its words.
_NAMED = [
    re.compile(r"(?i)(authorization['\"]?\s*[:=]\s*['\"]?(?:bearer\s+|basic\s+)?)([^\s'\",}]+)"),
    re.compile(r"(?i)(x-api-key['\"]?\s*[:=]\s*['\"]?)([^\s'\",}]+)"),
    re.compile(r"(?i)(api[_-]?key['\"]?\s*[:=]\s*['\"]?)([^\s'\",}]{6,})"),
    re.compile(r"(?i)(bearer\s+)([A-Za-z0-9_\-.=]{8,})"),
]
_PATTERNS = [
    re.compile(r"\b(?:sk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\blsv2_[A-Za-z0-9_]{8,}"),
    re.compile(r"\bAIza[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\b(?:gsk|xai|fw|pplx)[_-][A-Za-z0-9_\-]{12,}"),
]
_MIN_SECRET_LEN = 6  # shorter env values ("1", "true") are settings, not secrets


def secret_values() -> list[str]:
    """Values of the secret-named environment variables, longest first (so a key containing another is masked whole)."""
    values = {v for k, v in os.environ.items() if _SECRET_ENV.search(k.upper()) and v and len(v) >= _MIN_SECRET_LEN}
    return sorted(values, key=len, reverse=True)


def _secret_shaped(value: str) -> bool:
    """A value that reads as a credential, not a word: a digit in it, upper case after its first letter, or 24
    characters or more. "upload", "the", "none" are words; "hunter2hunter2", "dXNlcjpwYXNz", "sk-..." are not."""
    return any(c.isdigit() for c in value) or any(c.isupper() for c in value[1:]) or len(value) >= 24


def redact(text: str, secrets: list[str] | None = None) -> str:
    """``text`` with every secret replaced by ``[REDACTED]``: values, never the names that precede them. ``secrets``:
    `secret_values` read once by a caller that redacts many texts (reading the environment is most of the cost)."""
    if not text:
        return text
    for value in secret_values() if secrets is None else secrets:
        text = text.replace(value, MASK)
    for named in _NAMED:
        text = named.sub(lambda m: m.group(1) + MASK if _secret_shaped(m.group(2)) and m.group(2) != MASK else m.group(0), text)
    for pattern in _PATTERNS:
        text = pattern.sub(MASK, text)
    return text


class RedactingStream:
    """A text stream that redacts what is written to it: sys.stdout / sys.stderr of the CLI and pytest's terminal,
    so a library's warning or a traceback that quotes a header cannot print a key."""

    def __init__(self, stream):  # noqa: ANN001
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str):  # noqa: ANN204 - flush, fileno, isatty, encoding... pass through
        return getattr(self._stream, name)


def redact_process_output() -> None:
    """Route this process's stdout and stderr through `redact` (idempotent)."""
    import sys

    if not isinstance(sys.stdout, RedactingStream):
        sys.stdout = RedactingStream(sys.stdout)
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)


def redact_json(value: Any, secrets: list[str] | None = None) -> Any:  # noqa: ANN401 - any JSON value
    """``value`` (a JSON value: strings, lists, objects) with `redact` applied to every string in it, keys kept."""
    secrets = secret_values() if secrets is None else secrets
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list | tuple):
        return type(value)(redact_json(v, secrets) for v in value)
    if isinstance(value, dict):
        return {k: redact_json(v, secrets) for k, v in value.items()}
    return value
