"""Where a thing is in a request, as the fact and needle scorers read it: a history file counts for a turn only when a
summary of that turn names it, and the system prompt is looked in only when asked (a system fact), never for a
needle."""

from __future__ import annotations

from harness.scenarios.schema import Needle, Scenario
from harness.scoring.scorers import needle_scores
from harness.scoring.scorers.probes import judge_all
from tests._facts import LOST, archive, ask, scenario
from tests._traces import HISTORY, Conversation
from tests.scoring.test_scorers_facts_probes import PAGE


def test_a_page_of_a_history_file_named_only_in_an_earlier_turn_is_not_where_an_answer_came_from():
    conv = ask(archive([LOST]), "recall", "TANGO-7", tools=[PAGE])  # turn 1: HISTORY named by the summary in view
    conv.summarize("Round 2. " + LOST, path=None)  # turn 2's requests name no history file
    ask(conv, "recall", "TANGO-7", tools=[("read_file", {"file_path": HISTORY, "offset": 40}, PAGE[2])])
    _, judged = judge_all(conv.trace(kind="probe"), scenario([(1, ("vault",), "recall"), (2, ("vault",), "recall")]))
    assert [j.per_fact["vault"]["via"] for j in judged] == ["history", None]


def test_a_needle_answer_in_the_system_prompt_does_not_keep_the_needle_in_view():
    conv = Conversation(system="Reference: the vault code is TANGO-7.")
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "DOC-1: the vault code is TANGO-7.")])
    conv.summarize("The review is under way.")
    conv.answer("DOC-1 is read.")
    conv.user("What was the vault code?")
    conv.answer("TANGO-7")
    needle = Needle(key="vault code", answer="TANGO-7", doc="DOC-1", depth=0.5, turn=1)
    scen = Scenario(id="needle-1", kind="needle", description="", task="Review the archive.", needles=(needle,))
    by = {s.key: s for s in needle_scores(conv.trace(), scen)}
    assert by["needle_summarized_away"].value is True
