"""A recorded conversation a case starts from: OpenAI-format chat messages, one JSON object per line.

This is what a provider log or a LangSmith export gives: ``{"role": "user", "content": "..."}``, assistant messages
with ``tool_calls`` (``{"id", "type": "function", "function": {"name", "arguments"}}``) and ``tool`` messages with
their ``tool_call_id``. The case's row names the file (``conversation``, relative to the dataset file); its messages
are placed before the task's first user message, system messages joined to the case's system prompt, and LangChain
converts them (`convert_to_messages`), so the live path sends exactly what was recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

from harness.errors import DatasetError
from harness.tool_pairs import ToolPairs

ROLES = ("system", "user", "assistant", "tool")


def resolve(name: str, dataset: str | Path) -> Path:
    """The conversation file a row names: absolute, or relative to the dataset file's folder."""
    path = Path(name)
    return path if path.is_absolute() else Path(dataset).parent / path


def load_conversation(path: Path) -> list[dict[str, Any]]:
    """The messages of a recorded conversation, each checked; DatasetError names the file, line and field."""
    if not path.is_file():
        raise DatasetError(str(path), None, None, "no such conversation file")
    messages: list[dict[str, Any]] = []
    pairs = ToolPairs()
    with path.open(encoding="utf-8") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                msg = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise DatasetError(str(path), line_no, None, f"invalid JSON ({exc.msg}), column {exc.colno}") from None
            check_message(msg, str(path), line_no, pairs)
            messages.append(msg)
    if not messages:
        raise DatasetError(str(path), None, None, "conversation file has no messages")
    if pairs.unanswered():
        raise DatasetError(str(path), None, "tool_calls", f"tool call {pairs.unanswered()[0]!r} is never answered")
    return messages


def check_message(msg: Any, path: str, line: int, pairs: ToolPairs) -> None:
    """One recorded message checked (role, content, tool calls, a tool result answering a call made earlier: the one
    pairing rule, `harness.tool_pairs`); ``pairs`` gains its calls and the call it answers. A tool result may be
    empty (a command with no output)."""

    def fail(field: str | None, problem: str) -> NoReturn:
        raise DatasetError(path, line, field, problem)

    if not isinstance(msg, dict):
        fail(None, f"a message must be a JSON object, got {type(msg).__name__}")
    role = msg.get("role")
    if role not in ROLES:
        fail("role", f"expected one of {', '.join(ROLES)}, got {role!r}")
    content = msg.get("content")
    if content is not None and not isinstance(content, (str, list)):
        fail("content", f"expected a string or a list of content parts, got {type(content).__name__}")
    if role in ("system", "user") and not text_of(msg).strip():
        fail("content", f"a {role} message needs text")
    if role == "assistant":
        calls = msg.get("tool_calls") or []
        if not isinstance(calls, list):
            fail("tool_calls", "expected a list")
        for i, call in enumerate(calls):
            fn = call.get("function") if isinstance(call, dict) else None
            if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not isinstance(fn, dict):
                fail(f"tool_calls[{i}]", 'expected {"id": ..., "type": "function", "function": {"name": ..., "arguments": ...}}')
            if not isinstance(fn.get("name"), str) or not isinstance(fn.get("arguments"), str):
                fail(f"tool_calls[{i}].function", "needs a name and its arguments as a JSON string")
            try:
                json.loads(fn["arguments"])
            except json.JSONDecodeError:
                fail(f"tool_calls[{i}].function.arguments", "is not valid JSON")
            pairs.call([call["id"]], line)
        if not calls and not text_of(msg).strip():
            fail("content", "an assistant message needs text or tool calls")
    if role == "tool":
        call_id = msg.get("tool_call_id")
        if not isinstance(call_id, str) or pairs.answer(call_id, line) is not None:
            fail("tool_call_id", f"{call_id!r} answers no earlier tool call")


def text_of(msg: dict[str, Any]) -> str:
    """A recorded message's text (the text parts of a list content joined)."""
    content = msg.get("content")
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return content or ""


def to_messages(records: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[Any]:
    """The non-system messages as LangChain messages (system text goes to the system prompt: `system_text`)."""
    from langchain_core.messages import convert_to_messages

    return list(convert_to_messages([m for m in records if m.get("role") != "system"]))


def system_text(records: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> str:
    return "\n\n".join(text_of(m) for m in records if m.get("role") == "system")


RECORDED_DOCS = 12  # padding documents fetched after the recording: ~24,000 tokens, past every forced trigger
RECORDED_DOC_TOKENS = 2_000
SHIPPED_RECORDING = "conversations/billing-migration.jsonl"


def recorded_probe_row(name: str, dataset_dir: str | Path, seed: int) -> dict[str, Any]:
    """A probe case that starts from the recorded conversation ``name`` (relative to ``dataset_dir``), padded with
    documents the task fetches so compaction fires, then asks about every typed fact the recording states.

    The facts are marked from the recording itself (`parse_statements` per message): a statement of a (type, key)
    already stated supersedes the earlier one. Each fact chain gets one question: a decision probe for a decision,
    continuation for a goal state, recall otherwise.
    """
    import random

    from harness.scenarios.haystack import document
    from harness.scenarios.probes import question_text
    from harness.task_format import Step, parse_statements, render_task

    records = load_conversation(resolve(name, Path(dataset_dir) / "x.jsonl"))
    rng = random.Random(f"recorded:{name}:{seed}")
    facts: list[dict[str, Any]] = []
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for index, msg in enumerate(records):
        if msg.get("role") == "system":
            continue
        for n, st in enumerate(parse_statements(text_of(msg))):
            fact: dict[str, Any] = {
                "id": f"m{index}-{n}",
                "type": st.type,
                "key": st.key,
                "value": st.value,
                "place": "conversation",
                "turn": 0,
                "message": index,
            }
            earlier = latest.get((st.type, st.key))
            if earlier is not None:
                earlier["superseded_by"] = fact["id"]
            latest[(st.type, st.key)] = fact
            facts.append(fact)
    firsts = [f for f in facts if not any(g.get("superseded_by") == f["id"] for g in facts)]
    doc_ids = [f"RUN-{i + 1:03d}" for i in range(RECORDED_DOCS)]
    documents = [{"id": d, "text": document(rng, d, "Platform runbook", RECORDED_DOC_TOKENS, {})} for d in doc_ids]
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(doc_ids)]
    steps.append(Step(len(steps) + 1, "reply"))
    intro = "Before we start the migration, read the runbook pages in order; I will ask you about our plan afterwards."
    followups: list[str] = []
    questions: list[dict[str, Any]] = []
    probes = {"decision": "decision", "goal_state": "continuation"}
    for turn, fact in enumerate(firsts, start=1):
        probe = probes.get(str(fact["type"]), "recall")
        followups.append(question_text(probe, fact["key"]))
        questions.append({"turn": turn, "facts": [fact["id"]], "probe": probe})
    stem = Path(name).stem
    return {
        "id": f"recorded-{stem}",
        "kind": "probe",
        "description": f"Starts from the recorded conversation {name} ({len(records)} messages, {len(facts)} typed facts, "
        f"{len(firsts)} asked), padded with {RECORDED_DOCS} runbook pages so compaction fires before the questions.",
        "conversation": name,
        "task": render_task(intro, steps),
        "followups": followups,
        "documents": documents,
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps],
        "facts": facts,
        "questions": questions,
    }
