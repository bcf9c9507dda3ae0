"""The versions axis (`harness.runs.versions`): the spec's arms, the range refusal, the environment cache (a fake
installer: no environment is made here) and the worker protocol (a stand-in worker script, no agent)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from harness._deepagents_adapter import SUPPORTED_DEEPAGENTS
from harness.errors import ConfigError, HarnessError, WorkerFailed
from harness.runs.grid import Cell
from harness.runs.pool import worker_share
from harness.runs.spec import load_spec
from harness.runs.versions import (
    READY,
    VersionArm,
    check_row_versions,
    check_supported,
    ensure_env,
    env_key,
    lock_pins,
    parse_versions,
    run_arm_cells,
)

pytestmark = pytest.mark.slow

LOCK = "deepagents==0.7.32\n    # via compaction-harness\nlangchain-core==1.7.2\nLangChain_OpenAI==1.7.3\n"
OLD = VersionArm((("deepagents", "0.7.6"),))


def _spec(tmp_path: Path, versions: str, variants: str = "[deepagents-default]", extra: str = "") -> Path:
    path = tmp_path / "v.yaml"
    path.write_text(f"variants: {variants}\nversions: {versions}\nthresholds: [25%]\n{extra}")
    return path


def test_one_inner_arm_makes_the_versions_the_arms_with_the_first_as_baseline(tmp_path):
    spec = load_spec(_spec(tmp_path, '{deepagents: ["0.7.32", "0.7.6"]}'))
    assert list(spec.arms()) == ["deepagents==0.7.32", "deepagents==0.7.6"]
    assert spec.baseline == "deepagents==0.7.32" and spec.version_of("deepagents==0.7.6") == OLD
    assert spec.arms()["deepagents==0.7.6"] == ("deepagents-default", None)


def test_several_inner_arms_and_packages_multiply(tmp_path):
    spec = load_spec(_spec(tmp_path, '{deepagents: ["0.7.6"], langchain: ["1.4.7", "1.5.0"]}', "[deepagents-default, minimal]"))
    assert list(spec.arms()) == [
        "deepagents-default+deepagents==0.7.6,langchain==1.4.7",
        "deepagents-default+deepagents==0.7.6,langchain==1.5.0",
        "minimal+deepagents==0.7.6,langchain==1.4.7",
        "minimal+deepagents==0.7.6,langchain==1.5.0",
    ]
    assert (
        load_spec(_spec(tmp_path, '{deepagents: ["0.7.6"]}')).fingerprint()
        == load_spec(_spec(tmp_path, '{deepagents: ["0.7.9"]}')).fingerprint()
    )


@pytest.mark.parametrize(
    ("versions", "match"),
    [
        ("[0.7.6]", r"versions: a mapping of package"),
        ("{deepagents: []}", r"versions.deepagents: must not be empty"),
        ("{deepagents: [1.5]}", r"versions.deepagents\[0\]: 1.5 is not a version string \(quote it"),
        ('{deepagents: ["0.7.6", "0.7.6"]}', r"versions.deepagents: names a version twice"),
        (
            '{deepagents: ["0.7.6"], Deep_Agents: ["0.7.6"], deep-agents: ["0.7.6"]}',
            r"versions: names a package twice \(Deep_Agents, deep-agents\)",
        ),
        ('{"bad name": ["1"]}', r"'bad name' is not a package name"),
        ('{numpy: ["2.4.6"]}', r"'numpy' is not a package the rows record.*one of deepagents, langchain"),
    ],
)
def test_a_bad_versions_axis_is_refused_naming_the_file_and_key(tmp_path, versions, match):
    path = _spec(tmp_path, versions)
    with pytest.raises(ConfigError, match=match) as err:
        load_spec(path)
    assert str(path) in str(err.value)


def test_parse_keeps_the_order_written_and_normalizes_names():
    assert [a.label for a in parse_versions({"LangChain_Core": ["1.7.2", "1.6.0"]}, "s")] == [
        "langchain-core==1.7.2",
        "langchain-core==1.6.0",
    ]
    assert OLD.override_text() == "deepagents==0.7.6\n"


def test_lock_pins_read_every_pinned_line():
    assert lock_pins(LOCK) == {"deepagents": "0.7.32", "langchain-core": "1.7.2", "langchain-openai": "1.7.3"}


def test_an_arm_outside_the_supported_range_is_refused_naming_version_and_range():
    low, high = SUPPORTED_DEEPAGENTS
    check_supported([OLD, VersionArm((("langchain-core", "1.6.0"),))], lock_pins(LOCK), "s.yaml")  # in range: no error
    with pytest.raises(
        ConfigError, match=rf"s.yaml: versions: arm deepagents==0.7.5 installs deepagents 0.7.5, .*\({low} to {high}"
    ):
        check_supported([OLD, VersionArm((("deepagents", "0.7.5"),))], lock_pins(LOCK), "s.yaml")
    # an arm that pins something else installs the lock's deepagents: refused when that is outside the range
    with pytest.raises(ConfigError, match=r"arm langchain==1.5.0 installs deepagents 0.6.0"):
        check_supported([VersionArm((("langchain", "1.5.0"),))], {"deepagents": "0.6.0"}, "s.yaml")


def test_an_arm_outside_the_range_exits_2_before_anything_runs(tmp_path, capsys):
    from harness.cli.main import EXIT_BAD_INPUT, main

    spec = _spec(tmp_path, '{deepagents: ["0.7.32", "0.6.12"]}', extra="scenarios: {cases: [goal-ledgers-12]}\n")
    out = tmp_path / "out"
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "arm deepagents==0.6.12 installs deepagents 0.6.12, outside the range" in err and "Traceback" not in err
    assert not out.exists()


class FakeUv:
    """Records the commands `ensure_env` runs instead of running them."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str]) -> None:
        self.commands.append(command)


