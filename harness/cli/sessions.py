"""`harness import`, `export`: recorded sessions in (a session case from a file another tool wrote) and a run's cases out.

docs/sessions.md describes the formats, the cut, the probes file and what an export holds.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.cli.options import EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    import sys

    from harness.redact import redact
    from harness.sessions.importer import import_session

    options = {k: getattr(args, k) for k in ("thread", "project", "filter") if getattr(args, k) is not None}
    judge = _proposing_judge(args)
    done = import_session(
        args.format,
        args.source,
        args.out,
        case_id=args.id,
        cut=args.cut,
        probes=args.probes,
        options=options,
        steps=args.steps,
        propose=judge.model if judge is not None else None,
    )
    session, size, cut = done.session, done.size, done.cut
    at = ", ".join(str(c.at) for c in session.compactions) or "none"
    print(
        f"read {session.source} ({session.format}): {size.messages} messages, {size.tokens:,} tokens (approximate), "
        f"compactions recorded at: {at}"
    )
    for warning in session.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    if size.open_calls:
        print(f"  {len(size.open_calls)} tool call(s) never answered in the session (it ends on a call)")
    for key, value in sorted(session.meta.items()):
        if key in ("dropped_parts", "thinking_blocks", "skipped_steps", "reasoning_steps", "failed_compactions") and value:
            print(f"  kept out of the text: {key.replace('_', ' ')}: {value}")
        elif key == "empty_system_dropped" and value:
            print("  left out: the empty system message the run recorded (the agent had no system prompt)")
    before = sum(size.per_message[: cut.at])
    print(f"{cut.note}; {before:,} tokens before the cut (the replay's window is chosen at run time)")
    origin = f"from {args.probes}" if args.probes else "generated from the messages before the cut"
    print(f"probes: {len(done.probes) - done.proposed} {origin}")
    if judge is not None:
        print(f"probes proposed by {judge.name}: {done.proposed} (origin: model), {len(done.left_out)} left out")
        for why in done.left_out:
            print(f"  left out: {why}")
    if done.offline:  # valid, written as given, run live; an offline run skips it with this reason
        print(f"warning: offline runs skip case {done.case_id!r}; it {redact(done.offline)}", file=sys.stderr)
    steps = f"a live agent continues for at most {args.steps} model call(s), then" if args.steps else "the agent is asked"
    print(f"after the cut {steps} the probes (--steps)")
    print(f"wrote {done.conversation_file} ({cut.at} messages) and case {done.case_id!r} in {done.row_file}")
    return EXIT_OK


def _proposing_judge(args: argparse.Namespace) -> Any:
    """The judge of ``--propose-probes`` (a live model: the in-process stand-in proposes nothing), or None; judge
    options without ``--propose-probes`` are refused (exit 2), as they would do nothing."""
    from harness.errors import ConfigError

    given = [o for o in ("judge_model", "judge_base_url", "judge_model_kwargs", "judge_max_rps") if getattr(args, o)]
    if not args.propose_probes:
        if given:
            raise ConfigError(f"--{given[0].replace('_', '-')} is for --propose-probes (a judge model proposes probes)")
        return None
    from harness.cli.judging import check_judge, judge_from

    check_judge(args)  # a live judge's spec, key and server, before langchain is imported
    from harness.agent.models import in_process

    if args.judge_model is None or in_process(args.judge_model, "judge"):
        raise ConfigError(
            "--propose-probes: give a live --judge-model provider:name (the in-process reference judge proposes no "
            "probes; through harness serve: --judge-model openai:reference-judge --judge-base-url URL)"
        )
    return judge_from(args)


def cmd_export(args: argparse.Namespace) -> int:
    from harness.sessions.export import export_run

    written = export_run(args.run_dir, args.format, args.out)
    print(
        f"wrote {len(written)} {args.format} session(s) to {Path(args.out)} (read them back: harness import {args.format} FILE)"
    )
    return EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: import, export."""
    from harness.cli.judging import add_judge_options
    from harness.sessions import FORMATS
    from harness.sessions.cut import DEFAULT_SHARE, FIRST_COMPACTION
    from harness.sessions.model import DEFAULT_STEPS

    imp = sub.add_parser(
        "import",
        help="turn a recorded session (OpenAI, Anthropic, LangChain, ATIF, mini-swe-agent, LangGraph, LangSmith) into a session case",
        description="Read a recorded session, check it, cut it, and write a session case: OUT/ID.jsonl (the messages "
        "before the cut) and a row appended to OUT/sessions.jsonl (run it with --datasets OUT/sessions.jsonl). Formats: "
        + "; ".join(f"{name}: {help_}" for name, (_, help_) in FORMATS.items())
        + ". Nothing is written on an error (exit 2, naming file, line or step, and field).",
    )
    imp.add_argument("format", choices=list(FORMATS), help="the session's format")
    imp.add_argument("source", help="the session file (langsmith: a run id or an exported JSON file; '-' with --project)")
    imp.add_argument("--thread", default=None, help="langgraph: the thread id in the checkpoint database")
    imp.add_argument("--project", default=None, help="langsmith: the project whose newest matching root run is read")
    imp.add_argument(
        "--filter", default=None, help="langsmith: a LangSmith filter among the project's runs, e.g. 'has(tags, \"x\")'"
    )
    imp.add_argument("--out", required=True, metavar="DIR", help="where the case goes (DIR/sessions.jsonl, DIR/ID.jsonl)")
    imp.add_argument("--id", default=None, help="the case id (default: from the file name)")
    imp.add_argument(
        "--cut",
        default=None,
        help=f"where to cut: {FIRST_COMPACTION} (just before the first recorded compaction), a message index N, or a token "
        f"share in (0, 1); default: {FIRST_COMPACTION} when the session recorded one, else {DEFAULT_SHARE:g}",
    )
    imp.add_argument(
        "--probes",
        default=None,
        metavar="FILE",
        help="the questions to ask after the cut (JSONL or YAML: question, expected, type, message, stale); "
        "default: generated from the messages before the cut",
    )
    imp.add_argument(
        "--steps",
        type=int,
        default=DEFAULT_STEPS,
        metavar="N",
        help="a live agent continues the session by itself for at most N model calls after the cut, then the probes are "
        f"asked (default {DEFAULT_STEPS}; 0: the probes alone; the offline reference agent is always asked the probes alone)",
    )
    imp.add_argument(
        "--propose-probes",
        action="store_true",
        help="live: a judge model (--judge-model provider:name) reads the messages before the cut and proposes up to 10 "
        "more probes, marked model-written (origin: model); each is checked like a user's, and one left out says why",
    )
    add_judge_options(imp, default=None)
    imp.set_defaults(handler=cmd_import)

    exp = sub.add_parser(
        "export",
        help="write a run's cases as sessions: ATIF trajectory.json or OpenAI JSONL",
        description="Write each case of RUN_DIR as a recorded session (its whole conversation as the model was sent it, "
        "its summaries as compactions, the last answer): --format atif gives OUT/<trace>/trajectory.json, --format openai "
        "OUT/<trace>.jsonl. harness import reads both back.",
    )
    exp.add_argument("run_dir", help="a run directory (results.jsonl and its traces)")
    exp.add_argument("--format", required=True, choices=["atif", "openai"], help="the session format to write")
    exp.add_argument("--out", required=True, metavar="DIR", help="the directory to write into")
    exp.set_defaults(handler=cmd_export)
