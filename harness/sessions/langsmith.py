"""The LangSmith reader: the messages of the largest LLM call under a run, read from LangSmith or from the run's exported JSON.

``harness import langsmith RUN_ID`` reads the run and the LLM runs of its trace with the LangSmith SDK, through the
harness's one client (`harness.langsmith.session.connect`: one preflight, one time budget, one breaker), when
``LANGSMITH_API_KEY`` is set; ``--project P [--filter F]`` takes the newest root run of project P that matches the
filter (LangSmith's filter syntax); a file is the run's exported JSON: one run with nested ``child_runs``, a list of
runs or JSON lines of runs, of one trace. The session is the input of the largest LLM call under the run: the one
with the most messages among those not headed by a summary (a summarizer's own call, marked ``lc_source:
summarization``, is not a call of the agent), its messages revived with LangChain's own loaders and written in OpenAI
chat format. A deepagents summary at the head of that call is a `Compaction` where it stood, and so is a provider's
server-side compaction among its messages (an Anthropic compaction block or OpenAI Responses compaction item in an AI
message's content, `lc_messages.take_compactions`); the provider compacting that very request (the call's recorded
answer opens with a compaction) or, failing that, a later call headed by a new deepagents summary is a `Compaction`
after the last message, the point the session compacted next.
"""

from __future__ import annotations

import json
import uuid
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness import _deepagents_adapter as da
from harness.errors import ConfigError, DatasetError, EndpointUnreachable
from harness.sessions.lc_messages import revive, take_compactions, to_openai
from harness.sessions.model import DEEPAGENTS_SUMMARY, Compaction, Session, provider_compaction

FORMAT = "langsmith"
RUN_FIELDS = ("id", "name", "run_type", "inputs", "outputs", "parent_run_id", "trace_id", "dotted_order", "start_time", "extra")


def read(source: str, *, project: str | None = None, filter: str | None = None, **options: Any) -> Session:  # noqa: A002, ANN401
    """The session under the run ``source`` names (a run id, or an exported JSON file), or under the newest root run
    of ``project`` matching ``filter``. DatasetError names the file or run and the field of the first problem."""
    if options:
        raise ConfigError(f"the {FORMAT} reader takes --project and --filter only, not {', '.join(sorted(options))}")
    if filter and not project:
        raise ConfigError("--filter selects among a project's runs: give --project too")
    if project:
        if source and source != "-":
            raise ConfigError(f"give a run id or --project, not both (got {source!r} and --project {project!r})")
        where = f"LangSmith project {project!r}"
        runs, root = _from_langsmith(None, project, filter, where)
    elif _is_run_id(source):
        where = f"LangSmith run {source}"
        runs, root = _from_langsmith(source, None, None, where)
    else:
        where = source
        runs, root = _from_file(source), None
    return _session(runs, root, where)


def _is_run_id(source: str) -> bool:
    try:
        uuid.UUID(source)
    except ValueError:
        return False
    return not Path(source).exists()


# -- where the runs come from -------------------------------------------------------------------------------------
def _from_file(source: str) -> list[dict[str, Any]]:
    """Every run an exported file holds (nested ``child_runs`` flattened), checked to be runs of one trace."""
    path = Path(source)
    if not path.is_file():
        raise DatasetError(source, None, None, "no such file (and not a LangSmith run id)")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DatasetError(source, line, None, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise DatasetError(source, exc.lineno, None, f"invalid JSON ({exc.msg}), column {exc.colno}") from None
        data = _json_lines(source, text)
    items = data if isinstance(data, list) else [data]
    runs: list[dict[str, Any]] = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("run_type"), str):
            raise DatasetError(source, n, "run_type", "expected a LangSmith run (an object with its run_type)")
        _flatten(item, None, runs)
    traces = {str(r.get("trace_id")) for r in runs if r.get("trace_id")}
    if len(traces) > 1:
        raise DatasetError(source, None, "trace_id", f"the file holds runs of {len(traces)} traces: export one run's tree")
    return runs


def _json_lines(source: str, text: str) -> list[Any]:
    out = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(source, line_no, None, f"invalid JSON ({exc.msg}), column {exc.colno}") from None
    return out


def _flatten(run: dict[str, Any], parent: str | None, out: list[dict[str, Any]]) -> None:
    record = {k: run.get(k) for k in RUN_FIELDS}
    if record["parent_run_id"] is None and parent is not None:
        record["parent_run_id"] = parent
    out.append(record)
    for child in run.get("child_runs") or []:
        if isinstance(child, dict):
            _flatten(child, str(run.get("id")), out)


