"""Running cases and grids into directories of rows and traces, reading them back, and eval sessions.

A row is typed: `ResultRow` (results.jsonl), `CellRow` (cells.jsonl), `RunMeta` and `ExperimentMeta` (meta.json), each
checked as it is written and read.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "run_cases": "run",
        "run_experiment": "grid",
        "merge_experiments": "merge",
        "load_spec": "spec",
        "ExperimentSpec": "spec",
        "read_results": "results",
        "read_rows": "results",
        "read_cells": "results",
        "read_experiment": "results",
        "upgrade_row": "results",
        "EvalSession": "executor",
        # the types of what a run writes, and the one writer and readers of meta.json (defined in the bedrock layer)
        "ResultRow": "harness.rows",
        "CellRow": "harness.rows",
        "RunMeta": "harness.rows",
        "ExperimentMeta": "harness.rows",
        "write_meta": "harness.rows",
        "read_run_meta": "harness.rows",
        "read_experiment_meta": "harness.rows",
        "ROW_SCHEMA_VERSION": "harness.rows",
        "META_SCHEMA_VERSION": "harness.rows",
    },
)
