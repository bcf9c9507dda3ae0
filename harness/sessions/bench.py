"""The import figure of `harness bench`: a generated 10,000-message session imported end to end, timed in a fresh process.

Run as ``python -m harness.sessions.bench [MESSAGES]`` (`harness.bench.figures` starts it so, as it starts the other
timed processes): it writes an OpenAI JSONL session of system, user and then assistant tool calls with their results
(each about 300 characters, seeded), and a one-probe file, then times `import_session` on it (read, redact, check,
cut at 0.6 of its tokens, load back through the scenario loader, write), imports included, as ``harness import``
pays them. It prints one JSON object: messages, approximate tokens, the cut and the wall seconds.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

IMPORT_MESSAGES = 10_000
IMPORT_TARGET_S = 5.0


def generated_session(path: Path, messages: int, seed: int = 7) -> None:
    """An OpenAI JSONL session of ``messages`` messages: system, user, then (call, result) pairs."""
    rng = random.Random(seed)
    words = ["ledger", "migration", "table", "index", "shard", "billing", "export", "retry", "queue", "batch"]
    lines: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Migrate the billing tables; never drop the ledger."},
    ]
    n = 0
    while len(lines) < messages:
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": f"step {n}"})},
        }
        lines.append({"role": "assistant", "content": " ".join(rng.choices(words, k=20)), "tool_calls": [call]})
        lines.append({"role": "tool", "tool_call_id": f"c{n}", "content": " ".join(rng.choices(words, k=45))})
        n += 1
    path.write_text("".join(json.dumps(m) + "\n" for m in lines[:messages]), encoding="utf-8")


def import_figure(messages: int = IMPORT_MESSAGES) -> dict:
    """Wall seconds of one `import_session` of a generated ``messages``-message session (this process's first)."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-import-") as tmp:
        source, probes = Path(tmp) / "session.jsonl", Path(tmp) / "probes.jsonl"
        generated_session(source, messages)
        probe = {"question": "What must never be dropped?", "expected": ["the ledger"], "type": "constraint", "message": 1}
        probes.write_text(json.dumps(probe) + "\n", encoding="utf-8")
        started = time.perf_counter()
        from harness.sessions.importer import import_session

        done = import_session("openai", str(source), Path(tmp) / "out", cut="0.6", probes=str(probes))
        wall = time.perf_counter() - started
    return {
        "messages": done.size.messages,
        "tokens": done.size.tokens,
        "cut": done.cut.at,
        "wall_s": round(wall, 2),
        "target_s": IMPORT_TARGET_S,
    }


if __name__ == "__main__":
    print(json.dumps(import_figure(int(sys.argv[1]) if len(sys.argv) > 1 else IMPORT_MESSAGES)))
