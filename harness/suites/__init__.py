"""The evals: one registry entry each (`SUITES`), their seeded faults, how an eval runs a case (`run_eval_case`),
and the validity matrix that proves each catches its faults.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "SUITES": "registry",
        "EvalSuite": "registry",
        "STANDARD_EVALS": "registry",
        "SEEDED_FAULTS": "faults",
        "run_eval_case": "execute",
        "arun_eval_case": "execute",
        "Settings": "execute",
        "CaseResult": "execute",
        "run_validity": "validity",
    },
)
