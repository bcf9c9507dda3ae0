"""One rule imports a user's ``MODULE:ATTR`` at every door (`harness.user_code`): as Python finds it, with the working
directory searched last. ``--agent`` had it and ``--strategy MODULE:ATTR`` did not: from a directory holding the docs'
``acme_compaction.py``, ``harness check --strategy acme_compaction:make`` said ``cannot import 'acme_compaction'``
while ``--agent acme_compaction:make`` found the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.agent.assembly import load_factory
from harness.compaction.strategies import registry
from harness.compaction.strategies.names import RUNTIME
from harness.compaction.variants import make_config
from harness.errors import ConfigError

pytestmark = pytest.mark.slow  # starts an interpreter (a spawned worker's `python -P`; tests/README.md)

USER_MODULE = '''
def keep_last(messages, token_count):
    """A messages function (`--strategy MODULE:FUNCTION` at `harness run`)."""
    return messages[-4:]


def make(config, model, *, backend, summarizer=None):
    """A middleware factory (`harness check --strategy`, `pytest --compaction-strategy`)."""
    raise AssertionError("not built here")


def agent():
    """An agent factory (`--agent`)."""
    return {}
'''


@pytest.fixture
def in_cwd_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A module ``cwd_user_code`` in the working directory, which is on no sys.path entry (as under the ``harness``
    console script, or a worker started with ``python -P``); what the test registers is forgotten after it."""
    (tmp_path / "cwd_user_code.py").write_text(USER_MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    before = dict(RUNTIME)
    yield tmp_path
    RUNTIME.clear()
    RUNTIME.update(before)
    registry.load.cache_clear()
    sys.modules.pop("cwd_user_code", None)


def test_every_door_finds_a_users_module_in_the_working_directory(in_cwd_only):
    assert make_config(strategy="cwd_user_code:keep_last").custom_strategy == "cwd_user_code:keep_last"  # harness run
    assert registry.register("cwd_user_code:make") == "cwd_user_code.make"  # harness check, pytest --compaction-strategy
    assert load_factory("cwd_user_code:agent")() == {}  # --agent


def test_a_worker_started_without_the_working_directory_on_its_path_finds_it_too(in_cwd_only):
    """A spawned worker runs ``python -P -m harness.runs.worker`` in the parent's working directory and imports the
    user's strategy again when it builds the case's middleware."""
    code = "from harness.compaction.variants import make_config; print(make_config(strategy='cwd_user_code:keep_last').strategy)"
    done = subprocess.run([sys.executable, "-P", "-c", code], cwd=in_cwd_only, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "custom", done.stderr[-2000:]


def test_harness_run_names_a_factory_given_where_it_takes_a_messages_function(in_cwd_only, monkeypatch):
    """``harness run --strategy acme_compaction:make`` (the docs' factory) used to fail in the pre-flight with a
    TypeError traceback once the module was found: the signature is named, with where a factory runs."""
    monkeypatch.syspath_prepend(str(in_cwd_only))  # found on any harness: this test is about what is found
    with pytest.raises(ConfigError) as refused:
        make_config(strategy="cwd_user_code:make")
    said = str(refused.value)
    assert said.startswith(
        "--strategy 'cwd_user_code:make': make(config, model, *, backend, summarizer=None) does not take (messages, token_count)"
    )
    assert "`harness check --strategy`" in said and "`pytest --compaction-strategy`" in said
