"""``harness experiment``, ``compare``, ``regress``: grids and the nightly gate."""

from __future__ import annotations

import argparse
import sys

from harness.cli.options import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
)


def cmd_experiment(args: argparse.Namespace) -> int:
    from harness.errors import ConfigError
    from harness.report.run_report import write_report
    from harness.runs.grid import merge_experiments, parse_shard, run_experiment
    from harness.runs.langsmith_export import export_experiment
    from harness.runs.spec import load_spec

    if args.experiment_command == "merge":
        out = merge_experiments(args.out, args.parts)
        print(f"merged {len(args.parts)} part(s) into {out}")
        return EXIT_OK
    if args.experiment_command == "langsmith":
        export_experiment(args.path, upload=args.upload)
        return EXIT_OK
    spec = load_spec(args.spec)
    shard = parse_shard(args.shard)
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {args.workers}")
    if args.max_cells is not None and args.max_cells < 1:
        raise ConfigError(f"--max-cells must be at least 1, got {args.max_cells}")
    result = run_experiment(
        spec, out_dir=args.out, shard=shard, workers=args.workers, max_cells=args.max_cells, retry_errors=not args.no_retry_errors
    )
    print(f"{result.ran} cell(s) run, {result.skipped} skipped as already done, in {result.wall_time_s:.1f}s -> {result.path}")
    if shard[1] == 1:  # shards are reported after the merge
        print(f"report: {write_report(result.path)}")
        if not args.no_langsmith:
            export_experiment(result.path)
    from harness.runs.results import error_causes, read_cells

    causes = error_causes(read_cells(result.path / "cells.jsonl"))
    if causes:
        print(
            f"exit 4: {sum(causes.values())} cell(s) ended in ERROR ({'; '.join(f'{n} x {c}' for c, n in causes.most_common())}); "
            "they count in no rate and run again on the next invocation (--no-retry-errors keeps them)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.analysis.regress import compare_sets

    table = compare_sets(args.a, args.b, arm_a=args.arm_a, arm_b=args.arm_b)
    print(table.to_markdown(index=False))
    print("\nB - A: paired differences (rates in points; McNemar or sign-flip p; * p < 0.05).")
    return EXIT_OK


def cmd_regress(args: argparse.Namespace) -> int:
    from harness.analysis.regress import load_rows, regress, write_baseline

    if args.update:
        name, rows = load_rows(args.results)
        path = write_baseline(rows, name, args.baseline)
        print(f"baseline {path} rewritten from {len(rows)} cell(s) of {name}")
        return EXIT_OK
    if not 0 <= args.max_error_rate <= 1:
        from harness.errors import ConfigError

        raise ConfigError(f"--max-error-rate must be between 0 and 1, got {args.max_error_rate}")
    ok, gates, notes = regress(args.results, args.baseline)
    print(gates.to_markdown(index=False))
    for note in notes:
        print(f"note: {note}")
    flagged = gates[gates["verdict"] == "REGRESSION"]
    print(
        "no significant regression"
        if ok
        else f"REGRESSION on {len(flagged)} gate(s): "
        + ", ".join(f"{r.metric} ({r.arm} at {r.threshold})" for r in flagged.itertuples())
    )
    from harness.analysis.regress import error_gate

    too_many_errors = error_gate(load_rows(args.results)[1], args.max_error_rate)
    if too_many_errors:
        print(too_many_errors)
    return EXIT_FAILED if not ok else EXIT_ERROR if too_many_errors else EXIT_OK
