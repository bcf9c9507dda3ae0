"""``harness audit``: catch the known compaction-configuration traps before a run.

For a ``provider:name`` model (and optional --trigger / --keep / --window) it prints the
effective trigger and keep in tokens, as deepagents will resolve them, and flags:

- no-profile (warning): the installed provider package has no profile for this exact
  name, so deepagents silently falls back to a 170,000-token trigger and a 6-message
  keep (close names that do have a profile are suggested: gpt-5-2 -> gpt-5.2);
- fraction-without-profile (error): a fraction trigger or keep with no profile and no
  declared window fails when the middleware is built;
- profile-zero-window (error): the profile declares max_input_tokens <= 0, so a fraction
  trigger resolves to 1 token and summarizes on every call;
- profile-exceeds-catalogue (warning): the profile's window is larger than the limit in
  the second catalogue (``datasets/model_limits.yaml``), so a fraction trigger can sit
  beyond what the API accepts (said when the catalogue has no entry);
- trigger-below-overhead (error at or below the fixed tool and system-prompt overhead,
  warning below twice it), measured on the real deep agent;
- keep-at-or-above-trigger (error); trigger-above-window (warning).

`compactor_findings` checks a compactor's built stack the same way (`harness check` runs it before the evals): a
summarization middleware whose ``model`` has no window while its trigger or keep is a fraction (the summarizer passed
as ``model``), and one left at the class default ``trim_tokens_to_summarize=4000`` (deepagents' factory passes None).

Exit code 0 clean, 1 warnings, 2 errors. The model is built with ``init_chat_model``;
when the provider's key is absent a placeholder is passed for construction only (no
request is ever sent) and never printed.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from typing import Any

from harness._paths import DATASETS_DIR
from harness._yaml import load_yaml
from harness.agent.models import PROVIDER_KEYS, Endpoint
from harness.compaction.config import (
    DEEPAGENTS_KEEP,
    DEEPAGENTS_NO_PROFILE_KEEP,
    DEEPAGENTS_NO_PROFILE_TRIGGER,
    DEEPAGENTS_TRIGGER,
    CompactionConfig,
    ContextSize,
    overhead_level,
)
from harness.errors import ConfigError

LIMITS_FILE = DATASETS_DIR / "model_limits.yaml"
NO_PROFILE_TRIGGER, NO_PROFILE_KEEP = int(DEEPAGENTS_NO_PROFILE_TRIGGER.value), int(DEEPAGENTS_NO_PROFILE_KEEP.value)
ERROR, WARNING, INFO = "error", "warning", "info"


@dataclass(frozen=True)
class Finding:
    level: str
    code: str
    message: str


@dataclass
class AuditReport:
    model: str
    profile_window: int | None
    window: int | None
    trigger: list[str]
    keep: str
    overhead_tokens: int | None
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        levels = {f.level for f in self.findings}
        return 2 if ERROR in levels else 1 if WARNING in levels else 0

    def render(self) -> str:
        lines = [
            f"model: {self.model}",
            f"profile max_input_tokens: {self.profile_window if self.profile_window is not None else 'none'}",
            f"window used for fractions: {self.window if self.window is not None else 'none'}",
            f"effective trigger: {', '.join(self.trigger)}",
            f"effective keep: {self.keep}",
            "fixed per-call overhead (system prompt + tool schemas): "
            + (f"{self.overhead_tokens:,} tokens" if self.overhead_tokens is not None else "not measured (no window)"),
        ]
        if not self.findings:
            lines.append("no problems found")
        for f in self.findings:
            lines.append(f"{f.level.upper()} [{f.code}] {f.message}")
        return "\n".join(lines)


def catalogue() -> dict[str, dict[str, Any]] | None:
    if not LIMITS_FILE.exists():
        return None
    data = load_yaml(LIMITS_FILE.read_text(encoding="utf-8"), str(LIMITS_FILE)) or {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def build_model(spec: str):  # noqa: ANN201
    """The chat model as deepagents would get it, without sending anything."""
    from langchain.chat_models import init_chat_model

    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"model {spec!r}: write provider:name, e.g. openai:gpt-5.2")
    kwargs: dict[str, Any] = {}
    keys = PROVIDER_KEYS.get(provider, ())
    if keys and not any(os.environ.get(k) for k in keys):
        kwargs["api_key"] = "audit-placeholder-not-sent"
    try:
        return init_chat_model(spec, **kwargs)
    except ImportError as exc:
        raise ConfigError(f"model {spec!r}: the provider package is not installed ({exc})") from None


def _profile_names(provider: str) -> list[str]:
    import importlib

    module = {
        "openai": "langchain_openai.data._profiles",
        "anthropic": "langchain_anthropic.data._profiles",
        "google_genai": "langchain_google_genai.data._profiles",
    }.get(provider)
    if module is None:
        return []
    try:
        return list(importlib.import_module(module)._PROFILES)
    except (ImportError, AttributeError):
        return []


def _size_text(size: ContextSize, window: int | None) -> str:
    tokens = size.tokens(window) if window is not None or size.unit != "fraction" else None
    if size.unit == "messages":
        return f"{int(size.value)} messages"
    if tokens is None:
        return f"{size} (unresolvable: no window)"
    return f"{tokens:,} tokens ({size})"


SERVED_TIMEOUT_S = 10.0


def served_context_length(base_url: str, model_name: str) -> tuple[int | None, str]:
    """(context length, where it came from) from an OpenAI-compatible server's ``GET /models`` where the server
    reports one (vLLM's ``max_model_len``; also ``context_length``, ``context_window``), else (None, why not)."""
    import json
    import urllib.error
    import urllib.request

    url = base_url.rstrip("/") + "/models"
    headers = {}
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=SERVED_TIMEOUT_S) as response:
            data = json.load(response)
    except (OSError, urllib.error.URLError, ValueError) as exc:
        from harness.redact import redact

        return None, f"{url} did not answer usefully ({type(exc).__name__}: {redact(str(exc))[:120]})"
    entries = data.get("data", []) if isinstance(data, dict) else []
    entry = next((e for e in entries if isinstance(e, dict) and e.get("id") == model_name), None)
    if entry is None:
        served = ", ".join(str(e.get("id")) for e in entries[:10] if isinstance(e, dict))
        return None, f"{url} does not list {model_name!r} (it serves: {served or 'nothing'})"
    for key_name in ("max_model_len", "context_length", "context_window", "max_context_length"):
        value = entry.get(key_name)
        if isinstance(value, int) and value > 0:
            return value, f"{url}: {key_name}"
    return None, f"{url} reports no context length for {model_name!r}"


