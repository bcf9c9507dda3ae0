"""The ``reasoning`` eval: reasoning blocks across a deepagents summary, scored from what the provider received.

deepagents 0.7.32 (``SummarizationEvent.created_at_index``, ``_drop_bound_reasoning``) drops the reasoning Claude binds
to the conversation before it from the messages it keeps across a summary, and keeps every other provider's. One
short case per provider arm runs the real agent with deepagents' summarization against `harness serve`: ChatAnthropic
with thinking on (signed thinking blocks, checked by the endpoint as Claude checks them) and ChatOpenAI on the
Responses API with reasoning on (reasoning items). The server keeps every request it received and its verdict
(`ServerState.verdicts`); `score_reasoning` reads them:

- ``reasoning_kept_across_summary`` (validity): a summary happened and a request after it carries an assistant turn
  kept from before it that had reasoning then;
- ``bound_reasoning_dropped`` (Anthropic): no turn kept from before a summary still carries a thinking block;
- ``other_reasoning_kept`` (OpenAI): every such turn that had reasoning still has it;
- ``requests_accepted``: every request from the first summary on was accepted (no 400).

The seeded fault ``keeps-bound-reasoning`` puts the dropped blocks back (`KeepsBoundReasoning`): the endpoint refuses
the next request and ``bound_reasoning_dropped`` and ``requests_accepted`` fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import HumanMessage

from harness._deepagents_adapter import previous_event, reads_as_summary, with_bound_reasoning_restored
from harness.suites.registry import SUITES

PROVIDERS = ("anthropic", "openai")
CASE = SUITES["reasoning"].case_ids[0]  # goal-ledgers-12: 25 agent requests, two summaries under forced-20
PRESET = SUITES["reasoning"].preset or "forced-20"
FAULT = "keeps-bound-reasoning"
VALIDITY = "reasoning_kept_across_summary"
CHECKS = {"anthropic": ("bound_reasoning_dropped", "requests_accepted"), "openai": ("other_reasoning_kept", "requests_accepted")}
REASONING_TYPES = ("thinking", "redacted_thinking", "reasoning")


class KeepsBoundReasoning(AgentMiddleware):
    """Seeded fault: after a summary, the model is sent the state's own AI messages, reasoning blocks included."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:  # noqa: D102 - AgentMiddleware's hook
        if previous_event(request.state):
            request = request.override(messages=with_bound_reasoning_restored(request.messages, request.state))
        return handler(request)


@dataclass(frozen=True)
class Turn:
    """An assistant turn in a request: the tool calls that name it, and whether it carries reasoning."""

    ids: tuple[str, ...]
    reasoning: bool


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict))


def anthropic_turns(body: dict[str, Any]) -> tuple[str, list[Turn]]:
    """A Messages request's first user text and its assistant turns."""
    messages = body.get("messages") or []
    first = _text(messages[0].get("content")) if messages and messages[0].get("role") == "user" else ""
    turns = []
    for msg in messages:
        content = msg.get("content") if msg.get("role") == "assistant" else None
        if isinstance(content, list):
            ids = tuple(str(b.get("id")) for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
            reasoning = any(isinstance(b, dict) and b.get("type") in REASONING_TYPES for b in content)
            turns.append(Turn(ids, reasoning))
    return first, [t for t in turns if t.ids]


def responses_turns(body: dict[str, Any]) -> tuple[str, list[Turn]]:
    """A Responses request's first user text and its assistant turns (reasoning items, then function calls)."""
    raw = body.get("input")
    items: list[Any] = raw if isinstance(raw, list) else []
    first = next((_text(i.get("content")) for i in items if isinstance(i, dict) and i.get("role") == "user"), "")
    turns: list[Turn] = []
    reasoning, calls = False, []  # the reasoning items and function calls of the turn being read
    for item in [*items, {"type": "end"}]:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "function_call":
            calls.append(str(item.get("call_id")))
            continue
        if calls:
            turns.append(Turn(tuple(calls), reasoning))
            calls = []
        reasoning = kind == "reasoning"  # a turn's reasoning comes right before its calls
    return first, turns


def _requests(verdicts: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str, list[Turn]]]:
    for verdict in verdicts:
        if verdict["api"] == "messages":
            yield (verdict, *anthropic_turns(verdict["body"]))
        elif verdict["api"] == "responses":
            yield (verdict, *responses_turns(verdict["body"]))


