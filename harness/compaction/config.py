"""Compaction configurations: what to force, how hard, and the named presets.

A `CompactionConfig` is a frozen, JSON-able description of everything the harness
changes in a deep agent's context handling. `build_agent` turns it into real
deepagents middleware; results and traces store `config.to_dict()` so every number
can be traced back to the exact settings that produced it.

Context sizes use deepagents' own tuples: ``("fraction", 0.2)``, ``("tokens", 6000)``,
``("messages", 20)``. On the command line they are written ``fraction:0.2``,
``20%``, ``tokens:6000`` or ``messages:20`` (and in a spec or variant file also ``{type: tokens, value: 6000}``),
read by `ContextSize.read`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from harness._numbers import finite_number, finite_problem
from harness.compaction.strategies.names import DEFAULT_STRATEGY  # the strategy list and its default: one place
from harness.errors import ConfigError

if TYPE_CHECKING:  # the type only: the config imports no middleware
    from langchain.agents.middleware.summarization import ContextSize as LangChainContextSize
    from langchain.agents.middleware.summarization import TriggerClause

SIZE_UNITS = ("fraction", "tokens", "messages")

DEFAULT_WINDOW = 64_000
"""Declared context window (max input tokens) for forced-compaction presets.

Big enough that a 10 % trigger (6,400 tokens) sits well above the fixed cost of the
default deep-agent tool schemas (about 2,700 approximate tokens)."""

MIN_WINDOW = 1000
"""The smallest declared window a config accepts (tokens): below it the fixed per-call overhead alone fills it."""

SUBAGENT_WINDOW = 16_000
"""The window the parent eval's own subagent declares (its parent's: the ``parent`` preset's 64,000): the subagent's
requests are held to it (`harness.scoring.scorers.parent`)."""

DEEPAGENTS_EVICTION_TOKENS = 20_000
DEEPAGENTS_HUMAN_EVICTION_TOKENS = 50_000  # FilesystemMiddleware's human_message_token_limit_before_evict (0.7.32)
"""deepagents' default `tool_token_limit_before_evict` for FilesystemMiddleware."""


PROMPT_WINDOW_SHARE = 0.5
"""A summary prompt of at least this share of the declared window is warned about (`CompactionConfig.prompt_warning`)."""

OVERHEAD_MARGIN = 2.0
"""A trigger below this multiple of the fixed per-call overhead is flagged."""


@dataclass(frozen=True)
class ContextSize:
    """A context size as deepagents reads it: a fraction of the window, a token count or a message count."""

    unit: str  # fraction, tokens or messages
    value: float

    def __post_init__(self) -> None:
        if self.unit not in SIZE_UNITS:
            raise ConfigError(f"unknown context-size unit {self.unit!r}; use one of {', '.join(SIZE_UNITS)}")
        if isinstance(self.value, bool):
            raise ConfigError(f"{self.unit} value must be a number, got {self.value!r}")
        finite_number(self.value, f"{self.unit} value")  # NaN or an infinity (tokens:1e309) is named, never int()'d
        if self.unit == "fraction":
            if not 0 < float(self.value) <= 1:
                raise ConfigError(f"fraction must be in (0, 1], got {self.value!r}")
        elif int(self.value) != self.value or self.value <= 0:
            raise ConfigError(f"{self.unit} must be a positive integer, got {self.value!r}")

    @classmethod
    def parse(cls, text: str | tuple | list | ContextSize) -> ContextSize:
        """Parse ``fraction:0.2``, ``20%``, ``tokens:6000``, ``messages:20`` or a tuple."""
        if isinstance(text, ContextSize):
            return text
        if isinstance(text, (tuple, list)):
            if len(text) != 2:
                raise ConfigError(f"context size must be (unit, value), got {text!r}")
            unit, value = text
            return cls(str(unit), _number(value, str(text)))
        raw = str(text).strip()
        if raw.endswith("%"):
            return cls("fraction", _number(raw[:-1], raw) / 100)
        if ":" not in raw:
            raise ConfigError(f"cannot read context size {raw!r}: write fraction:0.2, 20%, tokens:6000 or messages:20")
        unit, _, value = raw.partition(":")
        return cls(unit.strip(), _number(value.strip(), raw))

    @classmethod
    def read(cls, value: Any, where: str) -> ContextSize:  # noqa: ANN401 - a value as a user wrote it
        """A size as a user writes it, in a spec, a variant file or an option: ``20%``, ``fraction:0.2``, ``tokens:12000``,
        ``messages:40``, or DeerFlow style ``{type: tokens, value: 12000}``. The one reader of a written size: every
        problem is a ConfigError headed by ``where`` (``spec.yaml: keep``, ``--trigger '20x'``)."""
        if isinstance(value, dict):
            if set(value) != {"type", "value"}:
                raise ConfigError(f"{where}: a size mapping needs exactly 'type' and 'value', got {sorted(value)}")
            value = f"{value['type']}:{value['value']}"
        try:
            return cls.parse(value)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None

    def as_tuple(self) -> LangChainContextSize:
        """The size as LangChain's and deepagents' summarization middleware take it: ("fraction", 0.2), ("tokens", 6000)."""
        if self.unit == "fraction":
            return ("fraction", float(self.value))
        return ("tokens", int(self.value)) if self.unit == "tokens" else ("messages", int(self.value))

    def tokens(self, window: int | None) -> int | None:
        """This size in tokens for a declared window (None for a message count, or a fraction of no window)."""
        if self.unit == "fraction":
            return int(window * float(self.value)) if window is not None else None
        if self.unit == "tokens":
            return int(self.value)
        return None

    def __str__(self) -> str:
        if self.unit == "fraction":
            return f"{float(self.value) * 100:g}%"
        return f"{self.unit}:{int(self.value)}"


