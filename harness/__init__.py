"""Evaluation and stress-testing harness for context compression in deepagents.

The public API is re-exported here, lazily: ``import harness`` is cheap, and each name
imports its module (and deepagents, pandas or matplotlib behind it) on first use.
Private helpers live in ``_``-prefixed modules.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "BuiltAgent": "agent", "build_agent": "agent",
    "DEFAULT_PRESET": "config", "PRESETS": "config", "ArgTruncation": "config", "CompactionConfig": "config",
    "ContextSize": "config", "get_preset": "config", "make_config": "config",
    "ConfigError": "errors", "DatasetError": "errors", "HarnessError": "errors", "LiveModelUnavailable": "errors",
    "calls_frame": "frames", "events_frame": "frames",
    "ModelChoice": "models", "choose_models": "models",
    "plot_token_curves": "plots",
    "Recorder": "recorder",
    "write_report": "report",
    "read_results": "results",
    "run_case": "runner",
    "Scenario": "scenarios", "load_scenarios": "scenarios", "select": "scenarios",
    "Score": "scorers", "score_case": "scorers",
    "run_suite": "suite",
    "cells_frame": "analysis", "compare": "analysis", "pass_at_k": "analysis",
    "load_spec": "experiment_spec", "run_experiment": "experiment", "load_experiment": "experiment_report",
    "load_variant": "variants", "variant_names": "variants",
    "Trace": "trace", "load_trace": "trace",
}
__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"harness.{module}"), name)
    globals()[name] = value
    return value
