import pytest

from harness.compaction.config import PRESETS, CompactionConfig, ContextSize, get_preset
from harness.compaction.variants import make_config
from harness.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20%", ("fraction", 0.2)),
        ("fraction:0.15", ("fraction", 0.15)),
        ("tokens:6000", ("tokens", 6000)),
        ("messages:40", ("messages", 40)),
    ],
)
def test_context_size_parses_every_syntax(text, expected):
    assert ContextSize.parse(text).as_tuple() == expected


@pytest.mark.parametrize(
    "bad", ["0%", "150%", "fraction:0", "tokens:-5", "tokens:1.5", "messages:0", "bytes:10", "lots", "fraction:x"]
)
def test_invalid_thresholds_are_rejected_with_the_value(bad):
    with pytest.raises(ConfigError) as err:
        ContextSize.parse(bad)
    assert str(err.value)


def test_presets_force_compaction_at_10_to_25_percent_and_keep_deepagents_defaults():
    for pct in (10, 15, 20, 25):
        preset = get_preset(f"forced-{pct}")
        assert preset.trigger[0].as_tuple() == ("fraction", pct / 100)
        assert preset.keep.tokens(preset.window) < preset.trigger_tokens()
    default = PRESETS["deepagents-85"]
    assert default.trigger[0].as_tuple() == ("fraction", 0.85) and default.keep.as_tuple() == ("fraction", 0.10)


def test_unknown_variant_names_the_known_ones():
    with pytest.raises(ConfigError, match="unknown variant 'forced-99'.*forced-20"):
        get_preset("forced-99")


def test_keep_at_or_above_trigger_is_an_error():
    with pytest.raises(ConfigError, match="keep .* must be below the trigger"):
        make_config("forced-20", keep="30%")


def test_window_must_be_an_integer():
    with pytest.raises(ConfigError, match="--window"):
        make_config("forced-20", window="lots")
    with pytest.raises(ConfigError, match="window"):
        make_config("forced-20", window=10)


def test_overrides_rename_the_config_and_or_combine_triggers():
    cfg = make_config("forced-20", trigger=["15%", "messages:40"], keep="tokens:2000", window=80000)
    assert cfg.name == "forced-20+custom"
    assert cfg.trigger_arg() == [("fraction", 0.15), ("messages", 40)]
    assert cfg.trigger_tokens() == 12000


def test_trigger_below_the_fixed_overhead_is_flagged():
    cfg = make_config("forced-10", window=30000)  # 3,000-token trigger
    warning = cfg.overhead_warning(2700)
    assert warning and "2700" in warning and "--window" in warning
    assert make_config("forced-10").overhead_warning(2700) is None  # 6,400 tokens clears 2x 2,700


def test_config_rejects_a_prompt_with_a_stray_brace():
    with pytest.raises(ConfigError, match="config 'x'"):
        CompactionConfig(
            name="x",
            trigger=(ContextSize("fraction", 0.2),),
            keep=ContextSize("fraction", 0.05),
            summary_prompt="Summarize {messages} as {json}",
        )


def test_to_dict_is_json_ready_and_names_the_prompt():
    data = make_config("forced-15").to_dict()
    assert data["trigger"] == [["fraction", 0.15]] and data["summary_prompt_name"] == "deepagents-default"
    assert len(data["summary_prompt_sha"]) == 12 and "summary_prompt" not in data


def test_argument_truncation_settings_are_validated():
    from harness.compaction.config import ArgTruncation

    size = ContextSize("fraction", 0.2)
    with pytest.raises(ConfigError, match="max_length"):
        ArgTruncation(trigger=size, keep=size, max_length=10)
    with pytest.raises(ConfigError, match="truncation_text"):
        ArgTruncation(trigger=size, keep=size, truncation_text="")


def test_the_truncation_preset_clips_arguments_long_before_it_summarizes():
    preset = get_preset("truncation")
    clip = preset.effective_truncation()
    assert clip.trigger.tokens(preset.window) < preset.trigger_tokens() // 5
    assert clip.keep.tokens(preset.window) < clip.trigger.tokens(preset.window)
    assert preset.to_dict()["arg_truncation"]["trigger"] == ["fraction", 0.10]
    # Every other preset ties truncation to its summarization trigger and keep, as deepagents does.
    assert get_preset("forced-20").effective_truncation().trigger == get_preset("forced-20").trigger[0]


def test_the_default_truncation_text_is_the_adapters():
    from harness import _deepagents_adapter as da
    from harness.compaction.config import ArgTruncation

    assert (
        ArgTruncation(trigger=ContextSize("fraction", 0.1), keep=ContextSize("messages", 4)).truncation_text == da.TRUNCATION_TEXT
    )
    # ... and deepagents' own, so a release that changes it breaks here first.
    from deepagents.backends import StateBackend
    from deepagents.middleware import SummarizationMiddleware

    from harness.reference import ReferenceAgentModel

    mw = SummarizationMiddleware(
        model=ReferenceAgentModel(),
        backend=StateBackend(),
        trigger=("tokens", 1000),
        truncate_args_settings={"trigger": ("messages", 2), "keep": ("messages", 1)},
    )
    assert mw._truncation_text == da.TRUNCATION_TEXT
