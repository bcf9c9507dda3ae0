"""How a session case runs: its turns after the cut, the window at which the arm's trigger fires at the first call
after the cut, and the full-context control arm whose answers gate every probe.

A ``session`` case (`harness.scenarios.model.SessionInfo`) is a recorded session cut before its first compaction:
its conversation file is the prefix, its probes the questions. Run as any eval or none, it gets:

1. its turns (`session_turns`): the row's task (the agent continues the session by itself, for at most the row's
   ``session.steps`` model calls: the runner ends that turn with LangChain's `ModelCallLimitMiddleware`), then the
   probes' questions; an agent that follows only the task grammar (the offline reference agent) cannot carry a
   recorded session on by itself, so it is asked the probes alone, the first probe being the first turn after the
   cut, as is any agent where ``steps`` is 0;
2. its window (`session_config`): the first request is measured on the real agent (`first_call_tokens`: whole, as
   deepagents counts it, and its messages alone, as LangChain's middleware counts them) and the window set by
   `harness.compaction.config.session_window` on the smaller count, so the arm's trigger fires at that first call
   whichever count its strategy compares; the chosen window is the config the row records, and the trace's
   ``final["session"]`` says how it was chosen.

Run as the ``session`` eval it also gets its control (`control_record`): the same case under strategy ``none`` on a
window that fits it (`control_config`), with the healthy models (a seeded fault never reaches it), run once per (case,
trial, seed, agent model) and run id in a process and remembered: every arm of a plan asks the same questions of
the same control. What the control said is recorded in the arm's trace (``final["control"]``: its answers, as data);
the session scorers (`harness.scoring.scorers.session`) read them with the same reader as the arm's, so `harness
score` re-scores both from the arm's trace alone and running stays apart from scoring.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from harness.compaction.config import SESSION_TRIGGER_MARGIN, CompactionConfig, control_window, session_window
from harness.errors import ConfigError
from harness.scenarios.schema import Scenario

if TYPE_CHECKING:
    from harness.agent.assembly import AgentSpec
    from harness.agent.models import ModelChoice
    from harness.trace.schema import Trace

CONTROL = "control"
"""The control arm's config name (its trace is recorded inside each arm's, never pooled as an arm of its own)."""
PROBE_ROOM_TOKENS = 500
"""Room the control's window keeps per turn after the cut (a question and its answer), beyond the first call."""

_CONTROLS: dict[tuple[Any, ...], dict[str, Any]] = {}
_RUNNING: dict[tuple[Any, ...], asyncio.Future] = {}


def is_session(scenario: Scenario) -> bool:
    return scenario.kind == "session" and bool(scenario.probes)


def replayed(scenario: Scenario, control: bool) -> bool:
    """Whether ``scenario`` runs from its cut (its turns, its window and, with ``control``, its control): a session
    case, or a case carried on from a recorded prefix (``conversation``) run by an eval that forks it behind its
    control (`EvalSuite.control`: the redo eval)."""
    return is_session(scenario) or (control and bool(scenario.conversation))


def prefix_calls(scenario: Scenario) -> list[dict[str, Any]]:
    """The tool calls of the recorded prefix a case runs from (`harness.scoring.scorers.redo.calls_of`), kept in the
    trace (``final["prefix_calls"]``) so a call repeated after the cut is told from a new one from the trace alone."""
    from harness.scenarios.conversation import to_messages
    from harness.scoring.scorers.redo import calls_of

    return calls_of(to_messages(scenario.conversation))


def session_turns(scenario: Scenario, models: ModelChoice) -> Scenario:
    """``scenario`` with the turns its agent is asked after the cut: its task and then its probes; for an agent that
    cannot follow the task (`harness.agent.models.task_problem`: the offline reference agent and prose), or a session
    whose ``steps`` is 0, the probes alone. Any other case as it is."""
    from harness.agent.models import task_problem

    if not is_session(scenario):
        return scenario
    steps = scenario.session.steps if scenario.session is not None else None
    if steps != 0 and task_problem(models.agent, scenario.task) is None:
        return scenario  # its continuation (at most ``steps`` model calls: `Scenario.continuation_steps`), then the probes
    questions = [p.question for p in scenario.probes]
    return replace(scenario, task=questions[0], followups=tuple(questions[1:]))


