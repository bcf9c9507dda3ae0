"""Comparing result sets: intervals, paired tests and pass@k (`compare`), the nightly gate (`regress`), and
the token-counter skew (`skew`).

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "compare": "compare",
        "cells_frame": "compare",
        "pass_at_k": "compare",
        "regress": "regress",
        "write_baseline": "regress",
        "skew": "token_skew",
    },
)
