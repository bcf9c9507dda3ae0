"""What is compacted and how: configurations and presets, summary-prompt variants, and the strategies (built in or
from installed packages).

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "CompactionConfig": "config",
        "ContextSize": "config",
        "ArgTruncation": "config",
        "PRESETS": "config",
        "DEFAULT_PRESET": "config",
        "get_preset": "config",
        "make_config": "variants",
        "load_variant": "variants",
        "variant_names": "variants",
        "Strategy": "strategies.base",
        "StrategyInfo": "strategies.base",
        "StrategyStack": "strategies.base",
        "strategy_names": "strategies.names",
    },
)
