import pytest

from harness.compaction.prompts import deepagents_default_prompt, validate_prompt
from harness.errors import ConfigError


def test_the_installed_deepagents_default_prompt_is_valid():
    prompt = deepagents_default_prompt()
    validate_prompt(prompt, source="deepagents")
    assert "## SESSION INTENT" in prompt and "{messages}" in prompt


@pytest.mark.parametrize(
    ("prompt", "match"),
    [
        ("Summarize the conversation.", "must contain the placeholder"),
        ("Summarize {messages} into {format}", r"placeholder\(s\) \{format\}"),
        ('Summarize {messages} as JSON like {"a": 1}', "placeholder|not a valid template"),
        ("Summarize {messages} }", "not a valid template"),
        ("Summarize { messages", "not a valid template"),
    ],
)
def test_bad_prompts_fail_when_loaded_naming_the_source(prompt, match):
    with pytest.raises(ConfigError, match=match) as err:
        validate_prompt(prompt, source="prompts/broken.md")
    assert "prompts/broken.md" in str(err.value)


def test_doubled_braces_are_fine():
    validate_prompt('Return JSON like {{"intent": "..."}} for {messages}', source="ok")
