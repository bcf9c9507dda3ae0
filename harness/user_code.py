"""A user's ``MODULE:ATTR`` (a strategy, a middleware factory, a messages function, an agent factory), imported by one
rule, and named in any error.

The rule: the module is imported the way Python finds it (an installed package, ``PYTHONPATH``), with the working
directory searched last when it is not on ``sys.path`` already (a console script's first entry is its own bin
directory, and a spawned worker runs ``python -P``), as ``python -m`` would find it from there. Every process that
imports a user's module goes through `import_user_module`: ``--agent``, ``--strategy MODULE:ATTR``, ``harness check
--strategy``, ``pytest --compaction-strategy`` (the xdist workers too), and a spawned or forked worker that imports
the same name again from the same working directory.

The standard library and `harness.errors` only: the doors read the user's code before the early checks
(`harness.runs.early`) without importing langchain themselves (tests/cli/test_startup.py); the user's module imports
what it needs.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from harness.errors import ConfigError


def search_working_directory() -> None:
    """The working directory on ``sys.path``, last, when it is not there already (``""`` stands for it)."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)


def import_user_module(module_name: str, spec: str, source: str) -> Any:
    """The module a ``module:attr`` names, imported by the module docstring's rule. Whatever it raises on import
    (ImportError, or its own error: a RuntimeError, a SyntaxError) is the user's input failing, so a ConfigError naming
    ``source`` and the exception, never a traceback (`harness run`, `harness check` and `pytest --compaction-strategy`
    alike)."""
    search_working_directory()
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