def audit(
    spec: str,
    *,
    trigger: list[str] | None = None,
    keep: str | None = None,
    window: int | str | None = None,
    measure_overhead: bool = True,
    base_url: str | None = None,
) -> AuditReport:
    """Model ``spec``'s compaction settings checked for the known traps (no profile for the exact name, a window above
    the served length, a trigger under the fixed overhead, keep at or above the trigger, fractions without a profile)."""
    from deepagents.middleware.summarization import compute_summarization_defaults

    model = build_model(spec)
    profile = model.profile if isinstance(model.profile, dict) else None
    profile_window = profile.get("max_input_tokens") if profile else None
    has_profile = isinstance(profile_window, int) and not isinstance(profile_window, bool)
    declared = int(window) if window is not None else None
    effective_window = declared if declared is not None else (profile_window if has_profile else None)
    findings: list[Finding] = []

    if not has_profile:
        provider, _, name = spec.partition(":")
        close = difflib.get_close_matches(name, _profile_names(provider), n=3, cutoff=0.75)
        hint = f"; profiled names close to it: {', '.join(close)}" if close else ""
        findings.append(
            Finding(
                WARNING,
                "no-profile",
                f"the installed provider package has no profile for {spec!r}: deepagents falls back to a "
                f"{NO_PROFILE_TRIGGER:,}-token trigger and a {NO_PROFILE_KEEP}-message keep, whatever the model's "
                f"real window{hint}",
            )
        )
    elif profile_window is None or profile_window <= 0:
        findings.append(
            Finding(
                ERROR,
                "profile-zero-window",
                f"the profile of {spec!r} declares max_input_tokens={profile_window}: a fraction trigger resolves "
                "to 1 token and summarizes on every call",
            )
        )

    if trigger or keep:
        triggers = (
            [ContextSize.parse(t) for t in trigger]
            if trigger
            else [DEEPAGENTS_TRIGGER if has_profile else DEEPAGENTS_NO_PROFILE_TRIGGER]
        )
        keep_size = ContextSize.parse(keep) if keep else (DEEPAGENTS_KEEP if has_profile else DEEPAGENTS_NO_PROFILE_KEEP)
    else:
        defaults = compute_summarization_defaults(model)
        triggers = [ContextSize.parse(defaults["trigger"])]
        keep_size = ContextSize.parse(defaults["keep"])

    uses_fraction = any(t.unit == "fraction" for t in triggers) or keep_size.unit == "fraction"
    if uses_fraction and effective_window is None:
        findings.append(
            Finding(
                ERROR,
                "fraction-without-profile",
                "a fraction trigger or keep needs the model's window, and there is no profile and no --window: "
                "deepagents raises ValueError when the middleware is built",
            )
        )

    limits = catalogue()
    if profile_window is not None and has_profile and profile_window > 0:
        if limits is None:
            findings.append(
                Finding(
                    INFO,
                    "no-catalogue",
                    "no second catalogue of model limits is available offline "
                    f"({LIMITS_FILE.name} is missing): the profile's window is not cross-checked",
                )
            )
        elif spec not in limits:
            findings.append(
                Finding(
                    INFO,
                    "not-in-catalogue",
                    f"{spec!r} is not in {LIMITS_FILE.name}: the profile's window ({profile_window:,}) is not cross-checked",
                )
            )
        else:
            real = int(limits[spec]["max_input_tokens"])
            if profile_window > real:
                trig_tokens = [t.tokens(effective_window) for t in triggers if t.unit == "fraction"]
                beyond = [t for t in trig_tokens if t is not None and t > real]
                findings.append(
                    Finding(
                        WARNING,
                        "profile-exceeds-catalogue",
                        f"the profile says {profile_window:,} input tokens but {LIMITS_FILE.name} says {real:,}"
                        + (f" ({limits[spec]['note']})" if limits[spec].get("note") else "")
                        + (
                            f": the trigger ({beyond[0]:,} tokens) is beyond what the API accepts, so only the "
                            "overflow fallback will ever compress"
                            if beyond
                            else ""
                        ),
                    )
                )

    if base_url:
        served, source = served_context_length(base_url, spec.partition(":")[2])
        if served is None:
            findings.append(Finding(INFO, "served-length-unknown", source))
        elif effective_window is not None and effective_window > served:
            findings.append(
                Finding(
                    WARNING,
                    "window-exceeds-served-length",
                    f"the declared window ({effective_window:,} tokens) is above the context length the server "
                    f"reports ({served:,}, {source}): requests between the two are rejected before deepagents "
                    "would summarize; declare --window " + str(served),
                )
            )
        else:
            findings.append(Finding(INFO, "served-length", f"the server reports a context length of {served:,} ({source})"))

    overhead = None
    if measure_overhead and effective_window is not None:
        from harness.agent.preflight import fixed_overhead_tokens

        # The overhead does not depend on the window; a large one keeps deepagents' budget guard out of the probe.
        probe = CompactionConfig(
            name="audit", trigger=(ContextSize("fraction", 0.5),), keep=ContextSize("fraction", 0.1), window=1_000_000
        )
        overhead = fixed_overhead_tokens(probe)
    window_for_checks = effective_window if effective_window and effective_window > 0 else None
    resolved: list[int] = []
    for t in triggers:
        n = t.tokens(window_for_checks) if t.unit != "messages" else None
        if n is not None:
            resolved.append(n)
    low = min(resolved) if resolved else None
    if low is not None and overhead is not None:
        level = overhead_level(low, overhead)
        if level == "error":
            findings.append(
                Finding(
                    ERROR,
                    "trigger-below-overhead",
                    f"the trigger ({low:,} tokens) is at or below the fixed per-call overhead ({overhead:,} tokens of "
                    "tool schemas and system prompt): summarization fires on every call",
                )
            )
        elif level == "warning":
            findings.append(
                Finding(
                    WARNING,
                    "trigger-below-overhead",
                    f"the trigger ({low:,} tokens) is less than twice the fixed per-call overhead ({overhead:,} "
                    "tokens): most of the budget is spent before the conversation starts",
                )
            )
    keep_tokens = (
        keep_size.tokens(window_for_checks)
        if keep_size.unit == "tokens" or (keep_size.unit == "fraction" and window_for_checks)
        else None
    )
    if keep_tokens is not None and low is not None and keep_tokens >= low:
        findings.append(
            Finding(
                ERROR,
                "keep-at-or-above-trigger",
                f"keep ({keep_tokens:,} tokens) is at or above the trigger ({low:,} tokens): every summary "
                "leaves the conversation at the trigger, so the next call summarizes again",
            )
        )
    if low is not None and window_for_checks is not None and low > window_for_checks:
        findings.append(
            Finding(
                WARNING,
                "trigger-above-window",
                f"the trigger ({low:,} tokens) is above the window ({window_for_checks:,}): only the overflow "
                "fallback will compress",
            )
        )
    return AuditReport(
        model=spec,
        profile_window=profile_window if has_profile else None,
        window=effective_window,
        trigger=[_size_text(t, window_for_checks) for t in triggers],
        keep=_size_text(keep_size, window_for_checks),
        overhead_tokens=overhead,
        findings=findings,
    )


