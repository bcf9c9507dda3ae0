"""An agent assembly the harness cannot run (``--agent``, a spec's ``agent:``, `harness.evaluate(agent=...)`, pytest's
``--agent``) is refused by the door's early checks: exit 2 (pytest: a usage error) naming the factory and what, no
traceback, nothing written. The unit tests of each refusal are tests/agent/test_assembly.py; here, every door."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.main import EXIT_BAD_INPUT, main
from harness.errors import ConfigError

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CASE = "needle-h24k-d000"
A = "tests._assemblies:"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "__pycache__" not in p.parts)


def _refused(argv: list[str], named: str, capsys, root: Path) -> None:
    before = _files(root)
    assert main(argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err, err
    assert _files(root) == before


@pytest.mark.parametrize(
    ("factory", "named"),
    [
        ("no_such_package_xyz:make", "--agent 'no_such_package_xyz:make': cannot import 'no_such_package_xyz' (No module named"),
        (A + "NOT_CALLABLE", "'NOT_CALLABLE' is not callable (int)"),
        (A + "raises", "calling it raised RuntimeError: no credentials configured"),
        (A + "returns_list", "it returned a list, not a dict of create_deep_agent keyword arguments"),
        (A + "own_model", "it passes its own 'model'"),
        (A + "own_summarization", "middleware[1] is a summarization middleware"),
        (A + "unknown_keyword", "'tool' is not a keyword of create_deep_agent"),
    ],
)
def test_harness_run_refuses_an_assembly_it_cannot_run(tmp_path, capsys, factory, named):
    _refused(["run", "--agent", factory, "--cases", CASE, "--out", str(tmp_path / "runs")], named, capsys, tmp_path)


def test_an_experiment_spec_names_its_agent_key_when_refused(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    out = tmp_path / "out"
    out.mkdir()
    spec.write_text(f"variants: [forced-20]\nthresholds: [20%]\nagent: {A}own_model\nscenarios: {{cases: [{CASE}]}}\n")
    _refused(
        ["experiment", "run", str(spec), "--out", str(out)], f"{spec}: agent {A}own_model: it passes its own 'model'", capsys, out
    )
    spec.write_text("variants: [forced-20]\nthresholds: [20%]\nagent: 42\n")
    _refused(
        ["experiment", "run", str(spec), "--out", str(out)], f"{spec}: agent: must be MODULE:FUNCTION (a string)", capsys, out
    )


def test_harness_check_refuses_it_before_any_eval_runs(tmp_path, capsys):
    argv = ["check", "--baseline", str(tmp_path / "b.json"), "--update", "--evals", "needle", "--cases", CASE]
    _refused([*argv, "--agent", A + "raises", "--out", str(tmp_path / "check")], "calling it raised", capsys, tmp_path)


def test_harness_evaluate_refuses_it_before_writing(tmp_path):
    from harness.api import evaluate

    with pytest.raises(ConfigError, match="it passes its own 'model'"):
        evaluate("needle", cases=[CASE], agent=A + "own_model", runs_dir=tmp_path, workers=0)
    with pytest.raises(ConfigError, match="calling it raised RuntimeError"):
        from tests._assemblies import raises

        evaluate("needle", cases=[CASE], agent=raises, runs_dir=tmp_path, workers=0)
    assert _files(tmp_path) == []


def test_pytest_evals_refuses_it_as_a_usage_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    env["LANGSMITH_TRACING"] = "false"
    command = [sys.executable, "-m", "pytest", "evals/", "-m", "needle", "-p", "no:cacheprovider", "-q"]
    command += ["--agent", A + "own_summarization", "--runs-dir", str(tmp_path / "runs")]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "--agent tests._assemblies:own_summarization: middleware[1] is a summarization middleware" in proc.stderr
    assert not (tmp_path / "runs").exists()
