"""Which strategies exist, by name, without importing any: the built-in ones and those installed packages add.

A package adds a strategy through the entry-point group ``compaction_harness.strategies``: the entry point's name is
the strategy's name and its object satisfies `harness.compaction.strategies.base.Strategy` (a module or an object
with ``INFO`` and ``build``). For example, in the package's pyproject.toml::

    [project.entry-points."compaction_harness.strategies"]
    action-masking = "mypkg.masking"

Names are read from the installed metadata only (nothing is imported here), so a config can check a strategy's name
without loading middleware; `harness.compaction.strategies.registry` loads a strategy when it is built or described.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points

from harness.compaction.strategies.provider_native import ANTHROPIC_MIN_TRIGGER
from harness.errors import ConfigError

GROUP = "compaction_harness.strategies"
DEFAULT_STRATEGY = "deepagents-summarization"  # a config's strategy unless it names one (`CompactionConfig.strategy`)
BUILTIN: dict[str, str] = {  # name -> module, in the order docs/strategies.md's table and `harness run --help` list them
    "deepagents-summarization": "harness.compaction.strategies.deepagents_summarization",
    "langchain-summarization": "harness.compaction.strategies.langchain_summarization",
    "observation-masking": "harness.compaction.strategies.observation_masking",
    "sliding-window": "harness.compaction.strategies.sliding_window",
    "hybrid": "harness.compaction.strategies.hybrid",
    "none": "harness.compaction.strategies.none",
    "summary-reinject": "harness.compaction.strategies.summary_reinject",
    "anthropic-compaction": "harness.compaction.strategies.anthropic_compaction",
    "anthropic-context-editing": "harness.compaction.strategies.anthropic_context_editing",
    "openai-compaction": "harness.compaction.strategies.openai_compaction",
    "custom": "harness.compaction.strategies.custom",
}
PROVIDER_NATIVE: dict[str, int] = {  # the provider-native strategies -> the lowest trigger (input tokens) the provider takes
    "anthropic-compaction": ANTHROPIC_MIN_TRIGGER,  # compact_20260112
    "anthropic-context-editing": 0,
    "openai-compaction": 0,  # none documented
}


def builtin_said() -> str:
    """The built-in strategies as a help text or a schema's description lists them, from `BUILTIN` in its order: the
    default marked, the provider-native ones apart, ``custom`` as the ``module:function`` it is written as."""
    own = [f"{n} (default)" if n == DEFAULT_STRATEGY else n for n in BUILTIN if n not in PROVIDER_NATIVE and n != "custom"]
    *native, last = [n for n in BUILTIN if n in PROVIDER_NATIVE]
    return (
        f"{', '.join(own)}, the provider-native {', '.join(native)} and {last} (docs/strategies.md), or module:function (custom)"
    )


@lru_cache(maxsize=1)
def installed() -> dict[str, EntryPoint]:
    """The strategies installed packages declare, by name (sorted). Raises ConfigError for one that takes a built-in
    strategy's name or that two packages declare: which one runs would depend on install order."""
    found: dict[str, EntryPoint] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value)):
        where = f"entry point {ep.name!r} = {ep.value!r} (group {GROUP})"
        if ep.name in BUILTIN:
            raise ConfigError(f"{where}: {ep.name!r} is a built-in strategy; give the package's strategy another name")
        if ep.name in found and found[ep.name].value != ep.value:
            raise ConfigError(f"{where}: {ep.name!r} is also declared as {found[ep.name].value!r}; rename one")
        found[ep.name] = ep
    return found


RUNTIME: dict[str, object] = {}  # strategies registered in this process (`registry.register`: the pytest plugin's)


def strategy_names() -> tuple[str, ...]:
    """Every strategy a config may name: the built-in ones, the installed ones, then those registered at run time."""
    return (*BUILTIN, *installed(), *(n for n in RUNTIME if n not in BUILTIN))
