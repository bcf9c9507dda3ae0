"""Every score the media scorers write, key, value, role and explanation, on each path: parity under automatic and
tool compaction (kept, lost, no record), and blob recovery (carried whole, a missing blob read again or not, no blob
store). The traces are test_scorers_media.py's."""

from __future__ import annotations

from typing import Any

from harness.scoring.scorers.media import blob_scores, parity_scores
from tests.scoring.test_scorers_media import AUTO, BLOB, IMAGE, KEPT, LOST, MEDIA, STORE, _blob, _parity

CODE = AUTO.needles[0].answer
BADGE = BLOB.needles[0].answer
OFFLOADED = ("media_files_offloaded", 1, "measure", "files under /conversation_history/media/ at the end")


def _rows(scores: list) -> list[tuple[str, Any, str, str]]:
    return [(s.key, s.value, s.role, s.explanation) for s in scores]


def test_parity_automatic_compaction_that_kept_the_image():
    assert _rows(parity_scores(_parity(False, f'Progress.\n- <image url="{MEDIA}" />', **KEPT), AUTO)) == [
        ("media_compacted", True, "validity", f"automatic summarization summarized the read of {IMAGE} (summarizer call 2)"),
        ("media_in_summary", True, "check", f"the summary automatic summarization wrote names {MEDIA}"),
        ("media_in_archive", True, "check", f"the history file records the read of {IMAGE} as {MEDIA}"),
        ("media_offloaded", True, "check", f"media offloaded with the summary: {MEDIA}"),
        ("media_recalled", True, "check", "all 1 question(s) about the media answered"),
        ("media_refs_in_summary", 1, "measure", "media references in the summary automatic summarization wrote"),
        OFFLOADED,
    ]


def test_parity_tool_compaction_that_lost_the_image():
    assert _rows(parity_scores(_parity(True, "Progress only.", answer="I don't know the badge code.", **LOST), AUTO)) == [
        (
            "media_compacted",
            True,
            "validity",
            f"the compact_conversation tool summarized the read of {IMAGE} (summarizer call 3)",
        ),
        (
            "manual_media_in_summary",
            False,
            "check",
            f"the summary the compact_conversation tool wrote names no media path: {IMAGE} is not recoverable from it",
        ),
        (
            "manual_media_in_archive",
            False,
            "check",
            f"the history file records the read of {IMAGE} as '': the media is not in the archive",
        ),
        (
            "manual_media_offloaded",
            False,
            "check",
            "nothing offloaded to /conversation_history/media/: the media left the conversation with no copy",
        ),
        ("manual_media_recalled", False, "check", f'turn 1: expected {CODE!r}, replied "I don\'t know the badge code."'),
        ("media_refs_in_summary", 0, "measure", "media references in the summary the compact_conversation tool wrote"),
        ("media_files_offloaded", 0, "measure", "files under /conversation_history/media/ at the end"),
    ]


def test_parity_without_a_record_of_the_read_and_several_references_and_files():
    other = "/conversation_history/media/cd34.png"
    scores = _rows(parity_scores(_parity(True, "Progress only.", answer="x" * 200), AUTO))
    assert scores[2] == ("manual_media_in_archive", False, "check", f"the history file holds no record of the read of {IMAGE}")
    assert scores[4] == ("manual_media_recalled", False, "check", f"turn 1: expected {CODE!r}, replied {'x' * 120!r}")
    summary = f'Progress.\n- <image url="{MEDIA}" />\n- <image url="{other}" />'
    final = {**KEPT, "media_files": {other: 1, MEDIA: 2}}
    final["archived_reads"] = {"/conversation_history/s.md": {IMAGE: f'<image url="{MEDIA}" /> <image url="{other}" />'}}
    scores = _rows(parity_scores(_parity(False, summary, **final), AUTO))
    assert scores[1:4] == [
        ("media_in_summary", True, "check", f"the summary automatic summarization wrote names {MEDIA}, {other}"),
        ("media_in_archive", True, "check", f"the history file records the read of {IMAGE} as {MEDIA}, {other}"),
        ("media_offloaded", True, "check", f"media offloaded with the summary: {MEDIA}, {other}"),  # sorted
    ]
    assert scores[5][1] == 2 and scores[6][1] == 2


