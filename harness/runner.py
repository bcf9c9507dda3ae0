"""Running one scenario through the real deep agent and returning its trace.

Running is separate from scoring: `run_case` produces a `Trace`; scorers read traces.
A run that fails (summarizer error, recursion limit, provider error) still returns a
trace, with the error in ``trace.final["error"]``, so it is reported, never lost.
"""

from __future__ import annotations

import time
import traceback
import uuid
from datetime import UTC, datetime

from langchain_core.messages import HumanMessage

from harness import _deepagents_adapter as da
from harness.agent import build_agent
from harness.config import CompactionConfig
from harness.live import agent_retry_middleware, classify_error
from harness.models import ModelChoice
from harness.recorder import Recorder
from harness.scenario_tools import tools_for
from harness.scenarios import Scenario
from harness.trace import Trace

MIN_RECURSION_LIMIT = 200


def recursion_limit(scenario: Scenario) -> int:
    """Graph steps allowed: generous for the expected work, finite for a looping agent."""
    return max(MIN_RECURSION_LIMIT, 6 * len(scenario.expected_steps) + 120)


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
) -> Trace:
    """Run every user turn of ``scenario``; ``record=False`` runs without the recorder (benchmarks).

    ``backend`` and ``middleware`` (placed outside the recorder) are for injected faults.
    """
    recorder = Recorder(truncation_text=config.effective_truncation().truncation_text) if record else None
    # Offline, the history file gets a name derived from the case instead of uuid4, so reruns are identical.
    stable = [da.stable_session_middleware()] if models.simulated else []
    # A live agent's unreadable answers are re-sent (the provider client retries status and connection errors itself).
    retry = [agent_retry_middleware()] if "agent" in models.endpoints else []
    built = build_agent(
        config,
        models.agent,
        summarizer=models.summarizer,
        tools=tools_for(scenario.documents_dict()),
        middleware=[*middleware, *stable, *retry, *([recorder.middleware] if recorder else [])],
        backend=backend,
    )
    thread = {
        "configurable": {"thread_id": f"{scenario.id}-{uuid.uuid4().hex[:8]}"},
        "recursion_limit": recursion_limit(scenario),
        "callbacks": [recorder.callback] if recorder else [],
    }
    trace = Trace(
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
    answers: list[str | None] = []
    error = None
    started = time.perf_counter()
    for turn, text in enumerate(scenario.turns):
        if recorder:
            recorder.turn = turn
            trace.turns.append({"index": turn, "text": text, "first_call": len(recorder.calls)})
        payload: dict = {"messages": [HumanMessage(text)]}
        if turn == 0 and scenario.files:
            payload["files"] = da.seed_files(scenario.files_dict())
        try:
            result = built.graph.invoke(payload, thread)
        except Exception as exc:  # noqa: BLE001 - every failure becomes part of the trace
            error = {**classify_error(exc), "turn": turn, "where": _where(exc)}
            answers.append(None)
            break
        last = result["messages"][-1]
        answers.append(last.text if last.type == "ai" else None)
    trace.wall_time_s = round(time.perf_counter() - started, 4)
    trace.final = {"answers": answers, "error": error, **_final_state(built.graph, thread, set(scenario.files_dict()))}
    if recorder:
        trace.calls, trace.events, trace.messages = recorder.calls, recorder.events, recorder.messages
        trace.final["recorder_time_s"] = round(recorder.own_time_s, 4)
        trace.simulated = trace.simulated or recorder.served_simulated
    return trace


WRITTEN_FILE_CHARS = 100_000  # cap on each written file's text kept in the trace


def _final_state(graph, thread, seeded: set[str]) -> dict:  # noqa: ANN001
    """Files at the end of the run: paths and sizes, history line counts, and the text of files the agent wrote."""
    try:
        values = graph.get_state(thread).values
    except Exception:  # noqa: BLE001
        return {"files": {}, "history_files": {}, "written_files": {}}
    files = values.get("files") or {}
    sizes, history, written = {}, {}, {}
    for path, data in files.items():
        text = da.file_text(data)
        sizes[path] = len(text)
        if path.startswith(da.HISTORY_PREFIX):
            history[path] = text.count("\n") + 1
        elif not path.startswith(da.LARGE_RESULTS_PREFIX) and path not in seeded:
            written[path] = text[:WRITTEN_FILE_CHARS]
    return {"files": sizes, "history_files": history, "written_files": written}


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
