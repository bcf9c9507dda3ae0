"""The agent under test: the real `create_deep_agent` with a compaction strategy, its models (the offline
reference models or a provider's), and running one case into a trace (`run_case`, `arun_case`).

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "build_agent": "build",
        "BuiltAgent": "build",
        "build_strategy": "build",
        "run_case": "runner",
        "arun_case": "runner",
        "choose_models": "models",
        "ModelChoice": "models",
        "Endpoint": "endpoints",
        "audit": "audit",
    },
)
