"""Summary-prompt variant files: settings, inheritance, and errors that name the file."""

import pytest

from harness.agent.models import summary_model_for
from harness.compaction.config import ContextSize
from harness.compaction.prompts import deepagents_default_prompt
from harness.compaction.variants import load_variant, make_config, resolve_config, variant_names
from harness.errors import ConfigError


def write(tmp_path, name, text):
    path = tmp_path / f"{name}.md"
    path.write_text(text)
    return path


def test_the_seven_shipped_variants_load_and_the_default_is_the_installed_prompt():
    shipped = {"deepagents-default", "langchain-default", "minimal", "structured", "completed-work", "anchored", "typed"}
    assert shipped <= set(variant_names())
    config, variant = resolve_config("deepagents-default")
    assert variant.prompt is None and config.summary_prompt is None and config.summary_prompt_name == "deepagents-default"
    for name in ("minimal", "structured", "completed-work", "anchored", "typed"):
        cfg = make_config(name)
        assert "{messages}" in cfg.summary_prompt and cfg.summary_prompt_name == name and cfg.name == name
    assert deepagents_default_prompt() not in {make_config(n).summary_prompt for n in ("minimal", "structured")}
    from langchain.agents.middleware.summarization import DEFAULT_SUMMARY_PROMPT

    langchain = make_config("langchain-default")  # read from the installed LangChain, never copied
    assert langchain.summary_prompt == DEFAULT_SUMMARY_PROMPT and langchain.summary_prompt_name == "langchain-default"


def test_a_named_prompt_takes_no_body_and_an_unknown_name_is_refused(tmp_path):
    from harness.compaction.variants import load_variant

    (tmp_path / "x.md").write_text("---\nprompt: langchain-default\n---\nMy prompt {messages}\n")
    with pytest.raises(ConfigError, match="the file body must be empty"):
        load_variant(str(tmp_path / "x.md"))
    (tmp_path / "y.md").write_text("---\nprompt: openai-default\n---\n")
    with pytest.raises(ConfigError, match="the named prompts are 'deepagents-default' and 'langchain-default'"):
        load_variant(str(tmp_path / "y.md"))


def test_front_matter_sets_summarizer_thresholds_truncation_eviction_and_trim(tmp_path):
    path = write(
        tmp_path,
        "tuned",
        """---
description: tuned
summary_model: openai:gpt-5-mini
trigger: [15%, messages:60]
keep: tokens:2000
window: 96000
trim_tokens_to_summarize: 4000
eviction_tokens: 5000
arg_truncation: {trigger: 10%, keep: messages:10, max_length: 500}
---
Summarize: {messages}
""",
    )
    variant = load_variant(path)
    cfg, _ = resolve_config(str(path))
    assert cfg.trigger == (ContextSize("fraction", 0.15), ContextSize("messages", 60)) and cfg.keep == ContextSize("tokens", 2000)
    assert (cfg.window, cfg.trim_tokens_to_summarize, cfg.eviction_tokens) == (96000, 4000, 5000)
    assert cfg.arg_truncation.max_length == 500 and cfg.summary_model == "openai:gpt-5-mini" == variant.summary_model


def test_a_size_reads_as_in_a_spec_the_mapping_form_included_by_the_one_reader(tmp_path):
    """A variant's sizes are read by `ContextSize.read`, the spec's reader: DeerFlow's mapping form too, and a problem
    names the file and the key, as for a spec."""
    path = write(
        tmp_path, "m", "---\ntrigger: [{type: tokens, value: 9000}, 30%]\nkeep: {type: messages, value: 8}\n---\nS {messages}"
    )
    cfg, _ = resolve_config(str(path))
    assert cfg.trigger == (ContextSize("tokens", 9000), ContextSize("fraction", 0.3))
    assert cfg.keep == ContextSize("messages", 8)
    bad = write(tmp_path, "b", "---\nkeep: {type: tokens, value: 9, unit: x}\n---\nS {messages}")
    with pytest.raises(ConfigError) as err:
        load_variant(bad)
    assert str(err.value) == f"{bad}: keep: a size mapping needs exactly 'type' and 'value', got ['type', 'unit', 'value']"
    with pytest.raises(ConfigError) as err:
        make_config(trigger=["20x"])
    assert str(err.value).startswith("--trigger '20x': cannot read context size '20x'")


