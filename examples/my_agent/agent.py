"""An example of your own deep agent: `make()` returns the keyword arguments of `create_deep_agent` for it.

    harness run --agent examples.my_agent.agent:make --kind needle --limit 2

The harness adds its model, its compaction strategy, its recorder and its seeded faults, and the case's own tools
(docs/your-agent.md); everything else is this assembly's:

- a custom tool (`lookup_ticket`);
- a `CompositeBackend`: files in the agent's state, except ``/memories/``, routed to a `StoreBackend` on an in-memory
  store (each call of `make` gets a fresh one, so no case sees another's files);
- an AGENTS.md memory file (this directory's), put in that store and loaded by deepagents' memory middleware
  (``memory=["/memories/AGENTS.md"]``);
- a subagent (``researcher``) with its own prompt and the custom tool.

No ``model`` and no summarization middleware: those are what the harness puts under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends import CompositeBackend, StateBackend, StoreBackend
from langchain_core.tools import tool
from langgraph.store.memory import InMemoryStore

MEMORY_NAMESPACE = ("my-agent", "memories")
AGENTS_MD = Path(__file__).with_name("AGENTS.md")

SYSTEM_PROMPT = (
    "You are a support engineer's assistant. Use your tools to look things up, keep notes in files, and say plainly "
    "when you do not know something."
)

TICKETS = {
    "T-100": "open: login page times out behind the corporate proxy",
    "T-101": "closed: export to CSV drops the header row (fixed in 2.4.1)",
}


@tool
def lookup_ticket(ticket_id: str) -> str:
    """Look up a support ticket by its id (for example T-100) and return its status and title."""
    return TICKETS.get(ticket_id, f"Error: no ticket {ticket_id!r}")


def make() -> dict[str, Any]:
    """The keyword arguments of `deepagents.create_deep_agent` for this assembly (a fresh store each call)."""
    store = InMemoryStore()
    store.put(MEMORY_NAMESPACE, "/AGENTS.md", {"content": AGENTS_MD.read_text(encoding="utf-8"), "encoding": "utf-8"})
    backend = CompositeBackend(
        default=StateBackend(),
        routes={"/memories/": StoreBackend(namespace=lambda _runtime: MEMORY_NAMESPACE, store=store)},
    )
    researcher = {
        "name": "researcher",
        "description": "Researches a question across tickets and notes and reports back in a short paragraph.",
        "system_prompt": "You research one question and answer it in a short paragraph, citing ticket ids.",
        "tools": [lookup_ticket],
    }
    return {
        "tools": [lookup_ticket],
        "system_prompt": SYSTEM_PROMPT,
        "subagents": [researcher],
        "backend": backend,
        "store": store,
        "memory": ["/memories/AGENTS.md"],
    }