def _number(value: Any, context: str) -> float:
    problem = finite_problem(value)
    if problem is None:
        return float(value)
    if "finite" in problem:
        raise ConfigError(problem)
    raise ConfigError(f"cannot read a number from {context!r}")


@dataclass(frozen=True)
class ArgTruncation:
    """deepagents' `truncate_args_settings`: clip old write_file/edit_file arguments."""

    trigger: ContextSize
    keep: ContextSize
    max_length: int = 2000
    truncation_text: str = (
        "...(argument truncated)"  # deepagents' default (_deepagents_adapter.TRUNCATION_TEXT; not imported: config stays light)
    )

    def __post_init__(self) -> None:
        if isinstance(self.max_length, bool) or not isinstance(self.max_length, int) or self.max_length <= 20:
            raise ConfigError(f"arg_truncation.max_length must be an integer above 20 (the kept prefix), got {self.max_length!r}")
        if not self.truncation_text:
            raise ConfigError("arg_truncation.truncation_text must not be empty: the recorder detects truncation by it")

    def to_settings(self) -> dict[str, Any]:
        return {
            "trigger": self.trigger.as_tuple(),
            "keep": self.keep.as_tuple(),
            "max_length": self.max_length,
            "truncation_text": self.truncation_text,
        }


@dataclass(frozen=True)
class CompactionConfig:
    """Everything the harness sets on a deep agent's context compression.

    ``trigger`` holds one or more sizes, OR-combined as deepagents does for a list.
    ``summary_prompt`` None means the installed deepagents default prompt.
    ``arg_truncation`` None disables argument truncation; by default it follows the
    summarization trigger and keep, as `create_summarization_middleware` does.
    """

    name: str
    trigger: tuple[ContextSize, ...]
    keep: ContextSize
    window: int = DEFAULT_WINDOW
    summary_prompt: str | None = None
    summary_prompt_name: str = "deepagents-default"
    trim_tokens_to_summarize: int | None = None
    arg_truncation: ArgTruncation | None = field(default=None)
    eviction_tokens: int = DEEPAGENTS_EVICTION_TOKENS
    human_eviction_tokens: int = DEEPAGENTS_HUMAN_EVICTION_TOKENS  # a user message over this is saved to a file
    summary_model: str | None = None  # provider:name or "reference"; None: the run's default
    strategy: str = DEFAULT_STRATEGY
    mask_keep: int = 3  # observation masking / hybrid: the newest tool results left whole
    custom_strategy: str | None = None  # custom: module:function(messages, token_count) -> messages
    offload_binary: bool = False  # deepagents' offload_binary_content: binary read_file results go to /blobs/ (media evals)
    compact_tool: bool = False  # deepagents' compact_conversation tool (SummarizationToolMiddleware) in the stack
    chars_per_token: float | None = None  # the summarization trigger's count at this many characters a token (None:
    # LangChain's own, 4, or 3.3 for an Anthropic model); the estimate eval's seeded fault sets a wrong one

    def __post_init__(self) -> None:
        if self.strategy != DEFAULT_STRATEGY:
            from harness.compaction.strategies.names import strategy_names  # local: reads installed packages' metadata

            known = strategy_names()
            if self.strategy not in known:
                raise ConfigError(f"config {self.name!r}: unknown strategy {self.strategy!r}; known: {', '.join(known)}")
        if (self.strategy == "custom") != (self.custom_strategy is not None):
            raise ConfigError(
                f"config {self.name!r}: custom_strategy (module:function) goes with strategy custom, and only with it"
            )
        if isinstance(self.mask_keep, bool) or not isinstance(self.mask_keep, int) or self.mask_keep < 0:
            raise ConfigError(f"config {self.name!r}: mask_keep must be a non-negative integer, got {self.mask_keep!r}")
        if not self.trigger:
            raise ConfigError(f"config {self.name!r}: at least one trigger is required")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < MIN_WINDOW:
            raise ConfigError(
                f"config {self.name!r}: window must be an integer of at least {MIN_WINDOW} tokens, got {self.window!r}"
            )
        if self.eviction_tokens <= 0:
            raise ConfigError(f"config {self.name!r}: eviction_tokens must be positive, got {self.eviction_tokens!r}")
        if self.human_eviction_tokens <= 0:
            raise ConfigError(f"config {self.name!r}: human_eviction_tokens must be positive, got {self.human_eviction_tokens!r}")
        if self.chars_per_token is not None and not 0 < self.chars_per_token < float("inf"):
            raise ConfigError(f"config {self.name!r}: chars_per_token must be a positive number, got {self.chars_per_token!r}")
        if self.trim_tokens_to_summarize is not None and self.trim_tokens_to_summarize <= 0:
            raise ConfigError(f"config {self.name!r}: trim_tokens_to_summarize must be positive or None")
        keep_tokens = self.keep.tokens(self.window)
        for trig in self.trigger:
            trig_tokens = trig.tokens(self.window)
            if keep_tokens is not None and trig_tokens is not None and keep_tokens >= trig_tokens:
                raise ConfigError(
                    f"config {self.name!r}: keep ({self.keep} = {keep_tokens} tokens) must be below "
                    f"the trigger ({trig} = {trig_tokens} tokens), or every summary is followed by another"
                )
        if self.summary_prompt is not None:
            from harness.compaction.prompts import validate_prompt  # local: prompts imports deepagents

            validate_prompt(self.summary_prompt, source=f"config {self.name!r}")
        from harness.compaction.strategies.names import PROVIDER_NATIVE

        if self.strategy in PROVIDER_NATIVE:  # a trigger the provider refuses is refused here, before any run
            from harness.compaction.strategies.provider_native import trigger_tokens

            trigger_tokens(self, PROVIDER_NATIVE[self.strategy])

    # -- derived views -------------------------------------------------------------
    def trigger_arg(self) -> LangChainContextSize | list[LangChainContextSize | TriggerClause]:
        """The `trigger=` argument for deepagents' and LangChain's SummarizationMiddleware."""
        if len(self.trigger) == 1:
            return self.trigger[0].as_tuple()
        clauses: list[LangChainContextSize | TriggerClause] = [t.as_tuple() for t in self.trigger]
        return clauses

    def token_counter(self) -> Any:  # noqa: ANN401 - LangChain's TokenCounter
        """The count the summarization trigger compares, per `chars_per_token` (None: the middleware's own default)."""
        if self.chars_per_token is None:
            return None
        from functools import partial

        from langchain_core.messages.utils import count_tokens_approximately

        return partial(count_tokens_approximately, chars_per_token=self.chars_per_token, use_usage_metadata_scaling=True)

    def effective_truncation(self) -> ArgTruncation:
        return self.arg_truncation or ArgTruncation(trigger=self.trigger[0], keep=self.keep)

    def trigger_tokens(self) -> int | None:
        """The lowest token threshold among the triggers (None if only message counts)."""
        values = [v for t in self.trigger if (v := t.tokens(self.window)) is not None]
        return min(values) if values else None

    def overhead_error(self, overhead_tokens: int) -> str | None:
        """The trigger at or below the fixed per-call overhead: every call would summarize, so nothing is measured.

        The same rule as ``harness audit``'s trigger-below-overhead error (`overhead_level`)."""
        trig = self.trigger_tokens()
        if trig is None or overhead_level(trig, overhead_tokens) != "error":
            return None
        return (
            f"config {self.name!r}: the trigger ({trig:,} tokens) is at or below the fixed per-call overhead "
            f"({overhead_tokens:,} tokens of tool schemas and system prompt): summarization would fire on every call. "
            f"Raise --window or the trigger (harness audit explains)"
        )

    def prompt_warning(self) -> str | None:
        """Say so when the summary prompt alone takes `PROMPT_WINDOW_SHARE` of the declared window or more: every
        summary request is the prompt plus the messages it summarizes, so such a prompt leaves them little room or
        none (a variant accepted silently before). Sizes are approximate tokens (characters / 4, deepagents' count)."""
        if self.summary_prompt is None:
            return None
        tokens = len(self.summary_prompt) // 4
        if tokens < self.window * PROMPT_WINDOW_SHARE:
            return None
        return (
            f"config {self.name!r}: the summary prompt is about {tokens:,} tokens ({len(self.summary_prompt):,} "
            f"characters), {tokens / self.window:.0%} of the declared {self.window:,}-token window: every summary request "
            "is that prompt plus the messages to summarize, so it leaves them "
            + ("no room at all" if tokens >= self.window else "little room")
            + ". Shorten the prompt or raise --window"
        )

    def overhead_warning(self, overhead_tokens: int) -> str | None:
        """Say so when the trigger is not well above the fixed per-call overhead."""
        trig = self.trigger_tokens()
        if trig is None:
            return None
        if overhead_level(trig, overhead_tokens) == "warning":
            return (
                f"trigger {trig} tokens ({', '.join(map(str, self.trigger))} of a {self.window}-token window) is not "
                f"well above the fixed per-call overhead of {overhead_tokens} tokens (tool schemas and system prompt): "
                f"summarization will fire on almost every call. Raise --window (>= "
                f"{int(overhead_tokens * OVERHEAD_MARGIN / (trig / self.window)) + 1} tokens) or the trigger."
            )
        return None

    def with_overrides(
        self,
        *,
        trigger: list[ContextSize] | None = None,
        keep: ContextSize | None = None,
        window: int | None = None,
        strategy: str | None = None,
        custom_strategy: str | None = None,
    ) -> CompactionConfig:
        changes: dict[str, Any] = {}
        if strategy is not None and strategy != self.strategy:
            changes["strategy"] = strategy
        if custom_strategy is not None:
            changes["custom_strategy"] = custom_strategy
        if trigger:
            changes["trigger"] = tuple(trigger)
        if keep is not None:
            changes["keep"] = keep
        if window is not None:
            changes["window"] = window
        if not changes:
            return self
        sized = any(k in changes for k in ("trigger", "keep", "window"))
        return replace(self, name=f"{self.name}+custom" if sized else self.name, **changes)

    def label(self) -> str:
        trig = " or ".join(map(str, self.trigger))
        clip = self.arg_truncation
        clipping = f"; write/edit args clipped from {clip.trigger}, keep {clip.keep}" if clip else ""
        strategy = "" if self.strategy == DEFAULT_STRATEGY else f"strategy {self.strategy}; "
        return f"{self.name} ({strategy}trigger {trig}, keep {self.keep}{clipping}, window {self.window})"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.strategy == DEFAULT_STRATEGY:
            # Absent under the default strategy, so results and config hashes written before strategies existed
            # still match (a resumed experiment compares them).
            for key in ("strategy", "mask_keep", "custom_strategy"):
                data.pop(key)
        if self.human_eviction_tokens == DEEPAGENTS_HUMAN_EVICTION_TOKENS:  # absent at deepagents' default: older hashes match
            data.pop("human_eviction_tokens")
        for key in ("offload_binary", "compact_tool", "chars_per_token"):  # absent when off: earlier hashes stay as they were
            if not data[key]:
                data.pop(key)
        data["trigger"] = [list(t.as_tuple()) for t in self.trigger]
        data["keep"] = list(self.keep.as_tuple())
        trunc = self.effective_truncation()
        data["arg_truncation"] = {
            **trunc.to_settings(),
            "trigger": list(trunc.trigger.as_tuple()),
            "keep": list(trunc.keep.as_tuple()),
        }
        # The prompt text can be long; results carry its name and a short hash.
        data.pop("summary_prompt")
        from harness.compaction.prompts import prompt_fingerprint

        data["summary_prompt_sha"] = prompt_fingerprint(self.summary_prompt)
        return data


