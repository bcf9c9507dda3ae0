"""The stand-in judge: a deterministic chat model that grades `harness.judge_prompt` prompts by keyword.

It makes the judge path (openevals' ``create_llm_as_judge``, LangChain's structured output, the OpenAI client
through ``harness serve``) run end to end with no key. Its verdict is a pure function of the messages it is
sent: true when the expected value appears in the answer as a whole word, whatever the context. That is a
known blind spot, kept on purpose so calibration has something to find: "not pg-16" and "pg-16 or mysql-8" are
judged true, where the deterministic check (`harness.task_format.extract_value`) says false.

It answers in the shape it is asked for: with tools bound (LangChain's default ``with_structured_output`` binds
the schema as a tool, openevals' path for a chat model) a tool call to the first tool whose arguments are
``reasoning`` and ``score``; without tools (OpenAI's ``response_format`` json_schema, ChatOpenAI's default) the same
object as JSON text.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.judge_prompt import parse_judge_prompt

JUDGE_NAME = "reference-judge"


def keyword_verdict(answer: str, expected: str) -> bool:
    """True when ``expected`` appears in ``answer`` as a whole word (case-insensitive): the stand-in's whole rule."""
    return re.search(rf"(?<![A-Za-z0-9\-]){re.escape(expected)}(?![A-Za-z0-9\-])", answer, re.IGNORECASE) is not None


def judge_messages(messages: list[BaseMessage]) -> dict[str, Any]:
    """The stand-in's verdict on a judge request: ``{"reasoning": ..., "score": bool}``. Raises ValueError when the
    request holds no rubric prompt (the stand-in grades nothing else)."""
    text = "\n".join(m.text for m in messages)
    prompt = parse_judge_prompt(text)
    if prompt is None:
        raise ValueError(f"{JUDGE_NAME}: the request holds no judge rubric (harness.judge_prompt.JUDGE_PROMPT)")
    found = keyword_verdict(prompt.answer, prompt.expected)
    said = "names" if found else "does not name"
    return {
        "reasoning": f"The answer {said} the expected value {prompt.expected}. "
        f"Thus, the score should be: {'true' if found else 'false'}.",
        "score": found,
    }


class ReferenceJudgeModel(BaseChatModel):
    """Deterministic keyword judge (see the module docstring); simulated, and results say so."""

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
        verdict = judge_messages(messages)
        tools = kwargs.get("tools")
        if tools:
            call_id = "call_" + hashlib.sha256(json.dumps(verdict, sort_keys=True).encode()).hexdigest()[:16]
            name = tools[0]["function"]["name"]
            message = AIMessage(content="", tool_calls=[{"name": name, "args": verdict, "id": call_id, "type": "tool_call"}])
        else:
            message = AIMessage(content=json.dumps(verdict))
        message.response_metadata["model_name"] = self.model_name
        return ChatResult(generations=[ChatGeneration(message=message)])
