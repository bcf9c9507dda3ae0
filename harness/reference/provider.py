"""The reference models as a provider: ``reference:agent``, ``reference:summarizer``, ``reference:judge``.

`harness.agent.models` looks a model spec's provider up in its table of in-process providers (``reference`` maps to
this module, imported on first use, the way ``init_chat_model`` imports a provider's package) and asks `chat_model`
for the model of a role. The spellings users type stay valid: no model, ``reference`` and the models' own names
(``reference-agent``, ``reference-summarizer``; ``reference-judge`` for the judge), each meaning the model of the
role it is given for. The models built here say what they are by capability (`harness.agent.models.is_simulated`),
never by their type. This module imports the models only when one is built.
"""

from __future__ import annotations

from typing import Any

from harness.errors import ConfigError
from harness.reference.names import AGENT_NAME, PROVIDER, ROLE_NAMES, SUMMARIZER_NAME

BARE = (PROVIDER, AGENT_NAME, SUMMARIZER_NAME)  # bare names that mean "the reference model of this role", as before


def knows(bare: str, role: str) -> bool:
    """Whether ``bare`` (a spec without ``provider:``) names this provider's model for ``role``."""
    return bare in (*BARE, ROLE_NAMES.get(role))


def chat_model(name: str, role: str, *, window: int, seed: int = 0, option: str = "--model", **options: Any) -> Any:
    """The reference model ``name`` (a role, ``agent``/``summarizer``/``judge``, or a bare name `knows`; empty: the
    role's) for ``role``, declared ``window``; ``options`` are the model's own fields (seeded faults, a hard input
    limit). ConfigError, naming ``option``, for a name this provider has no model for or the model of another role."""
    wanted = name or role
    if wanted not in ROLE_NAMES and not knows(wanted, role):
        raise ConfigError(
            f"{option} {PROVIDER}:{name}: the reference provider's models are {', '.join(f'{PROVIDER}:{r}' for r in ROLE_NAMES)}"
        )
    if wanted in ROLE_NAMES and wanted != role:
        raise ConfigError(
            f"{option} {PROVIDER}:{name} is the reference {wanted}; here the {role} is asked for: {PROVIDER}:{role}"
        )
    if role == "agent":
        from harness.reference.models import ReferenceAgentModel

        return ReferenceAgentModel(profile={"max_input_tokens": window}, **options)
    if role == "summarizer":
        from harness.reference.models import ReferenceSummarizerModel

        return ReferenceSummarizerModel(seed=seed, **options)
    from harness.reference.judge import ReferenceJudgeModel

    return ReferenceJudgeModel(**options)
