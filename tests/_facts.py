"""Hand-made probe scenarios and conversations for the typed-fact scorers' unit tests (no agent runs).

The archive conversation: turn 0's task states a goal_state fact; DOC-1 states the vault code and a decision,
DOC-2 changes the decision ("pg-16, not mysql-8"), then the agent writes /notes/a.md (an artifact). Each of
``summaries`` then replaces the whole history (keeping ``keep`` messages) before one more agent call, so summary r
is round r. Follow-up turns ask questions.
"""

from __future__ import annotations

from typing import Any

from harness.scenarios.schema import Fact, Question, Scenario
from harness.task_format import ARTIFACT_QUESTION, fact_sentence, render_decision_question, render_question
from tests._traces import HISTORY, Conversation

VAULT = Fact("vault", "fact", "vault code", "TANGO-7", "tool", 0, doc="DOC-1")
DB1 = Fact("db1", "decision", "billing database", "mysql-8", "tool", 0, doc="DOC-1", superseded_by="db2")
DB2 = Fact("db2", "decision", "billing database", "pg-16", "tool", 0, doc="DOC-2")
STAGE = Fact("stage", "goal_state", "migration stage", "stage-3", "user", 0)
NOTE = Fact("note", "artifact", "/notes/a.md", "written", "tool", 0)
PREFIX = Fact("prefix", "rule", "commit prefix", "FIN-OPS", "system", 0)
FACTS = (VAULT, DB1, DB2, STAGE, NOTE)

TASK = "Migrate the archive. " + fact_sentence("goal_state", STAGE.key, STAGE.value)
DOC1 = "DOC-1: letters. " + fact_sentence("fact", VAULT.key, VAULT.value) + " " + fact_sentence("decision", DB1.key, DB1.value)
DOC2 = "DOC-2: minutes. " + fact_sentence("decision", DB2.key, DB2.value, replaces=DB1.value)
KEPT = f"The migration is under way. {fact_sentence('decision', DB2.key, DB2.value, replaces=DB1.value)}"
LOST = "The migration is under way; the documents were read."

ASK = {
    "recall": render_question(VAULT.key),
    "decision": render_decision_question(DB1.key),
    "continuation": render_question(STAGE.key),
    "artifact": ARTIFACT_QUESTION,
    "rule": render_question(PREFIX.key),
}


def scenario(questions: list[tuple[int, tuple[str, ...], str]] = (), facts: tuple[Fact, ...] = FACTS) -> Scenario:  # type: ignore[assignment]
    """A probe scenario; ``questions``: (turn, fact ids, probe), the follow-up text of each taken from ``ASK``."""
    asked = [Question(t, ids, p) for t, ids, p in questions]
    followups = tuple(ASK["rule" if ids == ("prefix",) else p] for _, ids, p in sorted(questions))
    return Scenario(
        id="probe-1", kind="probe", description="", task=TASK, followups=followups, facts=facts, questions=tuple(asked)
    )


def archive(
    summaries: list[str] = (LOST,),  # type: ignore[assignment]
    *,
    keep: int = 0,
    path: str | None = HISTORY,
    strategy: str = "deepagents-summarization",
    system: str | None = None,
) -> Conversation:
    """Turn 0 of the archive conversation, each of ``summaries`` a round, then the turn's answer."""
    conv = Conversation(strategy=strategy, system=system)
    conv.user(TASK)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, DOC1)])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-2"}, DOC2)])
    conv.agent(tools=[("write_file", {"file_path": NOTE.key, "content": "a note"}, f"Updated file {NOTE.key}")])
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-9"}, "DOC-9: nothing of note.")])  # the write's result seen
    for r, text in enumerate(summaries, 1):
        conv.summarize(f"Round {r}. {text}", path, keep=keep)
        conv.agent(tools=[("fetch_document", {"doc_id": f"DOC-{r + 2}"}, f"DOC-{r + 2}: nothing of note.")])
    conv.answer("TASK COMPLETE")
    return conv


def ask(conv: Conversation, probe: str, reply: str, tools: list[Any] = ()) -> Conversation:  # type: ignore[assignment]
    """A follow-up asking ``ASK[probe]``: ``tools`` calls (one agent call each), then ``reply``."""
    conv.user(ASK[probe])
    for use in tools:
        conv.agent(tools=[use])
    conv.answer(reply)
    return conv