def test_an_arm_the_current_environment_already_has_reuses_it_and_creates_nothing(tmp_path):
    fake = FakeUv()
    env = ensure_env(OLD, LOCK, root=tmp_path, run=fake, current={"deepagents": "0.7.6"}, uv="uv")
    assert (env.python, env.path, env.created) == (sys.executable, None, False)
    assert fake.commands == [] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "current",
    [
        {"deepagents": "0.7.6", "langchain-core": "1.7.2"},  # the first pin matches, the second does not
        {"deepagents": "0.7.32", "langchain-core": "1.8.0"},  # the second matches, the first does not
        {"deepagents": "0.7.6"},  # the second package is not installed here at all
    ],
)
def test_an_arm_this_environment_has_only_some_pins_of_gets_its_own_environment(tmp_path, current):
    # Reusing this interpreter when one pin of two matches would run the arm on the other package's current version:
    # every pin must match.
    arm = VersionArm((("deepagents", "0.7.6"), ("langchain-core", "1.8.0")))
    fake = FakeUv()
    env = ensure_env(arm, LOCK, root=tmp_path, run=fake, current=current, uv="uv")
    assert env.created and env.path == tmp_path / env_key(LOCK, arm) and env.python != sys.executable
    assert len(fake.commands) == 3
    assert (env.path / "overrides.txt").read_text() == "deepagents==0.7.6\nlangchain-core==1.8.0\n"


def test_an_arm_this_environment_has_every_pin_of_runs_here():
    arm = VersionArm((("deepagents", "0.7.6"), ("langchain-core", "1.8.0")))
    fake = FakeUv()
    env = ensure_env(arm, LOCK, run=fake, current={"deepagents": "0.7.6", "langchain-core": "1.8.0"}, uv="uv")
    assert (env.python, env.path, env.created, fake.commands) == (sys.executable, None, False, [])


def test_an_environment_is_created_once_with_the_lock_and_overrides_then_reused(tmp_path):
    fake = FakeUv()
    first = ensure_env(OLD, LOCK, root=tmp_path, run=fake, current={"deepagents": "0.7.32"}, uv="uv")
    assert first.created and first.path == tmp_path / env_key(LOCK, OLD)
    assert first.python == str(first.path / "venv" / "bin" / "python")
    venv, deps, harness = fake.commands
    assert venv[:2] == ["uv", "venv"]
    assert deps[-4:] == ["-r", str(first.path / "requirements.lock"), "--overrides", str(first.path / "overrides.txt")]
    assert (first.path / "overrides.txt").read_text() == "deepagents==0.7.6\n" and (
        first.path / "requirements.lock"
    ).read_text() == LOCK
    assert harness[-3:-1] == ["--no-deps", "-e"]
    again = ensure_env(OLD, LOCK, root=tmp_path, run=fake, current={"deepagents": "0.7.32"}, uv="uv")
    assert (again.created, again.python, len(fake.commands)) == (False, first.python, 3)


