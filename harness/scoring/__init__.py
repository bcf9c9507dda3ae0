"""Scoring a trace: the scorers and their registry (`scoring.scorers`), per-case metrics and cost, and the judge
and its calibration.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Score": "scorers",
        "score_case": "scorers",
        "scorer": "scorers",
        "outcome": "scorers",
        "case_metrics": "metrics",
        "calibrate": "calibration",
        "choose_judge": "judge",
    },
)
