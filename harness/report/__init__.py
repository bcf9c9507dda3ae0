"""Reports people read: a run's and an experiment's report.md (tables, token curves, charts), the validity matrix's
and the token-skew report, and the chart functions.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "write_report": "run_report",
        "write_experiment_report": "experiment_report",
        "load_experiment": "experiment_report",
        "plot_token_curves": "plots",
        "write_validity": "validity_report",
        "write_skew": "skew_report",
    },
)
