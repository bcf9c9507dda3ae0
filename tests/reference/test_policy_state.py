"""The reference agent's side of the state evals (issue 20): the tool-call ids a task asks for, the todo list it keeps
when asked, and a saved user message it reads back; and the adapter's readers for them."""

from langchain_core.messages import HumanMessage, ToolMessage

from harness import _deepagents_adapter as da
from harness.reference.policy import decide, todo_list
from harness.reference.view import HISTORY_PAGE_LINES, LONG_ID_CHARS, ReplyAction, ToolAction, View, call_id
from harness.task_format import LONG_IDS_REQUEST, TODOS_REQUEST, Step, render_question, render_task, todo_content
from tests._messages import call, summary_message

STEPS = [Step(1, "read_file", "/l/a.md"), Step(2, "read_file", "/l/b.md"), Step(3, "reply")]
TASK = render_task("Audit the ledgers.", STEPS) + "\n\n" + TODOS_REQUEST
ITEMS = [todo_content(s) for s in STEPS[:2]]
SAVED = "/conversation_history/0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.md"
NOTICE = f"Message content too large and was saved to the filesystem at: {SAVED}\n\nYou can read the full content ..."


def _todos(*statuses: str) -> dict:
    return {"todos": [{"content": c, "status": s} for c, s in zip(ITEMS, statuses)]}


# -- tool-call ids --------------------------------------------------------------------------
def test_a_task_asking_for_long_ids_gets_them_and_the_id_is_a_function_of_the_request():
    action = ToolAction("read_file", {"file_path": "/l/a.md"})
    short = call_id([HumanMessage("Audit the ledgers.")], action)
    long = call_id([HumanMessage("Audit the ledgers.\n" + LONG_IDS_REQUEST)], action)
    assert short.startswith("call_") and len(short) == 21
    assert len(long) == LONG_ID_CHARS > da.TOOL_CALL_PATH_COMPONENT_BYTES
    assert long == call_id([HumanMessage("Audit the ledgers.\n" + LONG_IDS_REQUEST)], action)


# -- the todo list --------------------------------------------------------------------------
def test_a_task_asking_for_todos_starts_by_writing_the_plan():
    assert decide([HumanMessage(TASK)]) == ToolAction("write_todos", _todos("in_progress", "pending"))


def test_the_list_is_updated_after_each_step_then_the_next_step_is_done():
    planned = [HumanMessage(TASK), *call("write_todos", _todos("in_progress", "pending"), "Updated todo list", "w1")]
    assert decide(planned) == ToolAction("read_file", {"file_path": "/l/a.md"})
    stepped = [*planned, *call("read_file", {"file_path": "/l/a.md"}, "ledger a", "r1")]
    assert decide(stepped) == ToolAction("write_todos", _todos("completed", "in_progress"))


def test_the_todo_list_in_view_carries_progress_a_summary_dropped():
    # the summary quotes the request but records no step done: the list says step 1 is completed
    summary = summary_message(f"Original request:\n> {TASK.replace(chr(10), chr(10) + '> ')}", "/conversation_history/s.md")
    seen = [summary, *call("write_todos", _todos("completed", "in_progress"), "Updated todo list", "w2")]
    assert todo_list(View.of(seen)) == _todos("completed", "in_progress")["todos"]
    assert decide(seen) == ToolAction("read_file", {"file_path": "/l/b.md"})


def test_the_todos_not_updated_fault_writes_the_list_once_and_never_again():
    stepped = [
        HumanMessage(TASK),
        *call("write_todos", _todos("in_progress", "pending"), "Updated todo list", "w1"),
        *call("read_file", {"file_path": "/l/a.md"}, "ledger a", "r1"),
    ]
    assert decide(stepped, writes_todos_once=True) == ToolAction("read_file", {"file_path": "/l/b.md"})
    assert decide([HumanMessage(TASK)], writes_todos_once=True).name == "write_todos"  # type: ignore[union-attr]


def test_a_failed_write_todos_is_no_list_in_view():
    failed = [HumanMessage(TASK), *call("write_todos", _todos("in_progress", "pending"), "Error: not a valid tool", "w1")]
    assert todo_list(View.of(failed)) is None


