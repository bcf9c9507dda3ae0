import pytest

from harness.errors import ConfigError, LiveModelUnavailable
from harness.models import choose_models
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel


def test_offline_default_is_the_reference_pair_and_is_simulated():
    choice = choose_models(None, None, window=64000, seed=3)
    assert isinstance(choice.agent, ReferenceAgentModel) and isinstance(choice.summarizer, ReferenceSummarizerModel)
    assert choice.agent.profile["max_input_tokens"] == 64000 and choice.summarizer.seed == 3
    assert choice.simulated and choice.agent_name == "reference-agent"


def test_a_live_model_without_its_key_is_skipped_with_the_reason(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LiveModelUnavailable, match="OPENAI_API_KEY is not set"):
        choose_models("openai:gpt-5.2", None, window=64000)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LiveModelUnavailable, match="ANTHROPIC_API_KEY"):
        choose_models(None, "anthropic:claude-sonnet-4-6", window=64000)


def test_a_model_spec_needs_a_provider():
    with pytest.raises(ConfigError, match="provider:name"):
        choose_models("gpt-5.2", None, window=64000)


def test_live_models_are_built_with_init_chat_model_and_the_declared_window(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    choice = choose_models("openai:gpt-5.2", None, window=48000)
    assert type(choice.agent).__name__ == "ChatOpenAI" and choice.agent.profile["max_input_tokens"] == 48000
    assert choice.summarizer is None and choice.summarizer_name == "openai:gpt-5.2"  # deepagents summarizes with the agent model
    assert not choice.simulated
    mixed = choose_models("openai:gpt-5.2", "reference", window=48000)
    assert isinstance(mixed.summarizer, ReferenceSummarizerModel) and mixed.simulated
