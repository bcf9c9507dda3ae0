"""When this process may fork: the one test shared by the workers that run cases ahead (`harness.runs.pool.RunAhead`) and
the charts drawn beside a report (`harness.report.apart`)."""

from __future__ import annotations

import os
import threading


def can_fork() -> bool:
    """Forking is safe here: POSIX, and this thread the only one running (a fork copies no other thread, so a lock
    another thread held would stay held in the child)."""
    return hasattr(os, "fork") and threading.active_count() == 1
