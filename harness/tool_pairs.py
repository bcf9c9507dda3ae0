"""Tool calls paired with their results, by one rule: a tool result answers a call made earlier in the same messages.

Everything that asks whether a message list is well paired asks here: a request the recorder saw (the shared
`structure_ok` and the boundary eval's `no_orphan_tool_results`, `harness.scoring.scorers`), a recorded conversation
or an imported session (`harness.scenarios.conversation.check_message`), and `harness serve`, which answers a request
holding an orphan result with the 400 each API answers it with (`harness.reference.serve`). Each reads its own format
and hands this module the call ids each message makes and the call id it answers.

Providers ask more (OpenAI's chat completions and Anthropic want the results right after the message that made the
calls); the rule here is the part every provider refuses: a result whose call is nowhere before it, which is what a
cut that summarized the call away leaves behind (langchain#38352).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Orphan:
    """A tool result whose call is not before it: where it is (``position`` in the caller's numbering) and the id."""

    position: int
    call_id: str


@dataclass
class ToolPairs:
    """The calls made and answered so far, read message by message (`call`, then `answer`)."""

    called: dict[str, int] = field(default_factory=dict)  # call id -> position of the message that made it
    answered: dict[str, int] = field(default_factory=dict)  # call id -> position of its (first) result

    def call(self, call_ids: Iterable[str], position: int) -> None:
        """A message at ``position`` makes the calls ``call_ids``."""
        for call_id in call_ids:
            self.called.setdefault(call_id, position)

    def answer(self, call_id: str, position: int) -> Orphan | None:
        """A result at ``position`` answers ``call_id``: an `Orphan` when no call with that id came before it."""
        self.answered.setdefault(call_id, position)
        return None if call_id in self.called else Orphan(position, call_id)

    def unanswered(self) -> list[str]:
        """The calls made that no result answered, sorted."""
        return sorted(set(self.called) - set(self.answered))


def orphans(messages: Iterable[tuple[Sequence[str], str | None]]) -> list[Orphan]:
    """The orphan results of a message list given as (call ids it makes, call id it answers or None) per message,
    positions counted from 0."""
    pairs = ToolPairs()
    found = []
    for position, (calls, answers) in enumerate(messages):
        pairs.call(calls, position)
        if answers is not None:
            orphan = pairs.answer(answers, position)
            if orphan is not None:
                found.append(orphan)
    return found
