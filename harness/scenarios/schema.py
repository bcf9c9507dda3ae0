"""Scenarios: eval cases as data rows in JSONL files under ``datasets/``, loaded with HF `datasets`.

The schema is documented in ``datasets/README.md``. Each line is validated before the
file is handed to `datasets.load_dataset("json", ...)`; a malformed row raises
`DatasetError` naming the file, the row (its line number) and the field.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._paths import DATASETS_DIR as _DATASETS_DIR
from harness.errors import DatasetError
from harness.task_format import STEP_TOOLS, parse_question

KINDS = ("needle", "goal", "chain", "truncation")
DATASETS_DIR = _DATASETS_DIR
# Mechanism cases that need their own preset (e.g. `truncation`): not part of a default run.
MECHANISMS_DIR = DATASETS_DIR / "mechanisms"
# The scenario files a default run reads: the shipped ones `harness generate` writes, named, never a glob of
# datasets/, so a file a user writes there (a needle grid from `harness generate needle`) joins a run only when
# it is named with --datasets.
DEFAULT_FILES = ("needle.jsonl", "goal.jsonl", "chain.jsonl")
MECHANISM_FILES = ("mechanisms/truncation.jsonl",)
_ID = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")


@dataclass(frozen=True)
class Needle:
    key: str
    answer: str
    doc: str
    depth: float
    turn: int  # the user turn (0 = task) whose question asks for it


@dataclass(frozen=True)
class ExpectedStep:
    tool: str
    target: str = ""


@dataclass(frozen=True)
class ExpectedFile:
    """A file the agent must leave behind, containing every one of ``contains``."""

    path: str
    contains: tuple[str, ...]


@dataclass(frozen=True)
class Scenario:
    id: str
    kind: str
    description: str
    task: str
    followups: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    documents: tuple[tuple[str, str], ...] = ()
    needles: tuple[Needle, ...] = ()
    expected_steps: tuple[ExpectedStep, ...] = ()
    expected_files: tuple[ExpectedFile, ...] = ()
    haystack_tokens: int | None = None
    needle_depth: float | None = None
    min_summaries: int = 1
    source: str = ""

    @property
    def turns(self) -> tuple[str, ...]:
        return (self.task, *self.followups)

    def files_dict(self) -> dict[str, str]:
        return dict(self.files)

    def documents_dict(self) -> dict[str, str]:
        return dict(self.documents)


# -- validation of raw rows -------------------------------------------------------------
_FIELDS: dict[str, tuple[type | tuple[type, ...], bool]] = {
    # name: (type, required)
    "id": (str, True),
    "kind": (str, True),
    "description": (str, True),
    "task": (str, True),
    "followups": (list, False),
    "files": (list, False),
    "documents": (list, False),
    "needles": (list, False),
    "expected_steps": (list, False),
    "expected_files": (list, False),
    "haystack_tokens": ((int, type(None)), False),
    "needle_depth": ((int, float, type(None)), False),
    "min_summaries": ((int, type(None)), False),
}


def validate_row(row: Any, path: str, line: int) -> None:
    """Raise DatasetError for the first problem in one raw row."""

    def fail(fld: str | None, problem: str) -> None:
        case = row.get("id") if isinstance(row, dict) and isinstance(row.get("id"), str) else None
        raise DatasetError(path, line, fld, problem, case_id=case)

    if not isinstance(row, dict):
        fail(None, f"a row must be a JSON object, got {type(row).__name__}")
    for name in row:
        if name not in _FIELDS:
            fail(name, f"unknown field; known fields: {', '.join(_FIELDS)}")
    for name, (typ, required) in _FIELDS.items():
        if name not in row:
            if required:
                fail(name, "missing required field")
            continue
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, typ):
            fail(name, f"expected {_type_name(typ)}, got {type(value).__name__}")
        if typ is str and not value.strip():
            fail(name, "must be a non-empty string")
    if not _ID.match(row["id"]):
        fail("id", "use lowercase letters, digits, '-', '_' or '.'")
    if row["kind"] not in KINDS:
        fail("kind", f"unknown kind {row['kind']!r}; expected one of {', '.join(KINDS)}")
    for i, text in enumerate(row.get("followups", [])):
        if not isinstance(text, str) or not text.strip():
            fail(f"followups[{i}]", "must be a non-empty string")
    _check_records(row, "files", {"path": str, "content": str}, fail)
    _check_records(row, "documents", {"id": str, "text": str}, fail)
    _check_records(row, "needles", {"key": str, "answer": str, "doc": str, "depth": (int, float), "turn": int}, fail)
    _check_records(row, "expected_steps", {"tool": str, "target": str}, fail)
    _check_records(row, "expected_files", {"path": str, "contains": list}, fail)
    for i, f in enumerate(row.get("expected_files", [])):
        if not f["path"].startswith("/"):
            fail(f"expected_files[{i}].path", "must be an absolute path starting with '/'")
        if not f["contains"] or not all(isinstance(x, str) and x.strip() for x in f["contains"]):
            fail(f"expected_files[{i}].contains", "must be a non-empty list of non-empty strings")
    for i, f in enumerate(row.get("files", [])):
        if not f["path"].startswith("/"):
            fail(f"files[{i}].path", "must be an absolute path starting with '/'")
    doc_ids = {d["id"] for d in row.get("documents", [])}
    n_turns = 1 + len(row.get("followups", []))
    for i, needle in enumerate(row.get("needles", [])):
        if not needle["answer"].strip():
            fail(f"needles[{i}].answer", "must be a non-empty string")
        if needle["doc"] not in doc_ids and needle["doc"] not in {f["path"] for f in row.get("files", [])}:
            fail(f"needles[{i}].doc", f"{needle['doc']!r} is not one of the row's documents or files")
        if not 0 <= needle["depth"] <= 1:
            fail(f"needles[{i}].depth", f"must be between 0 and 1, got {needle['depth']!r}")
        if not 1 <= needle["turn"] < n_turns:
            fail(f"needles[{i}].turn", f"must name a follow-up turn (1..{n_turns - 1}), got {needle['turn']!r}")
        question = row["followups"][needle["turn"] - 1]
        if parse_question(question) != needle["key"]:
            fail(f"followups[{needle['turn'] - 1}]", f"does not ask 'What is the {needle['key']}?'")
    for i, step in enumerate(row.get("expected_steps", [])):
        if step["tool"] not in STEP_TOOLS:
            fail(f"expected_steps[{i}].tool", f"unknown tool {step['tool']!r}; expected one of {', '.join(STEP_TOOLS)}")
    if row["kind"] in ("needle", "chain") and not row.get("needles"):
        fail("needles", f"a {row['kind']} scenario needs at least one needle")
    if row.get("min_summaries") is not None and row["min_summaries"] < 1:
        fail("min_summaries", f"must be at least 1, got {row['min_summaries']!r}")
    if row["kind"] in ("goal", "truncation"):
        if not row.get("expected_steps"):
            fail("expected_steps", f"a {row['kind']} scenario needs its expected steps")
        # A task in prose (no numbered step list) is valid data: a live model runs it as written; offline it is
        # SKIPPED, since the reference agent follows only the step grammar (harness.agent.runner.offline_skip_reason).
    if row["kind"] == "truncation" and not row.get("expected_files"):
        fail("expected_files", "a truncation scenario needs the file it builds and what that file must contain")


def _check_records(row: dict, name: str, schema: dict[str, Any], fail) -> None:  # noqa: ANN001
    for i, item in enumerate(row.get(name, [])):
        if not isinstance(item, dict):
            fail(f"{name}[{i}]", f"expected an object, got {type(item).__name__}")
        for key, typ in schema.items():
            if key not in item:
                fail(f"{name}[{i}].{key}", "missing required field")
            if isinstance(item[key], bool) or not isinstance(item[key], typ):
                fail(f"{name}[{i}].{key}", f"expected {_type_name(typ)}, got {type(item[key]).__name__}")
        extra = set(item) - set(schema)
        if extra:
            fail(f"{name}[{i}].{sorted(extra)[0]}", f"unknown field; known: {', '.join(schema)}")


def _type_name(typ: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object", type(None): "null"}
    if isinstance(typ, tuple):
        return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in typ))
    return names.get(typ, typ.__name__)


# -- loading ----------------------------------------------------------------------------
def _raw_rows(path: Path) -> list[tuple[int, dict]]:
    if path.is_dir():
        raise DatasetError(str(path), None, None, f"is a directory; give its .jsonl files (e.g. {path / '*.jsonl'})")
    if not path.is_file():
        raise DatasetError(str(path), None, None, "no such file")
    try:
        return _read_rows(path)
    except OSError as exc:  # unreadable (permissions, an I/O error): named against the file, not a traceback
        raise DatasetError(str(path), None, None, f"cannot be read ({exc.strerror or exc})") from None


def _read_rows(path: Path) -> list[tuple[int, dict]]:
    rows = []
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(
                    str(path),
                    line_no,
                    None,
                    f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                    "scenario files must be UTF-8 JSON Lines",
                ) from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                # json's own messages may end in "at" ("Unterminated string starting at"): the column stands apart
                raise DatasetError(str(path), line_no, None, f"invalid JSON ({exc.msg}), column {exc.colno}") from None
            validate_row(row, str(path), line_no)
            rows.append((line_no, row))
    if not rows:
        raise DatasetError(str(path), None, None, "file has no rows")
    return rows


def _load_hf(path: Path):  # noqa: ANN202
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    import datasets

    # datasets exports these lazily, out of mypy's sight
    datasets.disable_progress_bars()  # type: ignore[attr-defined]
    datasets.logging.set_verbosity_error()  # type: ignore[attr-defined]
    return datasets.load_dataset(  # type: ignore[attr-defined]
        "json", data_files=str(path), split="train"
    )


def load_scenarios(paths: Iterable[str | Path] | None = None) -> list[Scenario]:
    """Validate and load scenario files (default: the shipped ones, ``DEFAULT_FILES``)."""
    files = [Path(p) for p in paths] if paths else default_scenario_files()
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for path in files:
        raw = _raw_rows(path)
        try:
            table = _load_hf(path)
        except Exception as exc:  # noqa: BLE001 - report any loader failure against the file
            raise DatasetError(str(path), None, None, f"Hugging Face datasets could not load the file: {exc}") from None
        for (line_no, _), row in zip(raw, table, strict=True):
            scenario = _scenario(row, str(path))
            if scenario.id in seen:
                raise DatasetError(str(path), line_no, "id", f"duplicate id (first in {seen[scenario.id]})", case_id=scenario.id)
            seen[scenario.id] = f"{path}"
            scenarios.append(scenario)
    return scenarios


def default_scenario_files() -> list[Path]:
    """The shipped scenario files a default run reads (``DEFAULT_FILES``)."""
    return [DATASETS_DIR / name for name in DEFAULT_FILES]


def all_scenario_files() -> list[Path]:
    """The default scenario files plus the shipped mechanism cases (``MECHANISM_FILES``)."""
    return [*default_scenario_files(), *(DATASETS_DIR / name for name in MECHANISM_FILES)]


def _scenario(row: dict[str, Any], source: str) -> Scenario:
    return Scenario(
        id=row["id"],
        kind=row["kind"],
        description=row["description"],
        task=row["task"],
        followups=tuple(row.get("followups") or ()),
        files=tuple((f["path"], f["content"]) for f in row.get("files") or ()),
        documents=tuple((d["id"], d["text"]) for d in row.get("documents") or ()),
        needles=tuple(
            Needle(n["key"], n["answer"], n["doc"], float(n["depth"]), int(n["turn"])) for n in row.get("needles") or ()
        ),
        expected_steps=tuple(ExpectedStep(s["tool"], s["target"]) for s in row.get("expected_steps") or ()),
        expected_files=tuple(ExpectedFile(f["path"], tuple(f["contains"])) for f in row.get("expected_files") or ()),
        haystack_tokens=row.get("haystack_tokens"),
        needle_depth=row.get("needle_depth"),
        min_summaries=row.get("min_summaries") or 1,
        source=source,
    )


def scenario_row(scenario: Scenario) -> dict[str, Any]:
    """The dataset row of ``scenario`` (the inverse of loading it), e.g. to keep a generated case with its run."""
    return {
        "id": scenario.id,
        "kind": scenario.kind,
        "description": scenario.description,
        "task": scenario.task,
        "followups": list(scenario.followups),
        "files": [{"path": p, "content": c} for p, c in scenario.files],
        "documents": [{"id": d, "text": t} for d, t in scenario.documents],
        "needles": [{"key": n.key, "answer": n.answer, "doc": n.doc, "depth": n.depth, "turn": n.turn} for n in scenario.needles],
        "expected_steps": [{"tool": e.tool, "target": e.target} for e in scenario.expected_steps],
        "expected_files": [{"path": f.path, "contains": list(f.contains)} for f in scenario.expected_files],
        "haystack_tokens": scenario.haystack_tokens,
        "needle_depth": scenario.needle_depth,
        "min_summaries": scenario.min_summaries,
    }


def select(
    scenarios: Sequence[Scenario], *, kind: str | None = None, ids: Sequence[str] | None = None, limit: int | None = None
) -> list[Scenario]:
    out = [s for s in scenarios if kind is None or s.kind == kind]
    if ids:
        import fnmatch

        out = [s for s in out if any(fnmatch.fnmatch(s.id, pattern) for pattern in ids)]
    return out[:limit] if limit is not None else out
