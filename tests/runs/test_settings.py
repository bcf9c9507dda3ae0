"""The settings every door accepts are declared once (`harness.runs.settings.SETTINGS`): each door offers exactly the
ones it is declared to take, under the declared name, so a setting added once reaches every door."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
from pathlib import Path

import pytest

from harness.cli.main import build_parser
from harness.runs.settings import SETTINGS, add_pytest_options, endpoints, settings_of
from harness.runs.spec import ExperimentSpec

ROOT = Path(__file__).resolve().parents[2]

SPEC_OWN = {
    # what a spec states that no door's option does: the grid's identity and axes, its case selection, its trials
    "name", "path", "description", "raw", "variants", "thresholds", "strategies", "versions", "baseline", "evals",
    "kind", "cases", "limit", "datasets", "trials", "concurrency",
}  # fmt: skip


def _options(parser: argparse.ArgumentParser, command: list[str]) -> dict[str, argparse.Action]:
    for name in command:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
        parser = sub.choices[name]
    return {flag: action for action in parser._actions for flag in action.option_strings}  # noqa: SLF001


@pytest.mark.parametrize(("door", "command"), [("run", ["run"]), ("experiment", ["experiment", "run"]), ("check", ["check"])])
def test_each_cli_door_offers_its_declared_settings_as_declared(door, command):
    options = _options(build_parser(), command)
    for setting in SETTINGS:
        if door not in setting.doors:
            continue
        action = options.get(setting.flag)
        assert action is not None, f"harness {' '.join(command)} lacks {setting.flag}"
        assert action.dest == setting.name and action.help == setting.option["help"]
        assert action.default == setting.option.get("default")


def test_the_experiment_door_takes_the_rest_from_the_spec_and_every_spec_key_is_a_setting_or_the_specs_own():
    fields = {f.name for f in dataclasses.fields(ExperimentSpec)}
    keys = {s.spec_key for s in SETTINGS if s.spec_key is not None}
    assert keys <= fields, f"settings without their spec key: {sorted(keys - fields)}"
    assert fields - keys == SPEC_OWN, "a spec key that is neither a setting nor the spec's own: declare it"


def test_harness_evaluate_takes_every_setting_declared_for_it_under_its_name():
    from harness.api import evaluate

    parameters = inspect.signature(evaluate).parameters
    missing = [s.name for s in settings_of("evaluate") if s.name not in parameters]
    assert not missing, f"harness.evaluate lacks {missing}"
    for setting in settings_of("evaluate"):
        assert parameters[setting.name].default == setting.option.get("default"), setting.name


class _Group:
    def __init__(self) -> None:
        self.options: dict[str, dict] = {}

    def addoption(self, flag: str, **kwargs: object) -> None:
        assert flag not in self.options, f"{flag} registered twice"
        self.options[flag] = kwargs


def test_the_pytest_options_are_made_from_the_declaration_with_or_without_a_prefix():
    group = _Group()
    add_pytest_options(group)
    assert list(group.options) == [s.flag for s in settings_of("pytest")]
    assert group.options["--seed"]["default"] == 0 and group.options["--trigger"]["action"] == "append"
    prefixed = _Group()
    add_pytest_options(prefixed, prefix="--compaction-")
    assert "--compaction-summary-base-url" in prefixed.options and len(prefixed.options) == len(group.options)


def test_pytest_evals_offers_every_pytest_setting(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "evals"))
    import importlib.util

    spec = importlib.util.spec_from_file_location("_evals_conftest_for_settings", ROOT / "evals" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    group = _Group()
    module.pytest_addoption(type("P", (), {"getgroup": lambda self, *a: group})())
    missing = [s.flag for s in settings_of("pytest") if s.flag not in group.options]
    assert not missing, f"pytest evals/ lacks {missing}"


def test_endpoints_read_model_kwargs_as_options_or_as_a_mapping_alike():
    as_text = endpoints(base_url="http://localhost:9/v1", model_kwargs=["temperature=0", "max_tokens=64"])
    as_mapping = endpoints(base_url="http://localhost:9/v1", model_kwargs={"temperature": 0, "max_tokens": 64})
    assert as_text == as_mapping
    assert as_text[0].model_kwargs == {"temperature": 0, "max_tokens": 64} and as_text[1] is as_text[0]


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"base_url": "http://localhost:9/v1", "model_kwargs": {"temperature": 0, "timeout": 30}},
        {"model_kwargs": {"temperature": 0}, "summary_base_url": "http://localhost:8/v1"},
        {"model_kwargs": {"temperature": 0}, "summary_model_kwargs": {"max_tokens": 64}},
        {"model_kwargs": {"temperature": 0}, "summary_model_kwargs": {}},  # given, even empty: the summarizer's own
        {"model_kwargs": {"stop": "0"}},  # a mapping's text stays text, though it reads as JSON
    ],
)
def test_a_spec_and_the_other_doors_make_the_same_endpoints_from_the_same_settings(tmp_path, given):
    import json

    from harness.runs.spec import load_spec

    path = tmp_path / "s.yaml"
    path.write_text(json.dumps({"variants": ["forced-20"], "thresholds": ["20%"], **given}))  # JSON is YAML
    spec = load_spec(path)
    assert spec.endpoints() == endpoints(**given)
    as_options = {k: [f"{n}={v}" for n, v in v.items()] if isinstance(v, dict) and v else v for k, v in given.items()}
    if given.get("model_kwargs") != {"stop": "0"}:  # as an option, a text that reads as JSON is read as JSON
        assert endpoints(**as_options) == spec.endpoints()
    agent, summary = spec.endpoints()
    assert (summary is agent) == (not {"summary_base_url", "summary_model_kwargs"} & set(given))
    if "summary_model_kwargs" in given:
        assert summary.model_kwargs == given["summary_model_kwargs"]
    assert agent.model_kwargs == given.get("model_kwargs", {})


def test_a_spec_key_that_is_a_setting_is_described_by_the_setting_alone():
    """One text per setting: the option's help and the spec key's description (and so the shipped JSON Schema) are
    both made from ``Setting.about``, another setting named as each door names it."""
    from harness.runs.spec import SpecFile

    described = [s for s in SETTINGS if s.spec_key is not None]
    assert described and all(s.about for s in described)
    for setting in described:
        assert SpecFile.model_fields[setting.spec_key].description == setting.description, setting.name
        assert setting.option["help"].replace("%%", "%") == setting.about.format(**{s.name: s.flag for s in SETTINGS}), (
            setting.name
        )
    summary_url = next(s for s in SETTINGS if s.name == "summary_base_url")
    assert "--base-url" in summary_url.option["help"] and "(default: base_url)" in summary_url.description
