"""Options and helpers every command group shares: exit codes, config, endpoint and case selection."""

from __future__ import annotations

import argparse

from harness.errors import EXIT_BAD_INPUT as EXIT_BAD_INPUT  # the exit codes are defined at the bottom of the layers
from harness.errors import EXIT_ERROR as EXIT_ERROR
from harness.errors import EXIT_FAILED as EXIT_FAILED
from harness.errors import EXIT_OK as EXIT_OK
from harness.errors import EXIT_SKIPPED as EXIT_SKIPPED
from harness.runs.settings import add_cli_options as add_cli_options
from harness.runs.settings import endpoints, settings_of
from harness.runs.settings import finite_float as finite_float  # the one rule for a fraction option, re-exported
from harness.scenarios.schema import KINDS


def port_number(text: str) -> int:
    """The argparse type of a TCP port option: an integer from 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0 picks a free one), got {port}")
    return port


def add_config_options(p: argparse.ArgumentParser) -> None:
    """The compaction config and model settings (`harness.runs.settings.SETTINGS`) as options of ``p``."""
    add_cli_options(p, "run", ("compaction config", "models"))


LIMIT_OPTIONS: tuple[tuple[str, dict], ...] = tuple(
    (s.flag, {"default": None, **s.option}) for s in settings_of("experiment", "live limits")
)
"""The bounds of a live run, the same for `harness run`, `harness experiment run` and `pytest evals/`
(`harness.runs.settings.SETTINGS`)."""


def add_limit_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("live limits")
    for flag, kwargs in LIMIT_OPTIONS:
        g.add_argument(flag, **kwargs)


def endpoints_from_args(args: argparse.Namespace) -> tuple:
    """(agent Endpoint, summary Endpoint) from --base-url / --summary-base-url / --model-kwargs / --summary-model-kwargs
    and the run's limits (`harness.runs.settings.endpoints`, as every door builds them)."""
    names = ("base_url", "summary_base_url", "model_kwargs", "summary_model_kwargs", "max_rps", "max_tpm")
    return endpoints(**{name: getattr(args, name, None) for name in names})


def add_selection_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("scenarios")
    s.add_argument(
        "--datasets",
        nargs="+",
        metavar="FILE",
        help="scenario JSONL files (default: the shipped datasets/needle.jsonl, goal.jsonl and chain.jsonl); "
        "a directory is refused: name its files, e.g. DIR/*.jsonl",
    )
    s.add_argument(
        "--kind",
        choices=[*KINDS, "all"],
        default="all",
        help="`harness run`: the eval to run, its cases as that eval (its preset, scorer set and known upstream "
        "failures; rows say eval: KIND); default all: every selected case as no eval, under --variant (rows say eval: "
        "null). Truncation cases are in datasets/mechanisms/truncation.jsonl",
    )
    s.add_argument("--cases", nargs="+", metavar="GLOB", help="only case ids matching these globs, e.g. 'needle-h16k-*'")
    s.add_argument("--limit", type=int, help="at most this many cases")


def _number_list(text: str, option: str, cast: type) -> list:
    from harness.errors import ConfigError

    try:
        values = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise ConfigError(f"{option}: no values in {text!r}")
    return values
