"""The summary-reinject reference arm: behind each deepagents summary, the plan and the most recently read files (a
large one by its path), fixed per summary; a request without a summary goes through untouched."""

from deepagents.backends.protocol import FileDownloadResponse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from harness.compaction.strategies.summary_reinject import (
    FILE_TOKEN_LIMIT,
    MAX_FILES,
    REINJECTED_ID,
    ReinjectAfterSummary,
    recent_reads,
)
from tests._messages import call, summary_message
from tests._recorder_inputs import request

TODOS = [{"content": "Read /ledgers/a.md", "status": "completed"}]


class Files:
    """A backend holding ``files`` (path -> text), read the way the memory middleware reads: download_files."""

    def __init__(self, files):
        self.files, self.reads = files, 0

    def download_files(self, paths):
        self.reads += 1
        return [
            FileDownloadResponse(path=p, content=self.files[p].encode(), error=None)
            if p in self.files
            else FileDownloadResponse(path=p, content=None, error="file_not_found")
            for p in paths
        ]


def _reads(*paths, failed=()):
    out = []
    for n, path in enumerate(paths):
        out += call("read_file", {"file_path": path}, "Error: no such file" if path in failed else f"text of {path}", f"r{n}")
    return out


def test_recent_reads_are_the_last_distinct_successful_reads_oldest_first():
    msgs = _reads(*(f"/l/{i}.md" for i in range(7)), "/l/2.md", "/conversation_history/s.md", "/x.md", failed={"/x.md"})
    assert recent_reads(msgs) == ["/l/3.md", "/l/4.md", "/l/5.md", "/l/6.md", "/l/2.md"]  # MAX_FILES of them
    assert len(recent_reads(msgs)) == MAX_FILES
    assert recent_reads(call("write_file", {"file_path": "/n.md", "content": "x"}, "ok", "w")) == []


def _run(middleware, messages, state):
    seen = []
    middleware.wrap_model_call(request(messages, state=state), lambda r: seen.append(r.messages) or "ok")
    return seen[0]


def test_behind_the_summary_come_the_plan_and_the_files_it_took_out_of_view():
    old = [HumanMessage("Audit."), *_reads("/l/a.md", "/l/big.md")]
    kept = call("write_file", {"file_path": "/n.md", "content": "x"}, "ok", "w1")
    files = Files({"/l/a.md": "line one\nline two", "/l/big.md": "word " * (5 * FILE_TOKEN_LIMIT)})
    middleware = ReinjectAfterSummary(files)
    head = summary_message("Under way.")
    state = {"messages": [*old, *kept], "todos": TODOS}
    sent = _run(middleware, [head, *kept], state)
    assert sent[0] is head and sent[-2:] == kept
    ai, *results = sent[1:-2]
    assert [tc["name"] for tc in ai.tool_calls] == ["write_todos", "read_file", "read_file"]
    assert all(tc["id"].startswith(REINJECTED_ID) for tc in ai.tool_calls)
    assert ai.tool_calls[0]["args"] == {"todos": TODOS} and "completed" in results[0].text
    assert results[1].text == "line one\nline two"
    assert "not re-read after the summary" in results[2].text and "/l/big.md" in results[2].text
    assert [r.tool_call_id for r in results] == [tc["id"] for tc in ai.tool_calls]
    again = _run(middleware, [head, *kept, AIMessage("next")], state)
    assert again[1:4] == sent[1:4] and files.reads == 2  # fixed for the summary: the files are not read again


def test_a_request_without_a_summary_or_with_nothing_to_bring_back_is_untouched():
    middleware = ReinjectAfterSummary(Files({}))
    msgs = [HumanMessage("Audit."), *_reads("/l/a.md")]
    assert _run(middleware, msgs, {"messages": msgs}) == msgs
    head = summary_message("Nothing read.")
    assert _run(middleware, [head, HumanMessage("go on")], {"messages": [HumanMessage("Audit.")]}) == [
        head,
        HumanMessage("go on"),
    ]
    gone = _run(middleware, [summary_message("Read a.")], {"messages": _reads("/l/a.md")})  # the file is no longer there
    assert len(gone) == 1


def test_a_tool_message_kept_in_the_request_is_not_brought_back_again():
    old = _reads("/l/a.md", "/l/b.md")
    middleware = ReinjectAfterSummary(Files({"/l/a.md": "a", "/l/b.md": "b"}))
    sent = _run(middleware, [summary_message("Read a."), *old[2:]], {"messages": old})
    assert [tc["args"]["file_path"] for tc in sent[1].tool_calls] == ["/l/a.md"]
    assert isinstance(sent[2], ToolMessage) and sent[2].text == "a"
