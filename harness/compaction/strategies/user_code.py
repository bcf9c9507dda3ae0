"""A user's ``module:attr`` (a strategy, a middleware factory, a messages function), imported and named in any error.

The standard library and `harness.errors` only: `--strategy module:function`, `harness check --strategy MODULE:ATTR`
and `pytest --compaction-strategy` read the user's code before the early checks (`harness.runs.early`) without
importing langchain themselves (tests/cli/test_startup.py); the user's module imports what it needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from harness.errors import ConfigError


def import_user_module(module_name: str, spec: str, source: str) -> Any:
    """The module a ``module:attr`` names, imported. Whatever it raises on import (ImportError, or its own error:
    a RuntimeError, a SyntaxError) is the user's input failing, so a ConfigError naming ``source`` and the exception,
    never a traceback (`harness run`, `harness check` and `pytest --compaction-strategy` alike)."""
    try:
        return importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module may raise anything at import
        detail = str(exc) if isinstance(exc, ImportError) else f"{type(exc).__name__}: {exc}"
        raise ConfigError(f"{source} {spec!r}: cannot import {module_name!r} ({detail})") from None


def load_callable(spec: str, *, source: str = "custom_strategy") -> Callable[..., Any]:
    """``module:function``, imported; a clear error naming the option otherwise."""
    module_name, sep, attr = (spec or "").partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{source} {spec!r}: write module:function")
    module = import_user_module(module_name, spec, source)
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ConfigError(f"{source} {spec!r}: {module_name} has no callable {attr!r}")
    return fn