def test_an_unfinished_environment_is_made_again_and_another_lock_is_another_environment(tmp_path):
    fake = FakeUv()
    env = ensure_env(OLD, LOCK, root=tmp_path, run=fake, current={}, uv="uv")
    (env.path / READY).unlink()  # a creation killed before its last step
    assert ensure_env(OLD, LOCK, root=tmp_path, run=fake, current={}, uv="uv").created and len(fake.commands) == 6
    assert env_key(LOCK + "x==1\n", OLD) != env_key(LOCK, OLD) != env_key(LOCK, VersionArm((("deepagents", "0.7.9"),)))


def test_two_checkouts_never_share_an_environment(monkeypatch):
    import harness.runs.versions as versions

    here = env_key(LOCK, OLD)
    monkeypatch.setattr(versions, "REPO_ROOT", Path("/elsewhere/compaction-harness"))
    assert env_key(LOCK, OLD) != here  # the environment runs the checkout it was installed from


def test_a_row_that_ran_other_versions_than_its_arm_pins_is_an_error():
    check_row_versions({"packages": {"deepagents": "0.7.6", "langchain": "1.4.7"}}, OLD)
    with pytest.raises(HarnessError, match=r"arm deepagents==0.7.6: cell c ran with deepagents 0.7.32 \(pinned 0.7.6\)"):
        check_row_versions({"cell_id": "c", "packages": {"deepagents": "0.7.32"}}, OLD)
    with pytest.raises(HarnessError, match=r"ran with deepagents None"):
        check_row_versions({"cell_id": "c"}, OLD)


# A stand-in for harness.runs.worker: reads the job, prints noise to stderr, one result line per cell.
FAKE_WORKER = textwrap.dedent(
    """
    import json, sys
    job = json.loads(sys.stdin.read())
    print("noise", file=sys.stderr)
    for arm, threshold, case, trial, attempt, eval in job["cells"]:
        if case == "boom":
            sys.exit(3)
        if case == "cut":  # killed mid-line
            sys.stdout.write('{"row": '); sys.stdout.flush(); sys.exit(137)
        row = {"cell_id": f"{arm}|{threshold}|{case}|t{trial}", "attempt": attempt, "limits": job["replace"]}
        print(json.dumps({"row": row, "trace": {"case": case}}))
    """
)


def test_the_arms_cells_run_in_worker_processes_and_come_back_to_the_parent():
    cells = [(Cell("a", "25%", f"c{i}", 0), 1 + (i == 2)) for i in range(3)]
    got: list[tuple[dict, dict]] = []
    run_arm_cells("s.yaml", sys.executable, cells, 2, lambda r, t: got.append((r, t)), {"max_rps": 2}, ("-c", FAKE_WORKER))
    assert sorted(r["cell_id"] for r, _ in got) == ["a|25%|c0|t0", "a|25%|c1|t0", "a|25%|c2|t0"]
    assert {r["cell_id"]: r["attempt"] for r, _ in got}["a|25%|c2|t0"] == 2
    # two workers: each has half of the grid's two cells in flight and half of its max_rps
    assert all(r["limits"] == {"max_rps": 1.0, "concurrency": 1} and t["case"] in r["cell_id"] for r, t in got)


def test_an_arms_workers_share_the_grids_concurrency_and_limits_as_the_spawn_pool_does():
    # a live arm's workers once each ran the spec's full concurrency under the full max_rps/max_tpm: with 4 workers,
    # 4 x the cells in flight and 4 x the request rate the spec allows "across the grid"
    cells = [(Cell("a", "25%", f"c{i}", 0), 1) for i in range(8)]
    got: list[dict] = []
    replaced = {"case_budget": 900, "max_rps": 2, "max_tpm": 100000}
    run_arm_cells("s.yaml", sys.executable, cells, 4, lambda r, t: got.append(r), replaced, ("-c", FAKE_WORKER))
    assert len(got) == 8
    assert all(r["limits"] == {"case_budget": 900, "max_rps": 0.5, "max_tpm": 25000.0, "concurrency": 1} for r in got)
    got.clear()  # fewer cells than the grid's concurrency: fewer workers, each with more in flight; no limit stays none
    run_arm_cells("s.yaml", sys.executable, cells[:2], 5, lambda r, t: got.append(r), {"max_rps": None}, ("-c", FAKE_WORKER))
    assert [r["limits"] for r in got] == [{"max_rps": None, "concurrency": 2}] * 2
    assert worker_share(5, 2, 3.0, None) == (2, 1.5, None)  # the spawn pool's rule, the one the arms use


