"""Media cases (issue 20), generated in memory: an image (PNG) and a binary file in the backend, read with read_file.

- ``media-parity-auto`` / ``media-parity-manual``: the same conversation (read an image, fetch documents) compacted
  automatically, or by the ``compact_conversation`` tool the task asks for; then a question only the image answers.
- ``media-blob-recovery``: the image and a binary file are read after a summary, kept in view, and asked about in
  later turns: each new turn rehydrates them from deepagents' blob store.

Each image carries its sentence in a PNG tEXt chunk (`harness.media_format`), so the reference agent sees it only
from the bytes it is sent.
"""

from __future__ import annotations

import random
from typing import Any

from harness.media_format import binary_with_text, data_url, png_with_text
from harness.task_format import Step, render_task

IMAGE = "/images/badge.png"
BINARY = "/data/seal.pdf"
MEDIA_CASES = ("media-parity-auto", "media-parity-manual", "media-blob-recovery")
_WORDS = ("pallet", "crate", "manifest", "dock", "carrier", "route", "ledger", "invoice", "bay", "forklift", "tag")


def _documents(rng: random.Random, n: int) -> list[dict[str, str]]:
    docs = []
    for i in range(1, n + 1):
        lines = [f"Shipping log {i:03d}."]
        lines += [" ".join(rng.choice(_WORDS) for _ in range(12)) + "." for _ in range(24)]
        docs.append({"id": f"DOC-{i:03d}", "text": "\n".join(lines)})
    return docs


def _code(rng: random.Random, prefix: str) -> str:
    return f"{prefix}-{rng.randint(1000, 9999)}"


def _question(key: str) -> str:
    return f"Question: What is the {key}? Reply with the value only."


def media_scenario(case_id: str, seed: int) -> dict[str, Any]:
    """The row of media case ``case_id`` (one of `MEDIA_CASES`). Raises KeyError for another id."""
    if case_id not in MEDIA_CASES:
        raise KeyError(case_id)
    rng = random.Random(f"media:{case_id.rsplit('-', 1)[0]}:{seed}")  # both parity arms get the same documents and code
    badge = _code(rng, "KESTREL")
    seal = _code(rng, "SEAL")
    files = [
        {"path": IMAGE, "content": data_url("image/png", png_with_text(f"the badge code is {badge}"))},
        {"path": BINARY, "content": data_url("application/pdf", binary_with_text(f"the seal number is {seal}"))},
    ]
    docs = _documents(rng, 6)
    fetch = [("fetch_document", d["id"]) for d in docs]
    if case_id == "media-blob-recovery":
        plan = [*fetch, ("read_file", IMAGE), ("read_file", BINARY)]
        needles = [("badge code", badge, IMAGE, 1), ("seal number", seal, BINARY, 2)]
        intro = "You are checking the dock records. Go through the logs, then look at the badge and the seal file."
    else:
        compact = [("compact_conversation", "")] if case_id.endswith("manual") else []
        plan = [("read_file", IMAGE), *fetch[:3], *compact, *fetch[3:]]
        needles = [("badge code", badge, IMAGE, 1)]
        intro = "You are checking the dock records. Look at the badge, then go through the logs" + (
            ", compacting the conversation when the steps say so." if compact else "."
        )
    steps = [Step(i + 1, tool, target) for i, (tool, target) in enumerate(plan)]
    steps.append(Step(len(steps) + 1, "reply"))
    return {
        "id": case_id,
        "kind": "goal",
        "description": f"media case {case_id} (issue 20): an image and a binary file read with read_file, then compacted",
        "task": render_task(intro, steps),
        "followups": [_question(key) for key, *_ in needles],
        "files": files,
        "documents": docs,
        "needles": [{"key": k, "answer": a, "doc": d, "depth": 0.0, "turn": t} for k, a, d, t in needles],
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps],
    }
