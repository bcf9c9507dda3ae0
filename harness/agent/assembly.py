"""The user's own deep agent under test (``--agent MODULE:FUNCTION``): its factory loaded, called and checked.

A factory is a function of no arguments that returns the keyword arguments of `deepagents.create_deep_agent` for the
user's assembly: ``tools``, ``system_prompt``, ``subagents``, ``backend``, ``middleware``, ``memory``, ``skills``,
``store``, ``permissions``... It is named ``module:function`` (a setting of every door: ``--agent``, a spec's
``agent:``, `harness.evaluate(agent=...)`, which also takes the function itself). The module is imported by the one
rule for a user's module (`harness.user_code`: as Python finds it, the working directory searched last), in the
process that runs the case: a spawned worker and a version arm's worker import it again, from the same working
directory.

The factory is called once by the early checks (`harness.runs.early`), before anything is written, and then once per
case, so each case gets a fresh backend and store. `assembly_kwargs` refuses (ConfigError, exit 2, naming the factory
and what) a factory that does not import, is not callable, raises, returns anything but a mapping of
create_deep_agent's keywords, or passes what the harness supplies (`REFUSED`: the model, the checkpointer, a human in
the loop), a subagent's own model, a middleware named ``SummarizationMiddleware`` (it would take the slot the
harness's compaction strategy takes), or a tool named as the harness's scenario tools (`HARNESS_TOOLS`).

How the assembly and the harness's own parts are merged is stated once, in `harness.agent.build.build_agent`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from harness.errors import ConfigError
from harness.user_code import import_user_module

AgentSpec = str | Callable[[], Mapping[str, Any]]
"""An agent assembly as a door takes it: ``module:function``, or (`harness.evaluate`) the function itself."""

OPTION = "--agent"

SLOT_NAME = "SummarizationMiddleware"
"""The name deepagents replaces its summarization entry by: a middleware of the assembly's with this name would take
the place of the harness's compaction strategy."""

HARNESS_TOOLS = ("fetch_document",)
"""The tools a scenario gives the agent (`harness.agent.tools`); a case needs them beside the assembly's own."""

REFUSED: dict[str, str] = {
    "model": "the harness supplies the model under test (--model; offline, the reference agent)",
    "checkpointer": "the harness runs every case on its own thread of an in-memory checkpointer and reads the "
    "thread's final state",
    "interrupt_on": "a case has no human to approve a tool call",
}
"""The create_deep_agent keywords the harness supplies itself, and why an assembly may not pass them."""


def agent_name(spec: AgentSpec) -> str:
    """How runs record an assembly (meta.json's ``agent``): the ``module:function`` given, or a function's own
    ``module:qualname``."""
    if isinstance(spec, str):
        return spec
    return f"{getattr(spec, '__module__', '?')}:{getattr(spec, '__qualname__', type(spec).__name__)}"


def load_factory(spec: AgentSpec, option: str = OPTION) -> Callable[[], Any]:
    """The factory ``spec`` names (ConfigError naming ``option`` when it is malformed, does not import, or is not
    callable)."""
    if not isinstance(spec, str):
        if not callable(spec):
            raise ConfigError(f"{option}: {spec!r} is not a function: give MODULE:FUNCTION or the function itself")
        return spec
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise ConfigError(
            f"{option} {spec!r}: write MODULE:FUNCTION (e.g. examples.my_agent.agent:make), a function that returns "
            "create_deep_agent's keyword arguments"
        )
    found: Any = import_user_module(module_name, spec, option)  # the one rule for a user's module (`harness.user_code`)
    for part in attr.split("."):
        if not hasattr(found, part):
            raise ConfigError(f"{option} {spec}: module {module_name!r} has no {attr!r}")
        found = getattr(found, part)
    if not callable(found):
        raise ConfigError(f"{option} {spec}: {attr!r} is not callable ({type(found).__name__})")
    return found


