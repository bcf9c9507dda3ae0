"""The shape of the hand-labelled answer sets in datasets/answers/ (corpus.jsonl, README.md; holdout.jsonl,
HOLDOUT.md): fields, types, ids, question wording, sizes, both labels per kind, style tags and the counts their notes
state. No answer reader is used: the data is checked as data."""

import json
from collections import Counter
from pathlib import Path

import pytest

ANSWERS = Path(__file__).resolve().parents[2] / "datasets" / "answers"
FIELDS = ("id", "probe", "question", "key", "expected", "earlier", "others", "answer", "label", "reason", "styles")
LABELS = {"right", "wrong"}
PREFIX = {"recall": "recall-", "needle": "needle-", "continuation": "cont-", "decision": "decision-", "artifact": "artifact-"}
# set: (its notes, id prefix, least rows, least rows per kind)
SETS = {
    "corpus.jsonl": ("README.md", "", 300, {k: 5 for k in PREFIX}),
    "holdout.jsonl": ("HOLDOUT.md", "h-", 160, {"recall": 45, "needle": 25, "continuation": 25, "decision": 40, "artifact": 25}),
}
CORPUS_STYLES = {
    *("bare", "prose", "hedge", "markdown", "bold", "quotes", "code-span", "code-block", "trailing-explanation"),
    *("restated-question", "several-candidates", "refusal", "stale-as-rejected", "stale-as-chosen", "stale-mentioned"),
    *("units", "case", "order", "reformatted", "bullets", "table", "json", "negation", "look-alike", "thinking-out-loud"),
    *("apology", "partial", "extra", "read-only-mentioned"),
}


def _question(probe: str, key: str | None) -> str:
    """The question exactly as datasets/answers/README.md gives it."""
    if probe == "artifact":
        return "Question: Which files have you created or changed so far? Reply with their paths, one per line."
    if probe == "decision":
        return (
            f"Question: What was decided for the {key}, and which earlier choices were rejected? "
            "Reply as: <decided value>; rejected: <rejected values, comma-separated, or none>."
        )
    return f"Question: What is the {key}? Reply with the value only."


def _rows(name: str) -> list[dict]:
    rows = []
    for number, line in enumerate((ANSWERS / name).read_text(encoding="utf-8").splitlines(), start=1):
        assert line.strip(), f"{name} line {number} is blank"
        row = json.loads(line)
        assert isinstance(row, dict), f"{name} line {number} is not an object"
        rows.append(row)
    return rows


ROWS = {name: _rows(name) for name in SETS}
EVERY_ROW = [(name, row) for name, rows in ROWS.items() for row in rows]


def _is_str_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


@pytest.mark.parametrize(("name", "row"), EVERY_ROW, ids=[f"{n}:{r.get('id', '?')}" for n, r in EVERY_ROW])
def test_every_row_has_every_field_with_its_type_and_the_exact_question(name, row):
    assert list(row) == list(FIELDS), f"{row.get('id')}: fields {list(row)}"
    assert row["probe"] in PREFIX and row["label"] in LABELS
    for field in ("id", "question", "answer", "reason"):
        assert isinstance(row[field], str) and row[field].strip(), field
    assert _is_str_list(row["earlier"]) and _is_str_list(row["others"])
    assert _is_str_list(row["styles"]) and len(set(row["styles"])) == len(row["styles"]), "style tags: one or more, none twice"
    if row["probe"] == "artifact":
        assert row["key"] is None and row["earlier"] == []
        assert _is_str_list(row["expected"]) and len(set(row["expected"])) == len(row["expected"])
        assert all(p.startswith("/") for p in row["expected"] + row["others"])
        assert not set(row["expected"]) & set(row["others"]), "a path both expected and not"
    else:
        assert isinstance(row["key"], str) and row["key"] and isinstance(row["expected"], str) and row["expected"]
        assert row["expected"] not in row["earlier"] and row["expected"] not in row["others"]
        assert not set(row["earlier"]) & set(row["others"])
    assert row["question"] == _question(row["probe"], row["key"])


@pytest.mark.parametrize("name", SETS)
def test_ids_are_unique_and_prefixed_by_their_kind(name):
    rows, prefix = ROWS[name], SETS[name][1]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    for row in rows:
        head = prefix + PREFIX[row["probe"]]
        assert row["id"].startswith(head) and row["id"][len(head) :].isdigit(), row["id"]


@pytest.mark.parametrize("name", SETS)
def test_size_and_both_labels_per_kind(name):
    rows, (_, _, least, per_kind_least) = ROWS[name], SETS[name]
    assert len(rows) >= least
    per_kind = Counter(r["probe"] for r in rows)
    assert all(per_kind[k] >= n for k, n in per_kind_least.items()), per_kind
    per_label = Counter((r["probe"], r["label"]) for r in rows)
    assert all(per_label[(k, label)] >= 5 for k in PREFIX for label in LABELS), per_label
    assert 0.35 <= sum(r["label"] == "right" for r in rows) / len(rows) <= 0.65


@pytest.mark.parametrize("name", SETS)
def test_the_notes_state_the_counts_and_every_style_tag(name):
    rows, text = ROWS[name], (ANSWERS / SETS[name][0]).read_text(encoding="utf-8")
    assert "## Judgement calls" in text
    for kind in PREFIX:
        right = sum(r["probe"] == kind and r["label"] == "right" for r in rows)
        wrong = sum(r["probe"] == kind and r["label"] == "wrong" for r in rows)
        assert f"| {kind} | {right} | {wrong} | {right + wrong} |" in text, kind
    for tag, count in Counter(t for r in rows for t in r["styles"]).items():
        assert f"| `{tag}` | {count} |" in text, tag


def test_the_first_corpus_uses_its_stated_tags_each_at_least_five_times():
    tags = Counter(t for r in ROWS["corpus.jsonl"] for t in r["styles"])
    assert set(tags) <= CORPUS_STYLES and {t: tags[t] for t in CORPUS_STYLES if tags[t] < 5} == {}


def test_the_holdout_says_it_was_written_blind_and_its_judgement_calls_name_its_rows():
    text = (ANSWERS / "HOLDOUT.md").read_text(encoding="utf-8")
    assert "blind to the reader and to corpus.jsonl" in text
    ids = {r["id"] for r in ROWS["holdout.jsonl"]}
    named = {word.strip('.,:;()"') for word in text.split("## Judgement calls", 1)[1].split() if word.startswith("h-")}
    assert named and named <= ids, sorted(named - ids)
