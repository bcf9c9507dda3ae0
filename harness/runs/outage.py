"""The stop rule for an outage: the one definition every path uses (`harness run`, `harness experiment run`,
`pytest evals/`, `harness.evaluate`).

A provider that fails every request still costs each case its full retries (about 21 s a case with the SDK's default
6 retries against a 503), and the dead-endpoint pre-flight cannot see it: the endpoint answers. So a run watches the
cases as they finish, in the order they finish (with cases in flight at once, that is completion order, not start
order): when ``after`` cases in a row end in ERROR with the same classified provider cause
(`harness.agent.live.provider_cause`: model, HTTP status, SDK exception; not the message) and no case finished
without a provider error in between, the run stops. A case that finishes any other way (PASS, FAIL, INVALID,
KNOWN_UPSTREAM: the provider answered) starts the count again; an ERROR with another cause starts it at 1 for that
cause. ``after`` 0 never stops. Every row already written stays; what was not run is named, and the command exits 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.agent.live import provider_cause
from harness.errors import ConfigError

DEFAULT_STOP_AFTER_ERRORS = 3
OPTION = "--stop-after-errors"


def stop_after_errors(value: int | None) -> int:
    """The setting a run uses: ``value`` (``--stop-after-errors``, a spec's ``stop_after_errors``, `evaluate`'s
    ``stop_after_errors``), or the default when unset; 0 never stops. Raises ConfigError for a negative number."""
    if value is None:
        return DEFAULT_STOP_AFTER_ERRORS
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{OPTION} must be a whole number, 0 or more (0: never stop), got {value!r}")
    return value


class OutageStopped(Exception):
    """A case was not run because the run had already stopped for an outage (`OutageWatch`); the message says why."""


@dataclass
class OutageWatch:
    """Counts the cases that end in the same provider error in a row, fed each finished case's error in completion
    order (`see`); ``message`` is set, once and for good, when the count reaches ``after``."""

    after: int = DEFAULT_STOP_AFTER_ERRORS
    cause: str | None = None  # the cause of the current run of ERRORs
    count: int = 0  # how many cases in a row ended in it
    message: str | None = None  # why the run stopped; None while it goes on

    @property
    def stopped(self) -> bool:
        return self.message is not None

    def see(self, error: dict[str, Any] | None) -> bool:
        """Count one finished case by its error (a trace's or a row's ``error``: None when the run went through).
        True when this case is the one that stops the run; later cases (those in flight when it stopped) change
        nothing."""
        if self.stopped:
            return False
        cause = provider_cause(error)
        if cause is None:
            self.cause, self.count = None, 0
            return False
        self.count = self.count + 1 if cause == self.cause else 1
        self.cause = cause
        if not self.after or self.count < self.after:
            return False
        self.message = (
            f"stopped early: {self.count} cases in a row ended in ERROR with the same provider error ({cause}) and none "
            f"succeeded in between ({OPTION} {self.after}; 0 never stops)"
        )
        return True
