"""The strategies by name (`names.strategy_names`), each loaded when it is first built or described.

A built-in strategy is a module of this package (`names.BUILTIN`); an installed one comes from the entry-point group
``compaction_harness.strategies``. Either satisfies `base.Strategy`: an ``INFO`` (`base.StrategyInfo`, whose name is
the strategy's) and a ``build``. Adding a built-in strategy is its module plus one line in `names.BUILTIN`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from harness.compaction.strategies.base import Strategy, StrategyInfo, StrategyStack
from harness.compaction.strategies.names import BUILTIN, RUNTIME, installed, strategy_names
from harness.errors import ConfigError


@cache
def load(name: str) -> Strategy:
    """The strategy ``name``. Raises KeyError for a name no strategy has; ConfigError for an installed one that does
    not import or does not satisfy `base.Strategy` (naming its entry point)."""
    if name in BUILTIN:
        loaded: object = importlib.import_module(BUILTIN[name])
        where = BUILTIN[name]
    elif name in RUNTIME:
        loaded, where = RUNTIME[name], f"strategy registered as {name!r}"
    else:
        ep = installed().get(name)
        if ep is None:
            raise KeyError(name)
        where = f"entry point {ep.name!r} = {ep.value!r}"
        try:
            loaded = ep.load()
        except Exception as exc:  # noqa: BLE001 - whatever the package raised on import, name the entry point
            raise ConfigError(f"strategy {name!r}: {where} does not load ({type(exc).__name__}: {exc})") from None
    info = getattr(loaded, "INFO", None)
    if not isinstance(info, StrategyInfo) or not callable(getattr(loaded, "build", None)):
        raise ConfigError(f"strategy {name!r}: {where} has no INFO (a StrategyInfo) and build(config, model, ...)")
    if info.name != name:
        raise ConfigError(f"strategy {name!r}: {where} describes itself as {info.name!r}; the names must agree")
    return loaded  # type: ignore[return-value]  # checked structurally above


def register(spec: str) -> str:
    """Register ``module:attr`` for this process and return its strategy name: an object or module with ``INFO`` and
    ``build`` (its INFO's name), or a factory ``make(config, model, *, backend, summarizer) -> StrategyStack`` (named
    ``module.attr``, its recovery unknown). Raises ConfigError when it does not import or is neither."""
    from harness.user_code import import_user_module, load_callable

    module_name, _, attr = spec.partition(":")
    module = import_user_module(module_name, spec, "strategy")
    try:
        target: Any = getattr(module, attr) if attr else module
    except AttributeError as exc:
        raise ConfigError(f"strategy {spec!r}: cannot import it ({type(exc).__name__}: {exc})") from None
    if isinstance(getattr(target, "INFO", None), StrategyInfo) and callable(getattr(target, "build", None)):
        name = target.INFO.name
    else:
        make = load_callable(spec, source="strategy")
        name = spec.replace(":", ".")  # a name, not module:function (which --strategy reads as a messages function)
        target = _Factory(
            StrategyInfo(
                name,
                f"{spec}, a middleware factory",
                "unknown: whatever its middleware keeps",
                None,
                False,
                ("summary", "mask", "trim"),
            ),
            make,
        )
    if name in BUILTIN or name in installed():
        raise ConfigError(f"strategy {spec!r}: its name {name!r} is taken by another strategy")
    RUNTIME[name] = target
    load.cache_clear()
    return name


class _Factory:
    """A middleware factory as a `Strategy`: its INFO, and its function as ``build``."""

    def __init__(self, info: StrategyInfo, make: Any) -> None:
        self.INFO = info
        self._make = make

    def build(self, config: Any, model: Any, *, backend: Any, summarizer: Any = None) -> StrategyStack:
        stack = self._make(config, model, backend=backend, summarizer=summarizer)
        if not isinstance(stack, StrategyStack):
            raise ConfigError(f"strategy {self.INFO.name!r}: its factory returned {type(stack).__name__}, not a StrategyStack")
        return stack


class _Infos(Mapping[str, StrategyInfo]):
    """``INFO[name]``: a strategy's description, loading the strategy on first use."""

    def __getitem__(self, name: str) -> StrategyInfo:
        return load(name).INFO

    def __iter__(self) -> Iterator[str]:
        return iter(strategy_names())

    def __len__(self) -> int:
        return len(strategy_names())


INFO: Mapping[str, StrategyInfo] = _Infos()
NAMES = tuple(BUILTIN)  # the built-in strategies; `names.strategy_names()` adds the installed ones
