"""Command line: the ``harness`` parser and dispatch; each command group's module adds its own subcommands.

Groups: runs (run, score, report, tokens), experiments (experiment, compare, regress),
checks (audit, validity), data (generate, variants), sessions (import, export), serving (serve, bench),
judging (judge calibrate).

Exit codes: 0 done; 1 a check failed (``score --strict``, ``regress``) or audit
warnings; 2 bad input (dataset, config, variant, model spec), with a message naming what and where; 3 skipped (a live
model whose provider key is not set); 4 a case ended in ERROR (a provider error after
every retry: counted in no rate, re-run on resume), or nothing answered at a --base-url before the run.
"""

from __future__ import annotations

import argparse
import os
import sys

from harness.cli import checks, data, experiments, judging, runs, serving, sessions
from harness.cli.options import (
    EXIT_BAD_INPUT,
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SKIPPED,
    endpoints_from_args,
)

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_SKIPPED",
    "build_parser",
    "endpoints_from_args",
    "main",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description="Force, record and score context compression in deepagents.")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (
        runs,
        experiments,
        checks,
        data,
        sessions,
        serving,
        judging,
    ):  # each module adds its own subcommands and their handlers
        group.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """The `harness` command: parse ``argv``, run the subcommand, return its exit code (2 for a mistake in the input,
    3 no key, 4 a provider error; no traceback for a mistake of the user's)."""
    from harness.redact import redact, redact_process_output

    redact_process_output()  # no key reaches the terminal, whoever prints it
    os.environ.setdefault("TQDM_DISABLE", "1")  # tqdm's own switch: no third-party bars (the LangSmith SDK's evaluate)
    args = build_parser().parse_args(argv)
    if args.command == "validity":  # `run` and `experiment run` ask LangSmith in their early checks (harness.runs.early)
        from harness.langsmith.session import bound_tracing

        bound_tracing()  # LANGSMITH_TRACING=true: one preflight, then every upload bounded; never a wait at exit
    from harness.errors import EndpointUnreachable, HarnessError, LiveModelUnavailable, ProviderFailed, WorkerFailed

    try:
        return args.handler(args)
    except LiveModelUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return EXIT_SKIPPED
    except (
        EndpointUnreachable,
        ProviderFailed,
        WorkerFailed,
    ) as exc:  # a provider or a worker process failed: ERROR's code, not bad input
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except HarnessError as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
