"""``harness judge calibrate``: agreement between the free-text judge and the deterministic checks of a run;
``harness judge readers``: the deterministic answer readers against hand-labelled answers."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from harness.cli.options import EXIT_ERROR, EXIT_FAILED, EXIT_OK, finite_float


def cmd_calibrate(args: argparse.Namespace) -> int:
    from harness.errors import HarnessError
    from harness.judge_prompt import check_threshold

    run_dir = Path(args.run_dir)
    check_threshold(args.min_kappa)
    rows_file = next((run_dir / n for n in ("results.jsonl", "cells.jsonl") if (run_dir / n).is_file()), None)
    if rows_file is None:
        raise HarnessError(
            f"{run_dir}: no results.jsonl or cells.jsonl (give the directory `harness run` or `harness experiment run` wrote)"
        )
    check_judge(args)  # a bad spec, a missing key, a stopped server: said before the scorers and langchain are imported
    from harness.runs.rescore import run_scenarios
    from harness.runs.results import read_cells, read_rows
    from harness.scoring.calibration import JUDGE_FILE, calibrate, probe_items, rubric_rows, summary_line, usage_line
    from harness.scoring.judge import ERROR

    choice = judge_from(args)
    rows = read_cells(rows_file) if rows_file.name == "cells.jsonl" else read_rows(rows_file)  # a cell's current row
    items = probe_items(rows, run_scenarios(run_dir, args.datasets))
    if not items:
        raise HarnessError(f"{run_dir}: no answered probe question (recall, continuation, decision or artifact) to calibrate on")
    result = calibrate(items, choice, args.min_kappa)
    (run_dir / JUDGE_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(summary_line(result))
    for r in rubric_rows(result):
        flag = f"; {r['flag']}" if r["flag"] else ""
        print(f"  {r['rubric']}: kappa {r['kappa']} ({r['95 % interval']}), n={r['n']}, agreement {r['agreement']}{flag}")
    print(usage_line(result))
    if result["flagged"]:
        print(f"FLAG: {result['flag_reason']}")
    for j in result["judgements"]:
        if j["judge"] == ERROR or j["judge"] != j["deterministic"]:
            verdict = "ERROR" if j["judge"] == ERROR else f"judge {str(j['judge']).lower()}"
            print(
                f"  {j['id']} ({j['rubric']}): {verdict}, deterministic {str(j['deterministic']).lower()}; answer {j['answer'][:80]!r}"
            )
    print(f"wrote {run_dir / JUDGE_FILE}; `harness report {run_dir}` adds its Judge section to report.md")
    if result["errors"]:
        print(f"{result['errors']} judgement(s) ended in ERROR (a judge provider error after every retry)", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FAILED if args.fail_below and result["flagged"] else EXIT_OK


def cmd_readers(args: argparse.Namespace) -> int:
    from harness.scoring.readers import ANSWERS_DIR, CORPORA, accuracy, load, misreadings, read_all

    paths = [Path(p) for p in args.files] if args.files else [ANSWERS_DIR / name for name in CORPORA]
    loaded = [(path, load(path)) for path in paths]  # every file checked before anything is printed
    disagree = 0
    for path, rows in loaded:
        read = read_all(rows)
        table = accuracy(read)
        print(f"{path.name}: {len(rows)} labelled answers")
        print(table.to_markdown())
        wrong = misreadings(read)
        disagree += sum(r.outcome == "false PASS" for r in wrong)
        for r in wrong if args.show else ():
            print(
                f"  {r.outcome}: {r.row['id']} ({r.row['label']}: {r.row['reason']}) read {r.verdict.answered!r}: {r.verdict.how}"
            )
            print(f"    answer: {r.row['answer'][:200]!r}")
        print()
    return EXIT_FAILED if args.fail_on_false_pass and disagree else EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: judge calibrate, judge readers."""
    judge = sub.add_parser(
        "judge",
        help="the free-text judge (openevals' LLM-as-judge): calibrate it against the deterministic checks",
        description="The free-text judge of issue 17: openevals' create_llm_as_judge with a true/false rubric.",
    )
    judge_sub = judge.add_subparsers(dest="judge_command", required=True)
    cal = judge_sub.add_parser(
        "calibrate",
        help="judge every probe answer of a run under its rubric and report Cohen's kappa against the deterministic verdicts",
        description="For every probe question answered in RUN_DIR, ask the judge under the probe kind's rubric "
        "(recall: current_value, the latest value given as current; continuation: where the work stands, carried on; "
        "decision: the decision and every rejected alternative; artifact: exactly the files created or changed), and "
        "compare with the deterministic verdict on the same answer (the probe checks' reading). Prints n, agreement "
        "and Cohen's kappa with a bootstrap 95 %% interval overall and per rubric, the judge's tokens and cost, and "
        "writes RUN_DIR/judge.json. A kappa below --min-kappa (overall, or a rubric's), or an undefined overall kappa, "
        "is flagged. Exit 0; 1 with --fail-below when flagged; 2 bad input (nothing written); 3 no key for the judge; "
        "4 a judgement ended in ERROR (judge.json is written, the ERROR judgements left out of kappa).",
    )
    cal.add_argument("run_dir", help="a run or experiment directory (results.jsonl or cells.jsonl with probe cases)")
    cal.add_argument("--datasets", nargs="+", metavar="FILE", help="scenario files the run used (default: the shipped ones)")
    add_judge_options(cal, default="reference")
    cal.add_argument(
        "--min-kappa",
        type=finite_float,
        default=0.6,
        help="flag a judge whose kappa is below this (default 0.6: substantial agreement)",
    )
    cal.add_argument("--fail-below", action="store_true", help="exit 1 when the judge is flagged")
    cal.set_defaults(handler=cmd_calibrate)
    readers = judge_sub.add_parser(
        "readers",
        help="the deterministic answer readers against hand-labelled answers: false PASS and false FAIL per probe kind",
        description="Read every labelled answer (datasets/answers/corpus.jsonl and holdout.jsonl by default) with the "
        "readers the probe and needle checks use, and print per probe kind n, false PASS (a wrong answer read as right) "
        "and false FAIL (a right answer read as wrong). Exit 0; 1 with --fail-on-false-pass when any wrong answer is read "
        "as right; 2 bad input (a file or row that is not labelled answers: file, line and field named).",
    )
    readers.add_argument("files", nargs="*", metavar="FILE", help="labelled-answer JSONL files (default: the shipped ones)")
    readers.add_argument("--show", action="store_true", help="print every answer the readers disagree with the label on")
    readers.add_argument("--fail-on-false-pass", action="store_true", help="exit 1 when any wrong answer is read as right")
    readers.set_defaults(handler=cmd_readers)


