"""The cases: dataset rows and their validation, loading and selecting scenarios, and the generated families.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Scenario": "model",
        "ScenarioRow": "model",
        "load_scenarios": "schema",
        "select": "schema",
        "all_scenario_files": "schema",
        "probe_rows": "probes",
    },
)
