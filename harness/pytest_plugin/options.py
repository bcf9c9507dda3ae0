"""The plugin's two fronts and its options, declared in one function (`add_options`) for both.

A front is where the plugin's evals run: the harness's own ``evals/`` (options as ``harness run`` spells them:
``--model``, ``--trigger``...) or anyone's repository (the same options prefixed ``--compaction-`` so they never clash
with a repository's own, active only with ``--compaction-strategy``)."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.compaction.config import CompactionConfig


@dataclass(frozen=True)
class Front:
    """Where the plugin runs: its option prefix, the default run directory, the command rows record, and whether the
    session is a LangSmith experiment (``@pytest.mark.langsmith`` on every eval) as the harness's own evals are."""

    prefix: str
    runs_dir: str
    command: str
    langsmith: bool

    def flag(self, name: str) -> str:
        """The option ``name`` (``summary_base_url``) as this front spells it (``--summary-base-url``)."""
        return self.prefix + name.replace("_", "-")

    def spelled(self, message: str) -> str:
        """``message`` (a check's error naming the options as ``harness run`` spells them: ``--trigger``) with each
        option `session_config` checks as this front spells it (``--compaction-trigger``)."""
        return re.sub(rf"(?<![\w-])--({'|'.join(CHECKED)})\b(?!-)", lambda m: self.flag(m[1]), message)


OWN = Front("--", "reports/runs", "pytest evals/", langsmith=True)
"""The harness's own ``evals/``: its conftest declares the options (`add_options`) and so turns the plugin on there."""
USER = Front("--compaction-", "reports/compaction-harness", "pytest --compaction-strategy", langsmith=False)
"""Anyone's repository: on with ``--compaction-strategy MODULE:ATTR``."""

EVALS_DIR = "--harness-evals-dir"
"""A hidden option the harness's ``evals/conftest.py`` declares: the directory whose tests are the harness's evals."""

SESSION_OPTIONS = ("agent", "model", "summary_model", "seed")
"""The options `harness.runs.executor.EvalSession.from_options` takes by their Python names, besides the config
(`session_config`) and the endpoints (`ENDPOINT_OPTIONS`)."""
CHECKED = ("variant", "trigger", "keep", "window", "strategy", "case-budget")
"""The options `session_config` checks (the config's, and the case budget), as their errors name them."""
ENDPOINT_OPTIONS = ("base_url", "summary_base_url", "model_kwargs", "summary_model_kwargs", "max_rps", "max_tpm")
"""The options `harness.runs.settings.endpoints` takes."""


def add_options(parser: pytest.Parser, front: Front, evals_dir: str | None = None) -> None:
    """Every option of the plugin, for ``front`` (the one place they are declared). ``evals_dir``: the harness's own
    evals directory (`OWN`), recorded in the hidden `EVALS_DIR` option."""
    from harness.runs.settings import add_pytest_options
    from harness.suites.registry import STANDARD_EVALS

    user = front is USER
    group = parser.getgroup(
        "compaction-harness" if user else "harness",
        "compaction-harness evals against your own compactor (opt-in)" if user else "compaction harness evals",
    )

    def option(name: str, **kwargs: Any) -> None:
        group.addoption(front.flag(name), **kwargs)

    if evals_dir is not None:
        group.addoption(EVALS_DIR, default=evals_dir, help=argparse.SUPPRESS)
    named = "MODULE:ATTR" if user else "a built-in name (harness/compaction/strategies/) or MODULE:ATTR"
    option(
        "strategy",
        metavar="MODULE:ATTR" if user else None,
        default=None,
        help=f"the compaction strategy the evals run under, {named} (an object or module with INFO and build, or a "
        "factory); an eval that does not apply to it is skipped with the reason",
    )
    option(
        "evals",
        metavar="NAMES",
        default=None,
        help=f"comma-separated evals whose generated tests run (default: every one: {', '.join(STANDARD_EVALS)}; -m "
        "selects as well)",
    )
    # every setting of the pytest door, as `harness run` takes it (`harness.runs.settings.SETTINGS`)
    add_pytest_options(group, prefix=front.prefix, exclude=("strategy",))
    option(
        "sessions",
        nargs="+",
        metavar="FILE",
        default=None,
        help="session datasets (`harness import` writes them: DIR/sessions.jsonl) whose cases the session eval runs "
        "instead of its shipped one",
    )
    option("runs_dir", default=front.runs_dir, help=f"where the session's run directory goes (default {front.runs_dir})")
    option(
        "run_ahead",
        type=int,
        default=None,
        metavar="N",
        help="offline: N forked workers run the session's cases ahead of their tests (default: one per extra core, "
        "at most 3; 0: off). Results are recorded by the session in test order, identical to a run without",
    )
    if not user:
        option(
            "validity_full",
            action="store_true",
            help="-m validity: the whole matrix (10 healthy seeds, every seeded fault; nightly) instead of CI's subset "
            "(3 seeds, the faults each eval names)",
        )
        option(
            "langsmith_traces",
            default="summary",
            choices=["summary", "full"],
            help="with LANGSMITH_API_KEY: upload a compact trace summary per case (default) or every model call (full)",
        )


