"""Running cases and grids into directories of rows and traces, reading them back, and eval sessions.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "run_cases": "run",
        "run_experiment": "grid",
        "merge_experiments": "grid",
        "load_spec": "spec",
        "ExperimentSpec": "spec",
        "read_results": "results",
        "read_rows": "results",
        "read_cells": "results",
        "read_experiment": "results",
        "upgrade_row": "results",
        "EvalSession": "executor",
    },
)
