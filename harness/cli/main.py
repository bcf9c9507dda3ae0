"""Command line: ``harness run | score | report | generate | variants | bench``.

Exit codes: 0 done; 1 a check failed (``score --strict``, ``regress``) or audit
warnings; 2 bad input (dataset,
config, variant, model spec), with a message naming what and where; 3 skipped (a live
model whose provider key is not set); 4 a case ended in ERROR (a provider error after
every retry: counted in no rate, re-run on resume).
"""

from __future__ import annotations

import argparse
import sys

from harness.cli import checks, data, experiments, runs, serving
from harness.cli.options import (
    EXIT_BAD_INPUT,
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SKIPPED,
    _add_config_options,
    _add_selection_options,
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

    run = sub.add_parser(
        "run",
        help="run scenarios offline (default) or live, write reports/runs/<run-id>/",
        description="Run the shipped scenarios through the real deepagents agent with compaction forced, "
        "score every case, and write results.jsonl, traces/, token_curves.png and report.md.",
    )
    _add_config_options(run)
    _add_selection_options(run)
    run.add_argument("--seed", type=int, default=0, help="seed of the reference summarizer's loss (trial t uses seed+t)")
    run.add_argument("--trials", type=int, default=1, help="repeat every case this many times with successive seeds")
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
    run.add_argument(
        "--case-budget",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="a live case's total time, retries and waits included; past it the case ends in ERROR (default 900)",
    )

    score = sub.add_parser("score", help="re-score the stored traces of a run with the current scorers (no agent re-run)")
    score.add_argument("run_dir")
    score.add_argument("--datasets", nargs="+", metavar="FILE", help="scenario files the run used (default datasets/*.jsonl)")
    score.add_argument("--strict", action="store_true", help="exit 1 if any hard check fails")

    report = sub.add_parser("report", help="(re)write report.md and report.html for a run, experiment or validity directory")
    report.add_argument("run_dir")
    report.add_argument(
        "--tokens",
        choices=["approx", "provider", "both"],
        help="token curves: deepagents' approximate count, plus the provider-reported usage (both/provider); "
        "default both when a provider reported usage, else approx",
    )

    cmp_ = sub.add_parser("compare", help="print two runs or experiments side by side (paired on case and trial)")
    cmp_.add_argument("a", help="run or experiment directory (the reference)")
    cmp_.add_argument("b", help="run or experiment directory")
    cmp_.add_argument("--arm-a", "--variant-a", dest="arm_a", help="the arm (configuration) to take from A when it holds several")
    cmp_.add_argument("--arm-b", "--variant-b", dest="arm_b", help="the arm (configuration) to take from B when it holds several")

    reg = sub.add_parser(
        "regress",
        help="gate: exit 1 on a significant drop against a committed baseline",
        description="Compare a run or experiment with a baseline file, cell by cell. Exits 1 only when a "
        "gated rate (passed, needle_recovered, needle_via_history, goal_preserved) drops "
        "significantly (exact McNemar, Holm-adjusted across all gates).",
    )
    reg.add_argument("results", help="run or experiment directory to check")
    reg.add_argument("--baseline", required=True, help="baseline JSON file, e.g. datasets/baselines/nightly.json")
    reg.add_argument("--update", action="store_true", help="rewrite the baseline from these results instead of checking")
    reg.add_argument(
        "--max-error-rate",
        type=float,
        default=0.05,
        metavar="SHARE",
        help="exit 4 when more than this share of cells ended in ERROR (provider errors; default 0.05). "
        "ERROR cells are never read as regressions",
    )

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

    val = sub.add_parser(
        "validity", help="run every eval under every seeded fault and healthy over many seeds; write the detection matrix"
    )
    val.add_argument("--seeds", type=int, default=10, help="healthy runs per case (default 10)")
    val.add_argument("--out", default=None, help="output directory (default reports/runs/<time>-validity)")

    tok = sub.add_parser(
        "tokens", help="approximate vs exact token counts per call for a run directory (worst ratio per content type)"
    )
    tok.add_argument("run_dir")

    gen = sub.add_parser(
        "generate",
        help="regenerate the shipped scenario files, or write a needle-in-a-haystack grid",
        description="`harness generate` rewrites the shipped scenario files in --out (a directory). "
        "`harness generate needle --lengths 4000,8000 --depths 0,0.5,1 --out FILE.jsonl` writes a "
        "Kamradt-style grid of haystack length x needle depth, after checking which cells can be "
        "valid under --check PRESET.",
    )
    gen.add_argument(
        "what",
        nargs="?",
        choices=["shipped", "needle"],
        default="shipped",
        help="shipped (default): the files in datasets/; needle: a NIAH grid file",
    )
    gen.add_argument("--out", default=None, help="shipped: the directory (default datasets); needle: the .jsonl file to write")
    gen.add_argument("--seed", type=int, default=7, help="generator seed (default 7, the shipped files')")
    niah = gen.add_argument_group("needle grid (harness generate needle)")
    niah.add_argument("--lengths", help="haystack lengths in tokens, comma-separated (e.g. 4000,8000,16000,32000)")
    niah.add_argument("--length-min", type=int, help="smallest haystack (tokens), with --length-max and --length-steps")
    niah.add_argument("--length-max", type=int, help="largest haystack (tokens)")
    niah.add_argument("--length-steps", type=int, help="number of lengths from min to max, evenly spaced")
    niah.add_argument("--depths", help="needle depths in [0, 1], comma-separated (e.g. 0,0.25,0.5,0.75,1)")
    niah.add_argument("--depth-steps", type=int, help="number of depths from 0 to 1 (instead of --depths)")
    niah.add_argument(
        "--depth-spacing",
        choices=["linear", "sigmoid"],
        default="linear",
        help="spacing of --depth-steps: linear, or sigmoid (denser near 0 and 1, as Kamradt's tester)",
    )
    niah.add_argument("--needles", type=int, default=1, help="needles per haystack, from the depth to the end (default 1)")
    niah.add_argument("--distractors", type=int, default=1, help="look-alike facts per haystack (default 1)")
    niah.add_argument(
        "--check",
        default="forced-20",
        metavar="PRESET",
        help="run each cell once offline under this preset and say which cannot be valid (default forced-20)",
    )
    niah.add_argument("--no-check", action="store_true", help="write without the validity check")

    sub.add_parser("variants", help="list the threshold presets and the summary-prompt variants")

    exp = sub.add_parser("experiment", help="run or merge an experiment grid (scenarios x arms x thresholds x trials)")
    exp_sub = exp.add_subparsers(dest="experiment_command", required=True)
    exp_run = exp_sub.add_parser(
        "run",
        help="run a YAML experiment spec; finished cells are skipped on rerun",
        description="Run the grid of a spec, writing each finished cell at once to "
        "reports/experiments/<name>/cells.jsonl (traces in traces/). Rerun to resume.",
    )
    exp_run.add_argument("spec", help="the experiment YAML, e.g. datasets/experiments/prompt-comparison.yaml")
    exp_run.add_argument("--out", default="reports/experiments", help="parent directory (default reports/experiments)")
    exp_run.add_argument("--shard", metavar="I/N", help="run only every N-th cell starting at I (for CI jobs); merge afterwards")
    exp_run.add_argument("--workers", type=int, help="worker processes (default: the spec's concurrency)")
    exp_run.add_argument("--max-cells", type=int, help="stop after this many new cells (the rest run on the next invocation)")
    exp_run.add_argument(
        "--no-retry-errors",
        action="store_true",
        help="keep cells that ended in ERROR (a provider error) instead of running them again on resume",
    )
    exp_run.add_argument(
        "--no-langsmith",
        action="store_true",
        help="skip the LangSmith experiments (by default: local through the SDK, uploaded when LANGSMITH_API_KEY is set)",
    )
    exp_ls = exp_sub.add_parser(
        "langsmith", help="make one LangSmith experiment per arm x threshold from an experiment directory"
    )
    exp_ls.add_argument("path", help="experiment directory")
    exp_ls.add_argument(
        "--upload", action=argparse.BooleanOptionalAction, default=None, help="upload (default: when LANGSMITH_API_KEY is set)"
    )
    exp_merge = exp_sub.add_parser("merge", help="join shard directories into one experiment directory")
    exp_merge.add_argument("out", help="the merged experiment directory")
    exp_merge.add_argument("parts", nargs="+", help="shard (or experiment) directories")

    srv = sub.add_parser(
        "serve",
        help="serve the reference models as an OpenAI-compatible endpoint, with injected faults",
        description="Serve /v1/chat/completions and /v1/models on loopback, answering agent requests (with tools) "
        "with the reference agent and summary requests with the reference summarizer, so a live "
        "setup (--model openai:reference-agent --base-url http://127.0.0.1:8765/v1) can be "
        "rehearsed with no key. Faults: --fault MODE[:COUNT][@agent|@summary], or POST /admin/faults "
        "at run time; GET /admin/stats; POST /admin/reset. Results are labelled simulated.",
    )
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback only)")
    srv.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    srv.add_argument("--latency", type=float, default=0.0, metavar="SECONDS", help="delay before every answer (default 0)")
    srv.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="MODE[:COUNT][@SCOPE]",
        help="inject a fault: MODE one of 429, 500, 503, stall, context, malformed, empty, auth; COUNT requests "
        "(default 1, * for all); SCOPE agent or summary (default both). Repeatable",
    )
    srv.add_argument("--seed", type=int, default=0, help="reference summarizer seed when a request sends none (default 0)")
    srv.add_argument("--max-model-len", type=int, help="context length reported by /v1/models (as vLLM does)")
    srv.add_argument("--no-usage", action="store_true", help="answer without usage (as some servers do)")
    srv.add_argument("--max-requests", type=int, help="stop after this many chat requests")
    srv.add_argument("--max-seconds", type=float, default=3600.0, help="stop after this many seconds (default 3600)")

    bench = sub.add_parser("bench", help="measure suite wall time and recorder overhead; print a README table")
    bench.add_argument("--repeats", type=int, default=10, help="paired runs per case for the overhead ratio (default 10)")
    bench.add_argument("--skip-pytest", action="store_true", help="do not time `pytest evals/ -m needle`")
    return parser


def main(argv: list[str] | None = None) -> int:
    from harness.redact import redact, redact_process_output

    redact_process_output()  # no key reaches the terminal, whoever prints it
    args = build_parser().parse_args(argv)
    from harness.errors import HarnessError, LiveModelUnavailable

    try:
        return _COMMANDS[args.command](args)
    except LiveModelUnavailable as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return EXIT_SKIPPED
    except HarnessError as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT


_COMMANDS = {
    "tokens": runs.cmd_tokens,
    "validity": checks.cmd_validity,
    "audit": checks.cmd_audit,
    "compare": experiments.cmd_compare,
    "regress": experiments.cmd_regress,
    "experiment": experiments.cmd_experiment,
    "run": runs.cmd_run,
    "score": runs.cmd_score,
    "report": runs.cmd_report,
    "generate": data.cmd_generate,
    "variants": data.cmd_variants,
    "bench": serving.cmd_bench,
    "serve": serving.cmd_serve,
}
