import json

import pytest

from harness.agent.models import NO_KEY_PLACEHOLDER, Endpoint, check_base_url, choose_models, parse_model_kwargs
from harness.errors import ConfigError, LiveModelUnavailable
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
    # deepagents' default: the agent model writes the summaries, called through the overflow translation
    assert choice.summarizer.inner is choice.agent and choice.summarizer_name == "openai:gpt-5.2"
    assert choice.agent.request_timeout == 120.0 and choice.agent.max_retries == 6  # never timeout=None
    assert "sk-test" not in json.dumps(choice.endpoints)
    assert not choice.simulated
    mixed = choose_models("openai:gpt-5.2", "reference", window=48000)
    assert isinstance(mixed.summarizer, ReferenceSummarizerModel) and mixed.simulated


def test_endpoint_settings_reach_the_client_and_a_keyless_server_gets_a_placeholder(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    agent = Endpoint(
        "http://127.0.0.1:9/v1", parse_model_kwargs(["temperature=0", "timeout=7", "max_retries=1", "seed=3"], "--model-kwargs")
    )
    choice = choose_models("openai:served", None, window=32000, agent_endpoint=agent)
    model = choice.agent
    assert (model.temperature, model.request_timeout, model.max_retries, model.seed) == (0, 7, 1, 3)
    assert str(model.openai_api_base) == "http://127.0.0.1:9/v1" and model.openai_api_key.get_secret_value() == NO_KEY_PLACEHOLDER
    assert choice.endpoints["agent"] == {
        "endpoint": "http://127.0.0.1:9/v1",
        "settings": {"timeout": 7, "max_retries": 1, "temperature": 0, "seed": 3},
    }


@pytest.mark.parametrize(
    "items, message",
    [
        (["temperature"], "KEY=VALUE"),
        (["api_key=sk-abc"], "environment"),
        (["timeout=-1"], "non-negative"),
        (["max_retries=lots"], "non-negative"),
    ],
)
def test_bad_model_kwargs_are_refused_naming_the_option(items, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_model_kwargs(items, "--summary-model-kwargs")
    assert "--summary-model-kwargs" in str(info.value)


def test_a_bad_base_url_or_an_unknown_model_kwarg_is_a_config_error(monkeypatch):
    with pytest.raises(ConfigError, match="--base-url"):
        check_base_url("localhost:8000", "--base-url")
    with pytest.raises(ConfigError, match="--model"):
        choose_models("openai:x", None, window=32000, agent_endpoint=Endpoint("http://127.0.0.1:9/v1", {"temperature": "hot"}))


def test_endpoint_settings_without_a_live_model_are_refused_not_ignored():
    with pytest.raises(ConfigError, match="--model-kwargs applies to a live model.*with no --model"):
        choose_models(None, None, window=32000, agent_endpoint=Endpoint(None, {"temperature": 0}))
