"""``harness run``, ``score``, ``report``, ``tokens``: run directories."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.options import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SKIPPED,
    add_cli_options,
    add_config_options,
    add_limit_options,
    add_selection_options,
    endpoints_from_args,
)


def cmd_run(args: argparse.Namespace) -> int:
    from harness.agent.endpoints import summary_model_for
    from harness.compaction.variants import make_config
    from harness.errors import ConfigError

    if args.trials < 1:
        raise ConfigError(f"--trials must be at least 1, got {args.trials}")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {args.limit} (leave it out to run every selected case)")
    config = make_config(args.variant, trigger=args.trigger, keep=args.keep, window=args.window, strategy=args.strategy)
    agent_endpoint, summary_endpoint = endpoints_from_args(args)
    # A malformed live spec, a missing key or a stopped server is said before the scenarios, the agent stack, pandas
    # and matplotlib are imported (docs/performance.md, "Start-up"); the run's pre-flight does not ask the servers again.
    from harness.runs.early import early_checks

    summary_model = summary_model_for(config.summary_model, args.summary_model, variant=config.name)
    early = early_checks(args.model, [summary_model], (agent_endpoint, summary_endpoint), agent=args.agent)
    from harness.agent.endpoints import case_budget
    from harness.runs.run import run_cases
    from harness.scenarios.schema import load_scenarios, select

    scenarios = select(
        load_scenarios(args.datasets), kind=None if args.kind == "all" else args.kind, ids=args.cases, limit=args.limit
    )
    if not scenarios:
        hint = (
            "; truncation cases are not in the default files: add --datasets datasets/mechanisms/truncation.jsonl"
            if args.kind == "truncation" and not args.datasets
            else ""
        )
        raise ConfigError("no scenario matches the selection (--kind/--cases/--limit)" + hint)
    from harness.agent.models import in_process
    from harness.runs.run import check_plan_size

    live = not in_process(args.model)
    check_plan_size(
        len(scenarios) * args.trials,
        allow_large=args.allow_large,
        live=live,
        parallel=args.concurrency if live else 1,  # offline cases are CPU bound: one at a time
        what=f"--trials {args.trials} x {len(scenarios)} case(s)",
        progress=print,
    )

    run = run_cases(
        scenarios,
        config,
        agent_model=args.model,
        summary_model=summary_model,
        seed=args.seed,
        trials=args.trials,
        out_dir=args.out,
        run_id=args.run_id,
        command="harness " + " ".join(sys.argv[1:]),
        agent_endpoint=agent_endpoint,
        summary_endpoint=summary_endpoint,
        concurrency=args.concurrency,
        case_budget_s=case_budget(args.case_budget),
        processes=args.processes,
        stop_after=args.stop_after_errors,
        eval_name=None if args.kind == "all" else args.kind,  # --kind K: the eval of K; none named: as no eval
        endpoints_answered=early.endpoints_answered,  # asked above, before the imports
        agent=args.agent,  # the user's own assembly, checked above (`harness.agent.assembly`)
    )
    from harness.report.run_report import write_report
    from harness.runs.results import is_error, outcome_line, retries_line

    report = write_report(run.path, args.tokens)

    skipped = f"; {len(run.skipped)} case(s) SKIPPED ({run.skipped[0]['reason']})" if run.skipped else ""
    retried = retries_line(run.rows)  # a live run's provider retries; offline, nothing
    print(f"{outcome_line(run.rows)}{skipped}{f'; {retried}' if retried else ''}. Report: {report}")
    if run.stopped:  # an outage: the cause and the count, what was not run and how to run it (meta.json has both)
        print(f"exit 4: {run.stopped}. {run.rerun}", file=sys.stderr)
        return EXIT_ERROR
    if run.skipped and not run.rows:
        return EXIT_SKIPPED
    if any(is_error(r) for r in run.rows):
        print(
            "exit 4: some cases ended in a provider error (ERROR); they count in no rate. See the report's Errors section.",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def cmd_score(args: argparse.Namespace) -> int:
    from harness.runs.rescore import rescore
    from harness.runs.results import outcome_line, row_outcome, torn_line_note
    from harness.scoring.scorers import PASS

    rows = rescore(Path(args.run_dir), args.datasets)
    failed = [r for r in rows if row_outcome(r)[0] != PASS]
    print(f"re-scored {len(rows)} trace(s) into {Path(args.run_dir) / 'rescored.jsonl'}: {outcome_line(rows)}")
    torn = torn_line_note(Path(args.run_dir) / "results.jsonl")
    if torn:
        print(f"warning: {torn}", file=sys.stderr)
    return EXIT_FAILED if args.strict and (failed or torn) else EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from harness.errors import HarnessError
    from harness.report.run_report import write_report

    if not any((Path(args.run_dir) / name).exists() for name in ("meta.json", "validity.json")):
        from harness.runs.merge import unmerged_shards

        raise HarnessError(
            unmerged_shards(args.run_dir)
            or f"{args.run_dir}: not a run, experiment or validity directory (no meta.json or validity.json)"
        )
    from harness.runs.results import torn_line_note

    report = write_report(args.run_dir, args.tokens)
    for name, rerun in (("results.jsonl", False), ("cells.jsonl", True)):
        torn = torn_line_note(Path(args.run_dir) / name, rerun=rerun)
        if torn:
            print(f"warning: {torn} (the report says so)", file=sys.stderr)
    print(report)
    return EXIT_OK


def cmd_tokens(args: argparse.Namespace) -> int:
    from harness.analysis.token_skew import skew
    from harness.errors import HarnessError
    from harness.report.skew_report import write_skew
    from harness.runs.results import read_rows
    from harness.trace.schema import load_trace

    path = Path(args.run_dir)
    if not (path / "results.jsonl").exists():
        raise HarnessError(f"{path}: not a run directory (no results.jsonl)")
    rows = read_rows(path / "results.jsonl")
    result = skew(load_trace(path / r["trace"]) for r in rows)
    print(f"exact counts from: {result['source']}")
    print(result["types"].to_markdown(index=False))
    print(f"{len(result['late'])} call(s) passed the window before the trigger fired; report: {write_skew(result, path)}")
    from harness.analysis.trigger_share import estimate_table

    shares = estimate_table(rows)
    if not shares.empty:
        print("where compaction fired (estimate eval; exact tokens of the conversation at the first compaction):")
        print(shares.to_markdown(index=False))
    return EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: run, score, report, tokens."""
    run = sub.add_parser(
        "run",
        help="run scenarios offline (default) or live, write reports/runs/<run-id>/",
        description="Run the shipped scenarios through the real deepagents agent with compaction forced, "
        "score every case, and write results.jsonl, traces/, token_curves.png and report.md. "
        "With --kind K the cases run as the eval K, under its rules as `pytest evals/ -m K` runs them (its preset when "
        "it has one, its scorer set, its known upstream failures) and their rows say eval: K with its version. "
        "Without --kind no eval is named: the selected cases run under --variant and its overrides, scored with the "
        "default scorer set, and their rows say eval: null.",
    )
    add_config_options(run)
    add_selection_options(run)
    add_cli_options(run, "run", ("run",))
    run.add_argument("--trials", type=int, default=1, help="repeat every case this many times with successive seeds")
    run.add_argument(
        "--allow-large",
        action="store_true",
        help="run more than 10,000 cases x trials (harness.runs.run.MAX_PLANNED_RUNS; refused otherwise, with the plan's "
        "size and estimate)",
    )
    run.add_argument("--out", default="reports/runs", help="parent directory of run directories (default reports/runs)")
    run.add_argument("--run-id", help="name of the run directory (default: time, variant and a random suffix)")
    run.add_argument(
        "--tokens",
        choices=["approx", "provider", "both"],
        help="token curves in the report: approx, or with the provider-reported usage (default: both when reported)",
    )
    run.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="cases in flight at once, on one asyncio event loop (default 1). Live cases are I/O bound: "
        "dozens fit on 2 cores; offline cases are CPU bound and gain nothing",
    )
    run.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="P",
        help="live only: spread the --concurrency cases over P processes, each with its own event loop "
        "(for fast local servers, where one loop's CPU is the limit; default 1)",
    )
    add_limit_options(run)
    run.set_defaults(handler=cmd_run)

    score = sub.add_parser(
        "score",
        help="re-score the stored traces of a run with the current scorers (no agent re-run)",
        description="Score the traces of RUN_DIR again with today's scorers, each row with the scorer set that made "
        "it, and write rescored.jsonl beside the untouched results.jsonl. Cases generated in memory come from the "
        "run's scenarios.jsonl; others from --datasets (default: the shipped files).",
    )
    score.add_argument("run_dir")
    score.add_argument("--datasets", nargs="+", metavar="FILE", help="scenario files the run used (default: the shipped ones)")
    score.add_argument("--strict", action="store_true", help="exit 1 if any hard check fails")
    score.set_defaults(handler=cmd_score)

    report = sub.add_parser(
        "report",
        help="(re)write report.md and report.html for a run, experiment or validity directory",
        description="Write report.md, a self-contained report.html and the charts for a run directory "
        "(results.jsonl), an experiment directory (cells.jsonl) or a validity directory (validity.json), from "
        "what is stored there: nothing is run again.",
    )
    report.add_argument("run_dir")
    report.add_argument(
        "--tokens",
        choices=["approx", "provider", "both"],
        help="token curves: deepagents' approximate count, plus the provider-reported usage (both/provider); "
        "default both when a provider reported usage, else approx",
    )
    report.set_defaults(handler=cmd_report)

    tok = sub.add_parser(
        "tokens",
        help="approximate vs exact token counts per call for a run directory (worst ratio per content type)",
        description="Compare deepagents' approximate token count (what its trigger reads) with an exact one for every "
        "call of a run: the provider's reported usage for live runs, else the model's exact encoding offline "
        "(o200k_base or cl100k_base through bpe-openai; o200k_base for the reference agent), else a calibrated "
        "simulated tokenizer (Anthropic, Gemini; always named). Prints the worst ratio per content type, the calls "
        "whose true size passed the window before the trigger fired and, for estimate-eval rows, where compaction "
        "really fired per content type.",
    )
    tok.add_argument("run_dir")
    tok.set_defaults(handler=cmd_tokens)
