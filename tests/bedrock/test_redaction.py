"""The redactor masks every secret shape it documents, values only, and leaves words and settings alone."""

from __future__ import annotations

import io

import pytest

from harness.redact import MASK, RedactingStream, _secret_shaped, redact, secret_values


@pytest.fixture(autouse=True)
def _no_secret_env(monkeypatch):
    import os

    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_KEY")):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    "secret",
    [
        "sk-abcdEFGH1234",  # OpenAI
        "rk-abcdEFGH1234",  # OpenAI restricted
        "sk-ant-api03-abcdEFGH",  # Anthropic
        "lsv2_pt_abcd1234ef",  # LangSmith
        "AIzaSyA1234567890abcdefghij",  # Google
        "gsk_abcdefgh12345678",  # Groq
        "xai-abcdefgh12345678",  # xAI
        "fw_abcdefgh12345678",  # Fireworks
        "pplx-abcdefgh12345678",  # Perplexity
    ],
)
def test_every_provider_key_shape_is_masked_wherever_it_appears(secret):
    assert redact(f"error: invalid key {secret} (check it)") == f"error: invalid key {MASK} (check it)"


@pytest.mark.parametrize("short", ["sk-abc1234", "lsv2_abc1234", "AIza123456789012345678", "gsk_abc12345678"])
def test_a_prefix_with_too_few_characters_after_it_is_not_a_key(short):
    assert redact(f"id {short} here") == f"id {short} here"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abcDEF123456", f"Authorization: Bearer {MASK}"),
        ("authorization=Basic dXNlcjpwYXNz", f"authorization=Basic {MASK}"),
        ("{'x-api-key': 'Zq1w2e3r4t5y'}", f"{{'x-api-key': '{MASK}'}}"),
        ('"api_key": "hunter2hunter2"', f'"api_key": "{MASK}"'),
        ("api-key=Abc123", f"api-key={MASK}"),
        ("sent with bearer AbCdEf123456", f"sent with bearer {MASK}"),
    ],
)
def test_the_value_after_a_credential_name_is_masked_and_the_name_kept(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize(
    "prose",
    [
        "set LANGSMITH_API_KEY: upload a trace",  # a name followed by words
        "api_key: none",
        "Authorization: required",
        "api_key=short",  # five characters: under the six a named api_key value needs
    ],
)
def test_words_after_a_credential_name_are_not_masked(prose):
    assert redact(prose) == prose


def test_secret_shape_is_a_digit_or_inner_capital_or_24_characters():
    assert _secret_shaped("abc1")
    assert _secret_shaped("aBc")
    assert not _secret_shaped("Abc")  # a capital first letter is a word
    assert not _secret_shaped("a" * 23)
    assert _secret_shaped("a" * 24)


def test_values_of_secret_named_environment_variables_are_masked_longest_first(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plainwordvalue")
    monkeypatch.setenv("OTHER_SECRET", "plainwordvalue-extended")
    monkeypatch.setenv("DB_PASSWORD", "opensesame")
    monkeypatch.setenv("VENDOR_KEY", "vendorvalue")
    monkeypatch.setenv("DEBUG_TOKEN", "1")  # too short to be a secret: a setting
    monkeypatch.setenv("PLAIN_SETTING", "plainwordvalue2")  # not a secret name
    assert secret_values()[:2] == ["plainwordvalue-extended", "plainwordvalue"]
    assert "1" not in secret_values() and "plainwordvalue2" not in secret_values()
    text = "a=plainwordvalue-extended b=plainwordvalue c=opensesame d=vendorvalue e=1"
    assert redact(text) == f"a={MASK} b={MASK} c={MASK} d={MASK} e=1"


def test_a_six_character_env_value_is_a_secret_and_a_five_character_one_is_not(monkeypatch):
    monkeypatch.setenv("A_API_KEY", "abcdef")
    monkeypatch.setenv("B_API_KEY", "vwxyz")
    assert secret_values() == ["abcdef"]


def test_empty_text_is_returned_as_is():
    assert redact("") == ""


def test_an_already_masked_value_is_left_as_it_is():
    assert redact(f"Authorization: Bearer {MASK}") == f"Authorization: Bearer {MASK}"


def test_the_stream_writes_redacted_text_and_reports_the_length_it_was_given():
    sink = io.StringIO()
    stream = RedactingStream(sink)
    assert stream.write("key sk-abcdEFGH1234\n") == len("key sk-abcdEFGH1234\n")
    assert sink.getvalue() == f"key {MASK}\n"
    assert stream.getvalue() == sink.getvalue()  # everything else passes through


def test_process_output_is_routed_through_the_redactor_once_however_often_it_is_asked(monkeypatch):
    import sys

    from harness.redact import redact_process_output

    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    redact_process_output()
    redact_process_output()
    assert isinstance(sys.stdout, RedactingStream) and isinstance(sys.stderr, RedactingStream)
    assert sys.stdout._stream is out and sys.stderr._stream is err  # wrapped once, not twice
    print("key sk-abcdEFGH1234")
    sys.stderr.write("Bearer abcdEFGH12345678\n")
    assert out.getvalue() == f"key {MASK}\n" and err.getvalue() == f"Bearer {MASK}\n"


def test_redact_json_masks_every_string_in_a_json_value_and_keeps_keys_and_other_values():
    from harness.redact import redact_json

    value = {
        "api_key": "sk-abcdefghijklmnop1234",
        "messages": [{"content": "use lsv2_abcdefghijk123", "n": 3, "ok": True, "none": None}],
        "pair": ("gsk_abcdefghijklmnop", 1.5),
    }
    assert redact_json(value) == {
        "api_key": MASK,
        "messages": [{"content": f"use {MASK}", "n": 3, "ok": True, "none": None}],
        "pair": (MASK, 1.5),
    }
