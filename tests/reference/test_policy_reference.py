"""The reference agent's answer to a reference question ("What is the access code of the primary site?"): the entity
the reference names, then that entity's attribute, each the latest statement it can see or read; the history file is
paged while a link is missing."""

from langchain_core.messages import HumanMessage, ToolMessage

from harness.reference.policy import decide
from harness.reference.recall import resolve
from harness.reference.view import HISTORY_PAGE_LINES, ReplyAction, ToolAction, View
from harness.task_format import attribute_key, fact_sentence, render_question, render_reference_question
from tests._messages import call, summary_message

PATH = "/conversation_history/session_abc.md"
QUESTION = render_reference_question("access code", "primary site")
PRIMARY = fact_sentence("fact", "primary site", "ORBIT-7")
BACKUP = fact_sentence("fact", "backup site", "VEGA-2")
ORBIT_CODE = fact_sentence("fact", attribute_key("ORBIT-7", "access code"), "4417-KESTREL")
VEGA_CODE = fact_sentence("fact", attribute_key("VEGA-2", "access code"), "7781-HERON")


def _doc(text: str, call_id: str) -> list:
    return call("fetch_document", {"doc_id": call_id.upper()}, f"{call_id.upper()}: memo.\n{text}", call_id)


def test_the_attribute_of_the_entity_the_reference_names_is_answered_not_the_look_alikes():
    msgs = [
        HumanMessage(f"Read these. {PRIMARY} {BACKUP}"),
        *_doc(VEGA_CODE, "d1"),
        *_doc(ORBIT_CODE, "d2"),
        HumanMessage(QUESTION),
    ]
    assert decide(msgs) == ReplyAction("4417-KESTREL")
    backup = [*msgs[:-1], HumanMessage(render_reference_question("access code", "backup site"))]
    assert decide(backup) == ReplyAction("7781-HERON")


def test_the_reference_in_the_summary_and_the_attribute_on_a_history_page_resolve_together():
    summary = summary_message(f"Session intent: read the archive. {PRIMARY}", PATH)
    asked = [summary, HumanMessage(QUESTION)]
    # the attribute is not in view: the history file is paged
    assert decide(asked) == ToolAction("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES})
    page = f"@@ lines 1-3 of 3 @@\n{VEGA_CODE}\n{ORBIT_CODE}\nend"
    read = call("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES}, page, "r1")
    assert decide([*asked, *read]) == ReplyAction("4417-KESTREL")


def test_the_attribute_in_view_without_its_reference_sends_the_agent_to_the_history_file_then_it_does_not_know():
    summary = summary_message(f"Session intent: read the archive. {ORBIT_CODE} {VEGA_CODE}", PATH)
    asked = [summary, HumanMessage(QUESTION)]
    assert isinstance(decide(asked), ToolAction)
    page = "@@ lines 1-2 of 2 @@\nnothing about sites\nend"
    read = call("read_file", {"file_path": PATH, "offset": 0, "limit": HISTORY_PAGE_LINES}, page, "r1")
    reply = decide([*asked, *read])
    assert isinstance(reply, ReplyAction) and reply.text.startswith("I don't know the access code of the primary site")


def test_the_latest_statement_of_each_link_wins_and_the_first_statement_fault_takes_the_first():
    moved = fact_sentence("fact", "primary site", "VEGA-2")
    msgs = [HumanMessage(f"{PRIMARY} {ORBIT_CODE} {VEGA_CODE}"), HumanMessage(f"Update: {moved}"), HumanMessage(QUESTION)]
    assert decide(msgs) == ReplyAction("7781-HERON")
    assert decide(msgs, takes_first_statement=True) == ReplyAction("4417-KESTREL")
    recoded = fact_sentence("fact", attribute_key("ORBIT-7", "access code"), "5000-EMBER")
    msgs = [HumanMessage(f"{PRIMARY} {ORBIT_CODE}"), HumanMessage(recoded), HumanMessage(QUESTION)]
    assert decide(msgs) == ReplyAction("5000-EMBER")


def test_a_key_stated_as_asked_is_answered_as_stated_before_any_resolution():
    literal = fact_sentence("fact", "access code of the primary site", "1111-CEDAR")
    view = View.of([HumanMessage(f"{PRIMARY} {ORBIT_CODE} {literal}")])
    assert resolve(view, "access code of the primary site") == "1111-CEDAR"
    assert resolve(View.of([HumanMessage(f"{PRIMARY} {ORBIT_CODE}")]), "access code of the primary site") == "4417-KESTREL"
    assert resolve(View.of([HumanMessage(PRIMARY)]), "access code of the primary site") is None
    assert resolve(View.of([HumanMessage(ORBIT_CODE)]), "access code of the primary site") is None
    assert resolve(View.of([HumanMessage(PRIMARY)]), "vault code") is None


def test_a_plain_question_is_not_resolved_through_a_reference():
    msgs = [HumanMessage(f"{PRIMARY} {ORBIT_CODE}"), HumanMessage(render_question("primary site"))]
    assert decide(msgs) == ReplyAction("ORBIT-7")
    unrelated = [ToolMessage("x", tool_call_id="t"), HumanMessage(render_question("vault code"))]
    assert decide(unrelated).text.startswith("I don't know the vault code")  # type: ignore[union-attr]
