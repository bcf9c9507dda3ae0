"""What a scorer returns: a Score with its role, and the outcomes a case can have."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

VALIDITY, CHECK, MEASURE = "validity", "check", "measure"
PASS, FAIL, INVALID, ERROR = "PASS", "FAIL", "INVALID", "ERROR"
KNOWN_UPSTREAM = "KNOWN_UPSTREAM"
"""A valid case whose failed checks are all declared known upstream failures (`EvalSuite.known_upstream`): the
installed deepagents fails them for any model. Never a PASS or a FAIL; counted in no rate, listed with its link."""
OUTCOMES = (PASS, FAIL, INVALID, ERROR, KNOWN_UPSTREAM)
GATING = (VALIDITY, CHECK)


@dataclass(frozen=True)
class Score:
    """One scored key of a case: its value, its role (validity, check or measure) and why it has that value."""

    key: str
    value: float | int | bool | None
    role: str  # VALIDITY, CHECK or MEASURE
    explanation: str

    @property
    def passed(self) -> bool | None:
        """For a validity score or a check: did it hold? None for a measurement."""
        return bool(self.value) if self.role in GATING else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
