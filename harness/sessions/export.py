"""`harness export`: a run's cases as recorded sessions, ATIF ``trajectory.json`` or OpenAI JSONL, that `harness import` reads back.

A case's session is its whole conversation as the model was sent it, from the trace: each message once, at the call
where it was first sent (a masked or clipped copy of a message already sent is the same message: its id, or a tool
result's call id), the system prompt first, and the answer of the last call at the end. A deepagents summary that
headed a request is the compaction it records, placed after the messages that were in the state when it was made
(those its call was the first to send included). The subagents' calls are not the case's conversation and are left
out. OpenAI JSONL writes a summary as the user message the model saw (the OpenAI reader reads it back as a
compaction); ATIF writes it as a system step marked ``extra.compaction`` (`harness.sessions.atif.COMPACTION_KEYS`).
So ``import(export(run))`` gives the same messages and compactions: `tests/sessions/test_export.py` holds it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.sessions.model import Session
from harness.trace.schema import Trace

EXPORT_FORMATS = ("atif", "openai")
ATIF_VERSION = "ATIF-v1.4"


def trace_messages(trace: Trace) -> list[dict[str, Any]]:
    """The case's conversation as OpenAI messages, summaries in place as the user messages the model saw."""
    from langchain_core.messages import convert_to_openai_messages

    from harness._deepagents_adapter import is_summary_dict

    calls = [c for c in trace.agent_calls() if not c.get("namespace")]
    raw: list[dict[str, Any]] = []
    system = trace.message_text(calls[0]["system_key"]) if calls and calls[0].get("system_key") else ""
    if system.strip():  # the recorder sees the prompt the middleware inside it left: empty in an offline run
        raw.append({"role": "system", "content": system})
    seen: set[str] = set()
    for call in calls:
        summary = None
        for key in call["message_keys"]:
            data = trace.messages[key]
            if is_summary_dict(data):
                summary = None if key in seen else key
                seen.add(key)
                continue
            body = data.get("data", {})
            ident = (
                f"tool:{body['tool_call_id']}"
                if data.get("type") == "tool" and body.get("tool_call_id")
                else body.get("id") or key
            )
            if ident in seen:
                continue
            seen.add(ident)
            raw.extend(convert_to_openai_messages([trace.message(key)]))
        if summary is not None:
            raw.append({"role": "user", "content": trace.message_text(summary)})
    if calls and calls[-1].get("response"):
        raw.append(_answer(calls[-1]))
    return raw


def _answer(call: dict[str, Any]) -> dict[str, Any]:
    """The last call's answer as an assistant message (its tool calls too, with the arguments as LangChain dumps them)."""
    response = call["response"]
    msg: dict[str, Any] = {"role": "assistant", "content": response.get("text") or ""}
    calls = [
        {
            "id": tc.get("id") or f"call-{call['index']}-{i}",
            "type": "function",
            "function": {"name": tc["name"], "arguments": json.dumps(tc.get("args") or {}, ensure_ascii=False)},
        }
        for i, tc in enumerate(response.get("tool_calls") or ())
    ]
    if calls:
        msg["tool_calls"] = calls
    return msg


def trace_session(trace: Trace, source: str) -> Session:
    """The case's session (`trace_messages` read as the OpenAI reader reads them)."""
    from harness.sessions.openai import from_messages

    return from_messages(trace_messages(trace), source, "harness", {"case_id": trace.case_id, "agent_model": trace.agent_model})


def atif_document(session: Session, session_id: str, agent_name: str = "harness") -> dict[str, Any]:
    """``session`` as an ATIF trajectory: one step per system or user message, one agent step per assistant message
    with its tool results as its observation, and a compaction as a system step marked ``extra.compaction``."""
    steps: list[dict[str, Any]] = []
    owner: dict[str, dict[str, Any]] = {}  # tool call id -> the agent step that made it
    at = {c.at: c for c in session.compactions}

    def compaction(index: int) -> None:
        for c in (x for x in session.compactions if x.at == index):
            steps.append(
                {
                    "step_id": len(steps) + 1,
                    "source": "system",
                    "message": c.summary or "",
                    "extra": {"compaction": {"kind": c.kind}},
                }
            )

    for i, msg in enumerate(session.messages):
        if i in at:
            compaction(i)
        if msg["role"] == "tool":
            step = owner[msg["tool_call_id"]]
            step.setdefault("observation", {"results": []})["results"].append(
                {"source_call_id": msg["tool_call_id"], "content": msg["content"]}
            )
            continue
        step = {
            "step_id": len(steps) + 1,
            "source": "agent" if msg["role"] == "assistant" else msg["role"],
            "message": msg["content"],
        }
        calls = msg.get("tool_calls") or []
        if calls:
            step["tool_calls"] = [
                {
                    "tool_call_id": c["id"],
                    "function_name": c["function"]["name"],
                    "arguments": json.loads(c["function"]["arguments"]),
                }
                for c in calls
            ]
            owner.update({c["id"]: step for c in calls})
        steps.append(step)
    compaction(len(session.messages))
    agent = {"name": agent_name, "version": "1"}
    if session.meta.get("agent_model"):
        agent["model_name"] = str(session.meta["agent_model"])
    return {"schema_version": ATIF_VERSION, "session_id": session_id, "agent": agent, "steps": steps}


def export_run(run_dir: str | Path, fmt: str, out_dir: str | Path) -> list[Path]:
    """Every case of ``run_dir`` (its results.jsonl rows and their traces) written to ``out_dir`` as ``fmt``:
    ``<trace>.jsonl`` (OpenAI) or ``<trace>/trajectory.json`` (ATIF). Every trace is read before anything is written."""
    from harness.redact import redact_json
    from harness.runs.results import read_rows
    from harness.trace.schema import load_trace

    if fmt not in EXPORT_FORMATS:
        raise HarnessError(f"--format {fmt!r}: expected one of {', '.join(EXPORT_FORMATS)}")
    run = Path(run_dir)
    results = run / "results.jsonl"
    if not results.is_file():
        raise HarnessError(f"{run_dir}: no results.jsonl (not a run directory)")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise HarnessError(f"--out {out_dir}: is a file, not a directory")
    documents: list[tuple[Path, str]] = []
    for row in read_rows(results):
        trace = load_trace(run / row["trace"])
        stem = Path(row["trace"]).name.removesuffix(".gz").removesuffix(".json")
        if fmt == "openai":
            text = "".join(json.dumps(redact_json(m), ensure_ascii=False) + "\n" for m in _normal(trace_messages(trace)))
            documents.append((out / f"{stem}.jsonl", text))
        else:
            session = trace_session(trace, stem)
            documents.append(
                (
                    out / stem / "trajectory.json",
                    json.dumps(redact_json(atif_document(session, stem)), ensure_ascii=False, indent=1) + "\n",
                )
            )
    for path, text in documents:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return [path for path, _ in documents]


def _normal(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with only the fields a session keeps (role, content, tool_calls, tool_call_id)."""
    keep = ("role", "content", "tool_calls", "tool_call_id")
    return [{k: m[k] for k in keep if k in m and (k != "tool_calls" or m[k])} for m in raw]
