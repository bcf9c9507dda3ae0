"""The shipped scenario files' rows as Hugging Face `datasets` loaded them, kept on disk so a run need not import it.

Importing `datasets` (and the pandas it imports) is most of a run's start-up before its first case (docs/performance.md,
"Start-up"). A file under ``DATASETS_DIR`` is loaded through `datasets` once; its rows, as `datasets` returned them,
are written to ``reports/.cache/scenarios/`` in a checkout (the user's cache directory for an installed harness) under
a key of the file's SHA-256, the harness version and the `datasets` version. A later load whose key matches reads them
with the standard library; a changed file, another version, or a cache that is missing, corrupt or unreadable loads
through `datasets` again and rewrites it, never an error. Rows that would not come back from JSON equal to what
`datasets` gave are not cached. Files outside ``DATASETS_DIR`` (a user's own) always load through `datasets`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._paths import DATASETS_DIR, IN_CHECKOUT, REPO_ROOT
from harness._version import __version__

Rows = list[dict[str, Any]]


def cache_dir() -> Path:
    """Where the rows are kept: ``reports/.cache/scenarios`` in a checkout (git-ignored), else under the user's cache
    directory (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    if IN_CHECKOUT:
        return REPO_ROOT / "reports" / ".cache" / "scenarios"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "deepagents-harness" / "scenarios"


def cached_rows(path: Path, load: Callable[[Path], Rows], *, root: Path = DATASETS_DIR, where: Path | None = None) -> Rows:
    """The rows of ``path`` as ``load`` (the `datasets` load) gives them: from the cache when ``path`` lies under
    ``root`` and its key matches, else from ``load``, then kept for the next time."""
    try:
        name = path.resolve().relative_to(root.resolve())
    except ValueError:
        return load(path)
    where = where if where is not None else cache_dir()
    entry = where / (str(name).replace(os.sep, "__") + ".json")
    key = _key(path.read_bytes())
    kept = _read(entry, key)
    if kept is not None:
        return kept
    rows = load(path)
    _write(entry, key, rows)
    return rows


def _key(content: bytes) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        loader = version("datasets")
    except PackageNotFoundError:
        loader = "none"
    return f"{hashlib.sha256(content).hexdigest()} harness {__version__} datasets {loader}"


def _read(entry: Path, key: str) -> Rows | None:
    try:
        kept = json.loads(entry.read_bytes())
    except (OSError, ValueError, RecursionError):  # missing, unreadable or corrupt: loaded again and rewritten
        return None
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    rows = kept.get("rows")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return None
    return rows


def _write(entry: Path, key: str, rows: Rows) -> None:
    try:
        text = json.dumps({"key": key, "rows": rows}, ensure_ascii=False)
        if json.loads(text)["rows"] != rows:  # a value JSON does not give back as it was (a date...): not kept
            return
    except (TypeError, ValueError):
        return
    tmp = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=entry.parent, delete=False, suffix=".tmp") as fh:
            tmp = fh.name
            fh.write(text)
        os.replace(tmp, entry)  # whole or not at all: a parallel run reads the old entry or the new, never half
    except OSError:  # a read-only checkout, a full disk: the next run loads through `datasets` again
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
