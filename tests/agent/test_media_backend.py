"""Where media goes (issue 20): the blob store and its forgetful fault, a backend refusing media uploads, and the
media presets (compact tool, binary offload) in the agent deepagents builds and in the config's dictionary."""

from __future__ import annotations

from harness.agent.media import BlobStore, ForgetfulBlobStore, blob_listing, blob_store, media_backend
from harness.compaction.config import get_preset
from harness.suites.faults import SEEDED_FAULTS, FaultyBackend


def test_the_blob_store_keeps_what_it_is_given_and_the_forgetful_one_loses_it_once_loaded():
    store = BlobStore()
    assert store.upload_files([("/ab", b"png")])[0].error is None
    assert store.download_files(["/ab"])[0].content == b"png" and store.download_files(["/ab"])[0].content == b"png"
    assert store.download_files(["/zz"])[0].error == "file_not_found"
    forgetful = ForgetfulBlobStore()
    forgetful.upload_files([("/ab", b"png")])
    assert forgetful.download_files(["/ab"])[0].content == b"png"
    assert forgetful.download_files(["/ab"])[0].content is None and forgetful.deleted == ["/ab"]


def test_the_media_backend_routes_blobs_to_the_store_and_lists_it():
    backend = media_backend()
    backend.upload_files([("/blobs/ab", b"png")])
    assert blob_listing(backend) == {"present": {"/ab": 3}, "deleted": []}
    assert blob_listing(FaultyBackend()) is None and blob_store(object()) is None
    faulty = SEEDED_FAULTS["blob-deleted"].backend()  # type: ignore[misc]
    assert isinstance(blob_store(faulty), ForgetfulBlobStore)


def test_a_backend_refusing_media_uploads_refuses_only_under_its_prefix():
    backend = FaultyBackend(unwritable="/conversation_history/media/")
    refused = backend.upload_files([("/conversation_history/media/ab.png", b"x")])
    assert refused[0].error == "permission_denied"


def test_media_presets_set_the_tool_and_offload_and_other_configs_keep_their_dictionary():
    media, blobs, plain = get_preset("media"), get_preset("media-blobs"), get_preset("forced-20")
    assert media.compact_tool and not media.offload_binary and blobs.offload_binary and blobs.compact_tool
    assert media.to_dict()["compact_tool"] is True and "offload_binary" not in media.to_dict()
    assert "compact_tool" not in plain.to_dict() and "offload_binary" not in plain.to_dict()  # old config hashes hold
