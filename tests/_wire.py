"""Shared request builders and served reference models for the served-API tests (Anthropic Messages, OpenAI Responses)."""

from __future__ import annotations

from typing import Any

TASK = (
    "Audit the ledgers.\n\nSteps:\n1. Read /ledgers/a.csv with read_file.\n"
    '2. Write /notes/a.md with write_file: a one-line note on /ledgers/a.csv.\n3. Reply with "TASK COMPLETE".'
)
BIG = "lorem ipsum dolor sit amet " * 12_000  # about 55,000 simulated tokens: past Anthropic's 50,000 minimum
ANTHROPIC_TOOLS = [
    {
        "name": "read_file",
        "description": "read a file",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
    },
    {
        "name": "write_file",
        "description": "write a file",
        "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}},
    },
]
RESPONSES_TOOLS = [
    {"type": "function", "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}
    for t in ANTHROPIC_TOOLS
]


def compact_edit(trigger: int = 50_000, **extra: Any) -> dict[str, Any]:
    """``context_management`` with one ``compact_20260112`` edit."""
    return {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": trigger}, **extra}]}


def messages_body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A Messages API request for the reference agent."""
    return {"model": "reference-agent", "max_tokens": 1024, "messages": messages, "tools": ANTHROPIC_TOOLS, **extra}


def tool_turns(n: int, size: int = 40) -> list[dict[str, Any]]:
    """The task, then ``n`` tool uses with their results (``size`` words each), in Anthropic's shape."""
    out: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for k in range(n):
        call = f"toolu_{k}"
        out.append(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": call, "name": "write_file", "input": {"file_path": f"/f{k}"}}],
            }
        )
        out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "result " * size}]})
    return out


def big_turns() -> list[dict[str, Any]]:
    """The task, its first step (read_file) and a result past the compaction minimum, in Anthropic's shape."""
    call = {"type": "tool_use", "id": "toolu_read", "name": "read_file", "input": {"file_path": "/ledgers/a.csv"}}
    return [
        {"role": "user", "content": TASK},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_read", "content": BIG}]},
    ]


def big_items() -> list[dict[str, Any]]:
    """`big_turns` as Responses input items."""
    return [
        {"role": "user", "content": TASK},
        {"type": "function_call", "call_id": "call_read", "name": "read_file", "arguments": '{"file_path": "/ledgers/a.csv"}'},
        {"type": "function_call_output", "call_id": "call_read", "output": BIG},
    ]


def served_reference_models(provider: str, server: Any, window: int, timeout: float) -> Any:  # noqa: ANN401
    """The reference agent and summarizer as ``provider``'s API (``openai`` or ``anthropic``) at ``server`` (a
    `harness.reference.serve.serving` server), one retry, each request at most ``timeout`` seconds."""
    from harness.agent.endpoints import Endpoint
    from harness.agent.models import choose_models

    url = server.url if provider == "openai" else server.url.removesuffix("/v1")  # Anthropic's SDK adds /v1
    endpoint = Endpoint(url, {"timeout": timeout, "max_retries": 1})
    return choose_models(
        f"{provider}:reference-agent", f"{provider}:reference-summarizer", window=window, agent_endpoint=endpoint
    )
