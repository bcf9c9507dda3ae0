"""What a scorer returns: a Score with its role, and the outcomes a case can have."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, get_args

from harness.rows import Outcome, Role

VALIDITY: Final = "validity"
CHECK: Final = "check"
MEASURE: Final = "measure"
PASS: Final = "PASS"
FAIL: Final = "FAIL"
INVALID: Final = "INVALID"
ERROR: Final = "ERROR"
KNOWN_UPSTREAM: Final = "KNOWN_UPSTREAM"
"""A valid case whose failed checks are all declared known upstream failures (`EvalSuite.known_upstream`): the
installed deepagents fails them for any model. Never a PASS or a FAIL; counted in no rate, listed with its link."""
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
ROLES: tuple[Role, ...] = get_args(Role)
GATING: tuple[Role, ...] = (VALIDITY, CHECK)


@dataclass(frozen=True)
class Score:
    """One score of a case: its ``key`` (also its LangSmith feedback key and results column), its ``value``, its
    ``role`` (validity, check or measure: `harness.scoring.scorers`) and why it has that value."""

    key: str
    value: float | int | bool | None
    role: Role
    explanation: str

    @property
    def passed(self) -> bool | None:
        """For a validity score or a check: did it hold? None for a measurement."""
        return bool(self.value) if self.role in GATING else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
