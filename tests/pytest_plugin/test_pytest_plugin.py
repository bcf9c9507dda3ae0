"""The pytest plugin as another repository uses it: a throwaway package with its own compactor, installed into a
fresh virtual environment, runs the harness's evals with ``pytest --compaction-strategy pkg.mod:make``.

The fresh environment sees the harness and its dependencies through a .pth file that adds this environment's
site-packages as a site directory (nothing is downloaded); the package is installed into it by pip from a temporary directory. A good
compactor passes, a compactor that loses the needle fails, a bad option is a usage error, and without the option the
plugin adds nothing to the repository's own test run.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

GOOD = '''
"""Masking that keeps the newest tool result: LangChain's ClearToolUsesEdit, as a middleware factory."""
from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

from harness.compaction.strategies.base import StrategyStack
from harness.compaction.strategies.none import VacatedSummarizationSlot


def make(config, model, *, backend, summarizer=None):
    edit = ClearToolUsesEdit(trigger=config.trigger_tokens() or 0, keep=1, placeholder="[cleared]")
    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[ContextEditingMiddleware(edits=[edit])])


def lossy(config, model, *, backend, summarizer=None):
    """Keeps only the task and the newest message: the needle never comes back."""
    from langchain.agents.middleware import AgentMiddleware

    class KeepTwo(AgentMiddleware):
        def wrap_model_call(self, request, handler):
            return handler(request.override(messages=[request.messages[0], request.messages[-1]]))

    return StrategyStack(slot=VacatedSummarizationSlot(), inner=[KeepTwo()])
'''


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh environment's python, a project directory with the user's own test), the package installed."""
    root = tmp_path_factory.mktemp("plugin")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site_dir = next((venv / "lib").glob("python3*/site-packages"))
    # `import` lines of a .pth run at start-up: addsitedir also reads the .pth files there (the harness's install).
    lines = [f"import site; site.addsitedir({d!r})" for d in site.getsitepackages()]
    (site_dir / "harness_env.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    package = root / "acme"
    (package / "acme_compaction").mkdir(parents=True)
    (package / "acme_compaction" / "__init__.py").write_text(GOOD, encoding="utf-8")
    (package / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "acme-compaction"
            version = "0.1"
            """
        ),
        encoding="utf-8",
    )
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*install, str(package)], check=True, timeout=300, cwd=root)
    project = root / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_own.py").write_text("def test_their_own():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return python, project


def pytest_in(env: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess:
    python, project = env
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    return subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
        env=environment,
    )


def test_the_package_is_installed_in_the_fresh_environment_and_the_plugin_is_inert_without_the_option(fresh_env):
    python, _ = fresh_env
    where = subprocess.run(
        [str(python), "-c", "import acme_compaction, sys; print(acme_compaction.__file__, sys.prefix)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "venv/lib" in where and str(python.parent.parent) in where  # installed into the fresh venv, not on a path
    own = pytest_in(fresh_env)
    assert own.returncode == 0, own.stdout + own.stderr
    assert "1 passed" in own.stdout and "compaction" not in own.stdout  # only the repository's own test


def test_a_good_compactor_passes_the_needle_eval_and_the_run_is_written(fresh_env):
    result = pytest_in(fresh_env, "--compaction-strategy", "acme_compaction:make", "-m", "needle", "-k", "h24k-d050")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "compaction-harness results: reports/compaction-harness/" in result.stdout
    runs = list((fresh_env[1] / "reports" / "compaction-harness").glob("*/results.jsonl"))
    assert runs and '"strategy": "acme_compaction.make"' in runs[-1].read_text()


def test_a_compactor_that_loses_the_needle_fails_it(fresh_env):
    result = pytest_in(fresh_env, "--compaction-strategy", "acme_compaction:lossy", "-m", "needle", "-k", "h24k-d050")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout and "needle" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--compaction-strategy", "acme_compaction:nothing"], "cannot import it (AttributeError"),
        (["--compaction-strategy", "acme_compaction:make", "--compaction-evals", "needles"], "no eval 'needles'"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_it(fresh_env, args, message):
    result = pytest_in(fresh_env, *args)
    assert result.returncode == 4, result.stdout + result.stderr  # pytest's usage error, before anything runs
    assert message in result.stdout + result.stderr
