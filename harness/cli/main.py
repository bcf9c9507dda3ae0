"""Command line: ``harness run | score | report | generate | variants | bench``.

Exit codes: 0 done; 1 a check failed (``score --strict``, ``regress``) or audit
warnings; 2 bad input (dataset,
config, variant, model spec), with a message naming what and where; 3 skipped (a live
model whose provider key is not set); 4 a case ended in ERROR (a provider error after
every retry: counted in no rate, re-run on resume).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_SKIPPED, EXIT_ERROR = 0, 1, 2, 3, 4


def _add_config_options(p: argparse.ArgumentParser) -> None:
    from harness.compaction.config import DEFAULT_PRESET, PRESETS

    g = p.add_argument_group("compaction config")
    g.add_argument(
        "--variant",
        default=DEFAULT_PRESET,
        help=f"a threshold preset ({', '.join(PRESETS)}; default {DEFAULT_PRESET}) or a variant file in datasets/variants/ "
        "(its prompt and settings on top of the default preset); see `harness variants`",
    )
    g.add_argument(
        "--trigger",
        action="append",
        metavar="SIZE",
        help="summarization trigger, overrides the variant's: 20%%, fraction:0.2, tokens:12000 or messages:40; repeat to OR-combine",
    )
    g.add_argument("--keep", metavar="SIZE", help="what to keep after a summary, same syntax as --trigger")
    g.add_argument("--window", metavar="TOKENS", help="declared context window (max input tokens) written into the model profile")
    g.add_argument(
        "--strategy",
        metavar="NAME",
        default=None,
        help="compaction strategy: deepagents-summarization (default), langchain-summarization, observation-masking, "
        "sliding-window, hybrid, none, or module:function (custom)",
    )
    m = p.add_argument_group("models")
    m.add_argument(
        "--model", default=None, help="agent model, provider:name (e.g. openai:gpt-5.2); default: the offline reference agent"
    )
    m.add_argument(
        "--summary-model",
        default=None,
        help="summarizer model, provider:name or 'reference'; default: reference offline, else the agent model",
    )
    _add_endpoint_options(m)


def _add_endpoint_options(m: argparse._ArgumentGroup) -> None:
    m.add_argument(
        "--base-url",
        metavar="URL",
        help="the agent model's endpoint, any OpenAI-compatible server (vLLM, Ollama, LM Studio, `harness serve`); "
        "no key needed when the server has no auth",
    )
    m.add_argument("--summary-base-url", metavar="URL", help="the summarizer's endpoint (default: --base-url)")
    m.add_argument(
        "--model-kwargs",
        action="append",
        metavar="KEY=VALUE",
        help="init_chat_model argument for the agent model, repeatable: temperature=0, max_tokens=2048, seed=1, "
        "timeout=60 (default 120 s), max_retries=3 (default 6)",
    )
    m.add_argument(
        "--summary-model-kwargs",
        action="append",
        metavar="KEY=VALUE",
        help="the same for the summarizer (default: the agent's when both use the same endpoint)",
    )
    m.add_argument(
        "--max-tpm",
        type=float,
        metavar="N",
        help="at most N input tokens per minute across every case of the run, agent and summarizer together "
        "(approximate counts, checked before each request)",
    )
    m.add_argument(
        "--max-rps",
        type=float,
        metavar="N",
        help="at most N model requests per second across every case of the run, agent and summarizer together "
        "(LangChain's InMemoryRateLimiter, shared)",
    )


def endpoints_from_args(args: argparse.Namespace) -> tuple:
    """(agent Endpoint, summary Endpoint) from --base-url / --summary-base-url / --model-kwargs / --summary-model-kwargs."""
    from harness.agent.models import Endpoint, check_base_url, parse_model_kwargs, with_run_limits

    check_base_url(args.base_url, "--base-url")
    check_base_url(args.summary_base_url, "--summary-base-url")
    agent_kwargs = parse_model_kwargs(args.model_kwargs, "--model-kwargs")
    agent = Endpoint(args.base_url, agent_kwargs)
    summary = agent
    if args.summary_base_url is not None or args.summary_model_kwargs is not None:
        summary_kwargs = (
            parse_model_kwargs(args.summary_model_kwargs, "--summary-model-kwargs") if args.summary_model_kwargs else agent_kwargs
        )
        summary = Endpoint(args.summary_base_url or args.base_url, summary_kwargs)
    return with_run_limits((agent, summary), max_rps=getattr(args, "max_rps", None), max_tpm=getattr(args, "max_tpm", None))


def _add_selection_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("scenarios")
    s.add_argument("--datasets", nargs="+", metavar="FILE", help="scenario JSONL files (default: datasets/*.jsonl)")
    s.add_argument(
        "--kind",
        choices=["needle", "goal", "chain", "truncation", "all"],
        default="all",
        help="which evals to run (default all); truncation cases are in datasets/mechanisms/truncation.jsonl "
        "and run under --variant truncation",
    )
    s.add_argument("--cases", nargs="+", metavar="GLOB", help="only case ids matching these globs, e.g. 'needle-h16k-*'")
    s.add_argument("--limit", type=int, help="at most this many cases")


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
    cmp_.add_argument("--variant-a", help="the variant to take from A when it holds several")
    cmp_.add_argument("--variant-b", help="the variant to take from B when it holds several")

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

    exp = sub.add_parser("experiment", help="run or merge an experiment grid (scenarios x variants x thresholds x trials)")
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
        "langsmith", help="make one LangSmith experiment per variant x threshold from an experiment directory"
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


def _cmd_run(args: argparse.Namespace) -> int:
    from harness.compaction.variants import make_config
    from harness.errors import ConfigError
    from harness.report.run_report import write_report
    from harness.runs.run import run_suite
    from harness.scenarios.schema import load_scenarios, select

    if args.trials < 1:
        raise ConfigError(f"--trials must be at least 1, got {args.trials}")
    config = make_config(args.variant, trigger=args.trigger, keep=args.keep, window=args.window, strategy=args.strategy)
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
    from harness.agent.models import summary_model_for

    summary_model = summary_model_for(config.summary_model, args.summary_model, variant=config.name)
    agent_endpoint, summary_endpoint = endpoints_from_args(args)
    run = run_suite(
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
        case_budget_s=args.case_budget,
        processes=args.processes,
    )
    report = write_report(run.path, args.tokens)
    from harness.runs.results import is_error, outcome_line

    skipped = f"; {len(run.skipped)} case(s) SKIPPED ({run.skipped[0]['reason']})" if run.skipped else ""
    print(f"{outcome_line(run.rows)}{skipped}. Report: {report}")
    if run.skipped and not run.rows:
        return EXIT_SKIPPED
    if any(is_error(r) for r in run.rows):
        print(
            "exit 4: some cases ended in a provider error (ERROR); they count in no rate. See the report's Errors section.",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def _cmd_score(args: argparse.Namespace) -> int:
    from harness.runs.results import outcome_line, row_outcome
    from harness.scoring.rescore import rescore
    from harness.scoring.scorers import PASS

    rows = rescore(Path(args.run_dir), args.datasets)
    failed = [r for r in rows if row_outcome(r)[0] != PASS]
    print(f"re-scored {len(rows)} trace(s) into {Path(args.run_dir) / 'rescored.jsonl'}: {outcome_line(rows)}")
    return EXIT_FAILED if args.strict and failed else EXIT_OK


def _cmd_report(args: argparse.Namespace) -> int:
    from harness.errors import HarnessError
    from harness.report.run_report import write_report

    if not any((Path(args.run_dir) / name).exists() for name in ("meta.json", "validity.json")):
        raise HarnessError(f"{args.run_dir}: not a run, experiment or validity directory (no meta.json or validity.json)")
    print(write_report(args.run_dir, args.tokens))
    return EXIT_OK


def _cmd_generate(args: argparse.Namespace) -> int:
    from harness.scenarios.generate import generate

    if args.what == "needle":
        return _generate_needle(args)
    out = args.out or "datasets"
    for name, n in generate(out, seed=args.seed).items():
        print(f"wrote {Path(out) / name}: {n} scenarios")
    return EXIT_OK


def _number_list(text: str, option: str, cast: type) -> list:
    from harness.errors import ConfigError

    try:
        values = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise ConfigError(f"{option}: no values in {text!r}")
    return values


def _needle_grid_options(args: argparse.Namespace) -> tuple[list[int], list[float]]:
    from harness.errors import ConfigError
    from harness.scenarios.generate import niah_depths, niah_lengths

    if not args.out or not args.out.endswith(".jsonl"):
        raise ConfigError("--out: harness generate needle writes one scenario file; give a path ending in .jsonl")
    ranged = (args.length_min, args.length_max, args.length_steps)
    if args.lengths and any(v is not None for v in ranged):
        raise ConfigError("--lengths and --length-min/--length-max/--length-steps are alternatives: give one")
    if args.lengths:
        lengths = _number_list(args.lengths, "--lengths", int)
    elif all(v is not None for v in ranged):
        try:
            lengths = niah_lengths(*ranged)
        except ValueError as exc:
            raise ConfigError(f"--length-min/--length-max/--length-steps: {exc}") from None
    else:
        raise ConfigError("give --lengths, or all of --length-min, --length-max and --length-steps")
    for n in lengths:
        if not 1_000 <= n <= 1_000_000:
            raise ConfigError(f"--lengths: {n} is out of range (1000 to 1000000 tokens)")
    if args.depths and args.depth_steps is not None:
        raise ConfigError("--depths and --depth-steps are alternatives: give one")
    if args.depths:
        depths = _number_list(args.depths, "--depths", float)
    elif args.depth_steps is not None:
        if args.depth_steps < 1:
            raise ConfigError(f"--depth-steps must be at least 1, got {args.depth_steps}")
        depths = niah_depths(args.depth_steps, args.depth_spacing)
    else:
        raise ConfigError("give --depths or --depth-steps")
    for d in depths:
        if not 0 <= d <= 1:
            raise ConfigError(f"--depths: {d} is outside [0, 1]")
    if not 1 <= args.needles <= 20:
        raise ConfigError(f"--needles must be 1 to 20, got {args.needles}")
    if not 0 <= args.distractors <= 20:
        raise ConfigError(f"--distractors must be 0 to 20, got {args.distractors}")
    return list(dict.fromkeys(lengths)), list(dict.fromkeys(depths))


def _generate_needle(args: argparse.Namespace) -> int:
    import json

    from harness.compaction.variants import make_config
    from harness.scenarios.generate import niah_grid
    from harness.scenarios.niah import check_cells

    lengths, depths = _needle_grid_options(args)
    if not args.no_check:
        make_config(args.check)  # an unknown preset fails here, before any work
    rows = niah_grid(lengths, depths, args.seed, needles=args.needles, distractors=args.distractors)
    print(f"needle grid: {len(lengths)} length(s) x {len(depths)} depth(s) = {len(rows)} cells")
    if not args.no_check:
        checks = check_cells(rows, args.check, progress=lambda line: None)
        bad = [c for c in checks if not c.valid]
        print(f"checked under {args.check} (one offline run per cell): {len(rows) - len(bad)} valid, {len(bad)} cannot be valid")
        for c in bad:
            print(
                f"  INVALID {c.case_id} (length {c.length}, depth {c.depth:g}, {c.summaries} summaries before the question): "
                + "; ".join(r.split(":")[0] for r in c.reasons)
            )
        if bad:
            print(
                "  these cells will be reported INVALID under that preset (counted in no rate): use longer haystacks, "
                "shallower depths or a lower trigger to make them valid"
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".jsonl.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(out)
    print(f"wrote {out}: {len(rows)} scenarios (run them: harness run --datasets {out} --variant {args.check})")
    return EXIT_OK


def _cmd_variants(args: argparse.Namespace) -> int:
    from harness.compaction.config import PRESETS
    from harness.compaction.variants import load_variant, resolve_config, variant_names
    from harness.errors import HarnessError

    print("threshold presets:")
    for preset in PRESETS.values():
        print(f"  {preset.label()}")
    print("summary-prompt variants (datasets/variants/*.md, applied on the default preset):")
    broken = 0
    for name in variant_names():
        try:
            variant = load_variant(name)
            resolve_config(name)  # front matter and prompt are valid on the default preset
        except HarnessError as exc:
            broken += 1
            print(f"  {name:<20} BROKEN: {exc}")
            continue
        print(f"  {name:<20} {variant.description}")
    if broken:
        print(f"{broken} variant file(s) cannot be used until fixed", file=sys.stderr)
    return EXIT_BAD_INPUT if broken else EXIT_OK


def _cmd_experiment(args: argparse.Namespace) -> int:
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


def _cmd_compare(args: argparse.Namespace) -> int:
    from harness.analysis.regress import compare_sets

    table = compare_sets(args.a, args.b, variant_a=args.variant_a, variant_b=args.variant_b)
    print(table.to_markdown(index=False))
    print("\nB - A: paired differences (rates in points; McNemar or sign-flip p; * p < 0.05).")
    return EXIT_OK


def _cmd_regress(args: argparse.Namespace) -> int:
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
        + ", ".join(f"{r.metric} ({r.variant} at {r.threshold})" for r in flagged.itertuples())
    )
    from harness.analysis.regress import error_gate

    too_many_errors = error_gate(load_rows(args.results)[1], args.max_error_rate)
    if too_many_errors:
        print(too_many_errors)
    return EXIT_FAILED if not ok else EXIT_ERROR if too_many_errors else EXIT_OK


def _cmd_audit(args: argparse.Namespace) -> int:
    from harness.agent.models import check_base_url
    from harness.compaction.audit import audit

    check_base_url(args.base_url, "--base-url")
    report = audit(args.model, trigger=args.trigger, keep=args.keep, window=args.window, base_url=args.base_url)
    print(report.render())
    return report.exit_code


def _cmd_validity(args: argparse.Namespace) -> int:
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


def _cmd_tokens(args: argparse.Namespace) -> int:
    from harness.analysis.token_skew import skew, write_skew
    from harness.errors import HarnessError
    from harness.runs.results import read_rows
    from harness.trace.schema import load_trace

    path = Path(args.run_dir)
    if not (path / "results.jsonl").exists():
        raise HarnessError(f"{path}: not a run directory (no results.jsonl)")
    result = skew(load_trace(path / r["trace"]) for r in read_rows(path / "results.jsonl"))
    print(f"exact counts from: {result['source']}")
    print(result["types"].to_markdown(index=False))
    print(f"{len(result['late'])} call(s) passed the window before the trigger fired; report: {write_skew(result, path)}")
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace) -> int:
    from harness.reference.serve import Fault, ReferenceServer

    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: --host {args.host} is not loopback; the endpoint has no auth", file=sys.stderr)
    for name in ("max_requests", "max_seconds"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            from harness.errors import ConfigError

            raise ConfigError(f"--{name.replace('_', '-')} must be positive, got {value}")
    server = ReferenceServer(
        args.host,
        args.port,
        latency=args.latency,
        seed=args.seed,
        faults=[Fault.parse(f) for f in args.fault],
        max_model_len=args.max_model_len,
        usage=not args.no_usage,
        max_requests=args.max_requests,
        max_seconds=args.max_seconds,
    )
    print(
        f"harness serve: {server.url} (simulated reference models; faults: {', '.join(args.fault) or 'none'}). "
        f"Try: harness run --model openai:reference-agent --base-url {server.url}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stop_reason = "interrupted"
    print(
        f"harness serve stopped: {server.stop_reason or 'shut down'}; {json.dumps(server.state.stats()['requests'])}", flush=True
    )
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    from harness.runs.bench import run_bench

    run_bench(repeats=args.repeats, time_pytest_suites=not args.skip_pytest)
    return EXIT_OK


_COMMANDS = {
    "tokens": _cmd_tokens,
    "validity": _cmd_validity,
    "audit": _cmd_audit,
    "compare": _cmd_compare,
    "regress": _cmd_regress,
    "experiment": _cmd_experiment,
    "run": _cmd_run,
    "score": _cmd_score,
    "report": _cmd_report,
    "generate": _cmd_generate,
    "variants": _cmd_variants,
    "bench": _cmd_bench,
    "serve": _cmd_serve,
}