def session_config(
    config: CompactionConfig, scenario: Scenario, agent: AgentSpec | None = None
) -> tuple[CompactionConfig, dict[str, Any]]:
    """The config a session case runs under (the arm's, on the window `session_window` chooses) and how it was chosen
    (kept in the trace: ``final["session"]``). The window is chosen on the smaller of the first call's two counts (its
    messages alone, as LangChain's middleware counts them; deepagents counts the system prompt and tool schemas too),
    so whichever count the arm's strategy compares, its trigger is reached at that first call, and every arm of a
    comparison gets the same window and keep."""
    from harness.agent.preflight import first_call_tokens

    whole, messages = first_call_tokens(config, scenario, agent)
    window = session_window(config, min(whole, messages))
    how: dict[str, Any] = {
        "first_call_tokens": whole,
        "first_call_message_tokens": messages,
        "arm_window": config.window,
        "margin": SESSION_TRIGGER_MARGIN,
    }
    if window is None:
        fractions = any(t.unit == "fraction" for t in config.trigger)
        how.update(window=config.window, rule="too short for the trigger" if fractions else "arm's window (no fraction trigger)")
        return config, how
    try:
        chosen = replace(config, window=window)
    except ConfigError as exc:  # a keep in tokens at or above the trigger at that window: the arm's own, INVALID later
        how.update(window=config.window, rule=f"arm's window ({exc})")
        return config, how
    how.update(window=window, rule="trigger at the first call after the cut")
    return chosen, how


def control_config(config: CompactionConfig, first_call: int, turns: int) -> CompactionConfig:
    """The control arm of a session case: nothing compacts (strategy ``none``) and the window fits the prefix and
    every turn after it."""
    needed = first_call + PROBE_ROOM_TOKENS * turns
    return replace(config, name=CONTROL, strategy="none", custom_strategy=None, window=control_window(config, needed))


def _key(scenario: Scenario, models: ModelChoice, seed: int, run_id: str, trial: int, agent: AgentSpec | None) -> tuple[Any, ...]:
    content = json.dumps([list(scenario.conversation), list(scenario.turns)], sort_keys=True, default=str)
    digest = hashlib.sha256(content.encode()).hexdigest()[:16]
    from harness.agent.assembly import agent_name

    return (run_id, scenario.id, digest, trial, seed, models.agent_name, agent_name(agent) if agent is not None else None)


def control_record(trace: Trace) -> dict[str, Any]:
    """What an arm's trace keeps of its control's run: the turns asked and the answers (read by the session scorers),
    its first actions (read by the redo eval's intent check), its error, and its size and cost (the report's control
    columns)."""
    from harness.scoring.cost import case_cost
    from harness.scoring.scorers.redo import CONTROL_ACTIONS, actions

    agent = trace.agent_calls()
    total = case_cost(trace)["total"]
    return {
        "config": {"name": trace.config.get("name"), "strategy": "none", "window": trace.config.get("window")},
        "agent_model": trace.agent_model,
        "turns": [t["text"] for t in trace.turns],
        "answers": list(trace.final.get("answers") or []),
        "actions": actions(trace, trace.agent_calls())[:CONTROL_ACTIONS],
        "error": trace.error,
        "calls": len(agent),
        "peak_context": max((c["approx_tokens"] for c in agent), default=0),
        "tokens_sent": sum(c["approx_tokens"] for c in agent),
        "cost_usd": total.get("usd"),
        "compactions": len(trace.compactions()),
    }


def run_control(
    scenario: Scenario,
    first_call: int,
    config: CompactionConfig,
    models: ModelChoice,
    *,
    seed: int,
    budget_s: float,
    run_id: str,
    trial: int,
    agent: AgentSpec | None = None,
) -> dict[str, Any]:
    """The control's record for ``scenario`` (already turned, `session_turns`) under the arm's ``config``, the
    healthy ``models`` and the user's ``agent`` assembly (if any), run now or remembered."""
    from harness.agent.runner import run_case_for

    key = _key(scenario, models, seed, run_id, trial, agent)
    if key not in _CONTROLS:
        control = control_config(config, first_call, len(scenario.turns))
        trace = run_case_for(scenario, control, models, budget_s=budget_s, run_id=run_id, trial=trial, seed=seed, agent=agent)
        _CONTROLS[key] = control_record(trace)
    return _CONTROLS[key]


async def arun_control(
    scenario: Scenario,
    first_call: int,
    config: CompactionConfig,
    models: ModelChoice,
    *,
    seed: int,
    budget_s: float,
    run_id: str,
    trial: int,
    agent: AgentSpec | None = None,
) -> dict[str, Any]:
    """`run_control` on the running event loop: arms of one case in flight together wait for one control run."""
    from harness.agent.runner import arun_case

    key = _key(scenario, models, seed, run_id, trial, agent)
    if key in _CONTROLS:
        return _CONTROLS[key]
    if key in _RUNNING:
        return await asyncio.shield(_RUNNING[key])
    future: asyncio.Future = asyncio.get_running_loop().create_future()
    _RUNNING[key] = future
    try:
        control = control_config(config, first_call, len(scenario.turns))
        trace = await arun_case(scenario, control, models, run_id=run_id, trial=trial, seed=seed, budget_s=budget_s, agent=agent)
        _CONTROLS[key] = record = control_record(trace)
        future.set_result(record)
        return record
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # retrieved here: the waiters re-raise it
        raise
    finally:
        _RUNNING.pop(key, None)


def forget_controls() -> None:
    """Drop the remembered controls (tests)."""
    _CONTROLS.clear()
