"""The adapter across the deepagents releases it claims (`SUPPORTED_DEEPAGENTS`): one test per format that changed
inside the range (read_file pages: gutter to header; the history file: session id) and the range check itself."""

from __future__ import annotations

import pytest

from harness import _deepagents_adapter as da

# deepagents 0.7.6-0.7.31: each line numbered in a gutter (marker right-aligned, two spaces), long lines cut into
# rows 5, 5.1 ...; a partial page ends with a notice naming the window and where to resume.
GUTTER_PARTIAL = (
    "  9  alpha\n 10  beta is long\n 10.1   and continues\n 11  \n\n"
    "[Read 3 lines (lines 9-11 of 932 total). 921 lines remaining from offset 11.]"
)
GUTTER_UNKNOWN_TOTAL = "1  a\n2  b\n\n[Read 2 lines (lines 1-2). More lines remain from offset 2.]"
GUTTER_LAST = "930  y\n931  z\n932  end"  # the page that reaches the end of the file has no notice
# deepagents 0.7.32: a header, the lines unnumbered.
HEADER = "@@ lines 9-11 of 932 | next offset 11 @@\nalpha\nbeta\n"


def test_gutter_page_is_read_from_its_notice_and_rows():
    assert da.read_page_header(GUTTER_PARTIAL) == da.ReadPage(9, 11, 932, 11)
    assert da.read_page_body(GUTTER_PARTIAL) == "alpha\nbeta is long and continues\n"
    assert da.read_page_header(GUTTER_UNKNOWN_TOTAL) == da.ReadPage(1, 2, None, 2)
    assert da.read_page_header(GUTTER_LAST) == da.ReadPage(930, 932, 932, None)
    assert da.read_page_body(GUTTER_LAST) == "y\nz\nend"


def test_header_page_is_read_from_its_header():
    assert da.read_page_header(HEADER) == da.ReadPage(9, 11, 932, 11)
    assert da.read_page_body(HEADER) == "alpha\nbeta\n"


@pytest.mark.parametrize(
    "text",
    [
        "Tool result too large, the result of this tool call x was saved\n  1  a",  # an eviction notice's preview
        "plain prose\nwith lines",
        " 3.1  a continuation row cannot start a page",
        "",
    ],
)
def test_text_that_is_not_a_page_is_refused(text):
    assert da.read_page_header(text) is None
    assert da.read_page_body(text) is None


@pytest.mark.parametrize(
    "path",
    [
        "/conversation_history/session_0123456789abcdef0123456789abcdef.md",  # 0.7.6 and later: session_<uuid4 hex>
        "/conversation_history/needle-h32k-d025-e0440933.md",  # before 0.7.6: the thread id (outside the range)
    ],
)
def test_history_path_is_read_whatever_the_naming(path):
    text = (
        f"You are in the middle...\n\nThe full conversation history has been saved to {path} should you need to refer back to it."
    )
    assert da.history_path(text) == path
    assert da.history_path("A condensed summary follows: nothing saved") is None


def test_supported_range_includes_its_ends_and_refuses_outside():
    low, high = da.SUPPORTED_DEEPAGENTS
    assert da.supports_deepagents(low) and da.supports_deepagents(high) and da.supports_deepagents("0.7.20")
    for version in ("0.7.5", "0.6.12", "0.7.33", "1.0.0", "not-a-version"):
        assert not da.supports_deepagents(version), version


class _FilesystemMiddleware076:
    """deepagents 0.7.6's FilesystemMiddleware signature: eviction of tools and human messages, no binary offload."""

    def __init__(self, *, backend=None, tool_token_limit_before_evict=20000, human_message_token_limit_before_evict=50000):
        pass


def test_a_deepagents_without_binary_offload_is_named_and_its_blob_texts_read_as_none(monkeypatch):
    import builtins

    import deepagents.middleware

    assert da.binary_offload_missing() is None  # the pinned 0.7.32 has offload_binary_content
    monkeypatch.setattr(deepagents.middleware, "FilesystemMiddleware", _FilesystemMiddleware076)
    assert "has no offload_binary_content" in str(da.binary_offload_missing())
    real_import = builtins.__import__

    def no_blob_module(name, *args, **kwargs):
        if name == "deepagents.middleware._blob_offload":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    notice = da.missing_blob_text()
    assert da.is_missing_blob(notice) and da.blob_refs([{"deepagents_blob": "ab"}]) == ["ab"]
    monkeypatch.setattr(builtins, "__import__", no_blob_module)
    assert not da.is_missing_blob(notice) and da.blob_refs([{"deepagents_blob": "ab"}]) == []


def test_an_eval_whose_preset_needs_binary_offload_is_not_run_there_and_others_run(monkeypatch):
    from harness.agent.build import build_agent
    from harness.compaction.variants import make_config
    from harness.errors import ConfigError
    from harness.reference import ReferenceAgentModel
    from harness.suites.execute import NotRun, Settings, find_case, prepared

    settings = Settings.offline()
    prepared("blobs", find_case("media-blob-recovery"), settings, None)  # 0.7.32: runs
    monkeypatch.setattr(da, "binary_offload_missing", lambda: "deepagents 0.7.6 has no offload_binary_content (...)")
    with pytest.raises(NotRun, match=r"eval blobs: deepagents 0.7.6 has no offload_binary_content"):
        prepared("blobs", find_case("media-blob-recovery"), settings, None)
    prepared("pasted", find_case("pasted-3k"), settings, None)  # its preset replaces the middleware without blobs
    with pytest.raises(ConfigError, match=r"config 'media-blobs': offload_binary is on, but deepagents 0.7.6 has no"):
        build_agent(make_config("media-blobs"), ReferenceAgentModel())