# deepagents' SummarizationMiddleware (and LangChain's) default trim_tokens_to_summarize; deepagents' own factory,
# create_summarization_middleware, passes None (tests/agent/test_audit_compactor.py checks both against the pinned release).
TRIM_CLASS_DEFAULT = 4000
_PROFILE_ERROR = "Model profile information is required to use fractional token limits"


def _has_fraction(size: Any) -> bool:
    """A summarization trigger or keep (a ("fraction", x) tuple, a {"fraction": x, ...} clause, or a list of them)
    that names a fraction of the window."""
    if isinstance(size, list):
        return any(_has_fraction(s) for s in size)
    if isinstance(size, dict):
        return "fraction" in size
    return isinstance(size, tuple) and bool(size) and size[0] == "fraction"


def _summarizations(stack: Any) -> list[Any]:
    """The summarization middleware of a built stack (deepagents' or LangChain's class), each once, as the LangChain
    object that holds the settings (deepagents' class keeps them in its LangChain helper)."""
    from langchain.agents.middleware import SummarizationMiddleware

    found: dict[int, Any] = {}
    for mw in [stack.slot, *stack.inner, stack.summarization]:
        helper = getattr(mw, "_lc_helper", mw)
        if isinstance(helper, SummarizationMiddleware):
            found.setdefault(id(helper), helper)
    return list(found.values())


