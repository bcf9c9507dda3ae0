"""`harness.scoring.readers` in detail: each malformed labelled-answer row named by file, line and field, and each
figure of the readers' accuracy table (docs/quality.md quotes them) computed by its own rule."""

import json

import pandas as pd
import pytest

from harness.errors import DatasetError
from harness.scoring.readers import accuracy, load, misreadings, read_all, verdict


def _row(rid="a", label="right", answer="pg-16", **extra):
    row = {
        "id": rid,
        "probe": "recall",
        "question": "What is the billing database?",
        "key": "billing database",
        "expected": "pg-16",
        "earlier": ["mysql-8"],
        "others": [],
        "answer": answer,
        "label": label,
        "reason": "test",
        "styles": ["bare"],
    }
    return {**row, **extra}


def _write(tmp_path, *lines):
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _error(path):
    with pytest.raises(DatasetError) as info:
        load(path)
    return str(info.value)


def test_a_missing_file_is_named_with_where_the_shipped_ones_are(tmp_path):
    path = tmp_path / "nope.jsonl"
    assert _error(path) == f"{path}: no such file (labelled answers: datasets/answers/*.jsonl)"
    assert _error(tmp_path) == f"{tmp_path}: is a directory (labelled answers: datasets/answers/*.jsonl)"  # named as such


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "row 2: not JSON: Expecting property name enclosed in double quotes"),
        ("[1, 2]", "row 2: not a JSON object"),
        (json.dumps({k: v for k, v in _row().items() if k != "styles"}), "row 2: field 'styles': missing"),
        (json.dumps(_row(key=3)), "row 2: field 'key': wrong type int"),
        (json.dumps(_row(earlier="mysql-8")), "row 2: field 'earlier': wrong type str"),
        (
            json.dumps(_row(probe="quiz")),
            "row 2: field 'probe': 'quiz' is not one of recall, needle, continuation, decision, artifact",
        ),
        (json.dumps(_row(label="maybe")), "row 2: field 'label': 'maybe': give right or wrong"),
        (json.dumps(_row(probe="artifact")), "row 2: field 'expected': a list of paths for artifact, one value otherwise"),
        (json.dumps(_row(expected=["/a.md"])), "row 2: field 'expected': a list of paths for artifact, one value otherwise"),
    ],
)
def test_a_bad_row_is_named_by_its_line_and_field(tmp_path, line, message):
    path = _write(tmp_path, json.dumps(_row()), line)
    assert _error(path) == f"{path}: {message}"


def test_blank_lines_are_skipped_and_do_not_shift_the_line_numbers(tmp_path):
    path = _write(tmp_path, json.dumps(_row("a")), "   ", json.dumps(_row("b", key=None)), json.dumps(_row(label="x")))
    assert _error(path).endswith("row 4: field 'label': 'x': give right or wrong")
    path = _write(tmp_path, json.dumps(_row("a")), "", json.dumps(_row("b", key=None)))
    assert [r["id"] for r in load(path)] == ["a", "b"]  # a null key is allowed (a needle question names none)


def test_each_probe_kind_is_judged_by_its_own_rule():
    artifact = _row(probe="artifact", expected=["/notes/a.md"], answer="I created /notes/a.md.\nRead only: /notes/b.md")
    assert verdict(artifact).correct and verdict(artifact).answered == ("/notes/a.md",)
    # a decision must also name the earlier choice as rejected; a recall answer need not
    decision = _row(probe="decision", answer="pg-16")
    assert not verdict(decision).correct
    assert verdict({**decision, "answer": "Decided pg-16; rejected: mysql-8."}).correct
    assert verdict(_row(answer="pg-16")).correct
    # a null key is read as no key
    assert verdict(_row(key=None, answer="The billing database is pg-16.")).correct


def test_the_rates_are_over_the_wrong_and_the_right_answers_apart_and_rounded_to_four_places():
    rows = [_row("r1"), _row("r2"), _row("r3", answer="mysql-8")]  # 3 right, one of them read wrongly
    rows += [_row(f"w{i}", "wrong", "mysql-8") for i in range(6)] + [_row("w6", "wrong", "pg-16")]  # 7 wrong, one passed
    table = accuracy(read_all(rows))
    row = table.loc["recall"]
    assert row[["n", "right", "wrong", "false PASS", "false FAIL"]].tolist() == [10, 3, 7, 1, 1]
    assert row["false PASS rate"] == 0.1429 and row["false FAIL rate"] == 0.3333 and row["accuracy"] == 0.8
    assert table.index.tolist() == ["recall", "all"]  # a kind with no answer has no row
    assert table.loc["all"].tolist() == row.tolist()


def test_a_kind_with_only_right_or_only_wrong_answers_has_no_rate_for_the_other():
    table = accuracy(read_all([_row("r"), _row("n", "wrong", "mysql-8", probe="needle")]))
    assert pd.isna(table.loc["recall", "false PASS rate"]) and table.loc["recall", "false FAIL rate"] == 0
    assert pd.isna(table.loc["needle", "false FAIL rate"]) and table.loc["needle", "false PASS rate"] == 0
    assert table.index.tolist() == ["recall", "needle", "all"]  # in the order of the kinds, then all
    assert table.loc["all", ["n", "right", "wrong"]].tolist() == [2, 1, 1]


def test_misreadings_put_false_pass_first_then_by_id():
    rows = [
        _row("d", answer="mysql-8"),
        _row("c", "wrong", "pg-16"),
        _row("b", answer="mysql-8"),
        _row("a"),
        _row("e", "wrong", "pg-16"),
    ]
    read = read_all(rows)
    assert [(r.row["id"], r.outcome) for r in misreadings(read)] == [
        ("c", "false PASS"),
        ("e", "false PASS"),
        ("b", "false FAIL"),
        ("d", "false FAIL"),
    ]
    assert [r.outcome for r in read if r.row["id"] == "a"] == ["agree"]


def test_accuracy_is_rounded_to_four_places():
    rows = [_row(f"r{i}") for i in range(6)] + [_row("x", answer="mysql-8")]  # 6 of 7 agree
    assert accuracy(read_all(rows)).loc["recall", "accuracy"] == 0.8571
