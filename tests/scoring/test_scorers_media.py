"""The media scorers (issue 20) on recorded conversations: parity (which compaction took the image, and what it kept
in the summary, the archive and the media offload) and blobs (media rehydrated in every request, a missing blob read
again, the answers). Each check shown holding on a good trace and failing on a bad one."""

from __future__ import annotations

import base64

import pytest

from harness import _deepagents_adapter as da
from harness.media_format import png_with_text
from harness.scenarios.generate import generated_case
from harness.scoring.scorers import score_case
from harness.scoring.scorers.media import PARITY_CHECKS, blob_scores, compactions, parity_scores
from harness.suites.eval_suite import MANUAL as REGISTRY_MANUAL
from harness.suites.eval_suite import PARITY_CHECKS as REGISTRY_CHECKS
from harness.suites.registry import SUITES
from tests._traces import Conversation

IMAGE = "/images/badge.png"
MEDIA = "/conversation_history/media/ab12.png"
AUTO = generated_case("media-parity-auto")
CODE = AUTO.needles[0].answer


def _image(code: str = CODE) -> list:
    png = base64.b64encode(png_with_text(f"the badge code is {code}")).decode()
    return [{"type": "image", "base64": png, "mime_type": "image/png"}]


def _parity(manual: bool, summary: str, answer: str = CODE, **final):  # noqa: ANN003, ANN202
    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-001"}, "Shipping log 001.")])
    if manual:
        conv.agent(tools=[("compact_conversation", {}, "Conversation compacted. Summarized 4 messages.")])
    conv.summarize(summary, keep=2)
    conv.answer("TASK COMPLETE.")
    conv.user(AUTO.followups[0])
    conv.answer(answer)
    return conv.trace(case_id=AUTO.id, kind="goal", **final)


KEPT = {"archived_reads": {da.HISTORY_PREFIX + "s.md": {IMAGE: f'<image url="{MEDIA}" />'}}, "media_files": {MEDIA: 172}}
LOST = {"archived_reads": {da.HISTORY_PREFIX + "s.md": {IMAGE: ""}}}


def test_registry_and_scorer_name_the_same_parity_checks():
    assert REGISTRY_CHECKS == PARITY_CHECKS and REGISTRY_MANUAL == "manual_"
    assert set(SUITES["parity"].known_upstream) == {"manual_" + k for k in PARITY_CHECKS}


def test_automatic_compaction_that_kept_the_image_passes_every_check():
    trace = _parity(False, f'Progress.\n- <image url="{MEDIA}" />', **KEPT)
    scores = {s.key: s for s in parity_scores(trace, AUTO)}
    assert [c["manual"] for c in compactions(trace)] == [False] and IMAGE in compactions(trace)[0]["took"]
    assert scores["media_compacted"].value
    assert all(scores[k].value for k in PARITY_CHECKS), {k: scores[k].explanation for k in PARITY_CHECKS}
    assert not any(k.startswith("manual_") for k in scores)


def test_the_tool_compaction_that_lost_the_image_fails_the_manual_checks_with_the_evidence():
    trace = _parity(True, "Progress only.", answer="I don't know the badge code.", **LOST)
    scores = {s.key: s for s in parity_scores(trace, AUTO)}
    assert scores["media_compacted"].value and [c["manual"] for c in compactions(trace)] == [True]
    for key in PARITY_CHECKS:
        assert scores["manual_" + key].value is False and key not in scores
    assert "names no media path" in scores["manual_media_in_summary"].explanation
    assert "records the read of /images/badge.png as ''" in scores["manual_media_in_archive"].explanation
    assert scores["media_refs_in_summary"].value == 0 and scores["media_files_offloaded"].value == 0


def test_no_compaction_of_the_image_is_invalid():
    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.answer("TASK COMPLETE.")
    scores = {s.key: s for s in parity_scores(conv.trace(kind="goal"), AUTO)}
    assert scores["media_compacted"].value is False and len(scores) == 1


def test_a_compaction_that_kept_the_read_in_view_did_not_take_the_image():
    # The first summary keeps the image's read (the last four messages); only the second takes it out of view. What a
    # compaction took is what was in view before it and is not after it, not everything that was in view before it.
    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-001"}, "Shipping log 001.")])
    conv.summarize("Progress.", keep=4)
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-002"}, "Shipping log 002.")])
    conv.summarize(f'Progress.\n- <image url="{MEDIA}" />', keep=2)
    conv.answer("TASK COMPLETE.")
    trace = conv.trace(case_id=AUTO.id, kind="goal", **KEPT)
    first, second = compactions(trace)
    assert (first["took"], second["took"]) == (set(), {IMAGE})
    scores = {s.key: s for s in parity_scores(trace, AUTO)}
    assert scores["media_compacted"].explanation == (
        f"automatic summarization summarized the read of {IMAGE} (summarizer call {second['index']})"
    )
    assert scores["media_in_summary"].value  # the second summary's references, not the first's


