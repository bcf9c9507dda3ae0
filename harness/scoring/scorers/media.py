"""Media evals (issue 20), scored from the requests the model received and the backend's files, not only the reply.

- ``parity`` (manual vs automatic compaction, deepagents#6503): the compaction that took a media ``read_file`` result
  out of view is found in the trace (automatic, or the ``compact_conversation`` tool's); what it kept of the media is
  read from the summary it wrote, the history file's record of the read (``final["archived_reads"]``) and the media
  files offloaded (``final["media_files"]``), and whether the follow-up question about the media was answered. The
  keys carry the path taken (``manual_`` for the tool's), so a declared known upstream failure of the manual path
  (`EvalSuite.known_upstream`) never marks the automatic one.
- ``blobs`` (blob recovery): binary ``read_file`` results offloaded to the blob store (``final["blobs"]``) must reach
  every later request whole; where deepagents sent the "no longer available" notice instead, the agent must read
  the file again, and the questions about the media must be answered.
"""

from __future__ import annotations

from typing import Any

from harness import _deepagents_adapter as da
from harness.media_format import from_data_url
from harness.scenarios.schema import Scenario
from harness.scoring.scorers.needle import needle_answered
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY, Score
from harness.trace.schema import Trace

PARITY_CHECKS = ("media_in_summary", "media_in_archive", "media_offloaded", "media_recalled")
MANUAL = "manual_"
"""Prefix of the parity checks when the compaction was the compact_conversation tool's."""


def media_paths(scenario: Scenario) -> list[str]:
    """The case's files held as binary (base64 ``data:`` URLs): its images and binary files."""
    return [p for p, text in scenario.files_dict().items() if from_data_url(text) is not None]


def _is_compact_call(call: dict[str, Any]) -> bool:
    response = call.get("response") or {}
    return any(tc.get("name") == "compact_conversation" for tc in response.get("tool_calls") or [])


def _reads_in_view(trace: Trace, call: dict[str, Any] | None) -> set[str]:
    """The files whose read_file call is in the request of agent call ``call``."""
    if call is None:
        return set()
    return {
        str((tc.get("args") or {}).get("file_path"))
        for m in trace.request(call)
        for tc in getattr(m, "tool_calls", None) or []
        if tc.get("name") == "read_file"
    }


def compactions(trace: Trace) -> list[dict[str, Any]]:
    """Each summarizer call in order, with how it came about (``manual`` when the agent's last call before it asked
    for ``compact_conversation``), the summary it wrote, and the files whose read it took out of view (in the request
    of the agent call before it, not in the next one's)."""
    calls = trace.calls
    out = []
    for n, call in enumerate(calls):
        if call["role"] != "summarizer":
            continue
        before = next((c for c in reversed(calls[:n]) if c["role"] == "agent"), None)
        after = next((c for c in calls[n + 1 :] if c["role"] == "agent"), None)
        out.append(
            {
                "index": call["index"],
                "manual": before is not None and _is_compact_call(before),
                "summary": (call.get("response") or {}).get("text") or "",
                "took": _reads_in_view(trace, before) - _reads_in_view(trace, after) if after is not None else set(),
            }
        )
    return out


def _answers(trace: Trace, scenario: Scenario) -> tuple[bool, str]:
    wrong = []
    for needle in scenario.needles:
        reply = trace.answer(needle.turn) or ""
        if not needle_answered(reply, needle, scenario).correct:
            wrong.append(f"turn {needle.turn}: expected {needle.answer!r}, replied {reply[:120]!r}")
    n = len(scenario.needles)
    return not wrong, ("; ".join(wrong) if wrong else f"all {n} question(s) about the media answered")


