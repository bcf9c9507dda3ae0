"""The shape of datasets/answers/corpus.jsonl, the hand-labelled answers an answer reader is measured on.

Only the data is checked here (fields, types, ids, question wording, coverage of kinds, labels and style tags);
no answer reader is used, so the corpus stays a held-out test of whichever reader is measured on it.
"""

import json
from collections import Counter
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "datasets" / "answers" / "corpus.jsonl"
README = CORPUS.parent / "README.md"

KINDS = {"recall", "needle", "continuation", "decision", "artifact"}
LABELS = {"right", "wrong"}
STYLES = {
    "bare",
    "prose",
    "hedge",
    "markdown",
    "bold",
    "quotes",
    "code-span",
    "code-block",
    "trailing-explanation",
    "restated-question",
    "several-candidates",
    "refusal",
    "stale-as-rejected",
    "stale-as-chosen",
    "stale-mentioned",
    "units",
    "case",
    "order",
    "reformatted",
    "bullets",
    "table",
    "json",
    "negation",
    "look-alike",
    "thinking-out-loud",
    "apology",
    "partial",
    "extra",
    "read-only-mentioned",
}
FIELDS = ("id", "probe", "question", "key", "expected", "earlier", "others", "answer", "label", "reason", "styles")
ARTIFACT_QUESTION = "Question: Which files have you created or changed so far? Reply with their paths, one per line."


def _question(probe: str, key: str | None) -> str:
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
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
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
    assert set(row) == set(FIELDS), f"{row.get('id')}: fields {sorted(set(row) ^ set(FIELDS))}"
    assert isinstance(row["id"], str) and row["id"]
    assert row["probe"] in KINDS
    assert row["label"] in LABELS
    for field in ("question", "answer", "reason"):
        assert isinstance(row[field], str) and row[field].strip(), field
    assert _is_str_list(row["earlier"]) and _is_str_list(row["others"])
    assert _is_str_list(row["styles"]) and row["styles"], "at least one style tag"
    assert set(row["styles"]) <= STYLES, sorted(set(row["styles"]) - STYLES)
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
    assert row["question"] == _question(row["probe"], row["key"])


def test_ids_are_unique_and_prefixed_by_their_kind():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    prefix = {"recall": "recall-", "needle": "needle-", "continuation": "cont-", "decision": "decision-", "artifact": "artifact-"}
    assert all(r["id"].startswith(prefix[r["probe"]]) for r in ROWS)


def test_size_kinds_and_both_labels_per_kind():
    assert len(ROWS) >= 300
    per_kind = Counter((r["probe"], r["label"]) for r in ROWS)
    for kind in KINDS:
        for label in LABELS:
            assert per_kind[(kind, label)] >= 5, (kind, label)
    labels = Counter(r["label"] for r in ROWS)
    assert 0.35 <= labels["right"] / len(ROWS) <= 0.65, labels


def test_every_style_tag_is_used_at_least_five_times():
    tags = Counter(t for r in ROWS for t in r["styles"])
    assert {t: tags[t] for t in STYLES if tags[t] < 5} == {}


def test_the_readme_states_every_style_tag_and_its_count():
    text = README.read_text(encoding="utf-8")
    tags = Counter(t for r in ROWS for t in r["styles"])
    for tag in STYLES:
        assert f"| `{tag}` | {tags[tag]} |" in text, tag
