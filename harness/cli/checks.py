"""``harness audit``, ``validity``: checking configs and evals before trusting results."""

from __future__ import annotations

import argparse

from harness.cli.options import (
    EXIT_FAILED,
    EXIT_OK,
)


def cmd_audit(args: argparse.Namespace) -> int:
    from harness.agent.audit import audit
    from harness.agent.models import check_base_url

    check_base_url(args.base_url, "--base-url")
    report = audit(args.model, trigger=args.trigger, keep=args.keep, window=args.window, base_url=args.base_url)
    print(report.render())
    return report.exit_code


def cmd_validity(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from harness.report.validity_report import matrix_table, write_validity
    from harness.suites.validity import run_validity

    out = args.out or f"reports/runs/{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-validity"
    result = run_validity(seeds=args.seeds)
    report = write_validity(result, out)
    print(matrix_table(result).to_markdown(index=False))
    for problem in [*result.expected_misses, *result.false_alarms]:
        print(f"problem: {problem}")
    print(f"report: {report}")
    return EXIT_OK if result.ok else EXIT_FAILED


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: audit, validity."""
    aud = sub.add_parser(
        "audit",
        help="check a model's compaction settings for the known traps (exit 0 clean, 1 warnings, 2 errors)",
        description="Print the effective trigger and keep in tokens for a model and flag: no profile for the "
        "exact name, a profile window above the model's real limit, a trigger below the fixed "
        "tool/system overhead, keep at or above the trigger, fractions without a profile.",
    )
    aud.add_argument("--model", required=True, help="provider:name, e.g. openai:gpt-5.2")
    aud.add_argument(
        "--trigger", action="append", metavar="SIZE", help="trigger size (default: deepagents' for this model); repeatable"
    )
    aud.add_argument("--keep", metavar="SIZE", help="keep size (default: deepagents' for this model)")
    aud.add_argument("--window", metavar="TOKENS", help="declared window (default: the model's profile)")
    aud.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI-compatible server: ask its /v1/models for the served context "
        "length (vLLM's max_model_len) and flag a declared window above it",
    )
    aud.set_defaults(handler=cmd_audit)

    val = sub.add_parser(
        "validity",
        help="run every eval under every seeded fault and healthy over many seeds; write the detection matrix",
        description="Prove the evals themselves, offline: each eval of the registry runs its matrix cases healthy "
        "over --seeds seeds (a failure is a false alarm) and once under every seeded fault (caught only when the "
        "check its entry names fails). Writes validity.json and a report with the eval x fault matrix; exits 1 "
        "when a fault is missed or a healthy run fails. About 3 minutes on 2 cores.",
    )
    val.add_argument("--seeds", type=int, default=10, help="healthy runs per case (default 10)")
    val.add_argument("--out", default=None, help="output directory (default reports/runs/<time>-validity)")
    val.set_defaults(handler=cmd_validity)