def _from_langsmith(
    run_id: str | None,
    project: str | None,
    filter: str | None,
    where: str,  # noqa: A002
) -> tuple[list[dict[str, Any]], str]:
    """The root run (by id, or the newest of ``project`` matching ``filter``) and the LLM runs of its trace, read
    with the harness's LangSmith client. The SDK's ``read_run``/``list_runs`` go through that client's bounded session
    (``client.runs``, their successor, is an async client of its own)."""
    from harness.langsmith.session import connect, upload_requested

    if not upload_requested():
        raise ConfigError(f"reading {where} needs LANGSMITH_API_KEY (or give the run's exported JSON file)")
    ls = connect()
    if ls.problem or ls.client is None:
        raise EndpointUnreachable(f"{where} was not read: {ls.problem or 'LangSmith is off'}")
    import requests
    from langsmith.utils import LangSmithAuthError, LangSmithError, LangSmithNotFoundError

    client = ls.client
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # read_run/list_runs: supported until 2027-01-31
            if project is not None:
                root = next(iter(client.list_runs(project_name=project, filter=filter, is_root=True, limit=1)), None)
                if root is None:
                    raise DatasetError(where, None, "filter", f"no root run matches {filter!r}" if filter else "it has no run")
            else:
                root = client.read_run(run_id)
            runs = [_record(r) for r in client.list_runs(project_id=root.session_id, trace_id=root.trace_id, run_type="llm")]
    except LangSmithNotFoundError:
        field = "project" if project is not None else "run"
        raise DatasetError(where, None, field, "LangSmith has no such " + field) from None
    except LangSmithAuthError as exc:
        raise ConfigError(f"{where}: LangSmith refused the key ({_redacted(exc)})") from None
    except LangSmithError as exc:
        status = getattr(getattr(exc.__context__, "response", None), "status_code", None)
        if status in (400, 422):  # the query itself: the filter the user wrote, most often
            asked = f" (--filter {filter!r})" if filter else ""
            raise ConfigError(f"{where}: LangSmith refused the query{asked}: {_redacted(exc)}") from None
        raise EndpointUnreachable(f"{where} was not read: {_redacted(exc)}") from None
    except requests.RequestException as exc:  # the breaker open (`NotSentToLangSmith`), a request the SDK let through
        raise EndpointUnreachable(f"{where} was not read: {_redacted(exc)}") from None
    root_record = _record(root)
    return [root_record, *(r for r in runs if r["id"] != root_record["id"])], str(root_record["id"])


def _record(run: Any) -> dict[str, Any]:  # noqa: ANN401 - the SDK's Run
    record = {k: getattr(run, k, None) for k in RUN_FIELDS}
    record["id"] = str(record["id"])
    record["parent_run_id"] = str(record["parent_run_id"]) if record["parent_run_id"] else None
    return record


def _redacted(exc: BaseException) -> str:
    from harness.redact import redact

    return redact(str(exc))[:300]


# -- the session: the largest LLM call under the root -------------------------------------------------------------
@dataclass(frozen=True)
class _Call:
    run_id: str
    order: str
    messages: list[Any]  # LangChain messages
    summary_at: int | None  # the index of a summary message among them

    def size(self) -> tuple[bool, int, int]:
        """Larger first: a call not headed by a summary, then more messages, then more approximate tokens."""
        from langchain_core.messages.utils import count_tokens_approximately

        return (self.summary_at is None, len(self.messages), count_tokens_approximately(self.messages))


