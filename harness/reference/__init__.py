"""Offline, deterministic reference models that drive the real deepagents middleware, offered as the ``reference``
provider (`harness.reference.provider`) and served over HTTP by ``harness serve`` (`harness.reference.serve`).

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "AGENT_NAME": "names",
        "SUMMARIZER_NAME": "names",
        "JUDGE_NAME": "names",
        "ReferenceAgentModel": "models",
        "ReferenceSummarizerModel": "models",
        "ReferenceJudgeModel": "judge",
    },
)
