"""Exact token counts offline for OpenAI-family models (o200k_base, cl100k_base through bpe-openai), and the label
every figure carries saying which count it used.

`bpe-openai` ships both encodings in its wheel (tiktoken downloads them at run time) and gives tiktoken's ids; it is
imported on first use only, so a process that never counts exactly never loads it (`harness bench --only startup`).
Which encoding a model uses (`encoding_for_model`): gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the o-series and gpt-oss use
o200k_base; gpt-4 and gpt-3.5 cl100k_base. The reference agent (in process, or served as openai by `harness serve`)
is counted as a current OpenAI model, o200k_base (`REFERENCE_ENCODING`). Anthropic's and Gemini's tokenizers are not
published: for them there is no exact count offline, and a figure falls back to the simulated provider tokenizer
(`harness.reference.provider_tokens`), labelled ``simulated``.

A request is counted as OpenAI's cookbook counts chat messages: 3 tokens of framing per message, its role, its text
and name; an AI message's tool calls add their names and JSON arguments; tool schemas are counted as their JSON text
(OpenAI renders them in a format of its own, so that part is exact tokens of the JSON, not of what the API renders);
3 more prime the reply. The text of each part is tokenized exactly.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

O200K = "o200k_base"
CL100K = "cl100k_base"
ENCODINGS = (O200K, CL100K)
REFERENCE_ENCODING = O200K
"""The encoding the reference agent is counted with: it stands in for a current OpenAI model (gpt-5 family)."""
SIMULATED = "simulated"
"""The label of a figure counted by the simulated provider tokenizer (no exact encoding for the model)."""
TOKENS_PER_MESSAGE = 3  # OpenAI's chat framing per message (cookbook, How_to_count_tokens_with_tiktoken)
REPLY_PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
TEXT_CACHE_SIZE = 8192  # distinct texts remembered: a conversation re-sends each message with every request

_O200K_PREFIXES = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "gpt-oss", "codex")
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada")
_NO_EXACT_PROVIDERS = ("anthropic", "google_genai", "google_vertexai", "google", "bedrock", "bedrock_converse")
_REFERENCE_PROVIDERS = ("", "reference", "openai", "fault")


def encoding_for_model(model: str | None) -> str | None:
    """The exact encoding of ``model`` (a name or ``provider:name``), or None where none exists offline.

    OpenAI-family names by prefix (o200k_base before cl100k_base: ``gpt-4o`` is not ``gpt-4``); the reference agent
    (``reference-agent``, ``reference:agent``, a seeded fault's ``fault:<name>``, or served as ``openai:reference-agent``)
    `REFERENCE_ENCODING`; Anthropic, Gemini and any other name None."""
    provider, _, name = (model or "").strip().lower().rpartition(":")
    if provider in _NO_EXACT_PROVIDERS:
        return None
    if name.startswith(_O200K_PREFIXES):
        return O200K
    if name.startswith(_CL100K_PREFIXES):
        return CL100K
    if provider in _REFERENCE_PROVIDERS and (name.startswith("reference") or name == "agent" or provider == "fault"):
        return REFERENCE_ENCODING
    return None


def openai_api_encoding(model: str | None) -> str:
    """The encoding `harness serve` counts a request to OpenAI's APIs with: the model's own (`encoding_for_model`), and
    for any other name `REFERENCE_ENCODING` (the reference models behind OpenAI's API, whatever the client calls them)."""
    return encoding_for_model(model) or REFERENCE_ENCODING


def label(encoding: str | None) -> str:
    """What a figure counted with ``encoding`` says it used: ``exact o200k_base`` or ``simulated`` (None)."""
    return f"exact {encoding}" if encoding else SIMULATED


def _rust_tokenizers() -> Any:  # noqa: ANN401 - bpe_openai's compiled module
    """bpe-openai's compiled tokenizer module (``bpe_openai._bindings``), loaded without running the package's
    ``__init__``: that parses every bundled encoding's rank table in Python (about 2.8 s measured here, 2026-11-28)
    while the Rust tokenizer loads o200k_base in about 0.25 s. It is the backend ``bpe_openai.get_encoding(...).encode``
    calls; tests/trace/test_exact_tokens.py holds the two equal. Falls back to the package when the module is not
    where this release keeps it."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("bpe_openai")  # finds the package without importing it
    places = list(spec.submodule_search_locations or []) if spec else []
    found = [Path(d, "_bindings" + x) for d in places for x in importlib.machinery.EXTENSION_SUFFIXES]
    found = [p for p in found if p.is_file()]
    if not found:
        from bpe_openai import _bindings  # the package's own import (slow, see above)

        return _bindings
    loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(found[0]))
    where = importlib.util.spec_from_file_location(loader.name, loader.path, loader=loader)
    assert where is not None  # a file that exists, with its loader given
    module = importlib.util.module_from_spec(where)
    loader.exec_module(module)
    return module


@lru_cache(maxsize=len(ENCODINGS))
def _tokenizer(encoding: str) -> Any:  # noqa: ANN401 - bpe_openai's PyTokenizer
    if encoding not in ENCODINGS:
        raise ValueError(f"no exact encoding {encoding!r}; known: {', '.join(ENCODINGS)}")
    return _rust_tokenizers().tokenizer_for_encoding(encoding)


def _safe(text: str) -> str:
    """``text`` with lone surrogates replaced, as bpe-openai's own wrapper does before encoding."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def encode(text: str, encoding: str = O200K) -> list[int]:
    """The token ids of ``text`` as ordinary text (a special token's spelling is encoded as text, as a provider does
    with user content): tiktoken's ``encode_ordinary``."""
    return list(_tokenizer(encoding).encode(_safe(text)))


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def text_tokens(text: str, encoding: str = O200K) -> int:
    """Exact tokens of ``text`` (cached: a pure function of it)."""
    return int(_tokenizer(encoding).count(_safe(text))) if text else 0


def message_tokens(msg: Any, encoding: str = O200K) -> int:  # noqa: ANN401 - a LangChain message
    """Exact tokens of one chat message as OpenAI frames it: framing, role, text, name and tool calls."""
    text = msg.text if isinstance(msg.content, (str, list)) else str(msg.content)
    role = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}.get(msg.type, msg.type)
    total = TOKENS_PER_MESSAGE + text_tokens(role, encoding) + text_tokens(text, encoding)
    if getattr(msg, "name", None):
        total += 1 + text_tokens(msg.name, encoding)
    for call in getattr(msg, "tool_calls", None) or []:
        total += text_tokens(call.get("name", ""), encoding) + text_tokens(json.dumps(call.get("args", {})), encoding)
    return total


def tools_tokens(tools: Sequence[Any] | None, encoding: str = O200K) -> int:
    """Exact tokens of the tool schemas' JSON text (see the module docstring)."""
    return text_tokens(json.dumps(list(tools), default=str), encoding) if tools else 0


def request_tokens(messages: Sequence[Any], tools: Sequence[Any] | None = None, encoding: str = O200K) -> int:
    """Exact tokens of a request: every message (`message_tokens`), the tool schemas and the reply's priming."""
    return sum(message_tokens(m, encoding) for m in messages) + tools_tokens(tools, encoding) + REPLY_PRIMING
