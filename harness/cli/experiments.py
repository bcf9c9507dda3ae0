"""``harness experiment``, ``compare``, ``regress``: grids and the nightly gate."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.cli.options import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SKIPPED,
    add_limit_options,
    finite_float,
)
from harness.errors import ConfigError, HarnessError


def _grid_summary_models(spec: Any) -> list[str | None]:
    """Every summarizer the grid's arms use (`arm_summary_model`: an arm's variant's own wins over the spec's); an arm
    whose variant cannot be read is left to the grid, which names it."""
    from harness.agent.endpoints import arm_summary_model
    from harness.compaction.variants import resolve_config

    out: list[str | None] = []
    for variant, _ in spec.arms().values():
        try:
            out.append(arm_summary_model(resolve_config(variant)[0].summary_model, spec.summary_model))
        except ConfigError:
            continue
    return out


def parse_shard(text: str | None) -> tuple[int, int]:
    """``--shard i/n`` as (i, n), (0, 1) when not given; a ConfigError naming it otherwise (read before the early
    checks: a mistake is exit 2 even where no server answers)."""
    if not text:
        return 0, 1
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ConfigError(f"--shard must be i/n with 0 <= i < n, got {text!r}") from None
    if not 0 <= i < n:
        raise ConfigError(f"--shard must be i/n with 0 <= i < n, got {text!r}")
    return i, n


def cmd_experiment(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from harness.runs.spec import load_spec

    if args.experiment_command == "merge":
        from harness.rows import read_experiment_meta
        from harness.runs.merge import merge_experiments

        out = merge_experiments(args.out, args.parts)
        print(f"merged {len(args.parts)} part(s) into {out}")
        missing = read_experiment_meta(out).get("missing_shards")
        if missing:
            print(f"warning: shard(s) {', '.join(missing)} missing: their cells have no result, so the gate will fail")
        return EXIT_OK
    if args.experiment_command == "langsmith":
        from harness.langsmith.export import export_experiment
        from harness.runs.merge import unmerged_shards

        if unmerged := unmerged_shards(args.path):
            raise HarnessError(unmerged)
        export_experiment(args.path, upload=args.upload)
        return EXIT_OK
    shard = parse_shard(args.shard)
    spec = load_spec(args.spec)
    limits = {"case_budget": args.case_budget, "max_rps": args.max_rps, "max_tpm": args.max_tpm}
    for key, value in limits.items():
        if value is not None and not value > 0:
            raise ConfigError(f"--{key.replace('_', '-')} must be positive, got {value:g}")
    spec = replace(spec, **{k: v for k, v in limits.items() if v is not None})  # the command line wins over the spec
    if args.stop_after_errors is not None:
        from harness.runs.outage import stop_after_errors

        spec = replace(spec, stop_after_errors=stop_after_errors(args.stop_after_errors))
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {args.workers}")
    if args.max_cells is not None and args.max_cells < 1:
        raise ConfigError(f"--max-cells must be at least 1, got {args.max_cells}")
    # The live models' specs, keys and servers, and LangSmith when the export will upload, before the agent stack is
    # imported or a model built (harness.runs.early); the grid's pre-flight does not ask the servers again.
    from harness.runs.early import early_checks

    whole = shard[1] == 1  # a shard's experiments are made after the merge
    early = early_checks(
        spec.model,
        _grid_summary_models(spec),
        spec.endpoints(),
        options=(f"{spec.path}: model", f"{spec.path}: summary_model"),
        upload=whole and not args.no_langsmith,
        agent=spec.agent,
    )
    from harness.langsmith.export import export_experiment
    from harness.report.run_report import write_report
    from harness.runs.grid import run_experiment

    result = run_experiment(
        spec,
        out_dir=args.out,
        shard=shard,
        workers=args.workers,
        max_cells=args.max_cells,
        retry_errors=not args.no_retry_errors,
        allow_large=args.allow_large,
        endpoints_answered=early.endpoints_answered,
    )
    print(f"{result.ran} cell(s) run, {result.skipped} skipped as already done, in {result.wall_time_s:.1f}s -> {result.path}")
    if shard[1] == 1:  # shards are reported after the merge
        print(f"report: {write_report(result.path)}")
        if not args.no_langsmith:
            export_experiment(result.path)
    if result.stopped:  # an outage: the cause, the count and what is left (a rerun resumes)
        print(f"exit 4: {result.stopped}", file=sys.stderr)
        return EXIT_ERROR
    from harness.rows import read_experiment_meta
    from harness.runs.results import error_causes, read_cells, read_not_run

    rows = read_cells(result.path / "cells.jsonl")
    causes = error_causes(rows)
    if causes:
        print(
            f"exit 4: {sum(causes.values())} cell(s) ended in ERROR ({'; '.join(f'{n} x {c}' for c, n in causes.most_common())}); "
            "they count in no rate and run again on the next invocation (--no-retry-errors keeps them)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    if not rows and (read_not_run(result.path) or read_experiment_meta(result.path).get("skipped")):
        print(
            "exit 3: no cell ran: each was not run, or its case skipped, with the reason above and in the report", file=sys.stderr
        )
        return EXIT_SKIPPED
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.analysis.regress import compare_sets

    table = compare_sets(args.a, args.b, arm_a=args.arm_a, arm_b=args.arm_b)
    print(table.to_markdown(index=False))
    print("\nB - A: paired differences (rates in points; McNemar or sign-flip p; * p < 0.05).")
    agents = [_agent_of(path) for path in (args.a, args.b)]
    if any(agents):  # a user's own assembly (`--agent`) on either side: said, since it changes every result
        a, b = (agent or "the harness's own" for agent in agents)
        print(f"agent assembly: A {a}; B {b}" + ("" if a == b else " (two different agents: not only the arms differ)"))
    return EXIT_OK


def _agent_of(directory: str) -> str | None:
    """The agent assembly a run or experiment directory's meta.json names (None: the harness's own, or no meta.json)."""
    import json
    from pathlib import Path

    meta = Path(directory) / "meta.json"
    try:
        agent = json.loads(meta.read_text(encoding="utf-8")).get("agent")
    except (OSError, ValueError, AttributeError):
        return None
    return agent if isinstance(agent, str) else None


def cmd_regress(args: argparse.Namespace) -> int:
    return gate(
        args.results, args.baseline, update=args.update, max_error_rate=args.max_error_rate, allow_partial=args.allow_partial
    )


def check_baseline_target(baseline: str, *, update: bool, max_error_rate: float) -> None:
    """What `gate` will need, checked before anything runs (`harness check` runs every eval first): the baseline file
    readable (or, with --update, a path a file can be written to) and the error rate a share. Light: said before the
    early checks and before pandas, the scorers or the agent stack are imported (tests/cli/test_startup.py)."""
    from pathlib import Path

    if not 0 <= max_error_rate <= 1:
        raise ConfigError(f"--max-error-rate must be between 0 and 1, got {max_error_rate}")
    if not update:
        from harness.analysis.baseline_file import read_baseline_file  # the file's check alone: no pandas, no scorers

        read_baseline_file(baseline)
    elif Path(baseline).is_dir():
        raise ConfigError(f"--baseline {baseline}: is a directory; --update writes a baseline JSON file, name one")


def gate(results: str, baseline: str, *, update: bool, max_error_rate: float, allow_partial: bool) -> int:
    """The nightly gate's verdict, printed (`harness regress`, `harness check`): the exit code."""
    from harness.analysis.regress import error_gate, load_rows, regress, write_baseline

    if update:
        name, rows = load_rows(results)
        path = write_baseline(rows, name, baseline)
        print(f"baseline {path} rewritten from {len(rows)} cell(s) of {name}")
        return EXIT_OK
    if not 0 <= max_error_rate <= 1:
        raise ConfigError(f"--max-error-rate must be between 0 and 1, got {max_error_rate}")
    # An outage first: its cells pair with nothing, and what is left is too little to vouch for (exit 4, not a verdict).
    too_many_errors = error_gate(load_rows(results)[1], max_error_rate)
    ok, gates, notes = regress(results, baseline, allow_partial=allow_partial)
    if not gates.empty:
        print(gates.to_markdown(index=False))
    for note in notes:
        print(f"note: {note}")
    flagged = gates[gates["verdict"] == "REGRESSION"]
    if too_many_errors:
        print(too_many_errors)
        return EXIT_ERROR
    if not flagged.empty:
        from harness.rows import eval_said

        print(
            f"REGRESSION on {len(flagged)} gate(s): "
            + ", ".join(f"{r.metric} ({eval_said(str(r.eval))}, {r.arm} at {r.threshold})" for r in flagged.itertuples())
        )
    if ok:
        print("no significant regression" if not gates.empty else "nothing to gate: no cell pairs with the baseline")
    elif flagged.empty:
        print("the gate fails: the grid is incomplete (see the note above)")
    return EXIT_OK if ok else EXIT_FAILED


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: experiment, compare, regress."""
    exp = sub.add_parser(
        "experiment",
        help="run or merge an experiment grid (scenarios x arms x thresholds x trials)",
        description="Experiment grids from YAML specs (datasets/experiments/): `run` a spec (resumable, shardable), "
        "`merge` shard directories, make the `langsmith` experiments of a finished directory.",
    )
    exp_sub = exp.add_subparsers(dest="experiment_command", required=True)
    exp_run = exp_sub.add_parser(
        "run",
        help="run a YAML experiment spec; finished cells are skipped on rerun",
        description="Run the grid of a spec, writing each finished cell at once to "
        "reports/experiments/<name>/cells.jsonl (traces in traces/). Rerun to resume.",
    )
    exp_run.add_argument("spec", help="the experiment YAML, e.g. datasets/experiments/prompt-comparison.yaml")
    exp_run.add_argument("--out", default="reports/experiments", help="parent directory (default reports/experiments)")
    exp_run.add_argument(
        "--shard",
        metavar="I/N",
        help="run only every N-th cell starting at I, 0-based (0/4 .. 3/4), into shards/IofN/ (for CI jobs); then "
        "`harness experiment merge OUT/NAME OUT/NAME/shards/*` (NAME: the spec's name)",
    )
    exp_run.add_argument("--workers", type=int, help="worker processes (default: the spec's concurrency)")
    exp_run.add_argument("--max-cells", type=int, help="stop after this many new cells (the rest run on the next invocation)")
    exp_run.add_argument(
        "--allow-large",
        action="store_true",
        help="run a grid above 10,000 cells (harness.runs.run.MAX_PLANNED_RUNS; refused otherwise, with its size and "
        "estimate: a large grid is "
        "usually a typo such as trials: 1000000)",
    )
    exp_run.add_argument(
        "--no-retry-errors",
        action="store_true",
        help="keep cells that ended in ERROR (a provider error) instead of running them again on resume",
    )
    add_limit_options(exp_run)
    exp_run.add_argument(
        "--no-langsmith",
        action="store_true",
        help="skip the LangSmith experiments (by default: local through the SDK, uploaded when LANGSMITH_API_KEY is set)",
    )
    exp_ls = exp_sub.add_parser(
        "langsmith",
        help="make one LangSmith experiment per arm x threshold from an experiment directory",
        description="Replay the stored cells of an experiment directory through langsmith.evaluate: one experiment "
        "per arm x threshold over the same examples, every score as feedback. Uploads when LANGSMITH_API_KEY is set "
        "(bounded: see docs/experiments.md), runs locally otherwise; writes langsmith.json.",
    )
    exp_ls.add_argument("path", help="experiment directory")
    exp_ls.add_argument(
        "--upload", action=argparse.BooleanOptionalAction, default=None, help="upload (default: when LANGSMITH_API_KEY is set)"
    )
    exp_merge = exp_sub.add_parser(
        "merge",
        help="join shard directories into one experiment directory",
        description="Join the shard directories of one spec (`experiment run --shard i/n`) into OUT, copying cells "
        "and traces once each; names any shard of the split that was not given.",
    )
    exp_merge.add_argument("out", help="the merged experiment directory")
    exp_merge.add_argument("parts", nargs="+", help="shard (or experiment) directories")
    exp.set_defaults(handler=cmd_experiment)

    cmp_ = sub.add_parser(
        "compare",
        help="print two runs or experiments side by side (paired on case and trial)",
        description="Print every metric of A and B (mean, 95 % interval, n over valid cells) and B - A paired on "
        "case, threshold and trial, with an exact McNemar or sign-flip p. A directory holding several arms needs "
        "--arm-a / --arm-b.",
    )
    cmp_.add_argument("a", help="run or experiment directory (the reference)")
    cmp_.add_argument("b", help="run or experiment directory")
    cmp_.add_argument("--arm-a", "--variant-a", dest="arm_a", help="the arm (configuration) to take from A when it holds several")
    cmp_.add_argument("--arm-b", "--variant-b", dest="arm_b", help="the arm (configuration) to take from B when it holds several")
    cmp_.set_defaults(handler=cmd_compare)

    reg = sub.add_parser(
        "regress",
        help="gate: exit 1 on a significant drop against a committed baseline, or on a grid missing baseline cells",
        description="Compare a run or experiment with a baseline file, cell by cell. Exits 1 when a "
        "gated rate drops significantly (exact McNemar, Holm-adjusted across all gates): per eval, arm and "
        "threshold, the eval's pass rate, the checks its registry entry lists as gated and the share of cells "
        "valid (a case that stopped testing what it claims is a drop); and when a baseline cell has no result "
        "(a lost shard, a shrunken spec) unless --allow-partial. Exits 4 when too many cells ended in ERROR.",
    )
    reg.add_argument("results", help="run or experiment directory to check")
    reg.add_argument("--baseline", required=True, help="baseline JSON file, e.g. datasets/baselines/nightly.json")
    reg.add_argument("--update", action="store_true", help="rewrite the baseline from these results instead of checking")
    reg.add_argument(
        "--max-error-rate",
        type=finite_float,
        default=0.05,
        metavar="SHARE",
        help="exit 4 when more than this share of cells ended in ERROR (provider errors; default 0.05). "
        "ERROR cells are never read as regressions",
    )
    reg.add_argument(
        "--allow-partial",
        action="store_true",
        help="gate on the cells present even when some baseline cells have no result (default: that fails the gate)",
    )
    reg.set_defaults(handler=cmd_regress)