def test_a_worker_that_fails_is_an_error_with_its_stderr():
    with pytest.raises(WorkerFailed, match=r"ended with exit 3:\nnoise"):
        run_arm_cells(
            "s.yaml", sys.executable, [(Cell("a", "25%", "boom", 0), 1)], 1, lambda r, t: None, None, ("-c", FAKE_WORKER)
        )


def test_a_worker_killed_mid_line_is_an_error_not_a_parent_waiting_forever():
    with pytest.raises(WorkerFailed, match=r"not JSON \(cut short\?\)"):
        run_arm_cells(
            "s.yaml", sys.executable, [(Cell("a", "25%", "cut", 0), 1)], 1, lambda r, t: None, None, ("-c", FAKE_WORKER)
        )


def test_the_worker_job_is_what_the_parent_sent():
    seen: list[dict] = []
    run_arm_cells(
        "s.yaml",
        sys.executable,
        [(Cell("a", "25%", "c0", 1), 1)],
        4,
        lambda r, t: seen.append(r),
        None,
        ("-c", "import json,sys; job=json.loads(sys.stdin.read()); print(json.dumps({'row': job, 'trace': {}}))"),
    )
    (job,) = seen
    assert job["spec"] == "s.yaml" and job["cells"] == [["a", "25%", "c0", 1, 1, None]]
    assert job["replace"] == {"concurrency": 4}  # one worker: all of the grid's concurrency
    assert isinstance(job["parent_pid"], int) and json.dumps(job)


def test_a_version_arms_config_is_named_for_the_arm_so_its_rows_carry_it(tmp_path):
    from harness.runs.grid import cell_config

    spec = load_spec(_spec(tmp_path, '{deepagents: ["0.7.32", "0.7.6"]}'))
    configs = [cell_config(spec, arm, spec.thresholds[0]) for arm in spec.arms()]
    assert [c.name for c in configs] == ["deepagents==0.7.32", "deepagents==0.7.6"]
    (tmp_path / "plain.yaml").write_text("variants: [minimal]\nthresholds: [25%]\n")
    plain = load_spec(tmp_path / "plain.yaml")  # no versions axis: the variant keeps its own name
    assert cell_config(plain, "minimal", plain.thresholds[0]).name == "minimal"


def test_the_worker_runs_each_cell_as_the_eval_the_parent_sent(tmp_path, monkeypatch):
    import io

    from harness.runs import grid, worker

    spec = _spec(tmp_path, '{deepagents: ["0.7.32", "0.7.6"]}', extra="evals: [history]\nscenarios: {cases: [goal-*]}\n")
    ran: list = []

    def run_cells(spec, scenarios, cells, workers, finish, watch=None):
        for cell, attempt in cells:
            ran.append((cell, attempt))
            finish({"cell_id": cell.id}, None)

    monkeypatch.setattr(grid, "run_cells", run_cells)
    cell = Cell("deepagents==0.7.6", "25%", "goal-ledgers-12", 1, "history")
    job = {"spec": str(spec), "cells": [[cell.arm, cell.threshold, cell.case_id, cell.trial, 2, cell.eval]]}
    out = io.StringIO()
    assert worker.run_job(job, out) == 0
    assert ran == [(cell, 2)] and json.loads(out.getvalue()) == {"row": {"cell_id": cell.id}, "trace": None}


def test_a_live_arms_worker_runs_the_share_of_the_concurrency_the_parent_sent(tmp_path, monkeypatch):
    import io

    from harness.runs import grid, worker

    spec = _spec(tmp_path, '{deepagents: ["0.7.32", "0.7.6"]}')
    seen: list = []

    def run_cells(spec, scenarios, cells, workers, finish, watch=None):
        seen.append((workers, spec.max_rps))

    monkeypatch.setattr(grid, "run_cells", run_cells)
    monkeypatch.setattr(grid, "_is_live", lambda spec: True)
    cell = Cell("deepagents==0.7.6", "25%", "goal-ledgers-12", 0)
    job = {
        "spec": str(spec),
        "replace": {"concurrency": 3, "max_rps": 0.5},
        "cells": [[cell.arm, "25%", cell.case_id, 0, 1, None]],
    }
    assert worker.run_job(job, io.StringIO()) == 0
    assert seen == [(3, 0.5)]


