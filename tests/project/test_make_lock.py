"""`make lock` keeps a lock whose pins did not change untouched (so `make` does not reinstall .venv for nothing).

The recipe runs with a stand-in `uv` (no network): one that leaves the pins as they are, and one that changes one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FAKE_UV = """#!/bin/sh
# stand-in for `uv pip compile ... -o FILE`: FILE already holds the current pins (the recipe copies them there)
# and, like uv, writes FILE whether or not a pin changed.
out=""; while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
pins=$(cat "$out"); printf '%s\n' "$pins" > "$out"
[ -n "$CHANGE" ] && case "$out" in *"$CHANGE"*) echo "newpin==1.0" >> "$out";; esac
exit 0
"""


@pytest.fixture
def project(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ("Makefile", "pyproject.toml", "requirements.lock", "requirements-dev.lock", "requirements-notebook.lock"):
        shutil.copy(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(FAKE_UV)
    (bin_dir / "python").write_text("#!/bin/sh\nexit 0\n")  # `python -m pip install uv`: nothing to install here
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    for lock in ("requirements.lock", "requirements-dev.lock", "requirements-notebook.lock"):
        os.utime(tmp_path / lock, (1_000_000_000, 1_000_000_000))
    return tmp_path


def _lock(project: Path, change: str = "") -> str:
    done = subprocess.run(
        ["make", "lock", f"BIN={project / 'fakebin'}"],
        cwd=project,
        env={**os.environ, "CHANGE": change},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_an_unchanged_lock_is_left_untouched(project):
    before = {
        p: ((project / p).read_bytes(), (project / p).stat().st_mtime)
        for p in ("requirements.lock", "requirements-dev.lock", "requirements-notebook.lock")
    }
    out = _lock(project)
    assert "requirements.lock unchanged" in out and "requirements-dev.lock unchanged" in out
    assert "requirements-notebook.lock unchanged" in out
    after = {p: ((project / p).read_bytes(), (project / p).stat().st_mtime) for p in before}
    assert after == before
    assert not list(project.glob("*.new"))


def test_a_changed_lock_is_replaced_and_the_other_left_alone(project):
    dev_mtime = (project / "requirements-dev.lock").stat().st_mtime
    notebook_mtime = (project / "requirements-notebook.lock").stat().st_mtime
    out = _lock(project, change="requirements.lock.new")
    assert "requirements.lock updated" in out and "requirements-dev.lock unchanged" in out
    assert "requirements-notebook.lock unchanged" in out
    assert (project / "requirements.lock").read_text().endswith("newpin==1.0\n")
    assert (project / "requirements-dev.lock").stat().st_mtime == dev_mtime
    assert (project / "requirements-notebook.lock").stat().st_mtime == notebook_mtime
    assert not list(project.glob("*.new"))
