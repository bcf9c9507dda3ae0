"""A judge for free text: openevals' ``create_llm_as_judge`` over the harness's rubric, built like the other models.

``--judge-model reference`` (the default) is the in-process stand-in (`harness.reference.judge`, a keyword judge
with a known blind spot); ``--judge-model provider:name`` is built exactly as the agent and summarizer are
(`harness.agent.models`: ``init_chat_model``, a 120 s timeout and the provider client's 6 retries unless
``--judge-model-kwargs`` sets ``timeout`` / ``max_retries``, a base URL with no key for servers without auth, a
request limiter with ``--judge-max-rps``). ``--judge-model openai:reference-judge --judge-base-url URL`` reaches
the same stand-in through ``harness serve``: the real openevals + ChatOpenAI path with no key.

A judgement whose call fails after the client's retries (a provider error, an answer the structured-output parser
cannot read) is ERROR, never true or false, and its error is recorded redacted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from harness.agent.models import (
    Endpoint,
    check_live_spec,
    in_process,
    in_process_model,
    is_simulated,
    parse_model_kwargs,
    recorded_name,
    with_run_limits,
)
from harness.errors import ConfigError
from harness.judge_prompt import RUBRICS
from harness.redact import redact

JUDGE_WINDOW = 128_000  # the profile window a live judge is given: one short prompt per call, never compacted
ERROR = "ERROR"


@dataclass(frozen=True)
class JudgeChoice:
    """The judge model and how it is described in judge.json: name, simulated, endpoint settings (never a key)."""

    model: BaseChatModel
    name: str
    simulated: bool
    endpoint: dict[str, Any] = field(default_factory=dict)


def choose_judge(
    spec: str | None,
    *,
    base_url: str | None = None,
    model_kwargs: list[str] | None = None,
    max_rps: float | None = None,
) -> JudgeChoice:
    """The judge for ``--judge-model`` (``reference`` or ``provider:name``) and its endpoint options. Raises
    ConfigError for a malformed spec, an unknown provider or endpoint options given to the in-process stand-in;
    LiveModelUnavailable when the provider's key is not set and no base URL is given."""
    from harness.agent.models import _live  # the one place live models are built: the judge is built the same way
    from harness.reference.names import JUDGE_NAME

    kwargs = parse_model_kwargs(model_kwargs, "--judge-model-kwargs")
    if in_process(spec, "judge"):
        given = [
            o for o, v in (("--judge-base-url", base_url), ("--judge-model-kwargs", kwargs), ("--judge-max-rps", max_rps)) if v
        ]
        if given:
            raise ConfigError(
                f"{' and '.join(given)} apply to a live judge (provider:name); --judge-model reference is the in-process "
                "stand-in. To reach it over HTTP: harness serve, then --judge-model openai:reference-judge "
                "--judge-base-url http://127.0.0.1:8765/v1"
            )
        model = in_process_model(spec, "judge", window=JUDGE_WINDOW, option="--judge-model")
        return JudgeChoice(model, recorded_name(model), is_simulated(model))
    assert spec is not None  # no spec is in process
    check_live_spec(spec, "--judge-model", base_url=base_url)
    endpoint, _ = with_run_limits((Endpoint(base_url, kwargs),) * 2, max_rps=max_rps)
    model = _live(spec, JUDGE_WINDOW, "--judge-model", endpoint)
    return JudgeChoice(model, spec, spec.partition(":")[2] == JUDGE_NAME, endpoint.describe())


def make_judge(choice: JudgeChoice, rubric: str = "current_value") -> Callable[..., Any]:
    """openevals' evaluator over one of `harness.judge_prompt.RUBRICS`, a true/false score with reasoning: called
    with ``inputs`` (the question), ``outputs`` (the agent's answer) and ``reference_outputs`` (the rubric's
    reference: `harness.judge_prompt.value_reference` and its siblings), it returns ``{"key", "score", "comment"}``."""
    from openevals.llm import create_llm_as_judge

    return create_llm_as_judge(prompt=RUBRICS[rubric].prompt, judge=choice.model, feedback_key=rubric)


def judge_answer(evaluator: Callable[..., Any], question: str, answer: str, reference: dict[str, Any]) -> dict[str, Any]:
    """One judgement: ``{"judge": True/False, "reasoning", "usage"}``, or ``{"judge": "ERROR", "error", "usage"}`` when
    the call fails after the client's retries or its answer cannot be read as a true/false score (never counted as
    either). ``usage``: the input and output tokens the judge's model calls reported (LangChain's usage callback,
    summed over the calls the evaluator made; zero when none reported usage)."""
    from langchain_core.callbacks import get_usage_metadata_callback

    from harness.agent.live import classify_error

    with get_usage_metadata_callback() as counted:
        try:
            result = evaluator(inputs=question, outputs=answer, reference_outputs=reference)
            score = result["score"]
            if not isinstance(score, bool):
                raise ValueError(f"the judge's score is {score!r}, not true or false")
        except Exception as exc:  # noqa: BLE001 - whatever the judge call raised, the judgement is ERROR, not a verdict
            error = classify_error(exc)
            if "provider_error" in error:
                error["provider_error"]["model"] = "judge"
            verdict: dict[str, Any] = {"judge": ERROR, "error": error}
        else:
            verdict = {"judge": score, "reasoning": redact(str(result.get("comment") or ""))}
    calls = list(counted.usage_metadata.values())
    verdict["usage"] = {
        "input_tokens": sum(c["input_tokens"] for c in calls),
        "output_tokens": sum(c["output_tokens"] for c in calls),
    }
    return verdict
