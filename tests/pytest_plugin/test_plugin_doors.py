"""A user's mistake at the pytest doors is one line, exit 4, before any test runs (docs/strategies.md, docs/live.md).

A bad ``--strategy``, ``--trigger``, ``--keep``, ``--window`` or ``--case-budget`` used to reach the ``eval_session``
fixture and print its traceback once per test (20 for ``-m needle``; 1,012 lines under ``-n 2``) with exit 1; a
stopped server printed its line twice. The in-process cases check every setting `session_config` refuses; the
subprocess cases run pytest the way a user does, one per path a refusal takes (configure, the pre-flight, an xdist
worker's pre-flight, a user's repository)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.errors import EXIT_ERROR, ConfigError
from harness.pytest_plugin.options import OWN, USER, Front, session_config

pytestmark = pytest.mark.slow  # starts pytest in subprocesses (tests/README.md)

ROOT = Path(__file__).resolve().parents[2]
OVERHEAD = "is at or below the fixed per-call overhead"  # the pre-flight's refusal of --window 5000 (docs/evals.md)


class _Options:
    """A pytest config's ``getoption`` over the options given (unset ones None), as ``front`` spells them."""

    def __init__(self, front: Front, **given: object) -> None:
        self.given = {front.flag(name): value for name, value in given.items()}

    def getoption(self, flag: str, default: object = None) -> object:
        return self.given.get(flag, default)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"strategy": "observation-maskng"}, "--strategy 'observation-maskng': unknown strategy; known: "),
        ({"trigger": ["150%"]}, "--trigger '150%': fraction must be in (0, 1], got 1.5"),
        ({"trigger": ["foo"]}, "--trigger 'foo': cannot read context size 'foo'"),
        ({"keep": "tokens:abc"}, "--keep 'tokens:abc': cannot read a number from 'tokens:abc'"),
        ({"window": "-5"}, "--window must be at least 1000 tokens, got -5"),
        ({"case_budget": -1.0}, "--case-budget must be positive, got -1"),
        ({"variant": "forced-99"}, "unknown variant 'forced-99'"),
    ],
)
@pytest.mark.parametrize("front", [OWN, USER], ids=["own", "user"])
def test_every_session_setting_is_checked_at_configure_time_naming_the_option_as_the_front_spells_it(front, given, said):
    options = {name: value for name, value in given.items() if name != "strategy"}
    with pytest.raises(ConfigError) as refused:
        session_config(_Options(front, **options), front, given.get("strategy"))  # type: ignore[arg-type]
    assert front.spelled(str(refused.value)).startswith(said.replace("--", front.prefix, 1) if said.startswith("--") else said)


def test_a_front_spells_only_the_options_it_checks_and_never_twice():
    said = "--trigger / --window: raise --window or --trigger tokens:50000; --model 'x' (--compaction-model)"
    assert OWN.spelled(said) == said
    assert USER.spelled(said) == (
        "--compaction-trigger / --compaction-window: raise --compaction-window or --compaction-trigger tokens:50000; "
        "--model 'x' (--compaction-model)"
    )


def _pytest(*args: str, cwd: Path = ROOT, script: bool = False) -> tuple[int, list[str]]:
    """pytest in a fresh process (``script``: the console script, whose sys.path lacks the working directory, as a
    user's ``pytest`` has): its exit code and every line it printed, stdout and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and not k.endswith("_API_KEY")}
    command = [str(Path(sys.executable).parent / "pytest")] if script else [sys.executable, "-m", "pytest"]
    done = subprocess.run(
        [*command, "-q", "-p", "no:cacheprovider", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    return done.returncode, (done.stdout + done.stderr).splitlines()


def _one_line(rc: int, printed: list[str], said: str) -> str:
    """The refusal: exit 4, said on exactly one line, no test run and no traceback."""
    lines = [line for line in printed if said in line]
    assert rc == EXIT_ERROR and len(lines) == 1, "\n".join(printed[-40:])
    text = "\n".join(printed)
    assert "Traceback" not in text and "UsageError" not in text and "passed" not in text and " error" not in text, text
    return lines[0]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--strategy", "observation-maskng"], "ERROR: --strategy 'observation-maskng': unknown strategy"),  # configure
        (["--window", "5000"], f"ERROR: config 'forced-20+custom': the trigger (1,000 tokens) {OVERHEAD}"),  # pre-flight
    ],
    ids=["configure", "preflight"],
)
def test_pytest_evals_says_a_bad_setting_once_with_exit_4_before_any_test(tmp_path, args, said):
    rc, printed = _pytest("evals/test_evals.py", "-m", "needle", "-k", "h24k-d000", "--runs-dir", str(tmp_path), *args)
    assert _one_line(rc, printed, said).startswith(said)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_under_xdist_a_workers_preflight_refusal_stops_the_session_once_with_exit_4(tmp_path):
    rc, printed = _pytest(
        "evals/test_evals.py", "-m", "needle", "-k", "h24k-d000", "-n", "1", "--runs-dir", str(tmp_path), "--window", "5000"
    )
    assert "Interrupted: config 'forced-20+custom'" in _one_line(rc, printed, OVERHEAD)


USER_STRATEGY = '''
def make(config, model, *, backend, summarizer=None):
    """A user's middleware factory, in the directory pytest runs from (never built here: the options are refused)."""
    raise AssertionError("built")
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository: its own test, and its compactor module at its root (on no PYTHONPATH)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_own.py").write_text("def test_their_own():\n    assert True\n")
    (tmp_path / "cwd_compaction.py").write_text(USER_STRATEGY)
    return tmp_path


def test_a_users_repository_hears_a_bad_option_once_with_exit_4(project):
    """The compactor is found in the working directory by the console script (`harness.user_code`); the trigger is
    refused once, named as the user's front spells it."""
    args = ["--compaction-strategy", "cwd_compaction:make", "--compaction-trigger", "150%"]
    rc, printed = _pytest(*args, cwd=project, script=True)
    said = "ERROR: --compaction-trigger '150%': fraction must be in (0, 1], got 1.5"
    assert _one_line(rc, printed, said) == said
    assert not (project / "reports").exists()


def test_a_strategys_name_on_a_users_front_says_where_a_named_strategy_runs():
    """It was ``cannot import 'observation-masking'``: the plugin takes MODULE:ATTR, and docs/strategies.md says where
    a named strategy runs."""
    from harness.pytest_plugin import _registered

    with pytest.raises(ConfigError) as refused:
        _registered("observation-masking", USER)
    said = str(refused.value)
    assert said.startswith("'observation-masking' is a strategy's name; the plugin takes your own compactor as MODULE:ATTR")
    assert "`harness run --strategy observation-masking`" in said and "`pytest evals/ --strategy observation-masking`" in said
    assert _registered("observation-masking", OWN) == "observation-masking"  # the harness's own front takes names
