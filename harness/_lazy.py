"""Lazy public faces: a package lists the names a user may import from it, each imported from its module on first use
(``import harness.agent`` stays cheap; deepagents, pandas or matplotlib load when a name that needs them is used)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[list[str], Callable[[str], Any]]:
    """(``__all__``, ``__getattr__``) for ``package`` whose public names live in the modules ``exports`` maps them to
    (relative to the package: ``"build"`` for ``package.build``; or absolute, ``"harness.rows"``, for a name a lower
    layer defines)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        path = module if module.startswith("harness.") else f"{package}.{module}"
        return getattr(importlib.import_module(path), name)

    return sorted(exports), __getattr__
