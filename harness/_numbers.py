"""The one finite-number check: every numeric option and spec key goes through `finite_number`, so NaN and the
infinities (``nan``, ``inf``, ``1e309``, YAML's ``.inf``) are refused in one place with the option or key named."""

from __future__ import annotations

import math
from typing import Any

from harness.errors import ConfigError


def finite_problem(value: Any) -> str | None:
    """What is wrong with ``value`` as a number (a bool, text that is no number, NaN, an infinity), or None."""
    if isinstance(value, bool):
        return f"expected a number, got {value!r}"
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int too large for a float (10**400)
        return f"expected a number, got {value!r}"
    if not math.isfinite(number):
        return f"must be a finite number, got {value!r}"
    return None


def finite_number(value: Any, where: str) -> float:
    """``value`` as a finite float; ConfigError naming ``where`` (the option, spec key or setting) otherwise."""
    problem = finite_problem(value)
    if problem is not None:
        raise ConfigError(f"{where}: {problem}")
    return float(value)
