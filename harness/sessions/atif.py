"""`harness import atif`: Harbor's Agent Trajectory Interchange Format (``trajectory.json``, schema ``ATIF-v1.x``).

The shape is checked by pydantic models of the fields read (others are allowed and kept out): ``schema_version``
(major 1; another major is refused naming it), ``steps[]`` with ``source`` (system, user, agent), ``message`` (a
string or content parts), an agent step's ``tool_calls[]`` (``tool_call_id``, ``function_name``, ``arguments``) and
``observation.results[]`` (``source_call_id``, ``content``). Mapped: a system or user step to that message; an
agent step to an assistant message with its tool calls, then one ``tool`` message per result, paired by
``source_call_id`` (a result naming no call of the trajectory is refused naming the step); a result with no
``source_call_id`` (an action that is not a tool call) to a user message. An agent step with no text and no call (a
metrics-only step) is skipped and counted. A step whose ``extra`` holds a compaction key (`COMPACTION_KEYS`) is a
recorded compaction, its message the summary; a trajectory with ``continued_trajectory_ref`` ended in one (its
context continued in that file). ``reasoning_content`` is kept out of the text and counted.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.errors import DatasetError
from harness.sessions.messages import arguments_text, message, text_of, tool_call
from harness.sessions.model import Compaction, Session
from harness.sessions.source import read_json

MAJOR = 1
COMPACTION_KEYS = ("compaction", "context_management", "compact_boundary", "summarization")
"""Keys of a step's ``extra`` that mark it as a recorded compaction (Harbor writes none yet in 1.x: these are the
names agents that export ATIF use, and `harness export`'s)."""
_VERSION = re.compile(r"^ATIF-v(\d+)\.(\d+)")
_OPEN = ConfigDict(extra="allow")


class ToolCall(BaseModel):
    model_config = _OPEN
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any] | str = {}


class Result(BaseModel):
    model_config = _OPEN
    source_call_id: str | None = None
    content: str | list[Any] | None = None


class Observation(BaseModel):
    model_config = _OPEN
    results: list[Result]


class Step(BaseModel):
    model_config = _OPEN
    step_id: int
    source: Literal["system", "user", "agent"]
    message: str | list[Any] = ""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    extra: dict[str, Any] | None = None


class Trajectory(BaseModel):
    model_config = _OPEN
    schema_version: str
    steps: list[Step]
    agent: dict[str, Any] = {}
    continued_trajectory_ref: str | None = None


def read(source: str, **options: Any) -> Session:  # noqa: ANN401 - no options
    """The session in ``source``; a `DatasetError` names the file and ``steps[i].field`` of the first problem."""
    data = read_json(source)
    if not isinstance(data, dict):
        raise DatasetError(source, None, None, f"an ATIF trajectory is a JSON object, got {type(data).__name__}")
    version = data.get("schema_version")
    match = _VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        raise DatasetError(source, None, "schema_version", f"expected 'ATIF-v1.x', got {version!r}")
    if int(match.group(1)) != MAJOR:
        raise DatasetError(
            source, None, "schema_version", f"{version}: major version {match.group(1)} is not read (ATIF-v1.x is)"
        )
    try:
        trajectory = Trajectory.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
        raise DatasetError(source, None, field, error["msg"]) from None
    return _session(trajectory, source)


def _session(trajectory: Trajectory, source: str) -> Session:
    messages: list[dict[str, Any]] = []
    compactions: list[Compaction] = []
    dropped: dict[str, int] = {}
    counts = {"steps": len(trajectory.steps), "skipped_steps": 0, "reasoning_steps": 0}
    calls: set[str] = set()
    for i, step in enumerate(trajectory.steps):
        where = f"steps[{i}]"
        text = text_of(step.message, source, f"{where}.message", dropped)
        marker = next((step.extra[key] for key in COMPACTION_KEYS if key in step.extra), None) if step.extra else None
        if marker is not None:
            kind = marker.get("kind") if isinstance(marker, dict) else None  # `harness export` names what compacted
            compactions.append(Compaction(len(messages), kind if isinstance(kind, str) else "atif-step", text or None))
            continue
        if step.source != "agent":
            if text.strip():
                messages.append(message(step.source, text))
            else:
                counts["skipped_steps"] += 1  # an empty system or user step says nothing
            continue
        counts["reasoning_steps"] += step.reasoning_content is not None
        uses = [
            tool_call(c.tool_call_id, c.function_name, arguments_text(c.arguments, source, f"{where}.tool_calls[{j}].arguments"))
            for j, c in enumerate(step.tool_calls or ())
        ]
        results = step.observation.results if step.observation else []
        if not text and not uses and not results:
            counts["skipped_steps"] += 1
            continue
        if text or uses:
            messages.append(message("assistant", text, tool_calls=uses))
        calls.update(c["id"] for c in uses)
        for j, result in enumerate(results):
            content = text_of(result.content, source, f"{where}.observation.results[{j}].content", dropped)
            if result.source_call_id is None:
                messages.append(message("user", content))
            elif result.source_call_id not in calls:
                raise DatasetError(
                    source,
                    None,
                    f"{where}.observation.results[{j}].source_call_id",
                    f"{result.source_call_id!r} answers no tool call of this trajectory (step_id {step.step_id})",
                )
            else:
                messages.append(message("tool", content, tool_call_id=result.source_call_id))
    if trajectory.continued_trajectory_ref:
        compactions.append(Compaction(len(messages), "atif-continuation"))
    meta: dict[str, Any] = {**counts, **({"dropped_parts": dropped} if dropped else {})}
    if isinstance(trajectory.agent.get("model_name"), str):
        meta["model"] = trajectory.agent["model_name"]
    return Session("atif", source, tuple(messages), tuple(compactions), meta=meta)
