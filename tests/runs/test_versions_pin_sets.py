"""Named pin sets on the versions axis (`harness.runs.versions.parse_pin_sets`): an arm that pins several packages
together (an old lock against the current one) rather than every combination of them; its errors name the spec, the
arm and the field (exit 2, nothing written); rows, cells and meta.json name the arm; an arm without pins is the lock."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest

from harness._version import RECORDED_PACKAGES
from harness.agent import preflight
from harness.errors import ConfigError
from harness.runs import grid
from harness.runs.results import read_not_run
from harness.runs.spec import load_spec
from harness.runs.versions import VersionArm, arm_lock, check_supported, installs, lock_pins, normalize, parse_versions, read_lock
from harness.suites import execute
from harness.suites.execute import NotRun

pytestmark = pytest.mark.slow  # a grid run through the executor (cells not run) and the CLI: about 3 s on 2 cores

OLD_PINS = '{langchain: "1.4.7", langchain-core: "1.7.2", Anthropic: "2.12.0", langgraph_prebuilt: "1.1.2"}'


def _spec(tmp_path: Path, versions: str, variants: str = "[deepagents-default]", extra: str = "") -> Path:
    path = tmp_path / "v.yaml"
    path.write_text(f"variants: {variants}\nversions: {versions}\nthresholds: [25%]\n{extra}")
    return path


def test_each_pin_set_is_one_arm_named_as_written_pinning_its_packages_together(tmp_path):
    spec = load_spec(_spec(tmp_path, f"[{{name: lock}}, {{name: lock-2026-11-26, pins: {OLD_PINS}}}]"))
    assert list(spec.arms()) == ["lock", "lock-2026-11-26"]  # two arms, not 2 x 2 x 2 x 2 combinations
    assert spec.baseline == "lock"
    assert spec.version_of("lock") == VersionArm((), "lock")
    old = spec.version_of("lock-2026-11-26")
    assert old is not None and old.label == "lock-2026-11-26"
    assert old.pins == (
        ("langchain", "1.4.7"),
        ("langchain-core", "1.7.2"),
        ("anthropic", "2.12.0"),
        ("langgraph-prebuilt", "1.1.2"),
    )
    assert old.override_text() == "langchain==1.4.7\nlangchain-core==1.7.2\nanthropic==2.12.0\nlanggraph-prebuilt==1.1.2\n"
    assert spec.arms()["lock-2026-11-26"] == ("deepagents-default", None)


def test_with_several_variants_each_is_crossed_with_each_pin_set(tmp_path):
    spec = load_spec(_spec(tmp_path, '[{name: new}, {name: old, pins: {langchain: "1.4.7"}}]', "[deepagents-default, minimal]"))
    assert list(spec.arms()) == ["deepagents-default+new", "deepagents-default+old", "minimal+new", "minimal+old"]


def test_the_cross_form_keeps_its_labels():
    assert [a.label for a in parse_versions({"deepagents": ["0.7.32"], "langchain": ["1.4.7", "1.5.2"]}, "s")] == [
        "deepagents==0.7.32,langchain==1.4.7",
        "deepagents==0.7.32,langchain==1.5.2",
    ]


def test_an_arm_without_pins_runs_the_locks_version_of_every_package_a_row_records():
    lock = {"deepagents": "0.7.32", "langchain": "1.5.2", "anthropic": "2.14.0", "numpy": "2.4.6"}
    resolved = VersionArm((), "lock").resolved(lock)
    assert resolved.label == "lock"  # the name stays the arm's label
    assert dict(resolved.pins) == {"anthropic": "2.14.0", "deepagents": "0.7.32", "langchain": "1.5.2"}  # no numpy
    pinned = VersionArm((("langchain", "1.4.7"),), "old")
    assert pinned.resolved(lock) is pinned


def test_the_provider_sdks_and_langgraph_prebuilt_are_recorded_so_an_arm_may_pin_them():
    assert {"anthropic", "openai", "langgraph-prebuilt"} <= {normalize(p) for p in RECORDED_PACKAGES}


@pytest.mark.parametrize(
    ("versions", "match"),
    [
        ("[0.7.6]", r"v.yaml: versions: a mapping of package -> list of versions .*, or a list of named pin sets"),
        ("[{name: a}, 1.5]", r"v.yaml: versions: a mapping of package .* or a list of named pin sets"),
        ("[]", r"v.yaml: versions: a mapping of package"),
        (
            '[{name: old, pin: {langchain: "1.4.7"}}]',
            r"v.yaml: versions\[0\] \(old\): pin: unknown key; known: lock, name, pins",
        ),
        ("[{name: lock}, {name: newest, lock: nope.lock}]", r"v.yaml: versions\[1\] \(newest\): lock: no such file .*nope.lock"),
        ("[{name: lock}, {name: newest, lock: 3}]", r"v.yaml: versions\[1\] \(newest\): lock: a lock file's path"),
        ('[{pins: {langchain: "1.4.7"}}]', r"v.yaml: versions\[0\]: name: None is not an arm name"),
        ("[{name: lock}, {name: old+new}]", r"v.yaml: versions\[1\]: name: 'old\+new' is not an arm name"),
        ("[{name: lock}, {name: 7}]", r"v.yaml: versions\[1\]: name: 7 is not an arm name"),
        ('[{name: old, pins: ["1.4.7"]}]', r"v.yaml: versions\[0\] \(old\): pins: expected an object or null, got list"),
        ("[{name: old, pins: {langchain: 1.5}}]", r"versions\[0\] \(old\): pins.langchain: 1.5 is not a version string \(quote"),
        ('[{name: old, pins: {numpy: "2.0"}}]', r"versions\[0\] \(old\): pins: 'numpy' is not a package the rows record"),
        ('[{name: old, pins: {"bad name": "1"}}]', r"versions\[0\] \(old\): pins: 'bad name' is not a package name"),
        (
            '[{name: old, pins: {langchain_core: "1.7.2", LangChain-Core: "1.7.2"}}]',
            r"versions\[0\] \(old\): pins: names a package twice \(langchain_core, LangChain-Core\)",
        ),
        ("[{name: lock}, {name: lock}]", r"v.yaml: versions\[1\]: name: 'lock' names versions\[0\] too"),
        ("[{name: a}, {name: b, pins: {}}]", r"v.yaml: versions\[1\] \(b\): pins: the same as versions\[0\] \(a\)"),
    ],
)
def test_a_bad_pin_set_is_refused_naming_the_spec_the_arm_and_the_field(tmp_path, versions, match):
    path = _spec(tmp_path, versions)
    with pytest.raises(ConfigError, match=match) as err:
        load_spec(path)
    assert str(err.value).startswith(str(path))


def test_a_bad_pin_set_exits_2_and_writes_nothing(tmp_path, capsys):
    from harness.cli.main import EXIT_BAD_INPUT, main

    spec = _spec(tmp_path, "[{name: lock}, {name: old, pins: {langchain: 1.4}}]", extra="scenarios: {cases: [goal-ledgers-12]}\n")
    out = tmp_path / "out"
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "versions[1] (old): pins.langchain: 1.4 is not a version string" in err and "Traceback" not in err
    assert not out.exists()


def test_cells_not_run_records_and_meta_name_the_arm_and_the_lock_arm_records_the_locks_pins(tmp_path, monkeypatch):
    """Both arms run here (this environment has their pins): the lock as it is, and one pinning the installed
    deepagents. Every record is checked against its arm's (resolved) pins, as a worker's rows are."""
    installed = version("deepagents")
    spec = load_spec(
        _spec(
            tmp_path,
            f'[{{name: lock}}, {{name: this-deepagents, pins: {{deepagents: "{installed}"}}}}]',
            extra="evals: [goal]\nscenarios: {cases: [goal-ledgers-12]}\n",
        )
    )

    def refuse(name, scenario, settings, **kwargs):
        raise NotRun("not run here: the test is about the arms")

    monkeypatch.setattr(execute, "run_eval_case", refuse)
    monkeypatch.setattr(preflight, "fixed_overhead_tokens", lambda config, scenarios, agent=None: 1000)
    run = grid.run_experiment(spec, out_dir=tmp_path / "out", progress=lambda _: None)
    listed = read_not_run(run.path)
    assert [r["cell_id"] for r in listed] == ["lock|25%|goal:goal-ledgers-12|t0", "this-deepagents|25%|goal:goal-ledgers-12|t0"]
    meta = json.loads((run.path / "meta.json").read_text())
    assert meta["arms"] == ["lock", "this-deepagents"] and meta["baseline"] == "lock"
    locked = lock_pins(read_lock())
    assert meta["versions"]["this-deepagents"] == {"deepagents": installed}
    assert meta["versions"]["lock"] == {n: locked[n] for n in sorted({normalize(p) for p in RECORDED_PACKAGES}) if n in locked}
    assert meta["versions"]["lock"]["langchain"] == locked["langchain"]


def test_an_arm_with_a_lock_of_its_own_is_made_from_it_and_checked_against_it(tmp_path):
    (tmp_path / "newest.lock").write_text("deepagents==0.7.33\nlangsmith==0.15.1\nnumpy==2.5.0\n")
    spec = load_spec(
        _spec(
            tmp_path,
            '[{name: lock}, {name: newest, lock: newest.lock}, {name: mixed, lock: newest.lock, pins: {langsmith: "0.15.0"}}]',
        )
    )
    newest = spec.version_of("newest")
    assert newest is not None and newest.lock == str((tmp_path / "newest.lock").resolve())  # beside the spec
    assert arm_lock(newest, "the default lock") == (tmp_path / "newest.lock").read_text()
    assert arm_lock(VersionArm((), "lock"), "the default lock") == "the default lock"
    own = lock_pins(arm_lock(newest, ""))
    assert dict(newest.resolved(own).pins) == {"deepagents": "0.7.33", "langsmith": "0.15.1"}  # what a row records
    mixed = spec.version_of("mixed")
    assert mixed is not None and dict(mixed.resolved(own).pins) == {"deepagents": "0.7.33", "langsmith": "0.15.0"}
    assert installs(newest, {"deepagents": "0.7.32"})["deepagents"] == "0.7.33"  # its own lock, not requirements.lock
    (tmp_path / "old.lock").write_text("deepagents==0.6.12\n")
    old = load_spec(_spec(tmp_path, "[{name: lock}, {name: old, lock: old.lock}]")).version_of("old")
    assert old is not None
    with pytest.raises(ConfigError, match=r"arm old installs deepagents 0.6.12, outside the range"):
        check_supported([old], {"deepagents": "0.7.32"}, "s.yaml")