# -- what the environment cache runs and records, exactly -------------------------------------------------------------
def test_a_new_environment_runs_exactly_these_uv_commands_and_records_what_it_cost(tmp_path, monkeypatch):
    import harness.runs.versions as versions

    clock = iter([100.0, 102.3456])
    monkeypatch.setattr(versions.time, "perf_counter", lambda: next(clock))
    root = tmp_path / "cache" / "envs"  # not there yet: made with its parents
    fake = FakeUv()
    env = ensure_env(OLD, LOCK, root=root, run=fake, current={"deepagents": "0.7.32"}, uv="uv")
    path = root / env_key(LOCK, OLD)
    python = str(path / "venv" / "bin" / "python")
    assert env == versions.ArmEnv(python, path, True, 2.35)
    install = ["uv", "pip", "install", "--quiet", "--compile-bytecode", "--python", python]
    assert fake.commands == [
        ["uv", "venv", "--quiet", "--python", sys.executable, str(path / "venv")],
        [*install, "-r", str(path / "requirements.lock"), "--overrides", str(path / "overrides.txt")],
        [*install, "--no-deps", "-e", str(versions.REPO_ROOT)],
    ]
    assert (path / READY).read_text() == json.dumps({"arm": OLD.label, "python": python, "seconds": 2.35}) + "\n"
    assert ensure_env(OLD, LOCK, root=root, run=fake, current={}, uv="uv") == versions.ArmEnv(python, path, False, 0.0)


def test_reusing_this_interpreter_costs_nothing():
    import harness.runs.versions as versions

    env = ensure_env(OLD, LOCK, run=FakeUv(), current={"deepagents": "0.7.6"}, uv="uv")
    assert env == versions.ArmEnv(sys.executable, None, False, 0.0)


def test_without_current_versions_the_installed_ones_of_the_pinned_packages_are_read(monkeypatch):
    import harness.runs.versions as versions

    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(versions, "package_versions", lambda names: asked.append(names) or {"deepagents": "0.7.6"})
    arm = VersionArm((("deepagents", "0.7.6"), ("langchain-core", "1.8.0")))
    assert ensure_env(OLD, LOCK, run=FakeUv(), uv="uv").path is None
    assert asked == [("deepagents",)]
    monkeypatch.setattr(versions, "package_versions", lambda names: dict.fromkeys(names, "1.8.0") | {"deepagents": "0.7.6"})
    assert ensure_env(arm, LOCK, run=FakeUv(), uv="uv").python == sys.executable


def test_the_environment_key_is_16_hex_digits_and_ignores_the_python_micro_version(monkeypatch):
    from types import SimpleNamespace

    import harness.runs.versions as versions

    monkeypatch.setattr(versions, "sys", SimpleNamespace(version_info=(3, 11, 4, "final", 0)))
    key = env_key(LOCK, OLD)
    assert len(key) == 16 and int(key, 16) >= 0
    monkeypatch.setattr(versions, "sys", SimpleNamespace(version_info=(3, 11, 9, "final", 0)))
    assert env_key(LOCK, OLD) == key
    monkeypatch.setattr(versions, "sys", SimpleNamespace(version_info=(3, 12, 4, "final", 0)))
    assert env_key(LOCK, OLD) != key


def test_a_missing_lock_is_a_config_error_naming_it(tmp_path):
    from harness.runs.versions import read_lock

    with pytest.raises(ConfigError) as raised:
        read_lock(tmp_path / "requirements.lock")
    assert str(raised.value) == (
        f"versions: an arm's environment is made from {tmp_path / 'requirements.lock'}, which is not there (run from a checkout)"
    )


def test_an_arm_whose_deepagents_nobody_pins_is_refused_saying_so():
    with pytest.raises(ConfigError, match=r"arm langchain==1.5.0 installs deepagents \(not pinned\), outside the range"):
        check_supported([VersionArm((("langchain", "1.5.0"),))], {}, "s.yaml")