def _model_without_window() -> Finding:
    return Finding(
        ERROR,
        "summarization-model-without-window",
        "the compactor's SummarizationMiddleware was given a `model` with no profile window (max_input_tokens) while "
        "its trigger or keep is a fraction, so deepagents cannot size it (LangChain raises: "
        f"{_PROFILE_ERROR!r}). `model` is the model whose window the fractions are of: the agent model. This is what "
        "passing the summary model as `model` does. Fix: pass the `model` your build/make receives as model= and the "
        "summary model as summarizer= (deepagents calls it to write the summaries).",
    )


def stack_findings(stack: Any, config: CompactionConfig) -> list[Finding]:
    """The traps of a compactor's built stack (`StrategyStack`): per summarization middleware in it, a ``model``
    without a window under a fraction trigger or keep, a ``model`` whose window is not the run's, and the class default
    ``trim_tokens_to_summarize`` left where the config asks for something else."""
    findings: list[Finding] = []
    for mw in _summarizations(stack):
        profile = getattr(mw.model, "profile", None)
        window = profile.get("max_input_tokens") if isinstance(profile, dict) else None
        if not isinstance(window, int) and (_has_fraction(mw.trigger) or _has_fraction(mw.keep)):
            findings.append(_model_without_window())
        elif isinstance(window, int) and window != config.window:
            findings.append(
                Finding(
                    WARNING,
                    "summarization-model-window",
                    f"the compactor's SummarizationMiddleware sizes its trigger and keep against a window of "
                    f"{window:,} tokens, not the run's {config.window:,}: its `model` is not the agent model (the "
                    "summary model passed as `model`?). Fix: pass the `model` your build/make receives as model= and "
                    "the summary model as summarizer=.",
                )
            )
        if mw.trim_tokens_to_summarize == TRIM_CLASS_DEFAULT and config.trim_tokens_to_summarize != TRIM_CLASS_DEFAULT:
            findings.append(
                Finding(
                    WARNING,
                    "trim-tokens-class-default",
                    f"the compactor's SummarizationMiddleware keeps the class default trim_tokens_to_summarize="
                    f"{TRIM_CLASS_DEFAULT}: only the last {TRIM_CLASS_DEFAULT:,} tokens of the history being summarized "
                    "reach the summarizer, so the task and everything before them are left out of every summary "
                    "(goal cases lose the task). deepagents' own factory, create_summarization_middleware, passes None. "
                    "Fix: pass trim_tokens_to_summarize=None (or config.trim_tokens_to_summarize, None unless a variant sets it).",
                )
            )
    return findings


