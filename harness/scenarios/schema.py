"""Scenarios: eval cases as data rows in JSONL files under ``datasets/``, loaded with HF `datasets`.

A row's shape is `harness.scenarios.model.ScenarioRow` (its fields and their descriptions; datasets/README.md's table
and the shipped JSON Schema are generated from it); the rules across its fields are `harness.scenarios.checks`. Each
line is validated by both before the file is handed to `datasets.load_dataset("json", ...)`; a malformed row raises
`DatasetError` naming the file, the row (its line number) and the field. The rows `datasets` gives for a shipped file
are kept on disk and read back without it while the file is unchanged (`harness.scenarios.cache`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from harness._paths import DATASETS_DIR as _DATASETS_DIR
from harness._paths import not_a_file
from harness.errors import DatasetError
from harness.scenarios.advice import (
    case_warnings,
    offline_statement_problem,
    stated_in_grammar,
    uncovered_statements,
    value_elsewhere,
)
from harness.scenarios.cache import cached_rows
from harness.scenarios.checks import check_row
from harness.scenarios.model import (
    KINDS,
    PLACES,
    ExpectedFile,
    ExpectedStep,
    Fact,
    Needle,
    Question,
    Scenario,
    SessionInfo,
    SessionProbe,
    parse_row,
)

__all__ = [
    "DATASETS_DIR",
    "DEFAULT_FILES",
    "KINDS",
    "MECHANISMS_DIR",
    "MECHANISM_FILES",
    "PLACES",
    "ExpectedFile",
    "ExpectedStep",
    "Fact",
    "Needle",
    "Question",
    "Scenario",
    "SessionInfo",
    "SessionProbe",
    "all_scenario_files",
    "case_warnings",
    "default_scenario_files",
    "load_scenarios",
    "offline_statement_problem",
    "scenario_row",
    "select",
    "stated_in_grammar",
    "uncovered_statements",
    "validate_row",
    "value_elsewhere",
]
DATASETS_DIR = _DATASETS_DIR
# Mechanism cases that need their own preset (e.g. `truncation`): not part of a default run.
MECHANISMS_DIR = DATASETS_DIR / "mechanisms"
# The scenario files a default run reads: the shipped ones `harness generate` writes, named, never a glob of
# datasets/, so a file a user writes there (a needle grid from `harness generate needle`) joins a run only when
# it is named with --datasets.
DEFAULT_FILES = ("needle.jsonl", "goal.jsonl", "chain.jsonl", "probes.jsonl", "recorded.jsonl")
MECHANISM_FILES = ("mechanisms/truncation.jsonl", "mechanisms/sessions.jsonl")


def validate_row(row: Any, path: str, line: int | None) -> None:  # noqa: ANN401 - a raw JSON value
    """Raise DatasetError for the first problem in one raw row: its shape (`model.parse_row`), then the rules across
    its fields (`checks.check_row`)."""
    parse_row(row, path, line)
    check_row(row, path, line)


# -- loading ----------------------------------------------------------------------------
def _raw_rows(path: Path) -> list[tuple[int, dict]]:
    problem = not_a_file(path)
    if problem == "is a directory":
        raise DatasetError(str(path), None, None, f"is a directory; give its .jsonl files (e.g. {path / '*.jsonl'})")
    if problem is not None:  # a symlink loop, a FIFO...: named for what it is, never "no such file"
        raise DatasetError(str(path), None, None, problem)
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
    # A builder patches its module for streaming remote files on first use (`datasets.streaming`): that imports
    # scipy.io (0.08-0.3 s of CPU, before the first case) to patch a `loadmat` the JSON reader never calls. These files
    # are local, so the JSON module is marked as patched while it reads them (the builtin open reads a local file as
    # the patched one would) and unmarked after, so a later streaming load in this process is patched as usual.
    from datasets.packaged_modules.json import json as json_module

    # datasets resolves the file through tqdm's thread_map, and tqdm starts its monitor thread for any bar, disabled or
    # not: a thread that outlived the load and made the process unsafe to fork (`harness._fork.can_fork`).
    from tqdm import std

    marked = not hasattr(json_module, "_patched_for_streaming")
    if marked:
        json_module._patched_for_streaming = True
    interval, std.tqdm.monitor_interval = std.tqdm.monitor_interval, 0
    try:
        return datasets.load_dataset(  # type: ignore[attr-defined]
            "json", data_files=str(path), split="train"
        )
    finally:
        std.tqdm.monitor_interval = interval
        if marked:
            del json_module._patched_for_streaming


def load_scenarios(paths: Iterable[str | Path] | None = None) -> list[Scenario]:
    """Validate and load scenario files (default: the shipped ones, ``DEFAULT_FILES``)."""
    files = [Path(p) for p in paths] if paths else default_scenario_files()
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for path in files:
        raw = _raw_rows(path)
        try:
            table = cached_rows(path, lambda p: list(_load_hf(p)))  # `datasets` once per file version
        except Exception as exc:  # noqa: BLE001 - report any loader failure against the file
            raise DatasetError(str(path), None, None, f"Hugging Face datasets could not load the file: {exc}") from None
        for (line_no, _), row in zip(raw, table, strict=True):
            scenario = _scenario(row, str(path))
            scenario = replace(scenario, warnings=tuple(case_warnings(scenario, line_no)))
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
        followups=tuple(row.get("followups") or ()) or tuple(p["question"] for p in row.get("probes") or ()),
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
        facts=tuple(
            Fact(
                f["id"],
                f["type"],
                f["key"],
                f["value"],
                f["place"],
                int(f["turn"]),
                f.get("doc"),
                f.get("superseded_by"),
                f.get("message"),
            )
            for f in row.get("facts") or ()
        ),
        questions=tuple(Question(int(q["turn"]), tuple(q["facts"]), q["probe"]) for q in row.get("questions") or ()),
        assistant=tuple((int(a["turn"]), a["text"]) for a in row.get("assistant") or ()),
        system_prompt=row.get("system_prompt") or None,
        system_in_state=bool(row.get("system_in_state")),
        conversation=tuple(_recorded(row.get("conversation"), source)),
        conversation_file=row.get("conversation") or None,
        session=SessionInfo(**{**row["session"], "compactions": tuple(row["session"].get("compactions") or ())})
        if row.get("session")
        else None,
        probes=tuple(
            SessionProbe(**{**p, "expected": tuple(p["expected"]), "stale": tuple(p.get("stale") or ())})
            for p in row.get("probes") or ()
        ),
        source=source,
    )


def _recorded(name: str | None, source: str) -> list[dict[str, Any]]:
    if not name:
        return []
    from harness.scenarios.conversation import load_conversation, resolve

    return load_conversation(resolve(name, source))


def scenario_row(scenario: Scenario) -> dict[str, Any]:
    """The dataset row of ``scenario`` (the inverse of loading it), e.g. to keep a generated case with its run."""
    return {
        "id": scenario.id,
        "kind": scenario.kind,
        "description": scenario.description,
        "task": scenario.task,
        "followups": [] if scenario.probes else list(scenario.followups),  # a session asks its probes: none written
        "files": [{"path": p, "content": c} for p, c in scenario.files],
        "documents": [{"id": d, "text": t} for d, t in scenario.documents],
        "needles": [{"key": n.key, "answer": n.answer, "doc": n.doc, "depth": n.depth, "turn": n.turn} for n in scenario.needles],
        "expected_steps": [{"tool": e.tool, "target": e.target} for e in scenario.expected_steps],
        "expected_files": [{"path": f.path, "contains": list(f.contains)} for f in scenario.expected_files],
        "haystack_tokens": scenario.haystack_tokens,
        "needle_depth": scenario.needle_depth,
        "min_summaries": scenario.min_summaries,
        **({"facts": [_fact_row(f) for f in scenario.facts]} if scenario.facts else {}),
        **(
            {"questions": [{"turn": q.turn, "facts": list(q.facts), "probe": q.probe} for q in scenario.questions]}
            if scenario.questions
            else {}
        ),
        **({"assistant": [{"turn": t, "text": x} for t, x in scenario.assistant]} if scenario.assistant else {}),
        **({"system_prompt": scenario.system_prompt} if scenario.system_prompt else {}),
        **({"system_in_state": True} if scenario.system_in_state else {}),
        **({"conversation": scenario.conversation_file} if scenario.conversation_file else {}),
        **({"session": _session_row(scenario.session)} if scenario.session else {}),
        **({"probes": [_probe_row(p) for p in scenario.probes]} if scenario.probes else {}),
    }


def _session_row(info: SessionInfo) -> dict[str, Any]:
    return {**asdict(info), "compactions": list(info.compactions)}


def _probe_row(probe: SessionProbe) -> dict[str, Any]:
    row = {**asdict(probe), "expected": list(probe.expected), "stale": list(probe.stale)}
    if not probe.stale:
        del row["stale"]
    return row


def _fact_row(f: Fact) -> dict[str, Any]:
    row: dict[str, Any] = {"id": f.id, "type": f.type, "key": f.key, "value": f.value, "place": f.place, "turn": f.turn}
    if f.doc is not None:
        row["doc"] = f.doc
    if f.superseded_by is not None:
        row["superseded_by"] = f.superseded_by
    if f.message is not None:
        row["message"] = f.message
    return row


def select(
    scenarios: Sequence[Scenario], *, kind: str | None = None, ids: Sequence[str] | None = None, limit: int | None = None
) -> list[Scenario]:
    """The scenarios of ``kind`` whose ids match one of the ``ids`` globs, at most ``limit`` of them, in order."""
    out = [s for s in scenarios if kind is None or s.kind == kind]
    if ids:
        import fnmatch

        out = [s for s in out if any(fnmatch.fnmatch(s.id, pattern) for pattern in ids)]
    return out[:limit] if limit is not None else out
