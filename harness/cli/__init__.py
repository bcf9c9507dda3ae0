"""The `harness` command: one module per command group, `main` the entry point.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "main": "main",
    },
)