def parity_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Validity: a compaction took a media read out of view. Checks (prefixed ``manual_`` when that compaction was
    the compact_conversation tool's): its summary names the media by path, the history file records the read as a
    media reference, the media was offloaded to /conversation_history/media/, the question about it was answered.
    Measures: media references in that summary and media files offloaded, the evidence the report lists."""
    paths = media_paths(scenario)
    taken = next(((c, p) for c in compactions(trace) for p in paths if p in c["took"]), None)
    if taken is None:
        return [Score("media_compacted", False, VALIDITY, f"no compaction summarized a read of {', '.join(paths)}")]
    comp, path = taken
    how = "the compact_conversation tool" if comp["manual"] else "automatic summarization"
    prefix = MANUAL if comp["manual"] else ""
    refs = da.media_references(comp["summary"])
    archived = {p: r for reads in (trace.final.get("archived_reads") or {}).values() for p, r in reads.items()}
    record = archived.get(path)
    record_refs = da.media_references(record or "")
    media = trace.final.get("media_files") or {}
    answered, why = _answers(trace, scenario)
    return [
        Score("media_compacted", True, VALIDITY, f"{how} summarized the read of {path} (summarizer call {comp['index']})"),
        Score(
            prefix + "media_in_summary",
            bool(refs),
            CHECK,
            f"the summary {how} wrote names {', '.join(refs)}"
            if refs
            else f"the summary {how} wrote names no media path: {path} is not recoverable from it",
        ),
        Score(
            prefix + "media_in_archive",
            bool(record_refs),
            CHECK,
            f"the history file records the read of {path} as {', '.join(record_refs)}"
            if record_refs
            else f"the history file records the read of {path} as {record!r}: the media is not in the archive"
            if record is not None
            else f"the history file holds no record of the read of {path}",
        ),
        Score(
            prefix + "media_offloaded",
            bool(media),
            CHECK,
            f"media offloaded with the summary: {', '.join(sorted(media))}"
            if media
            else "nothing offloaded to /conversation_history/media/: the media left the conversation with no copy",
        ),
        Score(prefix + "media_recalled", answered, CHECK, why),
        Score("media_refs_in_summary", len(refs), MEASURE, f"media references in the summary {how} wrote"),
        Score("media_files_offloaded", len(media), MEASURE, "files under /conversation_history/media/ at the end"),
    ]


def _missing_notices(trace: Trace) -> list[tuple[int, str, str]]:
    """(agent call index, file path, tool call id) for each missing-blob notice a request carried in place of a file's
    binary content, the path read from the tool call the result answers."""
    found = []
    for call in trace.agent_calls():
        messages = trace.request(call)
        targets = {tc.get("id"): (tc.get("args") or {}).get("file_path") for m in messages for tc in getattr(m, "tool_calls", [])}
        for m in messages:
            if m.type == "tool" and isinstance(m.content, list) and da.is_missing_blob(m.text):
                call_id = str(getattr(m, "tool_call_id", ""))
                found.append((call["index"], str(targets.get(call_id) or "?"), call_id))
    return found


def _media_requests(trace: Trace) -> int:
    from harness.media_format import media_texts

    return sum(1 for c in trace.agent_calls() if any(media_texts(m.content) for m in trace.request(c) if m.type == "tool"))


def blob_scores(trace: Trace, scenario: Scenario) -> list[Score]:
    """Validity: binary reads went to the blob store and a summary fired after one. Checks: every request carried the
    media whole (never the missing-blob notice), each notice was followed by a read of that file, and the questions
    about the media were answered."""
    blobs = trace.final.get("blobs")
    stored = bool(blobs and (blobs.get("present") or blobs.get("deleted")))
    reads = [c["index"] for c in trace.agent_calls() if any(tc.get("name") == "read_file" for tc in _calls(c))]
    after = [c for c in trace.summarizer_calls() if reads and c["index"] > min(reads)]
    notices = _missing_notices(trace)
    first: dict[str, tuple[int, str]] = {}  # each result that lost its media, from the first request that showed it
    for i, p, call_id in notices:
        first.setdefault(call_id, (i, p))
    unread = [(i, p) for i, p in first.values() if not _read_after(trace, i, p)]
    answered, why = _answers(trace, scenario)
    carried = _media_requests(trace)
    return [
        Score(
            "blob_offloaded",
            stored,
            VALIDITY,
            f"the blob store held {len((blobs or {}).get('present') or {})} blob(s) at the end and lost "
            f"{len((blobs or {}).get('deleted') or [])}"
            if stored
            else "no binary read_file result reached the blob store (offload_binary_content off?): the case is invalid",
        ),
        Score(
            "summarized_after_read",
            bool(after),
            VALIDITY,
            f"{len(after)} summary(ies) after the first read_file" if after else "no summary after a read_file: invalid",
        ),
        Score(
            "blob_rehydrated",
            not notices,
            CHECK,
            f"{carried} request(s) carried the media whole; none carried the missing-blob notice"
            if not notices
            else f"{len(notices)} request(s) carried deepagents' missing-blob notice instead of the media: "
            + ", ".join(f"call {i} ({p})" for i, p, _ in notices[:6]),
        ),
        Score(
            "reread_after_missing",
            not unread,
            CHECK,
            "every result that lost its media was followed by a read of that file"
            if not unread
            else "no read of the file followed the missing-blob notice at " + ", ".join(f"call {i} ({p})" for i, p in unread[:6]),
        ),
        Score("media_answers_correct", answered, CHECK, why),
        Score("media_requests", carried, MEASURE, "agent requests that carried a file's media whole"),
        Score("missing_blob_notices", len(notices), MEASURE, "media blocks deepagents replaced by the missing-blob notice"),
    ]


def _calls(call: dict[str, Any]) -> list[dict[str, Any]]:
    return list((call.get("response") or {}).get("tool_calls") or [])


def _read_after(trace: Trace, index: int, path: str) -> bool:
    """An agent call at or after ``index`` asked to read ``path``."""
    return any(
        c["index"] >= index
        and any(tc.get("name") == "read_file" and (tc.get("args") or {}).get("file_path") == path for tc in _calls(c))
        for c in trace.agent_calls()
    )
