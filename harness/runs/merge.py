"""Joining the shard directories of one experiment (`harness experiment run --shard i/n`) into one: its cells, traces
and not-run records once each, its meta.json naming the parts and any shard missing from the split."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from harness.errors import HarnessError
from harness.rows import ExperimentMeta, read_experiment_meta, write_meta
from harness.runs.results import NOT_RUN_FILE, append_jsonl, append_row, read_cells, read_jsonl, torn_line_note


def unmerged_shards(path: str | Path) -> str | None:
    """Why ``path`` cannot be read yet when it holds shard directories and no cells.jsonl (`harness experiment run
    --shard i/n` writes under shards/<i>of<n>/; only the merge writes the experiment's cells.jsonl): the sentence that
    names the merge, or None. Every command that reads an experiment directory says it (regress, compare, report,
    langsmith)."""
    path = Path(path)
    shards = sorted(p.name for p in (path / "shards").glob("*of*") if p.is_dir())
    if not shards or (path / "cells.jsonl").exists():
        return None
    return (
        f"{path}: an experiment run in shards ({', '.join(shards)} under shards/) and not merged: no cells.jsonl yet; "
        f"join them first with `harness experiment merge {path} {path / 'shards'}/*`"
    )


def missing_shards(metas: Sequence[ExperimentMeta]) -> list[str]:
    """The shards of an n-way split that none of ``metas`` is ("2of4"): a lost CI artifact, named at the merge."""
    shards = [tuple(shard) for m in metas if (shard := m.get("shard"))]
    counts = {n for _, n in shards}
    if len(counts) != 1:
        return []
    (n,) = counts
    return [f"{i}of{n}" for i in range(n) if (i, n) not in shards]


def merge_experiments(out: str | Path, parts: Sequence[str | Path]) -> Path:
    """Join shard directories (or whole experiment directories) into ``out``."""
    out = Path(out)
    metas = []
    for part in parts:
        meta_file = Path(part) / "meta.json"
        if not meta_file.exists():
            raise HarnessError(f"{part}: not an experiment directory (no meta.json)")
        metas.append(read_experiment_meta(part))
    prints = {m.get("spec_fingerprint") for m in metas}
    if len(prints) != 1 or len({m["experiment"] for m in metas}) != 1:
        raise HarnessError(
            f"cannot merge different experiments or specs: {sorted({m['experiment'] for m in metas})}, fingerprints {sorted(map(str, prints))}"
        )
    (out / "traces").mkdir(parents=True, exist_ok=True)
    existing = {r["cell_id"] for r in read_cells(out / "cells.jsonl", repair=True)}
    for part in parts:
        torn = torn_line_note(Path(part) / "cells.jsonl")
        if torn:  # a shard killed mid-write: its torn row is left out of the merge, said, and the shard left as it is
            print(f"warning: {torn}; the merged experiment lacks that cell (rerun the shard to complete it)", file=sys.stderr)
        for row in read_cells(Path(part) / "cells.jsonl"):
            if row["cell_id"] in existing:
                continue
            src = Path(part) / row["trace"]
            if src.resolve() != (out / row["trace"]).resolve():
                shutil.copyfile(src, out / row["trace"])
            append_row(out / "cells.jsonl", row)
            existing.add(row["cell_id"])
        listed = {r["cell_id"] for r in read_jsonl(out / NOT_RUN_FILE)}
        for record in read_jsonl(Path(part) / NOT_RUN_FILE):
            if record["cell_id"] not in listed:
                append_jsonl(out / NOT_RUN_FILE, record)
                listed.add(record["cell_id"])
    merged: ExperimentMeta = {
        **metas[0],
        "shard": None,
        "merged_from": [str(p) for p in parts],
        "missing_shards": missing_shards(metas),
        "planned_cells": sum(m.get("planned_cells", 0) for m in metas),
        "updated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_meta(out, merged)
    spec_copy = Path(parts[0]) / "spec.yaml"
    if spec_copy.exists() and spec_copy.resolve() != (out / "spec.yaml").resolve():
        shutil.copyfile(spec_copy, out / "spec.yaml")
    return out
