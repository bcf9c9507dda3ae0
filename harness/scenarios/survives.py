"""The survives eval's case data and agent assembly (issue 34, eval 7): what comes back after a compaction.

``survives-ledgers-NN`` (`harness.scenarios.generate.survives_scenario`) is the ledger audit with its plan kept in
the todo list, run on an assembly with an AGENTS.md memory file and one skill (`assembly`, the eval's ``agent``): both
are seeded in the agent's files, deepagents' memory middleware loads ``/memories/AGENTS.md`` into the system prompt and
its skills middleware lists ``/skills/ledger-audit/``; the task's first step reads the skill's SKILL.md, the others
read each ledger and write a note on it. So when a summary fires, the agent had in view its system prompt, the memory text, the skills list, the
skill's body, the todo list and the files it read: the items the audit follows across the compaction.
"""

from __future__ import annotations

from typing import Any

MEMORY_FILE = "/memories/AGENTS.md"
SKILLS_DIR = "/skills/"
SKILL_FILE = "/skills/ledger-audit/SKILL.md"
LEDGER_LINES = 80  # as the goal cases' ledgers (about 1,500 tokens each)

MEMORY_TEXT = """# Ledger audit conventions

- Notes go under /notes/, one file per ledger, one line each.
- Amounts are in EUR unless a ledger states another currency.
- An entry over 10,000 EUR is flagged for review in its note.
- The audit lead is Mara Okafor; escalations go to her.
"""

SKILL_TEXT = """---
name: ledger-audit
description: How to audit one ledger file and write its one-line note under /notes/.
---

# Ledger audit

1. Read the ledger with read_file, the whole file.
2. Find the largest entry and its currency.
3. Write /notes/<ledger>.md with write_file: one line naming the largest entry.
4. Mark the ledger's todo completed.
"""


def assembly() -> dict[str, Any]:
    """The survives eval's agent assembly (``harness.scenarios.survives:assembly``): create_deep_agent's ``memory``
    and ``skills``, read from the case's seeded files through the harness's state backend."""
    return {"memory": [MEMORY_FILE], "skills": [SKILLS_DIR]}