def test_no_compaction_of_the_image_names_the_media():
    from tests._traces import Conversation
    from tests.scoring.test_scorers_media import _image

    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.answer("TASK COMPLETE.")
    assert _rows(parity_scores(conv.trace(kind="goal"), AUTO)) == [
        ("media_compacted", False, "validity", f"no compaction summarized a read of {IMAGE}, /data/seal.pdf")
    ]


WHOLE = ("reread_after_missing", True, "check", "every result that lost its media was followed by a read of that file")


def test_blobs_carried_whole():
    assert _rows(blob_scores(_blob(False, False, **STORE), BLOB)) == [
        ("blob_offloaded", True, "validity", "the blob store held 1 blob(s) at the end and lost 0"),
        ("summarized_after_read", True, "validity", "1 summary(ies) after the first read_file"),
        ("blob_rehydrated", True, "check", "3 request(s) carried the media whole; none carried the missing-blob notice"),
        WHOLE,
        ("media_answers_correct", True, "check", "all 2 question(s) about the media answered"),
        ("media_requests", 3, "measure", "agent requests that carried a file's media whole"),
        ("missing_blob_notices", 0, "measure", "media blocks deepagents replaced by the missing-blob notice"),
    ]


def test_a_missing_blob_not_read_again():
    assert _rows(blob_scores(_blob(True, False, **STORE), BLOB))[2:] == [
        (
            "blob_rehydrated",
            False,
            "check",
            f"2 request(s) carried deepagents' missing-blob notice instead of the media: call 3 ({IMAGE}), call 4 ({IMAGE})",
        ),
        ("reread_after_missing", False, "check", f"no read of the file followed the missing-blob notice at call 3 ({IMAGE})"),
        ("media_answers_correct", False, "check", f'turn 1: expected {BADGE!r}, replied "I don\'t know."'),
        ("media_requests", 1, "measure", "agent requests that carried a file's media whole"),
        ("missing_blob_notices", 2, "measure", "media blocks deepagents replaced by the missing-blob notice"),
    ]


def test_a_missing_blob_read_again():
    rows = _rows(blob_scores(_blob(True, True, **STORE), BLOB))
    assert rows[3] == WHOLE and rows[6] == (
        "missing_blob_notices",
        3,
        "measure",
        "media blocks deepagents replaced by the missing-blob notice",
    )


def test_no_blob_store_and_deleted_blobs():
    assert _rows(blob_scores(_blob(False, False), BLOB))[0] == (
        "blob_offloaded",
        False,
        "validity",
        "no binary read_file result reached the blob store (offload_binary_content off?): the case is invalid",
    )
    deleted = {"blobs": {"present": {}, "deleted": ["/ab", "/cd"]}}
    assert _rows(blob_scores(_blob(False, False, **deleted), BLOB))[0] == (
        "blob_offloaded",
        True,
        "validity",
        "the blob store held 0 blob(s) at the end and lost 2",
    )


# -- edges the mutants found unguarded --------------------------------------------------------------------------------
def _two_images(reread: str | None) -> Any:
    """Two images read, a summary, then both results lose their media (the missing-blob notice) in the next request;
    the agent reads ``reread`` again (or nothing)."""
    from harness import _deepagents_adapter as da
    from tests._traces import Conversation
    from tests.scoring.test_scorers_media import _image

    conv = Conversation()
    conv.user(BLOB.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image(BADGE))])  # type: ignore[list-item]
    conv.agent(tools=[("read_file", {"file_path": "/images/seal.png"}, _image(BADGE))])  # type: ignore[list-item]
    conv.summarize("Progress.", keep=4)
    conv.answer("TASK COMPLETE.")
    for i in (-2, -4):
        old = conv.history[i]
        conv.history[i] = old.model_copy(update={"content": [{"type": "text", "text": da.missing_blob_text()}]})
    conv.user(BLOB.followups[0])
    if reread:
        conv.agent(tools=[("read_file", {"file_path": reread}, _image(BADGE))])  # type: ignore[list-item]
    conv.answer(BADGE)
    return conv.trace(case_id=BLOB.id, kind="goal", **STORE)