# -- a saved user message ---------------------------------------------------------------------
def test_a_saved_message_named_in_view_is_read_for_a_fact_not_in_view():
    msgs = [HumanMessage(NOTICE), HumanMessage(render_question("access code"))]
    assert decide(msgs) == ToolAction("read_file", {"file_path": SAVED, "offset": 0, "limit": HISTORY_PAGE_LINES})


def test_a_saved_message_a_history_page_quotes_is_read_before_the_rest_of_the_history():
    path = "/conversation_history/session_ab.md"
    page = f'@@ lines 1-200 of 900 | next offset 200 @@\n<message type="human">{NOTICE}</message>'
    msgs = [
        summary_message("Session intent: audit.", path),
        HumanMessage(render_question("access code")),
        *call("read_file", {"file_path": path, "offset": 0, "limit": HISTORY_PAGE_LINES}, page, "h1"),
    ]
    assert decide(msgs) == ToolAction("read_file", {"file_path": SAVED, "offset": 0, "limit": HISTORY_PAGE_LINES})
    found = [*msgs, *call("read_file", {"file_path": SAVED}, "@@ lines 1-2 of 2 @@\nthe access code is 4417-KESTREL", "s1")]
    assert decide(found) == ReplyAction("4417-KESTREL")


# -- the adapter ------------------------------------------------------------------------------
def test_the_adapter_reads_the_saved_message_notice_and_makes_its_path_run_stable():
    assert da.evicted_message_path(NOTICE) == SAVED
    assert da.evicted_message_path("a plain user message") is None
    assert da.evicted_message_paths(f"page\n{NOTICE}\nmore {NOTICE}") == [SAVED]
    assert SAVED not in da.run_stable_text(NOTICE) and "/conversation_history/<message>.md" in da.run_stable_text(NOTICE)


def test_an_eviction_notice_gives_the_messages_own_id_not_the_shortened_one():
    long = "call_" + "a" * 200
    notice = f"Tool result too large, the result of this tool call {long[:32]}... was saved in the filesystem at this path: /x"
    assert da.eviction_notice(ToolMessage(notice, tool_call_id=long)) == da.Eviction(long, "/x")


def test_a_saved_messages_uuid4_name_changes_neither_the_call_id_nor_the_comparable_trace():
    from harness.trace.schema import Trace, comparable

    other = SAVED.replace("0f1e2d3c", "99999999")
    msgs = [HumanMessage(NOTICE)]
    first = call_id(msgs, ToolAction("read_file", {"file_path": SAVED}))
    assert first == call_id([HumanMessage(NOTICE.replace(SAVED, other))], ToolAction("read_file", {"file_path": other}))
    assert first != call_id(msgs, ToolAction("read_file", {"file_path": "/conversation_history/session_ab.md"}))

    def trace(path: str) -> Trace:
        response = {"text": "", "tool_calls": [{"name": "read_file", "args": {"file_path": path}, "id": "c1"}]}
        return Trace(case_id="x", kind="needle", calls=[{"index": 0, "message_keys": [], "response": response}])

    assert comparable(trace(SAVED)) == comparable(trace(other))
    assert comparable(trace(SAVED)) != comparable(trace("/notes/a.md"))


# -- the loop-without-progress fault ----------------------------------------------------------
def test_an_agent_that_repeats_after_a_summary_makes_its_last_call_again_three_in_a_row_then_goes_on():
    from harness.reference.policy import REPEATS

    plain = render_task("Audit the ledgers.", STEPS)
    read_a = ("read_file", {"file_path": "/l/a.md"}, "ledger a")
    head = [summary_message("## SESSION INTENT\n" + plain)]
    once = [*head, *call(*read_a, "r1")]
    assert decide(once, repeats_after_summary=True) == ToolAction("read_file", {"file_path": "/l/a.md"})
    assert decide(once) == ToolAction("read_file", {"file_path": "/l/b.md"})  # healthy: the next step
    repeated = [*head, *[m for k in range(REPEATS) for m in call(*read_a, f"r{k}")]]
    assert decide(repeated, repeats_after_summary=True) == decide(repeated)  # three in a row: it goes on
    unsummarized = [HumanMessage(plain), *call(*read_a, "r1")]
    assert decide(unsummarized, repeats_after_summary=True) == ToolAction("read_file", {"file_path": "/l/b.md"})
