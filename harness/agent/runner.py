"""Running one scenario through the real deep agent and returning its trace.

Running is separate from scoring: `run_case` produces a `Trace`; scorers read traces.
A run that fails (summarizer error, recursion limit, provider error) still returns a
trace, with the error in ``trace.final["error"]``, so it is reported, never lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
import uuid
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from harness import _deepagents_adapter as da
from harness.agent.assembly import AgentSpec, assembly_kwargs
from harness.agent.build import build_agent
from harness.agent.cache_scope import CACHE_SCOPE, cache_scope
from harness.agent.endpoints import DEFAULT_CASE_BUDGET_S
from harness.agent.live import CASE_DEADLINE, agent_retry_middleware, classify_error, retry_after_middleware
from harness.agent.models import FollowsGrammar, ModelChoice, probes_problem, task_problem
from harness.agent.sdk_retries import CaseRetries, agent_role_middleware, count_here, counted_model, counting
from harness.agent.tools import tools_for
from harness.compaction.config import CompactionConfig
from harness.scenarios.schema import Scenario
from harness.task_format import wants_todos
from harness.trace.recorder import Recorder
from harness.trace.schema import Trace

MIN_RECURSION_LIMIT = 200


def recursion_limit(scenario: Scenario) -> int:
    """Graph steps allowed: generous for the expected work, finite for a looping agent."""
    return max(MIN_RECURSION_LIMIT, 6 * len(scenario.expected_steps) + 120)


def offline_skip_reason(scenario: Scenario, models: ModelChoice) -> str | None:
    """Why ``scenario`` is skipped with these models: the agent follows only a grammar (`FollowsGrammar`: the
    in-process reference agent) and cannot answer a session case's probes (`probes_problem`: each is a turn it is
    asked, and one in prose is named) or follow its first task message (prose outside the step grammar), or the case
    states what only a live model reads. A live model, or the reference agent over HTTP, runs it as written."""
    from harness.scenarios.schema import offline_statement_problem

    if not isinstance(models.agent, FollowsGrammar):
        return None
    return (
        probes_problem(models.agent, scenario.probes)
        or task_problem(models.agent, scenario.task)
        or offline_statement_problem(scenario)
    )


def continuation_limit(steps: int) -> Any:
    """LangChain's `ModelCallLimitMiddleware` on a session's continuation turn only (`Scenario.continuation_steps`):
    after ``steps`` model calls in that turn it ends with LangChain's limit message ("Model call limits exceeded: run
    limit ..."), and the probes after it are not limited (the runner sets ``active`` per turn)."""
    from langchain.agents.middleware import ModelCallLimitMiddleware
    from langchain.agents.middleware.types import hook_config

    class ContinuationLimit(ModelCallLimitMiddleware):
        active = True

        @hook_config(can_jump_to=["end"])
        def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
            return super().before_model(state, runtime) if self.active else None

        @hook_config(can_jump_to=["end"])
        async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
            return await super().abefore_model(state, runtime) if self.active else None

    return ContinuationLimit(run_limit=steps, exit_behavior="end")


def _todo_middleware() -> Any:
    from langchain.agents.middleware import TodoListMiddleware

    return TodoListMiddleware()


