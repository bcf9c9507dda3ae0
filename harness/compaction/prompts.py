"""Summary prompts: the installed deepagents default, and validation of custom ones.

deepagents renders the summary prompt with ``str.format(messages=...)``. A prompt
without ``{messages}`` silently summarizes nothing; a stray brace raises KeyError or
ValueError at the first summarization event, deep inside a run. Both are caught here,
when the prompt is loaded.
"""

from __future__ import annotations

import hashlib
import string

from harness.errors import ConfigError


def deepagents_default_prompt() -> str:
    """The summary prompt of the installed deepagents, read at run time (never copied)."""
    from deepagents.middleware.summarization import DEEPAGENTS_DEFAULT_SUMMARY_PROMPT

    return DEEPAGENTS_DEFAULT_SUMMARY_PROMPT


def langchain_default_prompt() -> str:
    """The default summary prompt of the installed LangChain (``SummarizationMiddleware``'s), read at run time."""
    from langchain.agents.middleware.summarization import DEFAULT_SUMMARY_PROMPT

    return DEFAULT_SUMMARY_PROMPT


def validate_prompt(text: str, *, source: str) -> None:
    """Raise ConfigError naming ``source`` unless ``text`` formats with only ``{messages}``."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as exc:  # single '{' or '}'
        raise ConfigError(
            f"{source}: summary prompt is not a valid template ({exc}); double literal braces as {{{{ and }}}}"
        ) from None
    if "messages" not in fields:
        raise ConfigError(f"{source}: summary prompt must contain the placeholder {{messages}}")
    others = sorted({f for f in fields if f != "messages"})
    if others:
        shown = ", ".join("{" + f + "}" for f in others)
        raise ConfigError(
            f"{source}: summary prompt has placeholder(s) {shown} besides {{messages}}; double literal braces as {{{{ and }}}}"
        )
    try:
        text.format(messages="")
    except (KeyError, ValueError, IndexError) as exc:
        raise ConfigError(f"{source}: summary prompt does not render: {exc!r}") from None


def prompt_fingerprint(text: str | None) -> str:
    """Short stable hash of a prompt (of the deepagents default when None)."""
    body = deepagents_default_prompt() if text is None else text
    return hashlib.sha256(body.encode()).hexdigest()[:12]
