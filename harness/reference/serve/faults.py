"""The faults ``harness serve`` injects: what a fault is, how it is given (``--fault`` or ``POST /admin/faults``) and
which request it fires on. How a fired fault is answered is one path for every API (`api.ServedAPI.injected`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError
from harness.reference.not_summaries import SHAPES

COMPACTION_MODES = ("null-compaction", "compaction-midstream")  # fire only when a native compaction does
SUMMARY_MODES = tuple(f"summary-{shape}" for shape in SHAPES)
"""A 200 whose answer is not a summary, in one of the shapes of `harness.reference.not_summaries` (given with
``@summary``, it answers deepagents' summary request; the seeded faults of the same names do it offline)."""
MODES = ("429", "500", "503", "stall", "context", "malformed", "empty", "auth", *COMPACTION_MODES, *SUMMARY_MODES)
SCOPES = ("any", "agent", "summary", "judge")


@dataclass
class Fault:
    """One injected fault: ``mode`` on the next ``count`` matching requests (None: every one) after the first ``after``."""

    mode: str
    count: int | None = 1
    scope: str = "any"
    after: int = 0
    retry_after: float = 1.0
    sleep: float = 30.0
    seen: int = 0
    fired: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"fault mode {self.mode!r}: known modes are {', '.join(MODES)}")
        if self.scope not in SCOPES:
            raise ConfigError(f"fault scope {self.scope!r}: known scopes are {', '.join(SCOPES)}")
        if self.count is not None and self.count < 1:
            raise ConfigError(f"fault count {self.count}: must be at least 1 (or omitted for every request)")
        if self.after < 0 or self.retry_after < 0 or self.sleep < 0:
            raise ConfigError("fault after, retry_after and sleep must not be negative")

    def take(self, scope: str) -> bool:
        """Whether this fault fires on a request of ``scope`` (and count it)."""
        if self.scope not in ("any", scope) or (self.count is not None and self.fired >= self.count):
            return False
        self.seen += 1
        if self.seen <= self.after:
            return False
        self.fired += 1
        return True

    @classmethod
    def parse(cls, spec: str) -> Fault:
        """``MODE[:COUNT][@SCOPE]``; COUNT ``*`` means every request."""
        rest, _, scope = spec.partition("@")
        mode, _, count = rest.partition(":")
        try:
            n = None if count == "*" else int(count) if count else 1
        except ValueError:
            raise ConfigError(f"--fault {spec!r}: COUNT must be a number or *") from None
        try:
            return cls(mode=mode, count=n, scope=scope or "any")
        except ConfigError as exc:
            raise ConfigError(f"--fault {spec!r}: {exc}") from None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fault:
        known = {"mode", "count", "scope", "after", "retry_after", "sleep"}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown fault field(s) {sorted(unknown)}; known: {sorted(known)}")
        if "mode" not in data:
            raise ConfigError("a fault needs a mode")
        return cls(**{**data, "mode": str(data["mode"])})
