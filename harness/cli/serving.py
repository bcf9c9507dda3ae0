"""``harness serve``, ``bench``: the reference models over HTTP, and the README's figures."""

from __future__ import annotations

import argparse
import json
import sys

from harness.cli.options import (
    EXIT_OK,
)


def cmd_serve(args: argparse.Namespace) -> int:
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


def cmd_bench(args: argparse.Namespace) -> int:
    from harness.runs.bench import run_bench

    run_bench(repeats=args.repeats, time_pytest_suites=not args.skip_pytest)
    return EXIT_OK
