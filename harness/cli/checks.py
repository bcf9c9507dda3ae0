"""``harness audit``, ``validity``, ``check``: checking configs, evals and a compactor before trusting results."""

from __future__ import annotations

import argparse

from harness.cli.options import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    add_cli_options,
    finite_float,
)
from harness.errors import ConfigError


def cmd_audit(args: argparse.Namespace) -> int:
    from harness.agent.audit import audit
    from harness.agent.endpoints import check_base_url

    check_base_url(args.base_url, "--base-url")
    report = audit(args.model, trigger=args.trigger, keep=args.keep, window=args.window, base_url=args.base_url)
    print(report.render())
    return report.exit_code


def cmd_validity(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from harness.suites.registry import matrix_suites

    if args.seeds < 1:
        raise ConfigError(f"--seeds must be at least 1, got {args.seeds}")
    known = [s.name for s in matrix_suites()]
    unknown = [name for name in args.evals or () if name not in known]
    if unknown:
        raise ConfigError(f"--eval {unknown[0]!r}: not an eval of the validity matrix; it has {', '.join(known)}")
    from harness.report.validity_report import matrix_table, write_validity
    from harness.suites.validity import run_validity

    out = args.out or f"reports/runs/{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-validity"
    result = run_validity(seeds=args.seeds, evals=args.evals, named_faults_only=args.named_faults)
    report = write_validity(result, out)
    print(matrix_table(result).to_markdown(index=False))
    for problem in [*result.expected_misses, *result.false_alarms]:
        print(f"problem: {problem}")
    print(f"report: {report}")
    return EXIT_OK if result.ok else EXIT_FAILED


def cmd_check(args: argparse.Namespace) -> int:
    from harness.api import evaluate
    from harness.cli.experiments import check_baseline_target, gate
    from harness.compaction.strategies.registry import register
    from harness.suites.registry import standard_evals

    evals = standard_evals(args.evals)
    strategy = register(args.strategy) if args.strategy and ":" in args.strategy else args.strategy
    check_baseline_target(args.baseline, update=args.update, max_error_rate=args.max_error_rate)  # before any eval runs

    def audit() -> None:
        """The compactor's stack, built once before the evals: after the early checks, so that a stopped server or a
        missing key is said before the agent stack is imported."""
        from harness.agent.audit import ERROR, compactor_findings
        from harness.runs.settings import endpoints

        run_endpoints = endpoints(
            base_url=args.base_url,
            summary_base_url=args.summary_base_url,
            model_kwargs=args.model_kwargs,
            summary_model_kwargs=args.summary_model_kwargs,
        )
        findings = compactor_findings(strategy, model=args.model, summary_model=args.summary_model, endpoints=run_endpoints)
        for f in findings:
            print(f"{f.level.upper()} [{f.code}] {f.message}")
        if any(f.level == ERROR for f in findings):
            raise ConfigError("the compactor audit found an error (above); no eval was run")

    from harness.runs.settings import settings_of

    run = evaluate(
        evals,
        cases=args.cases,
        strategy=strategy,
        runs_dir=args.out,
        progress=print if args.verbose else None,
        before_cases=audit,
        **{s.name: getattr(args, s.name) for s in settings_of("check")},  # the settings every door takes
    )
    if run.stopped:  # an outage: neither a verdict nor a baseline from what little ran
        import sys

        print(f"exit 4: {run.stopped}; rerun once the provider answers (run directory {run.path})", file=sys.stderr)
        return EXIT_ERROR
    if run.path is None:
        print("nothing ran: " + "; ".join(f"{e} {c}: {why}" for e, c, why in run.not_run[:3]))
        return EXIT_FAILED
    print(f"{len(run.rows)} case(s): {run.outcomes()}; run {run.path}")
    return gate(str(run.path), args.baseline, update=args.update, max_error_rate=args.max_error_rate, allow_partial=False)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: audit, validity, check."""
    chk = sub.add_parser(
        "check",
        help="run the evals against a compactor and gate the run against a stored baseline (exit 1 on a regression)",
        description="Run every eval that applies (or --evals) with --strategy, offline unless --model, into a run "
        "directory with its report, then compare with --baseline as `harness regress` does: exit 1 on a significant drop "
        "in a gated rate, 4 when too many cases ended in ERROR, 0 otherwise; --update writes the baseline from this run "
        "instead. --strategy is a strategy's name, or MODULE:ATTR: an object with INFO and build, or a middleware "
        "factory make(config, model, *, backend, summarizer) (as `pytest --compaction-strategy` takes it).",
    )
    chk.add_argument("--strategy", default=None, help="the compactor: a strategy name or MODULE:ATTR (default: deepagents')")
    chk.add_argument("--baseline", required=True, help="the baseline JSON file (written by --update)")
    chk.add_argument("--update", action="store_true", help="write the baseline from this run instead of gating")
    chk.add_argument("--evals", default=None, help="comma-separated evals (default: every one that applies)")
    chk.add_argument("--cases", nargs="+", metavar="ID", default=None, help="only these cases of the evals")
    chk.add_argument("--out", default="reports/check", help="where the run directory goes (default reports/check)")
    chk.add_argument(
        "--max-error-rate", type=finite_float, default=0.05, metavar="SHARE", help="exit 4 above this share of ERROR"
    )
    add_cli_options(chk, "check", ("compaction config", "models", "run", "live limits"))  # as for `harness run`
    chk.add_argument("--verbose", action="store_true", help="a line per case")
    chk.set_defaults(handler=cmd_check)
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
        "when a fault is missed or a healthy run fails. --eval NAME proves one eval (an eval you are adding); "
        "--named-faults runs CI's subset.",
    )
    val.add_argument("--seeds", type=int, default=10, help="healthy runs per case (default 10)")
    val.add_argument(
        "--eval",
        dest="evals",
        action="append",
        metavar="NAME",
        help="only this eval (repeat for several; default: every eval of the matrix)",
    )
    val.add_argument(
        "--named-faults",
        action="store_true",
        help="only the seeded faults each eval's entry names, as CI's `pytest evals/ -m validity` (default: every fault)",
    )
    val.add_argument("--out", default=None, help="output directory (default reports/runs/<time>-validity)")
    val.set_defaults(handler=cmd_validity)