def add_judge_options(parser: argparse.ArgumentParser, *, default: str | None) -> None:
    """The judge model's options (``--judge-model``, its endpoint, kwargs and rate), one wording for every command that
    asks a judge (`harness judge calibrate`, `harness import --propose-probes`); check them with `check_judge`, then
    build the judge with `judge_from`."""
    parser.add_argument(
        "--judge-model",
        default=default,
        help=("reference (default: the in-process keyword stand-in) or " if default == "reference" else "")
        + "provider:name, e.g. openai:gpt-5.2; openai:reference-judge with --judge-base-url reaches the stand-in through "
        "harness serve",
    )
    parser.add_argument("--judge-base-url", metavar="URL", help="the judge's OpenAI-compatible endpoint")
    parser.add_argument(
        "--judge-model-kwargs",
        action="append",
        metavar="KEY=VALUE",
        help="init_chat_model argument for the judge, repeatable: temperature=0, timeout=60 (default 120 s), "
        "max_retries=3 (default 6)",
    )
    parser.add_argument("--judge-max-rps", type=finite_float, metavar="N", help="at most N judge requests per second")


def check_judge(args: argparse.Namespace) -> None:
    """The checks of a live judge that need no model stack, made before langchain is imported: ``--judge-model-kwargs``,
    the spec's form, provider and key (`harness.agent.endpoints.live_endpoints`), the base URL's form, and whether
    anything answers there (a stopped server is exit 4 now, not after every retry). The in-process stand-in is left to
    `judge_from`, which refuses endpoint options given to it."""
    from harness.agent.endpoints import Endpoint, check_base_url, check_endpoints_answer, live_endpoints, parse_model_kwargs

    parse_model_kwargs(args.judge_model_kwargs, "--judge-model-kwargs")
    endpoint = Endpoint(args.judge_base_url)
    live = live_endpoints(args.judge_model, None, endpoint, endpoint, ("--judge-model", "--judge-model"))
    if live:
        check_base_url(args.judge_base_url, "--judge-base-url")
        check_endpoints_answer(*live)


def judge_from(args: argparse.Namespace) -> Any:
    """The `harness.scoring.judge.JudgeChoice` the options of `add_judge_options` name, built (imports langchain);
    `check_judge` comes first."""
    from harness.scoring.judge import choose_judge

    return choose_judge(
        args.judge_model, base_url=args.judge_base_url, model_kwargs=args.judge_model_kwargs, max_rps=args.judge_max_rps
    )
