"""Native compaction helpers: the offline envelope of OpenAI's compaction item, the trigger minimum, the summary."""

from __future__ import annotations

import base64
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from harness import _deepagents_adapter as da
from harness.errors import ConfigError
from harness.reference import native

MESSAGES = [HumanMessage(content="Step 1: write /a.md.\nDecision: the billing database is pg-16."), AIMessage(content="ok")]


def test_the_envelope_carries_the_summary_and_decodes_offline():
    enc = native.encode_compaction("the summary")
    assert enc.startswith(native.ENVELOPE_PREFIX) and "the summary" not in enc  # opaque on the wire
    assert native.decode_compaction(enc) == "the summary"


@pytest.mark.parametrize(
    "bad, says",
    [
        ("gAAAA-real-openai-ciphertext", "not a harness compaction envelope"),
        (native.ENVELOPE_PREFIX + "!!!not base64", "not base64 JSON"),
        (native.ENVELOPE_PREFIX + base64.urlsafe_b64encode(json.dumps({"summary": "x"}).encode()).decode(), "marker"),
        (
            native.ENVELOPE_PREFIX
            + base64.urlsafe_b64encode(
                json.dumps({"marker": native.ENVELOPE_MARKER, "version": 99, "summary": "x"}).encode()
            ).decode(),
            "version 99",
        ),
        (
            native.ENVELOPE_PREFIX
            + base64.urlsafe_b64encode(json.dumps({"marker": native.ENVELOPE_MARKER, "version": 1}).encode()).decode(),
            "without a summary",
        ),
    ],
)
def test_an_envelope_that_is_not_ours_is_refused_with_the_reason(bad, says):
    with pytest.raises(ValueError, match=says):
        native.decode_compaction(bad)


def test_a_trigger_under_the_minimum_is_refused_and_one_at_it_is_allowed():
    assert native.trigger_error(50_000) is None
    problem = native.trigger_error(49_999)
    assert problem is not None and "50000" in problem and "49999" in problem


def test_a_low_trigger_fraction_names_the_minimum_and_the_window_that_reaches_it():
    assert native.low_trigger_window(0.25, 200_000) == 50_000
    assert native.low_trigger_window(0.10, 1_000_000) == 100_000
    with pytest.raises(ConfigError) as err:
        native.low_trigger_window(0.10, 200_000)
    text = str(err.value)
    assert "50,000" in text and "500,000" in text and "10%" in text and "25% or more" in text
    with pytest.raises(ConfigError, match="at least 1,000,000"):
        native.low_trigger_window(0.05, 100_000)  # the minimum is past the whole window: only a larger window helps
    with pytest.raises(ConfigError):
        native.low_trigger_window(0, 1_000_000)


def test_the_summary_is_shaped_by_the_instructions_and_reproducible():
    default = native.compaction_summary(MESSAGES)
    assert "## SESSION INTENT" in default and "Step 1: write /a.md." in default
    custom = native.compaction_summary(MESSAGES, "Summarize under these headings:\n## DECISIONS\n")
    assert custom.startswith("## DECISIONS") and "pg-16" in custom and "SESSION INTENT" not in custom
    assert native.compaction_summary(MESSAGES) == default


def test_the_models_see_a_native_summary_as_a_summary_without_a_history_file():
    msg = native.summary_message("## SESSION INTENT\nx")
    assert da.reads_as_summary(msg) and da.history_path(msg.text) is None
    assert da.summary_body(msg.text) == "## SESSION INTENT\nx"