def test_each_result_that_lost_its_media_needs_its_own_file_read_again():
    rows = {r[0]: r for r in _rows(blob_scores(_two_images(IMAGE), BLOB))}
    assert rows["reread_after_missing"] == (
        "reread_after_missing",
        False,
        "check",
        "no read of the file followed the missing-blob notice at call 4 (/images/seal.png)",
    )
    assert {r[0]: r for r in _rows(blob_scores(_two_images("/images/seal.png"), BLOB))}["reread_after_missing"][1] is False
    assert {r[0]: r for r in _rows(blob_scores(_two_images(None), BLOB))}["reread_after_missing"][3] == (
        f"no read of the file followed the missing-blob notice at call 4 ({IMAGE}), call 4 (/images/seal.png)"
    )


def test_a_read_of_another_file_after_a_notice_is_no_read_again():
    trace = _blob(True, False, **STORE)
    trace.calls[-1]["response"]["tool_calls"] = [{"name": "read_file", "args": {"file_path": "/other.png"}, "id": "x"}]
    assert {r[0]: r for r in _rows(blob_scores(trace, BLOB))}["reread_after_missing"][1] is False
    trace.calls[-1]["response"]["tool_calls"] = [{"name": "ls", "args": {"file_path": IMAGE}, "id": "x"}]
    assert {r[0]: r for r in _rows(blob_scores(trace, BLOB))}["reread_after_missing"][1] is False


def test_a_summary_only_before_the_first_read_is_no_summary_after_one():
    from tests._traces import Conversation
    from tests.scoring.test_scorers_media import _image

    conv = Conversation()
    conv.user(BLOB.task)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-001"}, "Shipping log 001.")])
    conv.summarize("Progress.", keep=2)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image(BADGE))])  # type: ignore[list-item]
    conv.answer("TASK COMPLETE.")
    rows = _rows(blob_scores(conv.trace(case_id=BLOB.id, kind="goal", **STORE), BLOB))
    assert rows[1] == ("summarized_after_read", False, "validity", "no summary after a read_file: invalid")


def test_a_summary_with_no_agent_call_after_it_took_nothing_and_one_before_any_agent_call_is_not_manual():
    from harness.scoring.scorers.media import compactions
    from tests._traces import Conversation
    from tests.scoring.test_scorers_media import _image

    conv = Conversation()
    conv.user(AUTO.task)
    conv.summarizer_call(reply="Nothing yet.")
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.summarizer_call(reply=f'<image url="{MEDIA}" />')
    first, last = compactions(conv.trace(kind="goal"))
    assert (first["manual"], first["took"]) == (False, set())
    assert (last["took"], last["summary"]) == (set(), f'<image url="{MEDIA}" />')


def test_every_wrong_or_missing_answer_is_named_joined():
    trace = _blob(False, False, **STORE)
    trace.final["answers"] = ["TASK COMPLETE.", "no idea"]
    seal = BLOB.needles[1]
    assert _rows(blob_scores(trace, BLOB))[4] == (
        "media_answers_correct",
        False,
        "check",
        f"turn 1: expected {BADGE!r}, replied 'no idea'; turn {seal.turn}: expected {seal.answer!r}, replied ''",
    )


def test_a_summary_last_in_the_run_took_nothing_though_a_read_was_in_view_before_it():
    from harness.scoring.scorers.media import compactions
    from tests._traces import Conversation
    from tests.scoring.test_scorers_media import _image

    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.agent()  # its request holds the read
    conv.summarizer_call(reply="Progress.")
    assert [c["took"] for c in compactions(conv.trace(kind="goal"))] == [set()]


def test_the_notices_named_are_the_first_six():
    trace = _blob(True, False, **STORE)
    last = trace.calls[-1]
    for n in range(5):
        trace.calls.append({**last, "index": last["index"] + 1 + n})
    why = _rows(blob_scores(trace, BLOB))[2][3]
    assert why.startswith("7 request(s) carried deepagents' missing-blob notice") and why.count("call ") == 6