def test_every_pin_a_row_did_not_run_is_named():
    arm = VersionArm((("deepagents", "0.7.6"), ("langchain", "1.4.7")))
    with pytest.raises(HarnessError) as raised:
        check_row_versions({"cell_id": "c", "packages": {"deepagents": "0.7.32", "langchain": "1.5.0"}}, arm)
    assert str(raised.value) == (
        "arm deepagents==0.7.6,langchain==1.4.7: cell c ran with deepagents 0.7.32 (pinned 0.7.6), langchain 1.5.0 (pinned 1.4.7)"
    )


def test_one_worker_runs_every_cell():
    got: list[str] = []
    cells = [(Cell("a", "25%", f"c{i}", 0), 1) for i in range(3)]
    run_arm_cells("s.yaml", sys.executable, cells, 1, lambda r, t: got.append(r["cell_id"]), None, ("-c", FAKE_WORKER))
    assert got == ["a|25%|c0|t0", "a|25%|c1|t0", "a|25%|c2|t0"]


def test_a_failed_workers_error_keeps_the_last_3000_characters_of_its_stderr():
    script = "import sys; sys.stdin.read(); sys.stderr.write('a' * 1000 + 'b' * 3000); sys.exit(5)"
    with pytest.raises(HarnessError) as raised:
        run_arm_cells("s.yaml", sys.executable, [(Cell("a", "25%", "c", 0), 1)], 1, lambda r, t: None, None, ("-c", script))
    assert str(raised.value) == f"a worker in {sys.executable} ended with exit 5:\n" + "b" * 3000


def test_a_line_cut_short_is_quoted_to_200_characters_and_the_worker_killed():
    import queue

    from harness.runs.pool import _pump

    class Worker:
        stdout = iter(['{"row": ' + "x" * 300 + "\n", '{"row": 1}\n'])
        killed = False

        def kill(self) -> None:
            self.killed = True

    worker, results = Worker(), queue.Queue()
    _pump(worker, results)  # type: ignore[arg-type]
    line = '{"row": ' + "x" * 300 + "\n"
    assert worker.killed
    assert results.get_nowait() == ("broken", f"a worker wrote a line that is not JSON (cut short?): {line[:200]!r}")
    assert results.get_nowait() == ("done", None) and results.empty()


def test_environments_are_cached_where_the_variable_says_else_under_the_home_cache(tmp_path, monkeypatch):
    from harness.runs.versions import ENVS_ENV_VAR, envs_dir

    monkeypatch.setenv(ENVS_ENV_VAR, str(tmp_path / "envs"))
    assert ENVS_ENV_VAR == "COMPACTION_HARNESS_ENVS" and envs_dir() == tmp_path / "envs"
    monkeypatch.delenv(ENVS_ENV_VAR)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert envs_dir() == tmp_path / ".cache" / "compaction-harness" / "envs"


def test_uv_is_the_one_beside_this_python_else_the_one_on_path_else_an_error(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import harness.runs.versions as versions

    (tmp_path / "bin").mkdir()
    monkeypatch.setattr(versions, "sys", SimpleNamespace(executable=str(tmp_path / "bin" / "python")))
    monkeypatch.setattr(versions.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert versions.find_uv() == "/usr/bin/uv"
    (tmp_path / "bin" / "uv").write_text("")
    assert versions.find_uv() == str(tmp_path / "bin" / "uv")
    (tmp_path / "bin" / "uv").unlink()
    monkeypatch.setattr(versions.shutil, "which", lambda name: None)
    with pytest.raises(ConfigError) as raised:
        versions.find_uv()
    assert str(raised.value) == "versions: arm environments are made with uv, which is not installed (pip install uv)"


def test_a_failed_setup_command_is_an_error_with_its_first_words_exit_and_stderr_tail():
    from harness.runs.versions import _run

    _run([sys.executable, "-c", "pass"])
    script = "import sys; sys.stderr.write('x' * 100 + 'y' * 2000); sys.exit(4)"
    with pytest.raises(HarnessError) as raised:
        _run([sys.executable, "-c", script, "more", "not-named"])
    assert str(raised.value) == f"{sys.executable} -c {script} more ... failed (exit 4):\n" + "y" * 2000
