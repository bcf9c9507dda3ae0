"""Evaluation and stress-testing harness for context compression in deepagents.

The public API is re-exported here, lazily: ``import harness`` is cheap, and each name
imports its module (and deepagents, pandas or matplotlib behind it) on first use.
Private helpers live in ``_``-prefixed modules.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness._version import __version__

_EXPORTS = {
    "evaluate": "api",
    "EvalRun": "api",
    "EvalSession": "runs.executor",
    "CaseResult": "suites.execute",
    "Settings": "suites.execute",
    "run_eval_case": "suites.execute",
    "BuiltAgent": "agent.build",
    "build_agent": "agent.build",
    "DEFAULT_PRESET": "compaction.config",
    "PRESETS": "compaction.config",
    "ArgTruncation": "compaction.config",
    "CompactionConfig": "compaction.config",
    "ContextSize": "compaction.config",
    "get_preset": "compaction.config",
    "make_config": "compaction.variants",
    "ConfigError": "errors",
    "DatasetError": "errors",
    "HarnessError": "errors",
    "LiveModelUnavailable": "errors",
    "calls_frame": "trace.frames",
    "events_frame": "trace.frames",
    "ModelChoice": "agent.models",
    "choose_models": "agent.models",
    "plot_token_curves": "report.plots",
    "Recorder": "trace.recorder",
    "write_report": "report.run_report",
    "read_results": "runs.results",
    "run_case": "agent.runner",
    "Scenario": "scenarios.schema",
    "load_scenarios": "scenarios.schema",
    "select": "scenarios.schema",
    "Score": "scoring.scorers",
    "score_case": "scoring.scorers",
    "run_cases": "runs.run",
    "cells_frame": "analysis.compare",
    "compare": "analysis.compare",
    "pass_at_k": "analysis.compare",
    "load_spec": "runs.spec",
    "run_experiment": "runs.grid",
    "load_experiment": "report.experiment_report",
    "load_variant": "compaction.variants",
    "variant_names": "compaction.variants",
    "Trace": "trace.schema",
    "load_trace": "trace.schema",
}
__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"harness.{module}"), name)
    globals()[name] = value
    return value
