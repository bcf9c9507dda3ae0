"""An experiment arm's config: the spec's threshold as its trigger, and, without a ``keep:`` in the spec, a quarter of
the lowest trigger as its keep (`compaction.config.quarter_keep`, the one rule the shipped forced presets are made by)."""

from __future__ import annotations

import pytest

from harness.compaction.config import PRESETS, ContextSize, quarter_keep
from harness.errors import ConfigError
from harness.runs.grid import cell_config
from harness.runs.spec import ExperimentSpec, Threshold


def _threshold(*sizes: str) -> Threshold:
    return Threshold(tuple(ContextSize.parse(s) for s in sizes))


def default_keep(threshold: Threshold) -> ContextSize:
    return quarter_keep(threshold.sizes)


def _spec(*thresholds: Threshold, **kw) -> ExperimentSpec:
    base = {
        "name": "keep",
        "path": "keep.yaml",
        "variants": ("deepagents-default",),
        "thresholds": thresholds,
        "baseline": "deepagents-default",
    }
    return ExperimentSpec(**{**base, **kw})


@pytest.mark.parametrize(
    ("sizes", "keep"),
    [
        (("20%",), ContextSize("fraction", 0.05)),
        (("30%",), ContextSize("fraction", 0.075)),
        (("10%",), ContextSize("fraction", 0.025)),
        (("30%", "20%"), ContextSize("fraction", 0.05)),  # the lowest of the fractions
        (("tokens:8000", "messages:12", "40%"), ContextSize("fraction", 0.1)),  # a fraction first, whatever the order
        (("tokens:9000", "tokens:8001"), ContextSize("tokens", 2000)),  # whole tokens, rounded down
        (("messages:12",), ContextSize("messages", 3)),
        (("messages:5",), ContextSize("messages", 2)),  # never under 2
        (("tokens:4",), ContextSize("tokens", 2)),
    ],
)
def test_the_default_keep_is_a_quarter_of_the_lowest_trigger(sizes, keep):
    assert default_keep(_threshold(*sizes)) == keep


def test_a_threshold_without_sizes_has_no_default_keep():
    with pytest.raises(ConfigError, match="a threshold needs at least one size"):
        default_keep(Threshold(()))


@pytest.mark.parametrize("percent", [10, 15, 20, 25])
def test_an_arm_at_a_forced_presets_trigger_keeps_what_the_preset_keeps(percent):
    # The grid's rule and the presets' are two copies of one rule: an experiment at 20 % must run what forced-20 runs.
    preset = PRESETS[f"forced-{percent}"]
    config = cell_config(_spec(Threshold(preset.trigger)), "deepagents-default", Threshold(preset.trigger))
    assert (config.trigger, config.keep) == (preset.trigger, preset.keep)


def test_an_arms_config_takes_the_threshold_as_trigger_and_a_quarter_of_it_as_keep():
    t20 = _threshold("20%")
    config = cell_config(_spec(t20), "deepagents-default", t20)
    assert config.trigger == (ContextSize("fraction", 0.2),)
    assert config.keep == ContextSize("fraction", 0.05)
    assert config.keep.tokens(config.window) == config.trigger[0].tokens(config.window) // 4


def test_a_spec_keep_overrides_the_quarter_and_a_spec_window_the_variants():
    t20 = _threshold("20%")
    spec = _spec(t20, keep=ContextSize("fraction", 0.02), window=100_000)
    config = cell_config(spec, "deepagents-default", t20)
    assert (config.keep, config.window) == (ContextSize("fraction", 0.02), 100_000)


def test_a_threshold_without_sizes_names_the_problem_exactly():
    with pytest.raises(ConfigError) as raised:
        default_keep(Threshold(()))
    assert str(raised.value) == "a threshold needs at least one size"


def test_the_forced_presets_are_made_by_the_same_rule():
    for name in ("forced-10", "forced-15", "forced-20", "forced-25"):
        assert PRESETS[name].keep == quarter_keep(PRESETS[name].trigger)
    assert PRESETS["forced-20"].keep == ContextSize("fraction", 0.05)


def test_a_fraction_keep_is_rounded_to_6_places():
    assert default_keep(Threshold((ContextSize("fraction", 0.1234567),))) == ContextSize("fraction", 0.030864)


def test_an_arm_without_strategy_or_versions_axis_is_the_variants_config_as_it_is():
    t20 = _threshold("20%")
    config = cell_config(_spec(t20, variants=("minimal",)), "minimal", t20)
    assert config.name == "minimal" and config.strategy == "deepagents-summarization" and config.custom_strategy is None


def test_a_strategy_arm_is_named_for_the_arm_and_runs_its_strategy():
    t20 = _threshold("20%")
    spec = _spec(
        t20,
        variants=("minimal", "deepagents-default"),
        strategies=("observation-masking", "tests._strategies:keep_task_and_last_six"),
    )
    masking = cell_config(spec, "minimal@observation-masking", t20)
    assert (masking.name, masking.strategy, masking.custom_strategy) == (
        "minimal@observation-masking",
        "observation-masking",
        None,
    )
    assert masking.keep == ContextSize("fraction", 0.05) and masking.trigger == t20.sizes
    custom = cell_config(spec, "deepagents-default@tests._strategies:keep_task_and_last_six", t20)
    assert (custom.name, custom.strategy, custom.custom_strategy) == (
        "deepagents-default@tests._strategies:keep_task_and_last_six",
        "custom",
        "tests._strategies:keep_task_and_last_six",
    )


def test_a_variant_named_by_its_file_keeps_the_name_the_file_gives_it():
    t20, path = _threshold("20%"), "datasets/variants/anchored.md"
    assert cell_config(_spec(t20, variants=(path,)), path, t20).name == "anchored"
