"""The answer readers measured on hand-labelled answers (``datasets/answers/``): per probe kind, how often the one
reading of an answer (`harness.answers`, what the checks and the judge's calibration use) agrees with the label, with
false PASS (a wrong answer read as right) and false FAIL (a right answer read as wrong) counted apart.

``harness judge readers`` prints the table; ``tests/scoring/test_answer_readers.py`` holds the goal (no false PASS, false
FAIL under 2 %) on every shipped corpus; docs/quality.md quotes the figures.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness import answers
from harness._paths import DATASETS_DIR, not_a_file
from harness.errors import DatasetError

ANSWERS_DIR = DATASETS_DIR / "answers"
CORPORA = ("corpus.jsonl", "holdout.jsonl")
"""The shipped labelled answers: ``corpus.jsonl`` (the readers were built against it) and ``holdout.jsonl`` (written
afterwards, blind to the readers and to the first corpus: the out-of-sample figure)."""
KINDS = ("recall", "needle", "continuation", "decision", "artifact")
_FIELDS: dict[str, Any] = {
    "id": str,
    "probe": str,
    "question": str,
    "key": (str, type(None)),
    "expected": (str, list),
    "earlier": list,
    "others": list,
    "answer": str,
    "label": str,
    "reason": str,
    "styles": list,
}


@dataclass(frozen=True)
class Labelled:
    """One labelled answer and the reader's verdict on it."""

    row: dict[str, Any]
    verdict: answers.Verdict

    @property
    def right(self) -> bool:
        return self.row["label"] == "right"

    @property
    def outcome(self) -> str:
        """ "agree", "false PASS" or "false FAIL"."""
        if self.verdict.correct == self.right:
            return "agree"
        return "false PASS" if self.verdict.correct else "false FAIL"


def load(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a labelled-answer file, each checked (a bad one is a DatasetError naming file, line and field)."""
    path = Path(path)
    problem = not_a_file(path)
    if problem:
        raise DatasetError(str(path), None, None, f"{problem} (labelled answers: datasets/answers/*.jsonl)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        bad_line = path.read_bytes()[: e.start].count(b"\n") + 1
        raise DatasetError(str(path), bad_line, None, f"not UTF-8 (byte {e.start})") from None
    except OSError as e:
        raise DatasetError(str(path), None, None, f"cannot be read: {e.strerror or e}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise DatasetError(str(path), n, None, f"not JSON: {e.msg}") from None
        if not isinstance(row, dict):
            raise DatasetError(str(path), n, None, "not a JSON object")
        for name, kind in _FIELDS.items():
            if name not in row:
                raise DatasetError(str(path), n, name, "missing")
            if not isinstance(row[name], kind):
                raise DatasetError(str(path), n, name, f"wrong type {type(row[name]).__name__}")
            items = row[name] if isinstance(row[name], list) else []
            if any(not isinstance(item, str) for item in items):
                raise DatasetError(str(path), n, name, "a list of strings is expected")
        if row["probe"] not in KINDS:
            raise DatasetError(str(path), n, "probe", f"{row['probe']!r} is not one of {', '.join(KINDS)}")
        if row["label"] not in ("right", "wrong"):
            raise DatasetError(str(path), n, "label", f"{row['label']!r}: give right or wrong")
        if (row["probe"] == "artifact") != isinstance(row["expected"], list):
            raise DatasetError(str(path), n, "expected", "a list of paths for artifact, one value otherwise")
        rows.append(row)
    return rows


def verdict(row: dict[str, Any]) -> answers.Verdict:
    """The reader's verdict on a labelled answer, by the rule of its probe kind (`harness.answers`)."""
    if row["probe"] == "artifact":
        return answers.judge_paths(row["answer"], row["expected"])
    judge = answers.judge_decision if row["probe"] == "decision" else answers.judge_value
    return judge(row["answer"], row["key"] or "", row["expected"], row["earlier"], row["others"])


def read_all(rows: Sequence[dict[str, Any]]) -> list[Labelled]:
    return [Labelled(row, verdict(row)) for row in rows]


def accuracy(read: Sequence[Labelled]) -> pd.DataFrame:
    """Per probe kind and in all: n, right and wrong labels, false PASS, false FAIL and their rates (false PASS over
    the wrong answers, false FAIL over the right ones), and accuracy."""
    records = []
    for kind in (*KINDS, "all"):
        mine = [r for r in read if kind in ("all", r.row["probe"])]
        if not mine:
            continue
        right = sum(r.right for r in mine)
        fp = sum(r.outcome == "false PASS" for r in mine)
        ff = sum(r.outcome == "false FAIL" for r in mine)
        records.append(
            {
                "kind": kind,
                "n": len(mine),
                "right": right,
                "wrong": len(mine) - right,
                "false PASS": fp,
                "false FAIL": ff,
                "false PASS rate": round(fp / (len(mine) - right), 4) if len(mine) > right else None,
                "false FAIL rate": round(ff / right, 4) if right else None,
                "accuracy": round((len(mine) - fp - ff) / len(mine), 4),
            }
        )
    return pd.DataFrame.from_records(records).set_index("kind")


def misreadings(read: Sequence[Labelled]) -> list[Labelled]:
    """The answers the reader disagrees with the label on, false PASS first."""
    return sorted((r for r in read if r.outcome != "agree"), key=lambda r: (r.outcome != "false PASS", r.row["id"]))
