"""The survives audit: what is in view on the first call after a compaction against the last call before it, per item
kind, and the checks on it, each failing on a trace where the item is gone."""

from collections import Counter

from deepagents.middleware.memory import MEMORY_SYSTEM_PROMPT
from deepagents.middleware.skills import SKILLS_SYSTEM_PROMPT
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from harness.compaction.strategies.summary_reinject import REINJECTED_ID
from harness.scoring.scorers.survives import audit, said, survives_scores, tally
from harness.scoring.scorers.types import VALIDITY
from tests._traces import Conversation

MEMORY = "/memories/AGENTS.md\n\n# Conventions\n- Notes go under /notes/.\n- Amounts are in EUR."
SKILL = "- **ledger-audit**: How to audit one ledger."
LEDGER = "@@ lines 1-3 of 3 @@\nentry 1: 400 EUR\nentry 2: 12,500 EUR\nentry 3: 80 EUR"
SKILL_BODY = "@@ lines 1-2 of 2 @@\n# Ledger audit\n1. Read the ledger."
TODOS = [{"content": "Read /ledgers/a.md", "status": "completed"}, {"content": "Write /notes/a.md", "status": "in_progress"}]


def _tail(conv, memory=True, skills=True):
    """The system prompt as deepagents' tail sends it: the agent's own, then the memory and skills sections."""
    parts = [conv.system.content]
    if memory:
        parts.append(MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY))
    if skills:
        parts.append(SKILLS_SYSTEM_PROMPT.format(skills_locations="", skills_load_warnings="", skills_list=SKILL))
    conv.rec.sent_system([SystemMessage("\n\n".join(parts))])


def _step(conv, tools, **tail):
    conv.agent(tools=tools)
    _tail(conv, **tail)


NOTE = [("write_file", {"file_path": "/notes/a.md", "content": "x"}, "ok")]


def _conversation(*, memory_after=True, skills_after=True, summary="The audit of /ledgers/a.md is under way.", extra=()):
    """Three calls before a summary (the skill read, a ledger read and the plan written, a note: the last call before
    the summary sees the first two's results), the summary, one call after."""
    conv = Conversation()
    conv.user("Audit the ledgers.")
    _step(conv, [("read_file", {"file_path": "/skills/ledger-audit/SKILL.md"}, SKILL_BODY)])
    _step(conv, [("read_file", {"file_path": "/ledgers/a.md"}, LEDGER), ("write_todos", {"todos": TODOS}, "ok")])
    _step(conv, NOTE)
    conv.summarize(summary, keep=0)
    conv.history.extend(extra)
    _step(conv, NOTE, memory=memory_after, skills=skills_after)
    return conv.trace(kind="goal")


def _scores(trace):
    return {s.key: s for s in survives_scores(trace, None)}


def test_memory_and_skills_sent_on_every_call_are_re_injected_and_the_files_read_are_lost():
    trace = _conversation()
    [record] = audit(trace)
    items = record["items"]
    assert items["system prompt"] == ["kept"]
    assert items["memory"] == ["re-injected"] and items["skills list"] == ["re-injected"]
    assert items["skill body"] == ["lost"] and items["file contents"] == ["lost"]
    assert items["file paths"] == ["summarized"]  # the summary names /ledgers/a.md, not its lines
    assert items["todo list"] == ["lost"]
    scores = _scores(trace)
    assert scores["survives_audited"].value and scores["survives_audited"].role == VALIDITY
    assert scores["memory_after_compaction"].value and scores["skills_after_compaction"].value
    assert scores["files_after_compaction"].value == 0.0


def test_memory_missing_after_the_compaction_fails_memory_after_compaction():
    scores = _scores(_conversation(memory_after=False))
    assert not scores["memory_after_compaction"].value
    assert "1 of 1 memory item(s) not kept or re-injected" in scores["memory_after_compaction"].explanation
    assert scores["skills_after_compaction"].value


def test_a_skills_list_missing_after_the_compaction_fails_skills_after_compaction():
    scores = _scores(_conversation(skills_after=False))
    assert not scores["skills_after_compaction"].value and scores["memory_after_compaction"].value


