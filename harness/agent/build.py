"""The agent under test: the real `create_deep_agent`, with compaction forced by config.

The compaction strategy (``harness/compaction/strategies/``) supplies the middleware that
takes deepagents' summarization slot and any it adds inside it.

deepagents' `create_deep_agent` has no trigger/keep/prompt parameters. Its supported
override is a `SummarizationMiddleware` instance in ``middleware=``: the default entry
with the same ``.name`` is replaced in place, in the main agent and in the
general-purpose subagent. We pass the class itself (a subclass would report its own
name and be appended, leaving two summarizers in the stack).

The factory deepagents uses sets ``trim_tokens_to_summarize=None`` and profile-derived
argument truncation; the class defaults differ, so both are passed explicitly.

Other middleware passed here (the recorder) has a new name and lands right after the
core entries, i.e. inside summarization: it sees each request as the model gets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from harness import _deepagents_adapter as da
from harness.compaction.config import DEEPAGENTS_EVICTION_TOKENS, DEEPAGENTS_HUMAN_EVICTION_TOKENS, CompactionConfig
from harness.compaction.strategies.base import StrategyStack, with_window
from harness.errors import ConfigError


def build_strategy(config: CompactionConfig, model: Any, *, backend: Any, summarizer: Any = None) -> StrategyStack:
    """The middleware for ``config.strategy``: its registered module builds its own from released packages (the
    registry knows strategies by name; the config names one and is checked against the names). A provider-native
    strategy's stack also gets its agent model (`harness.agent.native_models.native_model`)."""
    from harness.compaction.strategies.registry import load  # local: the strategies import langchain middleware

    stack = load(config.strategy).build(config, model, backend=backend, summarizer=summarizer)
    if stack.provider is not None:  # a provider-native strategy: the agent runs on the provider's model
        from harness.agent.native_models import native_model

        stack.model = native_model(
            config.strategy, stack.provider, model, stack.provider_settings or {}, window=config.window, summarizer=summarizer
        )
    return stack


@dataclass
class BuiltAgent:
    """What `build_agent` returns: the compiled deep agent, its summarization middleware (if any) and its backend."""

    graph: Any  # the compiled deepagents graph
    summarization: Any  # deepagents' SummarizationMiddleware instance in its stack (None under other strategies)
    backend: Any


def build_agent(
    config: CompactionConfig,
    model: BaseChatModel,
    *,
    summarizer: BaseChatModel | None = None,
    tools: Sequence[Any] = (),
    middleware: Sequence[Any] = (),
    system_prompt: str | None = None,
    checkpointer: Any = None,
    backend: Any = None,
) -> BuiltAgent:
    """The real `create_deep_agent` with ``config``'s strategy in deepagents' summarization slot (and its eviction
    setting), the strategy's own middleware and ``middleware`` (the runner's recorder, a fault's) after it, ``tools``,
    a state backend and an in-memory checkpointer; ``summarizer``: the summary model (default: ``model``)."""
    from deepagents import create_deep_agent
    from deepagents.backends import StateBackend
    from deepagents.middleware import FilesystemMiddleware
    from langgraph.checkpoint.memory import InMemorySaver

    if backend is None:
        from harness.agent.media import media_backend

        backend = media_backend() if config.offload_binary else StateBackend()
    model = with_window(model, config.window)
    stack = build_strategy(config, model, backend=backend, summarizer=summarizer)
    replacements: list[Any] = [stack.slot]
    eviction = (config.eviction_tokens, config.human_eviction_tokens)
    if eviction != (DEEPAGENTS_EVICTION_TOKENS, DEEPAGENTS_HUMAN_EVICTION_TOKENS) or config.offload_binary:
        # Only when one differs: replacing it drops the model profile's tool-description overrides.
        # offload_binary_content only when on: deepagents 0.7.6 has no such option (`binary_offload_missing`)
        binary: dict[str, Any] = {da.BINARY_OFFLOAD: True} if config.offload_binary else {}
        if binary and (missing := da.binary_offload_missing()):
            raise ConfigError(f"config {config.name!r}: offload_binary is on, but {missing}")
        replacements.append(
            FilesystemMiddleware(
                backend=backend,
                tool_token_limit_before_evict=config.eviction_tokens,
                human_message_token_limit_before_evict=config.human_eviction_tokens,
                **binary,
            )
        )
    extra: list[Any] = []
    if config.compact_tool and stack.summarization is not None:
        from deepagents.middleware.summarization import SummarizationToolMiddleware

        extra.append(SummarizationToolMiddleware(stack.summarization, system_prompt=None))  # called when a task says so
    graph = create_deep_agent(
        model=stack.model if stack.model is not None else model,  # a provider-native strategy runs its own
        tools=list(tools),
        system_prompt=system_prompt,
        middleware=[*replacements, *stack.inner, *extra, *middleware],
        backend=backend,
        checkpointer=checkpointer if checkpointer is not None else InMemorySaver(),
    )
    return BuiltAgent(graph=graph, summarization=stack.summarization, backend=backend)
