"""Where a recorded session is cut: just before its first recorded compaction, at a message index, or at a token share.

The messages before the cut become the case's conversation (its state); the case continues from there. A cut never
leaves a tool call unanswered before it (a provider refuses such a request): it moves back to before the assistant
message that made the call, and says so. Without a ``--cut``, a session that recorded a compaction is cut just
before the first one; one that did not is cut at `DEFAULT_SHARE` of its tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError
from harness.sessions.check import SessionSize
from harness.sessions.model import Session

FIRST_COMPACTION = "first-compaction"
DEFAULT_SHARE = 0.6
"""The cut of a session that recorded no compaction, when none is given: the first message at which 60 % of its
tokens came before it (the rest is where a compaction would have been needed; the probes ask about the 60 %)."""


@dataclass(frozen=True)
class Cut:
    """``at`` messages come before the cut; ``by`` is how it was chosen (`harness.scenarios.model.CUT_BY`); ``note``
    says what was asked and any move back, for the command's output."""

    at: int
    by: str
    note: str


def choose_cut(session: Session, size: SessionSize, spec: str | None) -> Cut:
    """The cut ``spec`` names (``first-compaction``, a message index N, or a share of the tokens in (0, 1)), or the
    default; a ConfigError naming ``--cut`` for a spec past the end, before the start, or a compaction the session
    did not record."""
    if spec is None:
        spec = FIRST_COMPACTION if session.compactions else str(DEFAULT_SHARE)
        default = " (the default: " + ("its first recorded compaction" if session.compactions else "no compaction recorded") + ")"
    else:
        default = ""
    n = size.messages
    if spec == FIRST_COMPACTION:
        if not session.compactions:
            raise ConfigError(f"--cut {spec}: the session recorded no compaction; give a message index or a token share")
        at, by, asked = (
            session.compactions[0].at,
            "compaction",
            f"just before its first compaction (message {session.compactions[0].at})",
        )
    elif spec.isdigit():
        at, by, asked = int(spec), "index", f"at message {spec}"
        if at > n:
            raise ConfigError(f"--cut {spec}: past the session's end ({n} messages)")
    else:
        share = _share(spec)
        at, by, asked = _at_share(size, share), "share", f"at {share:g} of its {size.tokens:,} tokens"
    moved = _answered_prefix(session.messages, at)
    if moved < 1:
        raise ConfigError(f"--cut {spec}: nothing would come before the cut ({asked}); give a later cut")
    note = f"cut {asked}{default}: {moved} of {n} messages before it"
    if moved != at:
        note += f" (moved back from {at}: a tool call before it was answered only after it)"
    return Cut(moved, by, note)


def _share(spec: str) -> float:
    try:
        share = float(spec)
    except ValueError:
        raise ConfigError(
            f"--cut {spec!r}: expected {FIRST_COMPACTION}, a message index (an integer) or a token share in (0, 1)"
        ) from None
    if not 0 < share < 1:  # NaN fails both comparisons
        raise ConfigError(f"--cut {spec}: a token share is between 0 and 1 (exclusive); a message index is an integer")
    return share


def _at_share(size: SessionSize, share: float) -> int:
    """The fewest messages whose tokens reach ``share`` of the session's."""
    goal, total = share * size.tokens, 0
    for i, n in enumerate(size.per_message):
        total += n
        if total >= goal:
            return i + 1
    return size.messages


def _answered_prefix(messages: tuple[dict[str, Any], ...], at: int) -> int:
    """``at``, moved back until every tool call before it is answered before it."""
    while at > 0:
        answered = {m.get("tool_call_id") for m in messages[:at] if m.get("role") == "tool"}
        open_at = [i for i, m in enumerate(messages[:at]) if any(c.get("id") not in answered for c in m.get("tool_calls") or ())]
        if not open_at:
            return at
        at = open_at[0]
    return at