def test_memory_held_in_a_message_the_summary_took_is_lost():
    conv = Conversation()
    conv.user("Audit the ledgers.")
    conv.history.append(SystemMessage(MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY)))  # the memory-in-messages fault
    _step(conv, [("read_file", {"file_path": "/ledgers/a.md"}, LEDGER)], memory=False)
    _step(conv, NOTE, memory=False)
    conv.summarize("Two ledgers read.", keep=0)
    _step(conv, NOTE, memory=False)
    trace = conv.trace(kind="goal")
    assert audit(trace)[0]["items"]["memory"] == ["lost"]
    assert not _scores(trace)["memory_after_compaction"].value


def test_a_summary_that_quotes_the_memory_line_for_line_is_summarized_not_kept():
    conv = Conversation()
    conv.user("Audit.")
    conv.history.append(SystemMessage(MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY)))
    _step(conv, [("read_file", {"file_path": "/ledgers/a.md"}, LEDGER)], memory=False)
    _step(conv, NOTE, memory=False)
    conv.summarize("Memory:\n" + MEMORY, keep=0)
    _step(conv, NOTE, memory=False)
    trace = conv.trace(kind="goal")
    assert audit(trace)[0]["items"]["memory"] == ["summarized"]
    assert not _scores(trace)["memory_after_compaction"].value  # deepagents promises it in the system prompt


def test_no_memory_before_the_compaction_makes_the_case_invalid():
    conv = Conversation()
    conv.user("Audit.")
    conv.agent(tools=[("read_file", {"file_path": "/ledgers/a.md"}, LEDGER)])
    conv.agent(tools=NOTE)
    conv.summarize("One ledger read.", keep=0)
    conv.agent(tools=NOTE)
    scores = _scores(conv.trace(kind="goal"))
    assert not scores["survives_audited"].value
    assert not scores["memory_after_compaction"].value and scores["memory_after_compaction"].explanation == "nothing audited"


def test_no_compaction_audits_nothing():
    conv = Conversation()
    conv.user("Audit.")
    conv.agent(tools=[("read_file", {"file_path": "/ledgers/a.md"}, LEDGER)])
    _tail(conv)
    trace = conv.trace(kind="goal")
    assert audit(trace) == []
    assert _scores(trace)["survives_audited"].explanation == "no compaction with an agent call before it"


def test_what_a_strategy_puts_back_after_the_summary_is_re_injected():
    made = [
        AIMessage(
            "",
            tool_calls=[
                {"name": "write_todos", "args": {"todos": TODOS}, "id": REINJECTED_ID + "t", "type": "tool_call"},
                {"name": "read_file", "args": {"file_path": "/ledgers/a.md"}, "id": REINJECTED_ID + "f", "type": "tool_call"},
            ],
        ),
        ToolMessage("ok", tool_call_id=REINJECTED_ID + "t"),
        ToolMessage(LEDGER.split("\n", 1)[1], tool_call_id=REINJECTED_ID + "f"),
    ]
    trace = _conversation(extra=made)
    items = audit(trace)[0]["items"]
    assert items["file contents"] == ["re-injected"] and items["todo list"] == ["re-injected"]
    assert items["file paths"] == ["re-injected"]
    assert _scores(trace)["files_after_compaction"].value == 1.0


def test_a_message_carried_over_keeps_what_it_holds():
    conv = Conversation()
    conv.user("Audit the ledgers.")
    _step(conv, [("read_file", {"file_path": "/ledgers/a.md"}, LEDGER), ("write_todos", {"todos": TODOS}, "ok")])
    _step(conv, NOTE)
    conv.summarize("Under way.", keep=5)  # both calls and their results stay
    _step(conv, NOTE)
    items = audit(conv.trace(kind="goal"))[0]["items"]
    assert items["file contents"] == ["kept"] and items["todo list"] == ["kept"] and items["file paths"] == ["kept"]


def test_tally_and_said_count_each_status():
    records = [{"call": 3, "items": {"memory": ["re-injected"], "file contents": ["lost", "kept", "lost"]}}]
    counts = tally(records)
    assert counts["memory"] == Counter({"re-injected": 1})
    assert said(counts["memory"]) == "re-injected 1/1"
    assert said(counts["file contents"]) == "kept 1, lost 2 (of 3)"
    assert said(counts["todo list"]) == "-"