def given(config: pytest.Config, front: Front, *names: str) -> dict[str, Any]:
    """The options ``names`` by their Python names, as ``front`` spells them on the command line."""
    return {name: config.getoption(front.flag(name)) for name in names}


def front_of(config: pytest.Config) -> Front | None:
    """The front this session runs, None when the plugin is off (a repository's own tests without the option)."""
    if config.getoption(EVALS_DIR, default=None) is not None:
        return OWN
    if config.getoption(USER.flag("strategy"), default=None) is not None:
        return USER
    return None


def session_config(config: pytest.Config, front: Front, strategy: str | None) -> CompactionConfig:
    """The session's compaction config from the front's options (``strategy``: its registered name) and its case
    budget, checked at configure time: a bad ``--trigger``, ``--keep``, ``--window``, ``--strategy`` or
    ``--case-budget`` is a ConfigError naming it, which the plugin says as a usage error (exit 4) once, before any
    test is collected, as ``harness run`` refuses them (exit 2) before anything is built. Light: no agent stack."""
    from harness.agent.endpoints import case_budget
    from harness.compaction.config import DEFAULT_PRESET
    from harness.compaction.variants import make_config

    case_budget(config.getoption(front.flag("case_budget")))
    named = given(config, front, "variant", "trigger", "keep", "window")
    return make_config(
        named["variant"] or DEFAULT_PRESET,
        trigger=named["trigger"],
        keep=named["keep"],
        window=named["window"],
        strategy=strategy,
    )


def early_checks(config: pytest.Config, front: Front, compaction: CompactionConfig) -> bool:
    """The session's early checks (`harness.runs.early`), at configure time, before any test is collected or a model
    built: a malformed live spec is a usage error, a stopped server ends the session with exit 4 (as `harness run`
    exits; said once, as pytest says a usage error: its exit code is the same 4), a missing key is left to
    ``eval_session``, which skips every eval with the reason. ``compaction``: the session's config
    (`session_config`), whose summary model is asked about. True when the live models' servers were asked (the
    session's pre-flight then does not ask them again): by this process, or, under pytest-xdist, by the controller
    before it started this worker."""
    import os

    if os.environ.get("PYTEST_XDIST_WORKER"):
        return True
    if config.getoption("collectonly"):
        return False
    from harness.agent.endpoints import summary_model_for
    from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable
    from harness.runs.early import early_checks as check
    from harness.runs.settings import endpoints

    named = given(config, front, "model", "summary_model", "agent")
    try:
        summary = summary_model_for(compaction.summary_model, named["summary_model"], variant=compaction.name)
        run_endpoints = endpoints(**given(config, front, *ENDPOINT_OPTIONS))
        check(
            named["model"],
            [summary],
            run_endpoints,
            options=(front.flag("model"), front.flag("summary_model")),
            agent=named["agent"],
        )
    except LiveModelUnavailable:
        return False
    except EndpointUnreachable as exc:  # a provider problem found before any case: ERROR's exit code, as the CLI's
        raise pytest.UsageError(str(exc)) from None  # one line, exit 4 (EXIT_ERROR; tests/pytest_plugin/test_plugin_doors.py)
    except HarnessError as exc:  # a mistake in the options: a usage error (exit 4) before anything runs
        raise pytest.UsageError(str(exc)) from None
    return True
