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
core entries, i.e. inside summarization: it sees each request as the model gets it, except
what deepagents' tail adds after every passed middleware (the memory and skills sections of
the system prompt, when a user's assembly passes ``memory`` or ``skills``); the recorder's
callback reads the system prompt as sent (``sent_system_key``).

A user's own assembly (``--agent``: `harness.agent.assembly`) is merged with the harness's
parts by the one rule `build_agent` states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    assembly: Mapping[str, Any] | None = None,
    subagent_models: Mapping[str, BaseChatModel] | None = None,
    subagent_middleware: Sequence[Any] = (),
    sessions: da.StableSessions | None = None,
) -> BuiltAgent:
    """The real `create_deep_agent` with ``config``'s strategy in deepagents' summarization slot (and its eviction
    setting), the strategy's own middleware and ``middleware`` (the runner's recorder, a fault's) after it, ``tools``,
    a state backend and an in-memory checkpointer; ``summarizer``: the summary model (default: ``model``).

    ``assembly``: the keyword arguments of the user's own agent (`harness.agent.assembly.assembly_kwargs`, checked),
    merged by one rule. The harness's model, checkpointer and summarization slot always; the assembly's tools first,
    then the case's (``fetch_document``); its system prompt first, then the case's, a blank line between; its
    middleware after the strategy's own and before ``middleware`` (a fault's, the recorder, which stays innermost of
    them); its backend unless a seeded fault brings one (``backend``: the mechanism a fault breaks); each of its
    declarative subagents gets the harness's summarization slot too, as deepagents' general-purpose subagent does;
    everything else it passes (memory, skills, store, permissions, ...) as it is. An assembly middleware named as one
    of the harness's own under ``config`` is refused (ConfigError): one of the two would be dropped.

    ``subagent_models``: the harness's own declarative subagents, name -> model (an eval's: `harness.suites.execute`),
    each with deepagents' general-purpose prompt and the parent's tools, and the strategy's slot built for its own
    model, so a fraction resolves against that model's window as deepagents' own default does (the parent's slot
    would resolve it against the parent's: deepagents#802's shape); ``subagent_middleware`` (the recorder's subagent
    probe) after the slot in each, so it sees each request as that model gets it. ``sessions`` (offline): every
    deepagents summarization middleware built here, the subagents' too, names its history files from the case, not uuid4."""
    from deepagents import create_deep_agent
    from deepagents.backends import StateBackend
    from deepagents.middleware import FilesystemMiddleware
    from langgraph.checkpoint.memory import InMemorySaver

    user = dict(assembly or {})
    user_backend = user.pop("backend", None)
    if backend is None:
        backend = user_backend
    if backend is None:
        from harness.agent.media import media_backend

        backend = media_backend() if config.offload_binary else StateBackend()
    model = with_window(model, config.window)
    stack = build_strategy(config, model, backend=backend, summarizer=summarizer)
    if sessions is not None:  # the general-purpose subagent's and an assembly's declarative subagents' slot too
        sessions.install(stack.summarization)
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
    ours = [*replacements, *stack.inner, *extra]
    user_middleware = list(user.pop("middleware", None) or [])
    taken = next((m.name for m in user_middleware if getattr(m, "name", None) in {o.name for o in ours}), None)
    if taken is not None:
        raise ConfigError(
            f"the agent assembly's middleware {taken!r} takes the place of the harness's own under {config.label()} "
            "(one of the two would be dropped); leave it out"
        )
    if user.get("subagents") is not None:
        from harness.agent.assembly import is_declarative

        user["subagents"] = [
            {**s, "middleware": [*(s.get("middleware") or []), stack.slot]} if is_declarative(s) else s for s in user["subagents"]
        ]
    if subagent_models:
        own = _own_subagents(
            config, subagent_models, subagent_middleware, backend=backend, summarizer=summarizer, sessions=sessions
        )
        clash = {s["name"] for s in own} & {s.get("name") for s in user.get("subagents") or () if isinstance(s, Mapping)}
        if clash:
            raise ConfigError(f"the agent assembly declares the subagent {sorted(clash)[0]!r}, which this eval declares itself")
        user["subagents"] = [*(user.get("subagents") or []), *own]
    graph = create_deep_agent(
        model=stack.model if stack.model is not None else model,  # a provider-native strategy runs its own
        tools=[*(user.pop("tools", None) or []), *tools],
        system_prompt=_joined_prompt(user.pop("system_prompt", None), system_prompt),
        middleware=[*ours, *user_middleware, *middleware],
        backend=backend,
        checkpointer=checkpointer if checkpointer is not None else InMemorySaver(),
        **user,
    )
    return BuiltAgent(graph=graph, summarization=stack.summarization, backend=backend)


def _own_subagents(
    config: CompactionConfig,
    models: Mapping[str, BaseChatModel],
    middleware: Sequence[Any],
    *,
    backend: Any,
    summarizer: BaseChatModel | None,
    sessions: da.StableSessions | None = None,
) -> list[dict[str, Any]]:
    """The harness's declarative subagents: deepagents' general-purpose spec under each name, on its model, with the
    strategy's slot built for that model's declared window (its profile's max_input_tokens, else the config's)."""
    from dataclasses import replace

    from deepagents.middleware.subagents import GENERAL_PURPOSE_SUBAGENT

    specs = []
    for name, model in models.items():
        profile = model.profile if isinstance(model.profile, dict) else {}
        window = profile.get("max_input_tokens")
        sub_config = replace(config, window=window) if isinstance(window, int) and window != config.window else config
        stack = build_strategy(sub_config, model, backend=backend, summarizer=summarizer)
        if sessions is not None:
            sessions.install(stack.summarization)
        specs.append({**GENERAL_PURPOSE_SUBAGENT, "name": name, "model": model, "middleware": [stack.slot, *middleware]})
    return specs


def _joined_prompt(user: Any, case: str | None) -> Any:
    """The assembly's system prompt (a str or a SystemMessage), then the case's, a blank line between."""
    if user is None or not case:
        return user if user is not None else case
    if isinstance(user, str):
        return f"{user}\n\n{case}"
    from langchain_core.messages import SystemMessage

    return SystemMessage(content_blocks=[*user.content_blocks, {"type": "text", "text": f"\n\n{case}"}])  # its cache markers kept
