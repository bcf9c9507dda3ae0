"""Summary-prompt variants: one file each in ``datasets/variants/``, named by the file.

A variant file is the summary prompt (with ``{messages}``), optionally preceded by YAML
front matter that changes other settings:

    ---
    description: Sections for intent and next steps.
    include: structured          # start from another variant's settings
    summary_model: openai:gpt-5-mini
    trigger: 20%                 # or a list, OR-combined; a size as on the command line or {type: tokens, value: 12000}
    keep: 5%
    window: 64000
    trim_tokens_to_summarize: 4000
    eviction_tokens: 20000
    arg_truncation: {trigger: 20%, keep: messages:20, max_length: 2000}
    strategy: observation-masking  # a strategy's name (`harness run --help`, docs/strategies.md) or module:function
    mask_keep: 3                 # masking / hybrid: the newest tool results left whole
    prompt: deepagents-default   # use the installed deepagents prompt (the body must then be empty)
    ---
    Summarize ... {messages}

Adding a variant is adding a file. Every file is validated when loaded: unknown keys,
bad values and prompts that would not render are errors naming the file. The front matter's keys and types are one
pydantic model, `VariantSettings` (schemas/variant.schema.json is generated from it by tools/schemas.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from harness._paths import DATASETS_DIR, not_a_file
from harness._yaml import load_yaml
from harness.compaction.config import (
    DEFAULT_PRESET,
    MIN_WINDOW,
    PRESETS,
    ArgTruncation,
    CompactionConfig,
    ContextSize,
    get_preset,
)
from harness.compaction.prompts import validate_prompt
from harness.compaction.strategies.names import builtin_said
from harness.errors import ConfigError
from harness.rows import Says, check_input

VARIANTS_DIR = DATASETS_DIR / "variants"
INSTALLED_PROMPT = "deepagents-default"
LANGCHAIN_PROMPT = "langchain-default"  # LangChain's own default summary prompt, read from the installed package
_INPUT = ConfigDict(strict=True, extra="forbid")  # YAML as written: no coercion, no key the harness would ignore


class SizeMapping(BaseModel):
    """A size written DeerFlow style: ``{type: tokens, value: 12000}``."""

    model_config = _INPUT

    type: str = Field(description="fraction, tokens or messages")
    value: float = Field(description="the number of that unit")


Size = Annotated[
    str | float | SizeMapping,
    Field(
        description="a context size: 20%, fraction:0.2, tokens:12000, messages:40 or {type: tokens, value: 12000}",
        examples=["20%", "tokens:12000"],
    ),
]
"""A size as a variant or a spec writes it (read by `harness.compaction.config.ContextSize.read`)."""
_POSITIVE = Says("must be a positive integer, got {value!r}")


class ArgTruncationSettings(BaseModel):
    """``arg_truncation``: clip old ``write_file``/``edit_file`` arguments (deepagents' argument truncation)."""

    model_config = _INPUT

    trigger: Size = Field("20%", description="when to start clipping (default 20%)")
    keep: Size = Field("messages:20", description="the newest part left whole (default messages:20)")
    max_length: int | None = Field(None, description="an argument longer than this many characters is clipped")
    truncation_text: str | None = Field(None, description="what replaces the clipped text")


class VariantSettings(BaseModel):
    """A variant file's front matter (the YAML between ``---`` lines before the summary prompt): the settings it changes
    from the variant it includes, or from the default preset."""

    model_config = ConfigDict(
        strict=True, extra="forbid", title="Variant front matter", json_schema_extra={"$comment": "generated: tools/schemas.py"}
    )

    description: str | None = Field(None, description="one line for humans")
    include: str | None = Field(None, description="start from another variant's settings (a name or a path)")
    summary_model: Annotated[str | None, Says("must be provider:name or 'reference'")] = Field(
        None, description="the summarizer: provider:name or reference"
    )
    trigger: Size | list[Size] | None = Field(None, description="when to summarize; a list is OR-combined")
    keep: Size | None = Field(None, description="how much of the conversation a summary keeps whole")
    window: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(None, description="the model's context window, in tokens")
    trim_tokens_to_summarize: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(
        None, description="the most tokens of history the summarizer is given"
    )
    eviction_tokens: Annotated[int | None, _POSITIVE, Field(ge=1)] = Field(
        None, description="a tool result larger than this many tokens is evicted to a file"
    )
    arg_truncation: ArgTruncationSettings | None = Field(None, description="clip old file-writing arguments")
    prompt: str | None = Field(
        None, description="a named prompt instead of the body: deepagents-default or langchain-default (the body is then empty)"
    )
    strategy: str | None = Field(None, description=f"the compaction strategy: {builtin_said()}")
    mask_keep: Annotated[int | None, Says("must be a non-negative integer, got {value!r}"), Field(ge=0)] = Field(
        None, description="masking and hybrid: the newest tool results left whole"
    )


_PARSED = frozenset({"trigger", "keep", "strategy", "arg_truncation.trigger", "arg_truncation.keep"})
"""Settings read by a reader of their own (`ContextSize.read`, `parse_strategy`), which words their problems."""


@dataclass(frozen=True)
class Variant:
    name: str
    path: str
    description: str = ""
    prompt: str | None = None  # None: the installed deepagents prompt
    summary_model: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # trigger, keep, window, ... as validated values

    def apply(self, base: CompactionConfig) -> CompactionConfig:
        """``base`` with this variant's prompt and settings (thresholds from the variant if it sets them)."""
        changes: dict[str, Any] = {
            "name": self.name,
            "summary_prompt": self.prompt,
            "summary_prompt_name": self.name if self.prompt else INSTALLED_PROMPT,
        }
        changes.update(self.settings)
        if self.summary_model is not None:
            changes["summary_model"] = self.summary_model
        return replace(base, **changes)


def _split_front_matter(text: str, path: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise ConfigError(f"{path}: front matter opened with '---' but never closed")
    header = parts[0][3:]
    body = parts[1].split("\n", 1)[1] if "\n" in parts[1] else ""
    try:
        data = load_yaml(header, path) or {}  # the header starts on the file's first line, after the '---'
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: front matter is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: front matter must be a mapping of settings")
    return data, body


def _settings(data: dict[str, Any], path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "trigger" in data:
        triggers = data["trigger"] if isinstance(data["trigger"], list) else [data["trigger"]]
        out["trigger"] = tuple(ContextSize.read(t, f"{path}: trigger") for t in triggers)
    if "keep" in data:
        out["keep"] = ContextSize.read(data["keep"], f"{path}: keep")
    if "strategy" in data:
        try:
            name, custom = parse_strategy(str(data["strategy"]))
        except ConfigError as exc:
            raise ConfigError(f"{path}: strategy: {str(exc).removeprefix('--strategy ')}") from None
        out["strategy"], out["custom_strategy"] = name, custom
    if data.get("mask_keep") is not None:
        out["mask_keep"] = data["mask_keep"]
    out.update({k: data[k] for k in ("window", "trim_tokens_to_summarize", "eviction_tokens") if k in data})
    if "arg_truncation" in data:
        spec = data["arg_truncation"]
        if spec is None:
            out["arg_truncation"] = None
        else:
            trigger = ContextSize.read(spec.get("trigger", "20%"), f"{path}: arg_truncation.trigger")
            keep = ContextSize.read(spec.get("keep", "messages:20"), f"{path}: arg_truncation.keep")
            try:
                out["arg_truncation"] = ArgTruncation(
                    trigger=trigger, keep=keep, **{k: spec[k] for k in ("max_length", "truncation_text") if k in spec}
                )
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
    return out


def load_variant(name_or_path: str | Path, *, _seen: tuple[str, ...] = ()) -> Variant:
    """A summary-prompt variant by name (datasets/variants/<name>.md) or path: its settings (front matter) and prompt.
    Raises ConfigError for an unknown name, bad settings or an include cycle."""
    path = Path(name_or_path)
    if path.suffix in (".md", ".txt") and (path.exists() or path.is_symlink()):
        problem = not_a_file(path)  # a FIFO would block the read; a symlink loop is not an unknown name
        if problem is not None:
            raise ConfigError(f"{path}: {problem}")
    if path.suffix not in (".md", ".txt") or not path.exists():
        candidates = [VARIANTS_DIR / f"{name_or_path}.md", VARIANTS_DIR / f"{name_or_path}.txt"]
        found = next((c for c in candidates if c.exists()), None)
        if found is None:
            raise ConfigError(
                f"unknown variant {str(name_or_path)!r}; variants: {', '.join(variant_names())}; presets: {', '.join(PRESETS)}"
            )
        path = found
    name = path.stem
    if name in _seen:
        raise ConfigError(f"{path}: include cycle through {' -> '.join((*_seen, name))}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); a variant file is UTF-8"
        ) from None
    except OSError as exc:  # a directory, no permission, an I/O error: named against the file, not a traceback
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    data, body = _split_front_matter(text, str(path))
    deferred = check_input(data, VariantSettings, str(path), skip=_PARSED)
    parent = load_variant(data["include"], _seen=(*_seen, name)) if data.get("include") else None
    prompt_setting = data.get("prompt")
    body = body.strip("\n")
    if prompt_setting is not None and prompt_setting not in (INSTALLED_PROMPT, LANGCHAIN_PROMPT):
        raise ConfigError(
            f"{path}: prompt: the named prompts are {INSTALLED_PROMPT!r} and {LANGCHAIN_PROMPT!r}; "
            "put a custom prompt in the file body"
        )
    if prompt_setting is not None and body.strip():
        raise ConfigError(f"{path}: prompt: {prompt_setting} takes the installed prompt, so the file body must be empty")
    if prompt_setting == INSTALLED_PROMPT:
        prompt = None
    elif prompt_setting == LANGCHAIN_PROMPT:
        from harness.compaction.prompts import langchain_default_prompt

        prompt = langchain_default_prompt()
    elif body.strip():
        validate_prompt(body, source=str(path))
        prompt = body
    elif parent is not None:
        prompt = parent.prompt
    else:
        raise ConfigError(f"{path}: no prompt: write the summary prompt (with {{messages}}) after the front matter")
    summary_model = data.get("summary_model", parent.summary_model if parent else None)
    settings = {**(parent.settings if parent else {}), **_settings(data, str(path))}
    if deferred is not None:  # what the schema refuses and no reader did
        raise deferred
    description = data.get("description", parent.description if parent else "")
    return Variant(name, str(path), str(description or ""), prompt, summary_model, settings)


def variant_names() -> list[str]:
    """The shipped summary-prompt variants (datasets/variants/), by name."""
    return sorted(p.stem for p in VARIANTS_DIR.glob("*.md"))


def resolve_config(name: str, base: CompactionConfig | None = None) -> tuple[CompactionConfig, Variant | None]:
    """A preset by name, or a variant file applied to ``base`` (default: the default preset)."""
    if name in PRESETS:
        return get_preset(name), None
    variant = load_variant(name)
    return variant.apply(base or get_preset(DEFAULT_PRESET)), variant


def make_config(
    variant: str = DEFAULT_PRESET,
    *,
    trigger: list[str] | None = None,
    keep: str | None = None,
    window: int | str | None = None,
    strategy: str | None = None,
) -> CompactionConfig:
    """A preset or a variant file (``datasets/variants/<name>.md``) with command-line overrides applied.

    ``strategy`` is a name from ``compaction.strategies.names.strategy_names()``, or ``module:function`` for a custom strategy."""
    base = get_preset(variant) if variant in PRESETS else resolve_config(variant)[0]
    if window is not None:
        try:
            window = int(window)
        except (TypeError, ValueError):
            raise ConfigError(f"--window must be an integer number of tokens, got {window!r}") from None
        if window < MIN_WINDOW:
            raise ConfigError(f"--window must be at least {MIN_WINDOW} tokens, got {window}")
    options = [*(("--trigger", t) for t in trigger or ()), *((("--keep", keep),) if keep else ())]
    sizes = [ContextSize.read(text, f"{option} {text!r}") for option, text in options]
    given = [
        o for o, v in (("--trigger", trigger), ("--keep", keep), ("--window", window), ("--strategy", strategy)) if v is not None
    ]
    name, custom = parse_strategy(strategy)
    try:
        return base.with_overrides(
            trigger=sizes[: len(trigger or ())] or None,
            keep=sizes[-1] if keep else None,
            window=window,
            strategy=name,
            custom_strategy=custom,
        )
    except ConfigError as exc:
        raise ConfigError(f"{' / '.join(given)}: {exc}" if given else str(exc)) from None


def parse_strategy(text: str | None) -> tuple[str | None, str | None]:
    """``--strategy``: a strategy name, or ``module:function`` (a custom strategy, checked to import)."""
    if text is None:
        return None, None
    if ":" in text:
        import inspect

        from harness.user_code import load_callable

        fn = load_callable(text, source="--strategy")
        try:
            inspect.signature(fn).bind([], 0)
        except TypeError:  # a middleware factory (config, model, *, backend, ...) would fail in the first case
            raise ConfigError(
                f"--strategy {text!r}: {fn.__name__}{inspect.signature(fn)} does not take (messages, token_count): here "
                "module:function is a messages function; a middleware factory or an object with INFO and build runs "
                "with `harness check --strategy`, `pytest evals/ --strategy` or `pytest --compaction-strategy` "
                "(docs/strategies.md)"
            ) from None
        except ValueError:  # no signature to read (a builtin): left to the call
            pass
        return "custom", text
    from harness.compaction.strategies.names import strategy_names

    known = strategy_names()
    if text not in known:
        raise ConfigError(f"--strategy {text!r}: unknown strategy; known: {', '.join(known)}, or module:function")
    return text, None
