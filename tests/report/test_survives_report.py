"""The survives section: item kind x arm from each survives row's trace, ERROR and INVALID rows left out and said so,
nothing for a run without the eval."""

from deepagents.middleware.memory import MEMORY_SYSTEM_PROMPT
from langchain_core.messages import SystemMessage

from harness.report._document import Document
from harness.report.survives_report import HEADING, add_survives_section, survives_table
from tests._traces import Conversation

MEMORY = "/memories/AGENTS.md\n\n- Notes go under /notes/."
LEDGER = "@@ lines 1-2 of 2 @@\nentry 1: 400 EUR\nentry 2: 80 EUR"
NOTE = [("write_file", {"file_path": "/notes/a.md", "content": "x"}, "ok")]


def _trace(memory_after: bool):
    conv = Conversation()
    conv.user("Audit.")
    for tools in ([("read_file", {"file_path": "/ledgers/a.md"}, LEDGER)], NOTE):
        conv.agent(tools=tools)
        conv.rec.sent_system([SystemMessage(conv.system.content + "\n\n" + MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY))])
    conv.summarize("Ledger a read.", keep=0)
    conv.agent(tools=NOTE)
    if memory_after:
        conv.rec.sent_system([SystemMessage(conv.system.content + "\n\n" + MEMORY_SYSTEM_PROMPT.format(agent_memory=MEMORY))])
    return conv.trace(kind="goal")


def _row(strategy, outcome, eval_name="survives"):
    return {"eval": eval_name, "arm": "forced-20", "strategy": strategy, "outcome": outcome}


def test_the_table_is_item_kind_by_arm_over_the_valid_and_failed_rows():
    rows = [
        _row("deepagents-summarization", "PASS"),
        _row("summary-reinject", "FAIL"),
        _row("summary-reinject", "ERROR"),
        _row("deepagents-summarization", "PASS", eval_name="goal"),
    ]
    traces = [_trace(True), _trace(False), _trace(True), _trace(True)]
    frame, compactions, left_out = survives_table(rows, traces)
    assert (compactions, left_out) == (2, 1)
    by_item = frame.set_index("item")
    assert list(by_item.columns) == ["forced-20@deepagents-summarization", "forced-20@summary-reinject"]
    assert by_item.loc["memory"].tolist() == ["re-injected 1/1", "lost 1/1"]
    assert by_item.loc["file contents"].tolist() == ["lost 1/1", "lost 1/1"]
    assert by_item.loc["skills list"].tolist() == ["-", "-"]
    doc = Document("r")
    add_survives_section(doc, rows, traces)
    text = " ".join(str(v) for _, v in doc.blocks)
    assert HEADING in text and "2 compaction(s); 1 run(s) that ended in ERROR or INVALID left out" in text


def test_a_run_without_the_eval_gets_no_section():
    doc = Document("r")
    add_survives_section(doc, [_row("deepagents-summarization", "PASS", eval_name="goal")], [_trace(True)])
    assert doc.blocks == []
