"""``harness audit``, ``validity``: checking configs and evals before trusting results."""

from __future__ import annotations

import argparse

from harness.cli.options import (
    EXIT_FAILED,
    EXIT_OK,
)


def cmd_audit(args: argparse.Namespace) -> int:
    from harness.agent.models import check_base_url
    from harness.compaction.audit import audit

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
