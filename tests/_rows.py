"""Result rows for tests: a hand-made row with only the fields a test is about, completed into one the harness reads
(`harness.rows.ResultRow`: every field present, each of its type), so files of them pass the checks on write and read.

The completing values are neutral: nothing scored, nothing counted, no error. A field the test gives is kept as given;
``outcome`` is derived from ``passed`` (`harness.runs.results.row_outcome`) when the test gives none. The row is of
the current schema: a test of an older one drops the fields that schema lacked."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from harness.rows import ROW_SCHEMA_VERSION
from harness.runs.results import row_outcome

NEUTRAL: dict[str, Any] = {
    "schema_version": ROW_SCHEMA_VERSION,
    "run_id": "test-run",
    "case_id": "case",
    "kind": "needle",
    "trial": 0,
    "seed": 0,
    "arm": "base",
    "strategy": "deepagents-summarization",
    "config": {},
    "agent_model": "reference-agent",
    "summary_model": "reference-summarizer",
    "simulated": True,
    "scores": {},
    "validity": [],
    "answers": [],
    "case": {},
    "metrics": {},
    "explanations": {},
    "events": {},
    "tokens": {"agent_input": 0, "summarizer_input": 0, "peak_context": 0, "provider_input": None, "counter": "approximate"},
    "calls": {"agent": 0, "summarizer": 0},
    "wall_time_s": 0.0,
    "error": None,
    "trace": "traces/case.json.gz",
    "scorers": "default",
    "eval_version": 1,
    "packages": {},
    "known_upstream": {},
}
"""Every field of a current row but ``eval`` (the row's kind) and ``outcome``, with a value that says nothing
happened."""

CELL: dict[str, Any] = {"threshold": "20%", "experiment": "test-grid", "attempt": 1, "config_sha": "0" * 12}
"""A cell's fields beyond ``cell_id`` (`harness.rows.CellFields`)."""


def full_row(**fields: Any) -> dict[str, Any]:
    """``fields`` completed into a result row (a cell row when they name a ``cell_id``), the given fields winning."""
    row = {**copy.deepcopy(NEUTRAL), **(CELL if "cell_id" in fields else {}), **fields}
    row.update({k: {**NEUTRAL[k], **fields[k]} for k in ("tokens", "calls") if isinstance(fields.get(k), dict)})
    row.setdefault("passed", {})
    row.setdefault("eval", row["kind"])
    if "outcome" not in row:
        row["outcome"], row["outcome_keys"] = row_outcome(row)
    row.setdefault("outcome_keys", [])
    return row


def full_cell(cell_id: str, **fields: Any) -> dict[str, Any]:
    """A cell row with id ``cell_id`` (`full_row`)."""
    return full_row(cell_id=cell_id, **fields)


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    """``rows`` completed (`full_row`) as the lines of ``path`` (results.jsonl or cells.jsonl)."""
    path.write_text("".join(json.dumps(full_row(**r)) + "\n" for r in rows), encoding="utf-8")
    return path
