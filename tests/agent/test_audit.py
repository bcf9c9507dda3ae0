"""harness audit: every flag, with real model names from the installed provider packages."""

import pytest

from harness.agent.audit import audit
from harness.cli.main import main


def codes(report):
    return {(f.level, f.code) for f in report.findings}


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_a_profiled_model_with_defaults_is_clean_and_shows_deepagents_thresholds():
    report = audit("openai:gpt-5.2")
    assert report.profile_window == 272000 and report.exit_code == 0
    assert report.trigger == ["231,200 tokens (85%)"] and report.keep == "27,200 tokens (10%)"
    assert 2000 < report.overhead_tokens < 4000
    assert ("info", "not-in-catalogue") in codes(report)


def test_no_profile_for_the_exact_name_warns_and_suggests_the_profiled_spelling():
    report = audit("openai:gpt-5-2")
    assert ("warning", "no-profile") in codes(report) and report.exit_code == 1
    assert (
        "gpt-5.2" in report.findings[0].message
        and report.trigger == ["170,000 tokens (tokens:170000)"]
        and report.keep == "6 messages"
    )


def test_fractions_without_a_profile_are_an_error_unless_a_window_is_declared():
    assert ("error", "fraction-without-profile") in codes(audit("openai:gpt-5-2", trigger=["20%"]))
    declared = audit("openai:gpt-5-2", trigger=["20%"], keep="5%", window=64000)
    assert ("error", "fraction-without-profile") not in codes(declared) and declared.trigger == ["12,800 tokens (20%)"]


def test_a_profile_window_above_the_catalogue_limit_warns():
    report = audit("anthropic:claude-sonnet-4-6")
    assert report.profile_window == 1_000_000 and ("warning", "profile-exceeds-catalogue") in codes(report)
    assert "850,000" in next(f.message for f in report.findings if f.code == "profile-exceeds-catalogue")
    assert not any(f.code == "profile-exceeds-catalogue" for f in audit("anthropic:claude-sonnet-4-5").findings)


def test_a_zero_window_profile_is_an_error():
    report = audit("openai:chatgpt-image-latest")
    assert ("error", "profile-zero-window") in codes(report) and report.exit_code == 2


def test_trigger_below_the_overhead():
    assert ("error", "trigger-below-overhead") in codes(audit("openai:gpt-5.2", trigger=["tokens:2000"], keep="tokens:500"))
    assert ("warning", "trigger-below-overhead") in codes(audit("openai:gpt-5.2", trigger=["tokens:4000"], keep="tokens:500"))
    assert not any(f.code == "trigger-below-overhead" for f in audit("openai:gpt-5.2", trigger=["10%"], keep="2%").findings)


def test_keep_at_or_above_trigger_and_trigger_above_window():
    assert ("error", "keep-at-or-above-trigger") in codes(audit("openai:gpt-5.2", trigger=["20%"], keep="30%"))
    assert ("warning", "trigger-above-window") in codes(audit("openai:gpt-5.2", trigger=["tokens:300000"], keep="tokens:1000"))


def test_cli_exit_codes_and_no_key_in_the_output(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    assert main(["audit", "--model", "openai:gpt-5.2"]) == 0
    assert main(["audit", "--model", "openai:gpt-5-2"]) == 1
    assert main(["audit", "--model", "openai:gpt-5.2", "--trigger", "tokens:2000"]) == 2
    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(["audit", "--model", "openai:gpt-5.2"]) == 0
    out = capsys.readouterr()
    assert "sk-secret" not in out.out + out.err and "placeholder" not in out.out + out.err
    assert main(["audit", "--model", "gpt-5.2"]) == 2