def test_a_compaction_that_left_the_image_in_view_is_no_compaction_of_it():
    conv = Conversation()
    conv.user(AUTO.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image())])  # type: ignore[list-item]
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-001"}, "Shipping log 001.")])
    conv.summarize("Progress.", keep=4)
    conv.answer("TASK COMPLETE.")
    scores = {s.key: s for s in parity_scores(conv.trace(case_id=AUTO.id, kind="goal"), AUTO)}
    assert scores["media_compacted"].value is False and len(scores) == 1


BLOB = generated_case("media-blob-recovery")
BADGE, SEAL = (n.answer for n in BLOB.needles)
STORE = {"blobs": {"present": {"/ab": 129}, "deleted": []}}


def _blob(missing: bool, reread: bool, **final):  # noqa: ANN003, ANN202
    conv = Conversation()
    conv.user(BLOB.task)
    conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image(BADGE))])  # type: ignore[list-item]
    conv.summarize("Progress.", keep=2)
    conv.answer("TASK COMPLETE.")
    if missing:  # the next turn's request carries deepagents' notice in place of the image
        old = conv.history[-2]
        conv.history[-2] = old.model_copy(update={"content": [{"type": "text", "text": da.missing_blob_text()}]})
    conv.user(BLOB.followups[0])
    if reread:
        conv.agent(tools=[("read_file", {"file_path": IMAGE}, _image(BADGE))])  # type: ignore[list-item]
    conv.answer(BADGE if reread or not missing else "I don't know.")
    conv.user(BLOB.followups[1])
    conv.answer(SEAL)
    return conv.trace(case_id=BLOB.id, kind="goal", **final)


def test_blob_checks_hold_when_every_request_carries_the_media():
    scores = {s.key: s for s in blob_scores(_blob(False, False, **STORE), BLOB)}
    for key in ("blob_offloaded", "summarized_after_read", "blob_rehydrated", "reread_after_missing", "media_answers_correct"):
        assert scores[key].value, (key, scores[key].explanation)
    assert scores["media_requests"].value >= 1 and scores["missing_blob_notices"].value == 0


def test_a_missing_blob_fails_rehydration_and_an_agent_that_does_not_read_again_fails_recovery():
    recovered = {s.key: s for s in blob_scores(_blob(True, True, **STORE), BLOB)}
    assert recovered["blob_rehydrated"].value is False and "missing-blob notice" in recovered["blob_rehydrated"].explanation
    assert recovered["reread_after_missing"].value and recovered["media_answers_correct"].value
    ignored = {s.key: s for s in blob_scores(_blob(True, False, **STORE), BLOB)}
    assert ignored["reread_after_missing"].value is False and IMAGE in ignored["reread_after_missing"].explanation
    assert ignored["media_answers_correct"].value is False


def test_no_blob_store_is_invalid():
    scores = {s.key: s for s in blob_scores(_blob(False, False), BLOB)}
    assert scores["blob_offloaded"].value is False


@pytest.mark.parametrize("scorers", ["parity", "blobs"])
def test_the_scorer_sets_are_registered(scorers):
    trace = _parity(False, "x", **KEPT) if scorers == "parity" else _blob(False, False, **STORE)
    keys = {s.key for s in score_case(trace, AUTO if scorers == "parity" else BLOB, scorers)}
    assert {"run_completed", "structure_ok"} <= keys and ("media_compacted" in keys or "blob_offloaded" in keys)


def test_the_registry_declares_known_upstream_for_exactly_the_manual_parity_checks_the_scorer_writes():
    """The registry (data only) keeps its own copy of the parity check names: held here to the scorer's, so a check
    renamed on one side cannot silently leave the known upstream declaration pointing at nothing."""
    from harness.scoring.scorers import media
    from harness.suites import registry

    assert registry.PARITY_CHECKS == media.PARITY_CHECKS and registry.MANUAL == media.MANUAL
    assert set(registry.SUITES["parity"].known_upstream) == {media.MANUAL + k for k in media.PARITY_CHECKS}
