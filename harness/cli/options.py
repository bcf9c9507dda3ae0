"""Options and helpers every command group shares: exit codes, config, endpoint and case selection."""

from __future__ import annotations

import argparse

from harness.errors import EXIT_BAD_INPUT as EXIT_BAD_INPUT  # the exit codes are defined at the bottom of the layers
from harness.errors import EXIT_ERROR as EXIT_ERROR
from harness.errors import EXIT_FAILED as EXIT_FAILED
from harness.errors import EXIT_OK as EXIT_OK
from harness.errors import EXIT_SKIPPED as EXIT_SKIPPED
from harness.scenarios.schema import KINDS


def finite_float(text: str) -> float:
    """The argparse type of every numeric option that takes a fraction: `harness._numbers.finite_problem`'s rule, so
    ``nan``, ``inf`` and ``1e309`` are refused by argparse (exit 2, the option named) before anything runs."""
    from harness._numbers import finite_problem

    problem = finite_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return float(text)


def port_number(text: str) -> int:
    """The argparse type of a TCP port option: an integer from 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0 picks a free one), got {port}")
    return port


def add_config_options(p: argparse.ArgumentParser) -> None:
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
        "sliding-window, hybrid, none, the provider-native anthropic-compaction, anthropic-context-editing and "
        "openai-compaction (docs/strategies.md), or module:function (custom)",
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


LIMIT_OPTIONS: tuple[tuple[str, dict], ...] = (
    (
        "--case-budget",
        {
            "type": finite_float,
            "default": None,
            "metavar": "SECONDS",
            "help": "a live case's total time, retries and waits included; past it the case ends in ERROR "
            "(default 900; an experiment spec's case_budget)",
        },
    ),
    (
        "--max-rps",
        {
            "type": finite_float,
            "default": None,
            "metavar": "N",
            "help": "at most N model requests per second across every case of the run, agent and summarizer together "
            "(LangChain's InMemoryRateLimiter, shared; a spec's max_rps)",
        },
    ),
    (
        "--max-tpm",
        {
            "type": finite_float,
            "default": None,
            "metavar": "N",
            "help": "at most N input tokens per minute across every case of the run, agent and summarizer together "
            "(approximate counts, checked before each request; a spec's max_tpm)",
        },
    ),
    (
        "--stop-after-errors",
        {
            "type": int,
            "default": None,
            "metavar": "N",
            "help": "stop early, exit 4, when N cases in a row (in the order they finish) end in ERROR with the same "
            "provider error and none succeeded in between; rows written are kept (default 3; 0: never stop; a spec's "
            "stop_after_errors)",
        },
    ),
)
"""The bounds of a live run, the same for `harness run`, `harness experiment run` and `pytest evals/`."""


def add_limit_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("live limits")
    for flag, kwargs in LIMIT_OPTIONS:
        g.add_argument(flag, **kwargs)


def endpoints_from_args(args: argparse.Namespace) -> tuple:
    """(agent Endpoint, summary Endpoint) from --base-url / --summary-base-url / --model-kwargs / --summary-model-kwargs."""
    from harness.agent.endpoints import Endpoint, check_base_url, parse_model_kwargs, with_run_limits

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


def add_selection_options(p: argparse.ArgumentParser) -> None:
    s = p.add_argument_group("scenarios")
    s.add_argument(
        "--datasets",
        nargs="+",
        metavar="FILE",
        help="scenario JSONL files (default: the shipped datasets/needle.jsonl, goal.jsonl and chain.jsonl); "
        "a directory is refused: name its files, e.g. DIR/*.jsonl",
    )
    s.add_argument(
        "--kind",
        choices=[*KINDS, "all"],
        default="all",
        help="which evals to run (default all); truncation cases are in datasets/mechanisms/truncation.jsonl "
        "and run under --variant truncation",
    )
    s.add_argument("--cases", nargs="+", metavar="GLOB", help="only case ids matching these globs, e.g. 'needle-h16k-*'")
    s.add_argument("--limit", type=int, help="at most this many cases")


def _number_list(text: str, option: str, cast: type) -> list:
    from harness.errors import ConfigError

    try:
        values = [cast(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{option}: expected comma-separated numbers, got {text!r}") from None
    if not values:
        raise ConfigError(f"{option}: no values in {text!r}")
    return values
