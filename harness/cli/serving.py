"""``harness serve``, ``bench``: the reference models over HTTP, and the performance figures (docs/performance.md)."""

from __future__ import annotations

import argparse
import json
import sys

from harness.cli.options import (
    EXIT_OK,
    finite_float,
    port_number,
)


def cmd_serve(args: argparse.Namespace) -> int:
    from harness.reference.serve.faults import Fault
    from harness.reference.serve.http import ReferenceServer

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
        f"Try: harness run --model openai:reference-agent --base-url {server.url} "
        f"(Anthropic's SDK adds /v1 itself: --model anthropic:reference-agent --base-url {server.url.removesuffix('/v1')})",
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


def cmd_bench(args: argparse.Namespace) -> int:
    from harness.bench.figures import run_bench

    run_bench(repeats=args.repeats, time_pytest_suites=not args.skip_pytest, only=args.only)
    return EXIT_OK


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """This group's subcommands: serve, bench."""
    srv = sub.add_parser(
        "serve",
        help="serve the reference models as OpenAI- and Anthropic-compatible endpoints, with injected faults",
        description="Serve /v1/chat/completions, /v1/messages (Anthropic), /v1/responses, /v1/responses/compact "
        "and /v1/models on loopback, answering agent requests (with tools) "
        "with the reference agent, summary requests with the reference summarizer and requests for the model "
        "reference-judge with the stand-in judge, so a live "
        "setup (--model openai:reference-agent --base-url http://127.0.0.1:8765/v1) can be "
        "rehearsed with no key. Faults: --fault MODE[:COUNT][@agent|@summary|@judge], or POST /admin/faults "
        "at run time; GET /admin/stats; POST /admin/reset. Results are labelled simulated.",
    )
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback only)")
    srv.add_argument("--port", type=port_number, default=8765, help="port (default 8765; 0 picks a free one)")
    srv.add_argument("--latency", type=finite_float, default=0.0, metavar="SECONDS", help="delay before every answer (default 0)")
    srv.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="MODE[:COUNT][@SCOPE]",
        help="inject a fault: MODE one of 429, 500, 503, stall, context, malformed, empty, auth, null-compaction, "
        "compaction-midstream (these two on requests that compact natively), summary-continues, summary-tool-call, "
        "summary-reasoning-only, summary-canned, summary-authority (a 200 that is not a summary: give them @summary); COUNT requests "
        "(default 1, * for all); SCOPE agent, summary or judge (default all). Repeatable",
    )
    srv.add_argument("--seed", type=int, default=0, help="reference summarizer seed when a request sends none (default 0)")
    srv.add_argument("--max-model-len", type=int, help="context length reported by /v1/models (as vLLM does)")
    srv.add_argument("--no-usage", action="store_true", help="answer without usage (as some servers do)")
    srv.add_argument("--max-requests", type=int, help="stop after this many chat requests")
    srv.add_argument("--max-seconds", type=finite_float, default=3600.0, help="stop after this many seconds (default 3600)")
    srv.set_defaults(handler=cmd_serve)

    bench = sub.add_parser(
        "bench",
        help="measure suite wall time and recorder overhead; print the docs/performance.md table",
        description="Measure what docs/performance.md's table reports: wall time of the offline eval suites, the "
        "recorder's overhead (paired runs), grid throughput with 1 and 2 workers, a 500-call stress run, and live "
        "throughput against a harness serve it starts, and the CPU `harness run` spends before its first case and "
        "before its first error. About 13 minutes; writes reports/bench/ and prints the table.",
    )
    bench.add_argument("--repeats", type=int, default=10, help="paired runs per case for the overhead ratio (default 10)")
    bench.add_argument("--skip-pytest", action="store_true", help="do not time `pytest evals/ -m needle`")
    from harness.bench.figures import PARTS  # the standard library only: the parser stays light

    bench.add_argument(
        "--only",
        choices=PARTS,
        help="measure one part only, e.g. startup (about 2 minutes: `harness run` to its first case and to its first "
        "error, with and without PYTHONDONTWRITEBYTECODE=1, 5 runs each)",
    )
    bench.set_defaults(handler=cmd_bench)