def overhead_level(trigger_tokens: int, overhead_tokens: int) -> str | None:
    """'error' for a trigger at or below the fixed per-call overhead, 'warning' below twice it, else None."""
    if trigger_tokens <= overhead_tokens:
        return "error"
    if trigger_tokens < overhead_tokens * OVERHEAD_MARGIN:
        return "warning"
    return None


SESSION_TRIGGER_MARGIN = 0.98
"""A session case's window puts its trigger this share of the first call below it (`session_window`): the call is
measured with the same counter deepagents compares, and the margin keeps a rounding difference from missing it."""


WINDOW_SAID = "a session case's window is chosen for its cut (its row says which)"
"""What a run's first line (`harness.runs.run`), its report and its chart titles add to the config they name when a session case ran: the
window they name is the arm's, not the one a session case ran on."""


def session_window(config: CompactionConfig, first_call_tokens: int) -> int | None:
    """The declared window of a session case (a recorded session continued from its cut): the window at which the
    arm's trigger fires at the first call after the cut, whose request counts ``first_call_tokens`` as the trigger
    counts it. The one rule: ``window = floor(first_call_tokens x SESSION_TRIGGER_MARGIN / f)`` for the arm's lowest
    fraction trigger ``f`` (the one that fires first as the context grows), so every fraction trigger is at or below
    the first call and the keep stays the arm's share. None when the arm has no fraction trigger (tokens or messages:
    they fire at the cut or not, whatever the window, and the arm's window is kept) or when the window would fall
    below `MIN_WINDOW` (the session is shorter than the trigger: the case runs on the arm's window and is INVALID with
    the reason)."""
    fractions = [float(t.value) for t in config.trigger if t.unit == "fraction"]
    if not fractions:
        return None
    window = int(first_call_tokens * SESSION_TRIGGER_MARGIN / min(fractions))
    return window if window >= MIN_WINDOW else None


