"""The gate's baseline file, written and read: on reading, checked to be there, a file, JSON of a schema this version
reads, with a list of cells.

The standard library and `harness.errors` only, so that `harness check --baseline B` says a bad baseline before the
early checks (a stopped server, a missing key: `harness.runs.early`) and before pandas or the scorers are imported;
`harness.analysis.regress` writes its snapshot and reads every baseline through it (`write_baseline`, `load_baseline`:
the gate's cells made and upgraded there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import HarnessError

BASELINE_SCHEMA = 2  # 2: cells name their eval and carry its gated checks; 1 (variant, fixed rates) still loads
CELL_IDS = {  # what the gate pairs a cell by, per schema: a cell without one is refused by name
    1: ("variant", "threshold", "case_id", "trial", "kind"),
    2: ("arm", "threshold", "eval", "case_id", "trial"),
}


def read_baseline_file(path: str | Path) -> tuple[int, list[dict[str, Any]]]:
    """(schema, cells) of the baseline file at ``path``, as stored; a HarnessError naming the file and what is wrong
    (missing: how to create it; a directory; unreadable; not JSON; another schema or no list of cells; a cell that is
    not an object or lacks an id the gate pairs it by, `CELL_IDS`, naming its index)."""
    path = Path(path)
    if not path.exists():
        raise HarnessError(f"{path}: no baseline file; create it with --update")
    if path.is_dir():
        raise HarnessError(f"{path}: is a directory; --baseline is a baseline JSON file, e.g. datasets/baselines/nightly.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise HarnessError(f"{path}: cannot read the baseline ({type(exc).__name__}: {exc})") from None
    except json.JSONDecodeError as exc:
        raise HarnessError(f"{path}: not a baseline file (invalid JSON: {exc})") from None
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema not in (1, BASELINE_SCHEMA) or not isinstance(data.get("cells"), list):
        raise HarnessError(f"{path}: baseline schema {schema!r} is not {BASELINE_SCHEMA}; rewrite it with --update")
    for i, cell in enumerate(data["cells"]):  # said here, before a run, not as a traceback from the gate after it
        if not isinstance(cell, dict):
            raise HarnessError(f"{path}: cell {i} is not an object; rewrite the baseline with --update")
        missing = next((key for key in CELL_IDS[schema] if key not in cell), None)
        if missing is not None:
            raise HarnessError(f"{path}: cell {i} has no {missing!r}; rewrite the baseline with --update")
    return schema, data["cells"]


def write_baseline_file(path: str | Path, baseline: dict[str, Any]) -> Path:
    """Write ``baseline`` (`harness.analysis.regress.snapshot`: a schema, the cells) to ``path``, its directory made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baseline, indent=1) + "\n", encoding="utf-8")
    return path
