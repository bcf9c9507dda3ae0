"""The stand-in judge: a deterministic chat model that grades `harness.judge_prompt` prompts by keyword.

It makes the judge path (openevals' ``create_llm_as_judge``, LangChain's structured output, the OpenAI client
through ``harness serve``) run end to end with no key. Its verdict is a pure function of the messages it is
sent: true when the words the rubric's reference lists appear in the answer as whole words, whatever the
context. Each rubric has a known blind spot, kept on purpose so calibration has something to find:
``current_value`` and ``continuation`` judge "not pg-16" and "pg-16 or mysql-8" true (the deterministic check,
`harness.answers.judge_value`, says false); ``decision`` judges "mysql-8; rejected: pg-16" true (both
values are named, in swapped roles); ``artifacts`` judges an answer that lists an extra file true.

It reports usage as ``harness serve`` does for it (`harness.reference.provider_tokens.simulated_usage`), so judge
tokens are counted the same in process and over HTTP.

It answers in the shape it is asked for: with tools bound (LangChain's default ``with_structured_output`` binds
the schema as a tool, openevals' path for a chat model) a tool call to the first tool whose arguments are
``reasoning`` and ``score``; without tools (OpenAI's ``response_format`` json_schema, ChatOpenAI's default) the same
object as JSON text. Asked to propose a session's probes (a request headed by `harness.judge_prompt.PROPOSAL_TAG`), it
proposes none: ``[]``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.judge_prompt import PROPOSAL_TAG, JudgePrompt, parse_judge_prompt
from harness.reference.names import JUDGE_NAME
from harness.reference.provider_tokens import simulated_usage


def keyword_verdict(answer: str, expected: str) -> bool:
    """True when ``expected`` appears in ``answer`` as a whole word (case-insensitive): the stand-in's one test."""
    return re.search(rf"(?<![A-Za-z0-9\-]){re.escape(expected)}(?![A-Za-z0-9\-])", answer, re.IGNORECASE) is not None


def _wanted(prompt: JudgePrompt) -> list[str]:
    """The words the stand-in looks for under each rubric: the expected value (current_value, continuation), the
    decided and every rejected value wherever they stand (decision), every listed path (artifacts)."""
    ref = prompt.reference
    if prompt.rubric == "decision":
        return [ref["decided"], *ref["rejected"]]
    if prompt.rubric == "artifacts":
        return [f["path"] for f in ref["files"] if isinstance(f, dict) and isinstance(f.get("path"), str)]
    return [ref["expected"]]


def judge_messages(messages: list[BaseMessage]) -> dict[str, Any]:
    """The stand-in's verdict on a judge request: ``{"reasoning": ..., "score": bool}``: true when every word
    `_wanted` lists is in the answer. Raises ValueError when the request holds no rubric prompt (the stand-in grades
    nothing else)."""
    text = "\n".join(m.text for m in messages)
    prompt = parse_judge_prompt(text)
    if prompt is None:
        raise ValueError(f"{JUDGE_NAME}: the request holds no judge rubric (harness.judge_prompt.RUBRICS)")
    wanted = _wanted(prompt)
    missing = [w for w in wanted if not keyword_verdict(prompt.answer, w)]
    found = bool(wanted) and not missing
    said = f"names {', '.join(wanted)}" if found else f"does not name {', '.join(missing) or 'anything expected'}"
    return {
        "reasoning": f"Under the {prompt.rubric} rubric, the answer {said}. "
        f"Thus, the score should be: {'true' if found else 'false'}.",
        "score": found,
    }


class ReferenceJudgeModel(BaseChatModel):
    """Deterministic keyword judge (see the module docstring); simulated, and results say so."""

    simulated: ClassVar[bool] = True  # the capability `harness.agent.models.is_simulated` reads
    model_name: str = JUDGE_NAME

    @property
    def _llm_type(self) -> str:
        return "harness-reference-judge"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001 - LangChain's signature
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        tools = kwargs.get("tools")
        if any(PROPOSAL_TAG in m.text for m in messages):  # asked to propose a session's probes: it proposes none
            message = AIMessage(content="[]")
        elif tools:
            verdict = judge_messages(messages)
            call_id = "call_" + hashlib.sha256(json.dumps(verdict, sort_keys=True).encode()).hexdigest()[:16]
            name = tools[0]["function"]["name"]
            message = AIMessage(content="", tool_calls=[{"name": name, "args": verdict, "id": call_id, "type": "tool_call"}])
        else:
            message = AIMessage(content=json.dumps(judge_messages(messages)))
        message.response_metadata["model_name"] = self.model_name
        message.usage_metadata = simulated_usage(messages, tools, message)  # what harness serve reports for it
        return ChatResult(generations=[ChatGeneration(message=message)])