def _session(runs: list[dict[str, Any]], root: str | None, where: str) -> Session:
    under = _under(runs, root)
    calls = [call for run in under if (call := _call(run, where)) is not None]
    if not calls:
        types = ", ".join(sorted({str(r.get("run_type")) for r in under})) or "none"
        name = f"run {root}" if root else "the file"
        raise DatasetError(where, None, "run_type", f"{name} has no LLM call with messages under it (run types: {types})")
    calls.sort(key=lambda c: c.order)
    chosen = max(calls, key=_Call.size)
    messages = list(chosen.messages)
    compactions = []
    if chosen.summary_at is not None:
        summary = messages.pop(chosen.summary_at)
        compactions.append(Compaction(at=chosen.summary_at, kind=DEEPAGENTS_SUMMARY, summary=da.summary_body(summary.text)))
    empty_system = bool(messages) and messages[0].type == "system" and not messages[0].text.strip()
    if empty_system:  # an agent without a system prompt: the tracer records an empty one, which no conversation can hold
        messages.pop(0)
        compactions = [replace(c, at=c.at - 1) for c in compactions]
    taken = take_compactions(messages)  # a provider's server-side compactions, where they stood in the request
    compactions = [replace(c, at=taken.position(c.at)) for c in compactions]
    compactions = sorted([*compactions, *taken.compactions], key=lambda c: c.at)
    counts = dict(taken.counts)
    # where the session compacted next: the provider compacting this very request (the call's response opens with its
    # compaction), else the first later call headed by a new deepagents summary
    answered = [
        c
        for block in _response_blocks(runs, chosen.run_id, where)
        if (c := provider_compaction(block, len(taken.messages), counts))
    ]
    head = chosen.messages[chosen.summary_at].text if chosen.summary_at is not None else None
    later = next(
        (c for c in calls if c.order > chosen.order and c.summary_at is not None and c.messages[c.summary_at].text != head), None
    )
    if answered:
        compactions.append(answered[0])
    elif later is not None:
        text = later.messages[later.summary_at].text  # type: ignore[index]  # summary_at is set
        compactions.append(Compaction(at=len(taken.messages), kind=DEEPAGENTS_SUMMARY, summary=da.summary_body(text)))
    from harness.redact import redact

    return Session(
        format=FORMAT,
        source=redact(where),
        messages=to_openai(taken.messages, where, FORMAT),
        compactions=tuple(compactions),
        meta={"run": root, "llm_call": chosen.run_id, "llm_calls": len(calls), **_model(runs, chosen.run_id), **counts}
        | ({"empty_system_dropped": True} if empty_system else {}),
    )


def _under(runs: list[dict[str, Any]], root: str | None) -> list[dict[str, Any]]:
    """The runs under ``root`` (itself included), by their parents; every run of a file (one trace) when None."""
    if root is None:
        return runs
    parents = {str(r["id"]): r.get("parent_run_id") for r in runs}

    def below(run_id: str) -> bool:
        seen = set()
        while run_id and run_id not in seen:
            if run_id == root:
                return True
            seen.add(run_id)
            run_id = str(parents.get(run_id) or "")
        return False

    return [r for r in runs if below(str(r["id"])) or root in str(r.get("dotted_order") or "")]


def _call(run: dict[str, Any], where: str) -> _Call | None:
    """An LLM run of the agent as a call: its input messages revived; None for another run, a summarizer's call or a
    call without chat messages."""
    meta = ((run.get("extra") or {}).get("metadata")) or {}
    if run.get("run_type") != "llm" or meta.get("lc_source") == da.SUMMARY_SOURCE:
        return None
    inputs = run.get("inputs") or {}
    raw = inputs.get("messages") if isinstance(inputs, dict) else None
    if isinstance(raw, list) and raw and isinstance(raw[0], list):
        raw = raw[0]  # a batch of prompts (LangChain's tracer): the first
    if not isinstance(raw, list) or not raw:
        return None
    messages = []
    for i, obj in enumerate(raw):
        try:
            messages.append(revive(obj))
        except (ValueError, TypeError, KeyError) as exc:
            raise DatasetError(where, None, f"runs[{run['id']}].inputs.messages[{i}]", str(exc)[:300]) from None
    summary_at = next((i for i, m in enumerate(messages) if da.is_summary_message(m) or da.reads_as_summary(m)), None)
    order = str(run.get("dotted_order") or run.get("start_time") or "")
    return _Call(str(run["id"]), order, messages, summary_at)


def _response_blocks(runs: list[dict[str, Any]], run_id: str, where: str) -> list[Any]:
    """The content blocks of the answer LangChain's tracer recorded for the LLM run ``run_id`` (its
    ``outputs.generations[0][0].message``); none when the run recorded no chat answer (an export without outputs)."""
    run = next(r for r in runs if str(r["id"]) == run_id)
    outputs = run.get("outputs")
    generations = outputs.get("generations") if isinstance(outputs, dict) else None
    first = generations[0] if isinstance(generations, list) and generations else None
    first = first[0] if isinstance(first, list) and first else first
    raw = first.get("message") if isinstance(first, dict) else None
    if raw is None:
        return []
    try:
        content = revive(raw).content
    except (ValueError, TypeError, KeyError) as exc:
        raise DatasetError(where, None, f"runs[{run_id}].outputs.generations[0][0].message", str(exc)[:300]) from None
    return content if isinstance(content, list) else []


def _model(runs: list[dict[str, Any]], run_id: str) -> dict[str, Any]:
    """The model name LangChain's tracer records for the chosen call, where it records one."""
    run = next(r for r in runs if str(r["id"]) == run_id)
    meta = ((run.get("extra") or {}).get("metadata")) or {}
    name = meta.get("ls_model_name")
    return {"model": str(name)} if name else {}
