"""Manual vs automatic compaction of media (deepagents#6503): the same conversation, with an image read early, is
compacted automatically (`media-parity-auto`) and by the compact_conversation tool the task asks for
(`media-parity-manual`). Each compaction is scored on what it kept of the image: the summary names it by path, the
history file records it as a media reference, a copy was offloaded to /conversation_history/media/, and the follow-up
question only the image answers is answered. On deepagents 0.7.32 the tool's compaction keeps none of it: the manual
case is a known upstream failure (strict xfail with the issue link; a fixed deepagents fails this test so the
declaration is removed)."""

import pytest

pytestmark = pytest.mark.parity


@pytest.mark.langsmith
def test_compaction_keeps_media_in_summary_archive_and_offload(case, eval_session):
    result = eval_session.run_eval("parity", case)
    # Validity first (media_compacted), then summary, archive, offload and recall, prefixed manual_ for the tool's
    # compaction: harness.suites.registry.SUITES["parity"] (its known_upstream names the manual keys).
    result.require_eval("parity")
