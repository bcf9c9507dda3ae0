"""Worker processes that end with their parent, and endpoints a worker can be handed.

Every pool of worker processes (`harness.runs.pool`: forked offline workers, spawned live workers, cases run ahead)
starts its workers with `end_with_parent`, so a parent killed with ``kill -9`` leaves no orphan running cases; a
spawned worker gets the run's endpoints `without_limiter` and builds its share of the limits itself.
"""

from __future__ import annotations

import os
from dataclasses import replace

from harness.agent.models import Endpoint

PARENT_POLL_S = 0.5  # how often a worker checks that its parent is alive


def end_with_parent(parent_pid: int) -> None:
    """In a worker process: end it as soon as ``parent_pid`` is no longer its parent (the parent died, even by
    ``kill -9``, and the worker was handed to init). A daemon thread polls ``os.getppid()``, which works on every
    POSIX system and for forked and spawned workers alike; Linux's PR_SET_PDEATHSIG is not used because it fires when
    the *thread* that started the worker ends, not the process. Used as the initializer of every worker pool
    (`harness.runs.pool`)."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)  # no cleanup to wait for: the parent, the only writer, is gone

    threading.Thread(target=watch, name="harness-end-with-parent", daemon=True).start()


def without_limiter(endpoint: Endpoint) -> tuple[Endpoint, float | None, float | None]:
    """The endpoint without its shared limiters (they live in this process), and their rates: requests/s, tokens/min."""
    kwargs = dict(endpoint.model_kwargs)
    limiter = kwargs.pop("rate_limiter", None)
    tpm = endpoint.token_budget.tokens_per_minute if endpoint.token_budget is not None else None
    return replace(endpoint, model_kwargs=kwargs, token_budget=None), getattr(limiter, "requests_per_second", None), tpm