def test_include_inherits_and_overrides(tmp_path):
    write(tmp_path, "parent", "---\nkeep: tokens:1500\nsummary_model: reference\n---\nParent prompt {messages}\n")
    child = write(tmp_path, "child", f"---\ninclude: {tmp_path / 'parent.md'}\nwindow: 80000\n---\n")
    cfg, variant = resolve_config(str(child))
    assert cfg.summary_prompt == "Parent prompt {messages}" and cfg.keep == ContextSize("tokens", 1500) and cfg.window == 80000
    assert variant.summary_model == "reference"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("Summarize the conversation.", "must contain the placeholder"),
        ("Summarize {messages} as {json}", r"placeholder\(s\) \{json\}"),
        ("Summarize {messages} and }", "not a valid template"),
        ("---\ncolour: red\n---\nx {messages}", "colour: unknown key; known keys: arg_truncation"),
        ("---\ntrigger: 150%\n---\nx {messages}", "trigger: fraction must be in"),
        ("---\nwindow: big\n---\nx {messages}", "window: must be a positive integer"),
        ("---\narg_truncation: {speed: 3}\n---\nx {messages}", "arg_truncation.speed: unknown key; known: keep"),
        ("---\nprompt: deepagents-default\n---\nAlso this {messages}", "body must be empty"),
        ("---\nprompt: mine\n---\n", "the named prompts are"),
        ("---\nkeep: 5%\n", "never closed"),
        ("---\n", "never closed"),
        ("---\n: [\n---\nx {messages}", "not valid YAML"),
    ],
)
def test_a_bad_variant_file_is_an_error_naming_the_file(tmp_path, text, match):
    path = write(tmp_path, "broken", text)
    with pytest.raises(ConfigError, match=match) as err:
        load_variant(path)
    assert str(path) in str(err.value)


def test_include_cycles_and_unknown_names_are_errors(tmp_path):
    a = write(tmp_path, "a", f"---\ninclude: {tmp_path / 'b.md'}\n---\n")
    write(tmp_path, "b", f"---\ninclude: {a}\n---\n")
    with pytest.raises(ConfigError, match="include cycle"):
        load_variant(a)
    with pytest.raises(ConfigError, match="unknown variant 'nope'.*variants: .*minimal.*presets: .*forced-20"):
        make_config("nope")


def test_a_variant_summarizer_conflicts_with_an_explicit_different_one():
    assert summary_model_for("openai:gpt-5-mini", None, variant="v") == "openai:gpt-5-mini"
    assert summary_model_for(None, "reference", variant="v") == "reference"
    with pytest.raises(ConfigError, match="conflicts"):
        summary_model_for("openai:gpt-5-mini", "reference", variant="v")


def test_cost_is_computed_only_for_priced_models(goal_trace, monkeypatch):
    from dataclasses import replace

    from harness.scoring import cost, metrics

    assert metrics.cost_usd(goal_trace) is None  # in process, the reference models report no usage: unknown, never 0
    reported = {"input_tokens": 1000, "output_tokens": 10}
    calls = [{**c, "usage": reported} for c in goal_trace.calls]
    trace = replace(goal_trace, agent_model="openai:a", summary_model="openai:s", calls=calls)
    monkeypatch.setattr(cost, "prices", lambda: {"openai:a": {"input": 2.0, "output": 8.0}, "openai:s": {"input": 1.0}})
    agent, summ = len(trace.agent_calls()), len(trace.summarizer_calls())
    expected = agent * (1000 * 2.0 + 10 * 8.0) / 1e6 + summ * 1000 * 1.0 / 1e6
    assert metrics.cost_usd(trace) == pytest.approx(expected, rel=1e-4)
    monkeypatch.setattr(cost, "prices", lambda: {"openai:a": {"input": 2.0}})
    assert metrics.cost_usd(trace) is None  # the summarizer is not priced: unknown, not zero


def test_prices_match_dated_snapshots_and_bill_cache_tokens_at_cache_prices(goal_trace, monkeypatch):
    from dataclasses import replace

    from harness.scoring import cost, metrics

    table = {
        "openai:gpt-4o": {"input": 2.5, "output": 10.0, "cache_read": 1.25},
        "openai:gpt-4o-mini": {"input": 0.15, "output": 0.6},
    }
    assert cost.price_for("openai:gpt-4o-2024-08-06", table) is table["openai:gpt-4o"]
    assert cost.price_for("openai:gpt-4o-mini-2024-07-18", table) is table["openai:gpt-4o-mini"]
    assert cost.price_for("openai:gpt-4o.5", table) is None  # another model, not a snapshot
    monkeypatch.setattr(cost, "prices", lambda: {**table, "openai:free": {"input": 0.0, "output": 0.0}})
    trace = replace(goal_trace, agent_model="openai:gpt-4o-2024-08-06", summary_model="openai:free")
    calls = [dict(c) for c in trace.calls]
    for c in calls:
        c["usage"] = {"input_tokens": 1000, "output_tokens": 10, "input_token_details": {"cache_read": 600}}
    trace = replace(trace, calls=calls)
    n = len(trace.agent_calls())
    assert metrics.cost_usd(trace) == pytest.approx(n * (400 * 2.5 + 600 * 1.25 + 10 * 10.0) / 1e6)
    shipped = cost.price_table()
    assert shipped["as_of"] and set(shipped["sources"]) >= {"openai", "anthropic", "google_genai"}
