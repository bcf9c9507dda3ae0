"""Tool calls paired with their results, by two rules: a result answers a call made before it, and, stricter, a call
of the message right before its results (`adjacency`).

Everything that asks whether a message list is well paired asks here: a request the recorder saw (the shared
`structure_ok` and the boundary eval's `no_orphan_tool_results`, `harness.scoring.scorers`), a recorded conversation
or an imported session (`harness.scenarios.conversation.check_message`), and `harness serve`
(`harness.reference.serve.pairing`), which answers a request breaking its API's rule with the 400 the provider
answers it with. Each reads its own format and hands this module the call ids each message makes and the call ids it
answers.

The first rule is the part every provider refuses: a result whose call is nowhere before it, which is what a cut
that summarized the call away leaves behind (langchain#38352). The scorers and the importers hold to it alone: they
read what the agent was given, or a session recorded from any provider, and name what is missing. The second is what
OpenAI's chat completions and Anthropic's Messages ask of a request (`adjacency`: their words are in
`harness.reference.serve.pairing`): the results of a message's calls follow it before any other message, each call
answered there, and a result answers a call of that message only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal


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


@dataclass(frozen=True)
class Unanswered:
    """Calls a message made that were not answered where the provider wants their results: ``position`` of the
    calling message, the ``call_ids`` left (in the order they were made) and ``before``, the position of the message
    that came in their place or without them (None: the messages ended in the run of results)."""

    position: int
    call_ids: tuple[str, ...]
    before: int | None


def adjacency(
    messages: Iterable[tuple[Sequence[str], Sequence[str]]], results_in: Literal["run", "next"]
) -> Orphan | Unanswered | None:
    """The first break of the stricter rule in a message list given as (call ids it makes, call ids it answers) per
    message, positions counted from 0, or None.

    The results of a message's calls must come in ``results_in``: ``"run"``, the messages right after it that answer
    calls and do nothing else (chat completions' tool messages), or ``"next"``, the one message right after it
    (Anthropic's user message of ``tool_result`` blocks). A result elsewhere, or answering a call that message did not
    make, is an `Orphan`; a call whose result is not there is `Unanswered` (the calling message's results checked
    first, as a request is read in order). A calling message that ends the list breaks nothing: no result is due yet.
    """
    caller: int | None = None  # the message whose results may come now
    made: set[str] = set()
    waiting: list[str] = []
    position = -1
    for position, (calls, answers) in enumerate(messages):
        in_place = bool(answers) and not calls and (results_in == "run" or position == (caller or 0) + 1)
        if caller is not None and not in_place:
            if waiting:
                return Unanswered(caller, tuple(waiting), position)
            caller = None
        for call_id in answers:
            if caller is None or call_id not in made:
                return Orphan(position, call_id)
            if call_id in waiting:
                waiting.remove(call_id)
        if caller is not None and results_in == "next" and position == caller + 1:  # the one place, now past
            if waiting:
                return Unanswered(caller, tuple(waiting), position)
            caller = None
        if calls:
            caller, made, waiting = position, set(calls), list(dict.fromkeys(calls))
    if caller is not None and waiting and caller != position:  # the run of results ended the list without them
        return Unanswered(caller, tuple(waiting), None)
    return None
