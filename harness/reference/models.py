"""The offline reference models as LangChain chat models.

`create_agent` calls ``bind_tools`` on the agent model, and deepagents calls the
summarizer with a single prompt; these classes adapt the pure policies in
``policy.py`` and ``summarizer.py`` to that interface and hold no per-run state.
Everything they produce is simulated, and results say so.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.reference import policy
from harness.reference.names import AGENT_NAME, SUMMARIZER_NAME
from harness.reference.replies import agent_reply, summary_reply

TOOL_CACHE_SIZE = 512  # tool objects remembered: a case builds about 30 (deepagents' tools for the agent and subagents)
_TOOL_SCHEMAS: dict[int, tuple[Any, dict[str, Any]]] = {}


def openai_tool(tool: Any) -> dict[str, Any]:
    """``convert_to_openai_tool(tool)``, converted once per tool object: create_agent binds the tools again before
    every model call, and converting a LangChain tool builds its JSON schema each time. The object is held beside
    its schema, so its id cannot be reused while it is cached; a dict is converted each time (it may be a new one
    at the same address)."""
    if isinstance(tool, dict):
        return convert_to_openai_tool(tool)
    hit = _TOOL_SCHEMAS.get(id(tool))
    if hit is not None and hit[0] is tool:
        return hit[1]
    if len(_TOOL_SCHEMAS) >= TOOL_CACHE_SIZE:
        _TOOL_SCHEMAS.clear()
    schema = convert_to_openai_tool(tool)
    _TOOL_SCHEMAS[id(tool)] = (tool, schema)
    return schema


class ReferenceAgentModel(BaseChatModel):
    """Deterministic tool-calling agent: its reply is a pure function of the request.

    With ``hard_input_limit`` it behaves like a provider that rejects requests whose
    exact token count (``provider_tokens`` in o200k_base, the encoding it is counted with as a current OpenAI
    model: `harness.trace.exact_tokens.REFERENCE_ENCODING`) exceeds the limit, raising the
    ContextOverflowError deepagents falls back on.

    ``trusts_clipped_args`` is a seeded fault for the truncation evals: the agent takes a
    write_file argument deepagents clipped for the file's full text.
    """

    simulated: ClassVar[bool] = True  # the capability `harness.agent.models.is_simulated` reads
    model_name: str = AGENT_NAME
    hard_input_limit: int | None = None
    trusts_clipped_args: bool = False
    takes_first_statement: bool = False  # seeded fault (stale-answer): answers with the first value stated, not the latest
    writes_todos_once: bool = False  # seeded fault (todos-not-updated): writes the todo list once and never updates it
    ignores_missing_blobs: bool = False  # seeded fault (missing-blob-ignored): never re-reads a file whose blob is gone
    repeats_after_summary: bool = False  # seeded fault (loop-without-progress): after a summary, makes its last call again

    @property
    def _llm_type(self) -> str:
        return "harness-reference-agent"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        """LangChain's run parameters, with no provider: LangChain would guess one from the class name
        (``referenceagentmodel``), and the recorder names a subagent's call by them (`harness.trace.recorder.model_name`),
        so the call is on ``reference-agent``, the name the harness gives this model and prices."""
        params = super()._get_ls_params(stop=stop, **kwargs)
        params.pop("ls_provider", None)
        return params

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_name": self.model_name,
            "trusts_clipped_args": self.trusts_clipped_args,
            "takes_first_statement": self.takes_first_statement,
            "writes_todos_once": self.writes_todos_once,
            "ignores_missing_blobs": self.ignores_missing_blobs,
            "repeats_after_summary": self.repeats_after_summary,
        }

    def bind_tools(self, tools, **kwargs):  # noqa: ANN001 - LangChain's signature
        return self.bind(tools=[openai_tool(t) for t in tools], **kwargs)

    def cannot_follow(self, task: str) -> str | None:
        """Why this agent cannot act on ``task`` (prose outside the step grammar it reads), or None: the capability
        `harness.agent.models.task_problem` reads."""
        return policy.cannot_follow(task)

    def served_as(self, provider: str, *, window: int, seed: int = 0) -> BaseChatModel:
        """This agent behind ``provider``'s own API: the provider's LangChain model pointed at this process's
        `harness serve` (`harness.reference.local`), for the provider-native strategies run offline."""
        from harness.reference.local import served_model

        return served_model(provider, window, seed=seed)

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        if kwargs.get("tools") is None:
            raise TypeError(
                "ReferenceAgentModel is the agent and was called without tools (as a summarizer?); "
                "use ReferenceSummarizerModel for summaries"
            )
        if self.hard_input_limit is not None:
            from langchain_core.exceptions import ContextOverflowError

            from harness.reference.provider_tokens import provider_tokens
            from harness.trace.exact_tokens import REFERENCE_ENCODING

            size = provider_tokens(messages, kwargs.get("tools"), REFERENCE_ENCODING)
            if size > self.hard_input_limit:
                raise ContextOverflowError(
                    f"prompt is too long: {size} tokens > {self.hard_input_limit} maximum "
                    f"(simulated provider, exact {REFERENCE_ENCODING} count)"
                )
        message = agent_reply(
            messages,
            model_name=self.model_name,
            trust_clipped_args=self.trusts_clipped_args,
            takes_first_statement=self.takes_first_statement,
            writes_todos_once=self.writes_todos_once,
            ignores_missing_blobs=self.ignores_missing_blobs,
            repeats_after_summary=self.repeats_after_summary,
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


class ReferenceSummarizerModel(BaseChatModel):
    """Deterministic extractive summarizer with seeded loss (see ``summarizer.py``).

    ``drop_types``, ``keep_first_value`` and ``forget_artifacts`` are seeded faults: typed facts of those types are
    never written; an updated fact is written with its first value; the artifacts section lists nothing.
    """

    simulated: ClassVar[bool] = True
    model_name: str = SUMMARIZER_NAME
    seed: int = 0
    detail_loss: float = 0.15
    intent_loss: float = 0.0
    drop_types: tuple[str, ...] = ()
    keep_first_value: bool = False
    forget_artifacts: bool = False

    @property
    def _llm_type(self) -> str:
        return "harness-reference-summarizer"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_name": self.model_name,
            "seed": self.seed,
            "detail_loss": self.detail_loss,
            "intent_loss": self.intent_loss,
            "drop_types": self.drop_types,
            "keep_first_value": self.keep_first_value,
            "forget_artifacts": self.forget_artifacts,
        }

    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:  # noqa: ANN001
        message = summary_reply(
            messages,
            model_name=self.model_name,
            seed=self.seed,
            detail_loss=self.detail_loss,
            intent_loss=self.intent_loss,
            drop_types=self.drop_types,
            keep_first_value=self.keep_first_value,
            forget_artifacts=self.forget_artifacts,
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