def compactor_findings(
    strategy: str | None,
    *,
    model: str | None = None,
    summary_model: str | None = None,
    endpoints: tuple[Endpoint, Endpoint] | None = None,
) -> list[Finding]:
    """Build ``strategy``'s stack as `harness check` runs it (the default preset; the offline reference models unless
    ``model``, at ``endpoints``: the run's, so a server without auth needs no key here either) and return
    `stack_findings` on it. A build that fails on a fraction with no profile window is the summarizer-as-model finding;
    a build that fails otherwise gives none here (the run reports it, as before)."""
    from deepagents.backends import StateBackend

    from harness.agent.models import choose_models, summary_model_for
    from harness.compaction.config import DEFAULT_PRESET
    from harness.compaction.strategies.base import with_window
    from harness.compaction.strategies.registry import load
    from harness.compaction.variants import make_config

    config = make_config(DEFAULT_PRESET, strategy=strategy)
    agent_endpoint, summary_endpoint = endpoints or (None, None)
    models = choose_models(
        model,
        summary_model_for(config.summary_model, summary_model),
        window=config.window,
        agent_endpoint=agent_endpoint,
        summary_endpoint=summary_endpoint,
    )
    agent = with_window(models.agent, config.window)
    try:
        stack = load(config.strategy).build(config, agent, backend=StateBackend(), summarizer=models.summarizer)
    except ValueError as exc:
        if _PROFILE_ERROR in str(exc):
            return [_model_without_window()]
        return []
    except Exception:  # noqa: BLE001 - any other failure is the run's to report, as it was before this check
        return []
    return stack_findings(stack, config)
