"""The shape of datasets/answers/holdout.jsonl, the held-out hand-labelled answers (see datasets/answers/HOLDOUT.md).

Only the data is checked (fields, types, ids, question wording, sizes per kind, both labels per kind, style tags
documented with their counts); no answer reader is used, so the file stays a held-out test of whichever reader is
measured on it.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

HOLDOUT = Path(__file__).resolve().parents[2] / "datasets" / "answers" / "holdout.jsonl"
NOTES = HOLDOUT.parent / "HOLDOUT.md"

FIELDS = ("id", "probe", "question", "key", "expected", "earlier", "others", "answer", "label", "reason", "styles")
LABELS = {"right", "wrong"}
PREFIX = {
    "recall": "h-recall-",
    "needle": "h-needle-",
    "continuation": "h-cont-",
    "decision": "h-decision-",
    "artifact": "h-artifact-",
}
MIN_ROWS = {"recall": 45, "needle": 25, "continuation": 25, "decision": 40, "artifact": 25}
ARTIFACT_QUESTION = "Question: Which files have you created or changed so far? Reply with their paths, one per line."


def _question(probe: str, key: str | None) -> str:
    """The question exactly as datasets/answers/README.md gives it."""
    if probe == "artifact":
        return ARTIFACT_QUESTION
    if probe == "decision":
        return (
            f"Question: What was decided for the {key}, and which earlier choices were rejected? "
            "Reply as: <decided value>; rejected: <rejected values, comma-separated, or none>."
        )
    return f"Question: What is the {key}? Reply with the value only."


def _rows() -> list[dict]:
    rows = []
    for number, line in enumerate(HOLDOUT.read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"line {number} is blank"
        row = json.loads(line)
        assert isinstance(row, dict), f"line {number} is not an object"
        rows.append(row)
    return rows


ROWS = _rows()


def _is_str_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


@pytest.mark.parametrize("row", ROWS, ids=[r.get("id", "?") for r in ROWS])
def test_every_row_has_every_field_with_its_type(row):
    assert list(row) == list(FIELDS), f"{row.get('id')}: fields {list(row)}"
    assert isinstance(row["id"], str) and row["id"]
    assert row["probe"] in PREFIX
    assert row["label"] in LABELS
    for field in ("question", "answer", "reason"):
        assert isinstance(row[field], str) and row[field].strip(), field
    assert _is_str_list(row["earlier"]) and _is_str_list(row["others"])
    assert _is_str_list(row["styles"]) and row["styles"], "at least one style tag"
    assert len(set(row["styles"])) == len(row["styles"]), "a style tag repeated"
    if row["probe"] == "artifact":
        assert row["key"] is None
        assert _is_str_list(row["expected"]) and row["expected"]
        assert all(p.startswith("/") for p in row["expected"] + row["others"])
        assert len(set(row["expected"])) == len(row["expected"])
        assert row["earlier"] == []
        assert not set(row["expected"]) & set(row["others"]), "a path both expected and not"
    else:
        assert isinstance(row["key"], str) and row["key"]
        assert isinstance(row["expected"], str) and row["expected"]
        assert row["expected"] not in row["earlier"] and row["expected"] not in row["others"]
        assert not set(row["earlier"]) & set(row["others"])


@pytest.mark.parametrize("row", ROWS, ids=[r.get("id", "?") for r in ROWS])
def test_the_question_is_exactly_the_readme_wording(row):
    assert row["question"] == _question(row["probe"], row["key"])


def test_ids_are_unique_and_prefixed_h_by_their_kind():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for row in ROWS:
        prefix = PREFIX[row["probe"]]
        assert row["id"].startswith(prefix), row["id"]
        assert row["id"][len(prefix) :].isdigit(), row["id"]


def test_size_and_both_labels_per_kind():
    assert len(ROWS) >= 160
    per_kind = Counter(r["probe"] for r in ROWS)
    for kind, least in MIN_ROWS.items():
        assert per_kind[kind] >= least, (kind, per_kind[kind])
    per_label = Counter((r["probe"], r["label"]) for r in ROWS)
    for kind in PREFIX:
        for label in LABELS:
            assert per_label[(kind, label)] >= 5, (kind, label)
    labels = Counter(r["label"] for r in ROWS)
    assert 0.35 <= labels["right"] / len(ROWS) <= 0.65, labels


def test_holdout_md_states_the_counts_and_every_style_tag():
    text = NOTES.read_text(encoding="utf-8")
    assert "blind to the reader and to corpus.jsonl" in text
    assert "## Judgement calls" in text
    for kind in PREFIX:
        right = sum(1 for r in ROWS if r["probe"] == kind and r["label"] == "right")
        wrong = sum(1 for r in ROWS if r["probe"] == kind and r["label"] == "wrong")
        assert f"| {kind} | {right} | {wrong} | {right + wrong} |" in text, kind
    tags = Counter(t for r in ROWS for t in r["styles"])
    for tag, count in tags.items():
        assert f"| `{tag}` | {count} |" in text, tag


def test_judgement_calls_name_existing_rows():
    text = NOTES.read_text(encoding="utf-8").split("## Judgement calls", 1)[1]
    ids = {r["id"] for r in ROWS}
    named = {word.strip('.,:;()"') for word in text.split() if word.startswith("h-")}
    assert named and named <= ids, sorted(named - ids)
