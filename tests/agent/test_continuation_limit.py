"""A session's continuation after the cut is bounded: an agent that follows the task carries the session on for at
most the row's ``session.steps`` model calls (LangChain's ModelCallLimitMiddleware ends that turn), then every probe
is asked unbounded; ``steps: 0`` asks the probes alone, as the offline reference agent always is."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.agent.models import ModelChoice
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from harness.scenarios.schema import Scenario, SessionInfo, SessionProbe
from harness.sessions.model import CONTINUE_TASK
from harness.suites.replay import session_turns

PROBES = (
    SessionProbe("a", "Which port does billing use?", ("8443",), "value", 0),
    SessionProbe("b", "Which database does billing use?", ("pg-16",), "value", 0),
)
PROBE_LOOKS = 4  # tool calls the busy agent makes before answering a probe: more than STEPS, so a limit would show


class _Busy(BaseChatModel):
    """Lists the workspace on every call of the continuation turn (it never stops by itself); on a probe, lists it
    ``PROBE_LOOKS`` times and then answers."""

    @property
    def _llm_type(self) -> str:
        return "busy"

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001, ANN201
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        last_human = max(i for i, m in enumerate(messages) if m.type == "human")
        looks = sum(1 for m in messages[last_human:] if m.type == "tool")
        if messages[last_human].text == CONTINUE_TASK or looks < PROBE_LOOKS:
            call = {"name": "ls", "args": {"path": "/"}, "id": f"ls-{len(messages)}", "type": "tool_call"}
            return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])
        return ChatResult(generations=[ChatGeneration(message=AIMessage("8443"))])


def _case(steps: int | None) -> Scenario:
    info = SessionInfo("openai", "s.jsonl", messages=2, tokens=40, cut=2, cut_by="index", steps=steps)
    conversation = ({"role": "user", "content": "Set up billing."}, {"role": "assistant", "content": "Billing is on 8443."})
    return Scenario(
        id="session-steps",
        kind="session",
        description="",
        task=CONTINUE_TASK,
        followups=tuple(p.question for p in PROBES),  # as the row loader makes them (scenarios.schema)
        conversation=conversation,
        session=info,
        probes=PROBES,
    )


def _models(agent: BaseChatModel) -> ModelChoice:
    return ModelChoice(agent, ReferenceSummarizerModel(), "busy", "reference", simulated=False)


def _run(steps: int | None):  # noqa: ANN202
    models = _models(_Busy(profile={"max_input_tokens": 200_000}))
    scenario = session_turns(_case(steps), models)
    return scenario, run_case(scenario, make_config("forced-20", window=200_000), models)


def test_the_continuation_ends_after_steps_model_calls_and_the_probes_are_not_limited():
    scenario, trace = _run(3)
    assert scenario.turns == (CONTINUE_TASK, *(p.question for p in PROBES))
    assert trace.error is None
    assert trace.turns[0]["model_call_limit"] == 3 and all("model_call_limit" not in t for t in trace.turns[1:])
    assert len(trace.agent_calls(0)) == 3
    assert (trace.answer(0) or "").startswith("Model call limits exceeded")
    for turn in (1, 2):  # each probe took its PROBE_LOOKS listings and its answer
        assert len(trace.agent_calls(turn)) == PROBE_LOOKS + 1
        assert trace.answer(turn) == "8443"


def test_steps_zero_asks_the_probes_alone_and_none_leaves_the_continuation_unbounded():
    models = _models(_Busy(profile={"max_input_tokens": 200_000}))
    alone = session_turns(_case(0), models)
    assert alone.turns == tuple(p.question for p in PROBES) and alone.continuation_steps() is None
    assert session_turns(_case(None), models).continuation_steps() is None
    assert session_turns(_case(5), models).continuation_steps() == 5


def test_the_offline_reference_agent_is_asked_the_probes_alone_whatever_steps_says():
    models = ModelChoice(ReferenceAgentModel(), ReferenceSummarizerModel(), "reference", "reference", simulated=True)
    scenario = session_turns(_case(5), models)
    assert scenario.turns == tuple(p.question for p in PROBES)
    assert scenario.continuation_steps() is None
