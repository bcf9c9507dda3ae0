"""The built wheel (not an editable install), installed into a fresh virtual environment, runs from any directory with
its datasets packaged: `harness run` finds the shipped cases, variants and prices without the repository.

The fresh environment gets the locked dependencies from uv's cache (`--offline`: what `make install` downloaded), so
the test needs no network and takes seconds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).parent / "uv"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The fresh environment's bin directory, the harness installed from its wheel."""
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(root / "dist")],
        check=True,
        timeout=300,
    )
    (wheel,) = (root / "dist").glob("compaction_harness-*.whl")
    venv = root / "venv"
    subprocess.run([str(UV), "venv", "-q", str(venv), "--python", sys.executable], check=True, timeout=120)
    install = [str(UV), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "--offline"]
    subprocess.run([*install, "-r", str(ROOT / "requirements.lock"), str(wheel)], check=True, timeout=600)
    return venv / "bin"


def test_the_wheel_carries_the_datasets_and_runs_from_any_directory(installed, tmp_path):
    where = subprocess.run(
        [str(installed / "python"), "-c", "import harness, harness._paths as p; print(harness.__file__); print(p.DATASETS_DIR)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert all("/venv/lib/" in line and "site-packages/harness" in line for line in where)  # the wheel's copy, not ours
    datasets = Path(where[1])
    for shipped in ("needle.jsonl", "probes.jsonl", "variants/typed.md", "model_prices.yaml", "experiments/smoke.yaml"):
        assert (datasets / shipped).is_file(), shipped
    schemas = Path(where[0]).parent / "_data" / "schemas"  # the JSON Schemas an editor is pointed at (docs/data.md)
    for stem in ("scenario-row", "experiment-spec", "variant"):
        shipped_schema = schemas / f"{stem}.schema.json"
        assert shipped_schema.read_text() == (ROOT / "schemas" / shipped_schema.name).read_text(), stem
    run = subprocess.run(
        [str(installed / "harness"), "run", "--cases", "needle-h24k-d050", "--out", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 PASS" in run.stdout
    (report,) = (tmp_path / "runs").glob("*/report.md")
    assert "needle-h24k-d050" in report.read_text(encoding="utf-8")