class _Case:
    """One case being run: the agent, its thread, the recorder and the trace, shared by the sync and async loops."""

    def __init__(
        self,
        scenario: Scenario,
        config: CompactionConfig,
        models: ModelChoice,
        *,
        run_id: str,
        trial: int,
        seed: int,
        record: bool,
        backend: object,
        middleware: tuple,
        checkpointer: object = None,
        thread_id: str | None = None,
        agent: AgentSpec | None = None,
        subagent_models: Mapping[str, Any] | None = None,
    ) -> None:
        self.scenario = scenario
        self.recorder = (
            Recorder(truncation_text=config.effective_truncation().truncation_text, strategy=config.strategy) if record else None
        )
        # Offline, each history file (the agent's, each subagent's) gets a name derived from the case instead of uuid4,
        # so reruns are identical.
        sessions = da.StableSessions() if models.simulated else None
        stable = [sessions.middleware()] if sessions is not None else []
        # A live agent's unreadable answers are re-sent (the provider client retries status and connection errors itself).
        # A Retry-After above the SDK's cap is waited out when it fits the case budget (`live.retry_after_wait`).
        retry = [agent_retry_middleware(), retry_after_middleware()] if "agent" in models.endpoints else []
        if "agent" in models.endpoints:  # the provider SDK's own retries of an agent request are counted as the agent's
            retry.append(agent_role_middleware())
        # A live case counts its provider SDKs' retries (`harness.agent.sdk_retries`) when every live model calls a counted
        # SDK; None (no count) offline, where in-process models have no SDK, and for another provider's client.
        live = [m for role, m in (("agent", models.agent), ("summarizer", models.summarizer)) if role in models.endpoints]
        self.retries = CaseRetries() if live and all(counted_model(m) for m in live) else None
        if models.token_budget is not None:  # --max-tpm: wait for the request's tokens; inside the retry, so each attempt counts
            retry.append(models.token_budget.middleware())
        # deepagents 0.7.32 has no write_todos tool by default (only some model profiles add it): a task that asks for
        # its plan in the todo list gets LangChain's TodoListMiddleware, as a caller of create_deep_agent adds it.
        todos = [_todo_middleware()] if wants_todos(scenario.task) else []
        steps = scenario.continuation_steps()
        self.limit = continuation_limit(steps) if steps else None  # outermost: ends the turn before any other hook
        self.built = build_agent(
            config,
            models.agent,
            summarizer=models.summarizer,
            tools=tools_for(scenario.documents_dict()),
            middleware=[
                *([self.limit] if self.limit else []),
                *todos,
                *middleware,
                *stable,
                *retry,
                *([self.recorder.middleware] if self.recorder else []),
            ],
            system_prompt=scenario.agent_system_prompt(),
            backend=backend,
            checkpointer=checkpointer,
            assembly=assembly_kwargs(agent) if agent is not None else None,  # the user's own, fresh for each case
            subagent_models=subagent_models,
            subagent_middleware=[self.recorder.subagent_middleware] if self.recorder and subagent_models else [],
            sessions=sessions,
        )
        self.graph = self.built.graph
        self.scope = uuid.uuid4().hex  # this case run's served prompt cache (a header value: no case id in it)
        self.thread = {
            "configurable": {"thread_id": thread_id or f"{scenario.id}-{uuid.uuid4().hex[:8]}"},
            "recursion_limit": recursion_limit(scenario),
            "callbacks": [self.recorder.callback] if self.recorder else [],
        }
        self.trace = Trace(
            case_id=scenario.id,
            kind=scenario.kind,
            run_id=run_id,
            trial=trial,
            seed=seed,
            config=config.to_dict(),
            agent_model=models.agent_name,
            summary_model=models.summarizer_name,
            simulated=models.simulated,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        self.answers: list[str | None] = []
        self.error: dict | None = None
        self.started = time.perf_counter()

    def turns(self) -> Iterator[tuple[int, dict]]:
        """(turn, payload) for every user turn, until one fails."""
        for turn, text in enumerate(self.scenario.turns):
            if self.error is not None:
                return
            if self.limit is not None:
                self.limit.active = turn == 0
            if self.recorder:
                self.recorder.turn = turn
                record = {"index": turn, "text": text, "first_call": len(self.recorder.calls)}
                if self.limit is not None and turn == 0:
                    record["model_call_limit"] = self.limit.run_limit
                self.trace.turns.append(record)
            # A scripted assistant turn (a fact the case has "the agent" state) comes just before its user turn.
            said: list[BaseMessage] = [AIMessage(a) for t, a in self.scenario.assistant if t == turn]
            if turn == 0 and self.scenario.conversation:  # the recorded conversation the case starts from
                from harness.scenarios.conversation import to_messages

                said = [*to_messages(self.scenario.conversation), *said]
            if turn == 0 and self.scenario.system_in_state and self.scenario.system_prompt:  # its prompt as message 0
                said = [SystemMessage(self.scenario.system_prompt), *said]
            payload: dict = {"messages": [*said, HumanMessage(text)]}
            if turn == 0 and self.scenario.files:
                payload["files"] = da.seed_files(self.scenario.files_dict())
            yield turn, payload

    def answered(self, result: dict) -> None:
        last = result["messages"][-1]
        self.answers.append(last.text if last.type == "ai" else None)

    def failed(self, turn: int, exc: BaseException) -> None:
        self.error = {**classify_error(exc), "turn": turn, "where": _where(exc)}
        self.answers.append(None)

    def out_of_budget(self, budget_s: float) -> None:
        turn = len(self.answers)
        message = f"the case ran past its {budget_s:g} s budget (--case-budget): a provider too slow or retrying too long"
        self.error = {
            "type": "CaseBudgetExceeded",
            "message": message,
            "turn": turn,
            "where": "",
            "provider_error": {"type": "CaseBudgetExceeded", "status": None, "code": None, "model": "case", "message": message},
        }
        self.answers.append(None)

    def finish(self) -> Trace:
        trace, recorder = self.trace, self.recorder
        trace.wall_time_s = round(time.perf_counter() - self.started, 4)
        trace.final = {
            "answers": self.answers,
            "error": self.error,
            **_final_state(self.graph, self.thread, set(self.scenario.files_dict())),
        }
        from harness.agent.media import blob_listing

        blobs = blob_listing(self.built.backend)
        if blobs is not None:  # offload_binary: what the blob store holds at the end, and what it lost
            trace.final["blobs"] = blobs
        if recorder:
            trace.calls, trace.events, trace.messages = recorder.calls, recorder.events, recorder.messages
            trace.final["recorder_time_s"] = round(recorder.own_time_s, 4)
            if recorder.subagent_requests:  # the harness's own subagents' requests (an eval's: the parent eval)
                trace.final["subagent_requests"] = recorder.subagent_requests
            trace.simulated = trace.simulated or recorder.served_simulated
        trace.provider_retries = self.retries.record() if self.retries is not None else None
        return trace


def run_case(
    scenario: Scenario,
    config: CompactionConfig,
    models: ModelChoice,
    *,
    run_id: str = "",
    trial: int = 0,
    seed: int = 0,
    record: bool = True,
    backend: object = None,
    middleware: tuple = (),
    checkpointer: object = None,
    thread_id: str | None = None,
    agent: AgentSpec | None = None,
    subagent_models: Mapping[str, Any] | None = None,
) -> Trace:
    """Run every user turn of ``scenario``; ``record=False`` runs without the recorder (benchmarks).

    ``backend`` and ``middleware`` (placed outside the recorder) are for injected faults. ``checkpointer`` (default: a
    fresh in-memory one) and ``thread_id`` (default: the case id and a random suffix) keep the thread where a caller
    reads it back (a SQLite checkpoint database the LangGraph session reader imports). ``agent``: the user's own
    assembly (`harness.agent.assembly`), its factory called for this case. ``subagent_models``: an eval's own
    subagents, name -> model (`harness.agent.build.build_agent`).
    """
    case = _Case(
        scenario,
        config,
        models,
        run_id=run_id,
        trial=trial,
        seed=seed,
        record=record,
        backend=backend,
        middleware=middleware,
        checkpointer=checkpointer,
        thread_id=thread_id,
        agent=agent,
        subagent_models=subagent_models,
    )
    retries = counting(case.retries) if case.retries is not None else contextlib.nullcontext()
    with cache_scope(case.scope), retries:  # a served prompt cache keyed by this case run (`harness.agent.cache_scope`)
        for turn, payload in case.turns():
            try:
                case.answered(case.graph.invoke(payload, case.thread))
            except Exception as exc:  # noqa: BLE001 - every failure becomes part of the trace
                case.failed(turn, exc)
    return case.finish()


async def arun_case(
    scenario: Scenario,
    config: CompactionConfig,
    models: ModelChoice,
    *,
    run_id: str = "",
    trial: int = 0,
    seed: int = 0,
    budget_s: float | None = DEFAULT_CASE_BUDGET_S,
    middleware: tuple = (),
    backend: object = None,
    agent: AgentSpec | None = None,
    subagent_models: Mapping[str, Any] | None = None,
) -> Trace:
    """`run_case` with ``ainvoke``, for live models: many cases in flight on one event loop. A case still running
    after ``budget_s`` seconds (every request timed out and retried, Retry-After waits) is cancelled and ends in
    ERROR (``CaseBudgetExceeded``), so nothing waits forever."""
    case = _Case(
        scenario,
        config,
        models,
        run_id=run_id,
        trial=trial,
        seed=seed,
        record=True,
        backend=backend,
        middleware=middleware,
        agent=agent,
        subagent_models=subagent_models,
    )

    async def loop() -> None:
        if budget_s is not None:  # this task's own context: a Retry-After wait must fit what is left of it
            CASE_DEADLINE.set(time.monotonic() + budget_s)
        CACHE_SCOPE.set(case.scope)  # this task's own context too: a served prompt cache keyed by this case run
        if case.retries is not None:  # and the provider SDKs' retries counted for this case alone
            count_here(case.retries)
        for turn, payload in case.turns():
            try:
                case.answered(await case.graph.ainvoke(payload, case.thread))
            except Exception as exc:  # noqa: BLE001
                case.failed(turn, exc)

    try:
        await asyncio.wait_for(loop(), budget_s)
    except TimeoutError:
        case.out_of_budget(budget_s or 0)
    return case.finish()


_LOOP: asyncio.AbstractEventLoop | None = None


def run_async(coro: Any) -> Any:
    """Run ``coro`` on the process's one event loop, kept open between calls.

    Not ``asyncio.run``: that closes its loop, and langchain-openai caches one async HTTP
    client per process, bound to the loop of its first request; on a fresh loop the next
    run's first request failed with "Event loop is closed" and was retried silently.
    """
    global _LOOP
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
    return _LOOP.run_until_complete(coro)


def run_case_for(
    scenario: Scenario,
    config: CompactionConfig,
    models: ModelChoice,
    *,
    budget_s: float | None = DEFAULT_CASE_BUDGET_S,
    **kwargs: Any,
) -> Trace:
    """The right loop for ``models``: `arun_case` (with its budget) when a model is live, `run_case` offline."""
    if models.endpoints:
        return run_async(arun_case(scenario, config, models, budget_s=budget_s, **kwargs))
    return run_case(scenario, config, models, **kwargs)


WRITTEN_FILE_CHARS = 100_000  # cap on each written file's text kept in the trace
HISTORY_FILE_CHARS = 400_000  # cap on each /conversation_history/ file's text kept in the trace
ARCHIVED_READ_CHARS = 500  # cap on what a history file records of each seeded file read, kept in the trace


def _final_state(graph, thread, seeded: set[str]) -> dict:  # noqa: ANN001
    """The graph's final state: files (paths and sizes), history line counts and texts (the offloaded spans and the
    over-large user messages saved under /conversation_history/), the text of files the agent wrote, the todo list
    (``write_todos``'s state), and (when there are any) the media summaries offloaded and what each history file
    records of every media read."""
    try:
        values = graph.get_state(thread).values
    except Exception:  # noqa: BLE001
        return {"files": {}, "history_files": {}, "history_texts": {}, "written_files": {}, "todos": None}
    files = values.get("files") or {}
    sizes, history, history_texts, written = {}, {}, {}, {}
    media: dict[str, int] = {}
    archived: dict[str, dict[str, str]] = {}
    for path, data in files.items():
        text = da.file_text(data)
        sizes[path] = len(text)
        if path.startswith(da.MEDIA_PREFIX):
            media[path] = len(text)
        elif path.startswith(da.HISTORY_PREFIX):
            history[path] = text.count("\n") + 1
            history_texts[path] = text[:HISTORY_FILE_CHARS]
            # media reads only (a reference, or nothing where the media was): text files' reads are in history_files
            reads = {
                p: r[:ARCHIVED_READ_CHARS]
                for p, r in da.archived_reads(text).items()
                if p in seeded and (not r.strip() or da.media_references(r))
            }
            if reads:
                archived[path] = reads
        elif not path.startswith(da.LARGE_RESULTS_PREFIX) and path not in seeded:
            written[path] = text[:WRITTEN_FILE_CHARS]
    todos = values.get("todos")
    extra = {"media_files": media, "archived_reads": archived} if media or archived else {}
    return {
        "files": sizes,
        "history_files": history,
        "history_texts": history_texts,
        "written_files": written,
        "todos": [dict(t) for t in todos] if isinstance(todos, list) else None,
        **extra,
    }


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
