"""What a running ``harness serve`` holds: its settings, faults, counters, prompt cache and stored responses."""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.reference.prompt_cache import PromptCache
from harness.reference.serve.faults import COMPACTION_MODES, Fault
from harness.reference.serve.wire import RequestError

COMPACTION_ID_PREFIX = "cmp_"
STORE_SIZE = 4096  # responses remembered for previous_response_id


class ResponseStore:
    """Stored responses (their whole input and output items) for ``previous_response_id``, bounded, thread-safe."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None:
        """Remember the items a response leaves in context."""
        with self._lock:
            self._items[response_id] = items
            while len(self._items) > STORE_SIZE:
                self._items.popitem(last=False)

    def get(self, response_id: str) -> list[dict[str, Any]]:
        """The items of a stored response; RequestError for a compaction id or an unknown one."""
        if response_id.startswith(COMPACTION_ID_PREFIX):
            raise RequestError(
                f"previous_response_id {response_id!r} is a compaction, not a response: send the compaction output "
                "as input instead"
            )
        with self._lock:
            items = self._items.get(response_id)
        if items is None:
            raise RequestError(f"Previous response with id '{response_id}' not found.")
        return items

    def clear(self) -> None:
        """Forget every stored response."""
        with self._lock:
            self._items.clear()


@dataclass
class ServerState:
    """A server's settings (latency, seed, usage, the tool-use rule), its faults, counters and stats, its prompt cache
    and stored responses, and the verdicts it keeps for the reasoning eval; shared by its handler threads."""

    latency: float = 0.0
    seed: int = 0
    max_model_len: int | None = None
    usage: bool = True  # report usage (deepagents scales its token count by it, as it does live)
    faults: list[Fault] = field(default_factory=list)
    requests: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    injected: Counter = field(default_factory=Counter)
    compactions: Counter = field(default_factory=Counter)  # native compactions made, per API (a null Anthropic block counts)
    in_flight: int = 0
    peak_in_flight: int = 0
    first_at: float | None = None  # monotonic time of the first and the latest chat request since the last reset
    last_at: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    cache: PromptCache = field(default_factory=PromptCache)  # the simulated prompt cache of /messages and /responses
    responses: ResponseStore = field(default_factory=ResponseStore)  # stored responses, for previous_response_id
    tool_use_rule: bool = False  # /messages also enforces the tool-use continuation rule for thinking (reasoning.py)
    verdicts: list[dict[str, Any]] | None = None  # when a list: every answered request's API, status and error, in order

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": dict(self.requests),
                "statuses": {str(k): v for k, v in self.statuses.items()},
                "faults_injected": dict(self.injected),
                "compactions": dict(self.compactions),
                "faults": [asdict(f) for f in self.faults],
                "in_flight": self.in_flight,
                "peak_in_flight": self.peak_in_flight,
                "cpu_s": round(time.process_time(), 3),  # the server process's CPU time so far (harness bench)
                "window_s": round(self.last_at - self.first_at, 4)
                if self.first_at is not None and self.last_at is not None
                else 0.0,
            }

    def reset(self) -> None:
        with self.lock:
            self.faults.clear()
            for counter in (self.requests, self.statuses, self.injected, self.compactions):
                counter.clear()
            self.peak_in_flight = self.in_flight
            self.first_at = self.last_at = None
        self.cache.clear()
        self.responses.clear()
        if self.verdicts is not None:
            self.verdicts.clear()

    def record(self, api: str, body: dict[str, Any], status: int, error: str | None = None) -> None:
        """Keep the verdict on a request (its API, the body received, the status, the error) when ``verdicts`` is
        a list: what the provider received and whether it accepted it, for the reasoning eval."""
        if self.verdicts is not None:
            with self.lock:
                self.verdicts.append({"api": api, "body": body, "status": status, "error": error})

    def pick_fault(self, scope: str, compaction: bool = False) -> Fault | None:
        """The fault that fires on this request of ``scope``, if any; ``compaction``: the one that fires on a
        native compaction (only the compaction modes, which never fire elsewhere)."""
        with self.lock:
            for fault in self.faults:
                if (fault.mode in COMPACTION_MODES) == compaction and fault.take(scope):
                    self.injected[f"{fault.mode}@{scope}"] += 1
                    return fault
        return None

    def compaction_fault(self, scope: str) -> str | None:
        """The mode of the compaction fault that fires on a native compaction made for a request of ``scope``, or
        None: what an API asks when (and only when) a compaction fires."""
        fault = self.pick_fault(scope, compaction=True)
        return fault.mode if fault else None