def score_reasoning(verdicts: list[dict[str, Any]]) -> dict[str, tuple[bool, str]]:
    """The eval's validity score and checks, each (passed, why), from the server's verdicts in arrival order."""
    seen: dict[tuple[str, ...], bool] = {}  # every turn sent so far, and whether it had reasoning when first sent
    before: dict[tuple[str, ...], bool] = {}  # the turns sent before the current summary
    summary, summarized = "", False
    kept_with_reasoning = 0
    still_bound: list[str] = []
    lost: list[str] = []
    refused: list[str] = []
    for verdict, first, turns in _requests(verdicts):
        if first != summary and reads_as_summary(HumanMessage(content=first)):
            summary, summarized, before = first, True, dict(seen)
        if summarized:
            if verdict["status"] != 200:
                refused.append(f"{verdict['status']}: {(verdict['error'] or '')[:160]}")
            for turn in turns:
                if before.get(turn.ids):
                    kept_with_reasoning += 1
                    (still_bound if turn.reasoning else lost).append(turn.ids[0])
        for turn in turns:
            seen.setdefault(turn.ids, turn.reasoning)
    return {
        VALIDITY: (
            kept_with_reasoning > 0,
            f"{kept_with_reasoning} kept turn(s) had reasoning before a summary" if summarized else "no summary happened",
        ),
        "bound_reasoning_dropped": (not still_bound, f"still carrying reasoning after a summary: {still_bound[:3]}"),
        "other_reasoning_kept": (not lost, f"reasoning lost across a summary: {lost[:3]}"),
        "requests_accepted": (not refused, f"refused after a summary: {refused[:2]}"),
    }


def reasoning_model(provider: str, url: str, window: int) -> Any:
    """The provider's LangChain model for the reference agent behind ``url``, reasoning on, declared ``window``."""
    from harness.reference.local import served_model

    if provider == "anthropic":
        reasoning: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 4096}
    else:
        reasoning = {"use_responses_api": True, "reasoning": {"effort": "low"}}
    return served_model(provider, window, url=url, max_retries=0, timeout=60, **reasoning)


@dataclass
class ReasoningRun:
    """One arm's run: its trace and the server's verdicts on every request it received."""

    provider: str
    trace: Any
    verdicts: list[dict[str, Any]]


def run_reasoning_case(provider: str, *, fault: str | None = None, seed: int = 0) -> ReasoningRun:
    """Run the eval's case for ``provider`` (``fault``: ``keeps-bound-reasoning``) against a fresh `harness serve`."""
    from harness.agent.models import ModelChoice
    from harness.agent.runner import run_case
    from harness.compaction.variants import make_config
    from harness.reference import AGENT_NAME, SUMMARIZER_NAME, ReferenceSummarizerModel
    from harness.reference.serve.http import serving
    from harness.scenarios.schema import all_scenario_files, load_scenarios

    if fault not in (None, FAULT):
        raise ValueError(f"unknown reasoning fault {fault!r}; known: {FAULT}")
    scenario = next(s for s in load_scenarios(all_scenario_files()) if s.id == CASE)
    config = make_config(PRESET)
    with serving(max_seconds=600, seed=seed) as server:
        server.state.verdicts = []
        agent = reasoning_model(provider, server.url, config.window)
        models = ModelChoice(agent, ReferenceSummarizerModel(seed=seed), AGENT_NAME, SUMMARIZER_NAME, True)
        middleware = (KeepsBoundReasoning(),) if fault else ()
        trace = run_case(scenario, config, models, seed=seed, middleware=middleware)
        return ReasoningRun(provider, trace, list(server.state.verdicts))