def control_window(config: CompactionConfig, needed_tokens: int) -> int:
    """The declared window of a session case's full-context control arm: room for the prefix and the probes
    (``needed_tokens``) twice over, and never below the arm's own window."""
    return max(config.window, 2 * needed_tokens, MIN_WINDOW)


def quarter_keep(trigger: Sequence[ContextSize]) -> ContextSize:
    """The keep of a trigger that names none, the shipped forced presets' rule (and an experiment threshold's
    default): a quarter of the lowest trigger of the first unit it uses (fraction, then tokens, then messages; a count
    at least 2). Raises ConfigError for an empty trigger."""
    for unit in ("fraction", "tokens", "messages"):
        sizes = [s for s in trigger if s.unit == unit]
        if sizes:
            low = min(float(s.value) for s in sizes)
            if unit == "fraction":
                return ContextSize("fraction", round(low / 4, 6))
            return ContextSize(unit, max(2, int(low // 4)))
    raise ConfigError("a threshold needs at least one size")


DEEPAGENTS_TRIGGER = ContextSize("fraction", 0.85)
DEEPAGENTS_KEEP = ContextSize("fraction", 0.10)
DEEPAGENTS_NO_PROFILE_TRIGGER = ContextSize("tokens", 170_000)
DEEPAGENTS_NO_PROFILE_KEEP = ContextSize("messages", 6)
"""deepagents' own summarization defaults (``compute_summarization_defaults``), for a model with a profile and for one
without: stated once here, for the presets that keep summarization out of the way and for `harness audit`."""


def _forced(percent: int) -> CompactionConfig:
    trigger = (ContextSize("fraction", percent / 100),)
    return CompactionConfig(name=f"forced-{percent}", trigger=trigger, keep=quarter_keep(trigger))


PRESETS: dict[str, CompactionConfig] = {
    **{f"forced-{p}": _forced(p) for p in (10, 15, 20, 25)},
    # Token skew: a 40k window, trigger at 90 %. Numbers count more than the estimate says,
    # so the true size can pass the window while the approximate count is under the trigger.
    "tokens": CompactionConfig(
        name="tokens",
        trigger=(ContextSize("fraction", 0.90),),
        keep=ContextSize("fraction", 0.10),
        window=40_000,
    ),
    # Eviction in isolation: summarization out of the way, every tool result over 1,000
    # tokens (4,000 characters) offloaded to /large_tool_results/.
    "eviction": CompactionConfig(
        name="eviction",
        trigger=(DEEPAGENTS_TRIGGER,),
        keep=DEEPAGENTS_KEEP,
        eviction_tokens=1000,
    ),
    # Pasted content: forced-20 summarization, and a user message over 1,500 tokens (6,000 characters) saved to
    # /conversation_history/ and replaced by a notice (deepagents' own setting, 50,000 tokens by default, scaled down).
    "pasted": CompactionConfig(
        name="pasted",
        trigger=(ContextSize("fraction", 0.20),),
        keep=ContextSize("fraction", 0.05),
        human_eviction_tokens=1500,
    ),
    # Argument truncation in isolation: summarization out of the way (85 %), old write_file /
    # edit_file arguments over 2,000 characters clipped from 10 % of the window, keeping the
    # most recent 2.5 % (1,600 tokens) whole. (deepagents' own defaults tie both to 85 %.)
    "truncation": CompactionConfig(
        name="truncation",
        trigger=(DEEPAGENTS_TRIGGER,),
        keep=DEEPAGENTS_KEEP,
        arg_truncation=ArgTruncation(trigger=ContextSize("fraction", 0.10), keep=ContextSize("fraction", 0.025)),
    ),
    # Media (issue 20): summaries by message count (the compact_conversation tool is allowed from half the trigger,
    # measured without provider usage only for a message trigger), the compact tool in the stack; "media-blobs" also
    # offloads binary read_file results to /blobs/ and rehydrates them on every request.
    "media": CompactionConfig(
        name="media", trigger=(ContextSize("messages", 14),), keep=ContextSize("messages", 6), compact_tool=True
    ),
    "media-blobs": CompactionConfig(
        name="media-blobs",
        trigger=(ContextSize("messages", 14),),
        keep=ContextSize("messages", 6),
        compact_tool=True,
        offload_binary=True,
    ),
    # Token estimates (the estimate eval, issue 34): deepagents' own trigger and keep on a 16k window, so its cases pass
    # the trigger by the approximate count at about their seventh document of 1,500 approximate tokens.
    "estimate": CompactionConfig(name="estimate", trigger=(DEEPAGENTS_TRIGGER,), keep=DEEPAGENTS_KEEP, window=16_000),
    # deepagents' own defaults for a model with a profile, for comparison.
    "deepagents-85": CompactionConfig(
        name="deepagents-85",
        trigger=(DEEPAGENTS_TRIGGER,),
        keep=DEEPAGENTS_KEEP,
    ),
    # A subagent and its parent (issue 34, the parent eval): the parent summarizes at its 19th message, the call right
    # after its 8 own fetches and one delegated task (1 + 2 x 9 messages), keeping 1 message, so the cut falls on the
    # task's result and deepagents' safe cutoff must move it back to the task call; or at half the window, which is
    # how a subagent declared with a smaller window (`SUBAGENT_WINDOW`, the parent eval's) compacts inside it.
    "parent": CompactionConfig(
        name="parent",
        trigger=(ContextSize("messages", 19), ContextSize("fraction", 0.5)),
        keep=ContextSize("messages", 1),
    ),
}
DEFAULT_PRESET = "forced-20"


def get_preset(name: str) -> CompactionConfig:
    """The threshold preset ``name`` (`PRESETS`). Raises ConfigError naming the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown variant {name!r}; known: {', '.join(sorted(PRESETS))}") from None
