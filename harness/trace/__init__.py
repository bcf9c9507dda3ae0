"""What the model saw: the trace (every call, every compaction event), the recorder that writes it, and pandas
frames of both.

The names below are this package's public face, imported from their modules on first use."""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "Trace": "schema",
        "load_trace": "schema",
        "Recorder": "recorder",
        "calls_frame": "frames",
        "events_frame": "frames",
    },
)