def assembly_kwargs(spec: AgentSpec, option: str = OPTION) -> dict[str, Any]:
    """Call the factory ``spec`` names and check what it returns (the module docstring's refusals): the keyword
    arguments of the user's assembly, for `harness.agent.build.build_agent`."""
    factory = load_factory(spec, option)
    where = f"{option} {agent_name(spec)}"
    try:
        returned = factory()
    except Exception as exc:  # noqa: BLE001 - a factory that raises is bad input, named with its error
        raise ConfigError(f"{where}: calling it raised {type(exc).__name__}: {exc}") from None
    if not isinstance(returned, Mapping):
        raise ConfigError(f"{where}: it returned a {type(returned).__name__}, not a dict of create_deep_agent keyword arguments")
    kwargs = dict(returned)
    check_assembly(kwargs, where)
    return kwargs


def create_deep_agent_keywords() -> tuple[str, ...]:
    """The keyword arguments the installed `deepagents.create_deep_agent` takes."""
    from deepagents import create_deep_agent

    return tuple(inspect.signature(create_deep_agent).parameters)


def check_assembly(kwargs: Mapping[str, Any], where: str) -> None:
    """Raise ConfigError (prefixed ``where``) for the first thing in ``kwargs`` the harness cannot run as given."""
    known = create_deep_agent_keywords()
    for key in kwargs:
        if key not in known:
            from importlib.metadata import version

            raise ConfigError(
                f"{where}: {key!r} is not a keyword of create_deep_agent (deepagents {version('deepagents')} takes "
                f"{', '.join(k for k in known if k not in REFUSED)})"
            )
        if key in REFUSED:
            raise ConfigError(f"{where}: it passes its own {key!r}: {REFUSED[key]}; leave it out")
    for key in ("tools", "middleware", "subagents", "memory", "skills"):
        value = kwargs.get(key)
        if value is not None and (isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence)):
            raise ConfigError(f"{where}: {key!r} is a {type(value).__name__}, not a list")
    prompt = kwargs.get("system_prompt")
    if prompt is not None and not isinstance(prompt, str):
        from langchain_core.messages import SystemMessage

        if not isinstance(prompt, SystemMessage):
            raise ConfigError(f"{where}: 'system_prompt' is a {type(prompt).__name__}, not a str or a SystemMessage")
    for i, sub in enumerate(kwargs.get("subagents") or ()):
        if isinstance(sub, Mapping) and "model" in sub:
            raise ConfigError(
                f"{where}: subagents[{i}] ({sub.get('name')!r}) passes its own 'model': the harness runs every "
                "subagent on the model under test; leave it out"
            )
    for at, middleware in _middleware(kwargs):
        if getattr(middleware, "name", None) == SLOT_NAME:
            raise ConfigError(
                f"{where}: {at} is a summarization middleware ({type(middleware).__name__}): the harness puts its "
                "compaction strategy (--strategy) in deepagents' summarization slot; leave it out"
            )
    for i, tool in enumerate(kwargs.get("tools") or ()):
        name = tool.get("name") if isinstance(tool, Mapping) else getattr(tool, "name", getattr(tool, "__name__", None))
        if name in HARNESS_TOOLS:
            raise ConfigError(
                f"{where}: tools[{i}] is named {name!r}, as the harness's scenario tool a case needs beside the "
                "assembly's own; rename it"
            )


def _middleware(kwargs: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(where, middleware) for every middleware of the assembly: its own and each declarative subagent's."""
    for i, middleware in enumerate(kwargs.get("middleware") or ()):
        yield f"middleware[{i}]", middleware
    for i, sub in enumerate(kwargs.get("subagents") or ()):
        if isinstance(sub, Mapping):
            for j, middleware in enumerate(sub.get("middleware") or ()):
                yield f"subagents[{i}].middleware[{j}]", middleware


def is_declarative(subagent: object) -> bool:
    """A declarative subagent spec (deepagents builds its stack, summarization included), not a compiled or remote
    one (whose compaction is its own)."""
    return isinstance(subagent, Mapping) and "runnable" not in subagent and "graph_id" not in subagent
