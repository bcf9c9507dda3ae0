"""Blob recovery: binary read_file results (an image, a PDF) are offloaded content-addressed to the blob store
(deepagents' offload_binary_content) and rehydrated on every request. After a summary the files stay in view, and
each later turn asks about one of them: every request must carry the media whole; where deepagents sends its
"no longer available, re-read the file" notice instead (the blob-deleted fault), the agent must read the file again
and still answer."""

import pytest

pytestmark = pytest.mark.blobs


@pytest.mark.langsmith
def test_offloaded_media_is_rehydrated_or_read_again(case, eval_session):
    result = eval_session.run_eval("blobs", case)
    # Validity first (blob_offloaded, summarized_after_read), then rehydration, re-reading after a missing-blob notice
    # and the answers: harness.suites.registry.SUITES["blobs"].
    result.require_eval("blobs")
