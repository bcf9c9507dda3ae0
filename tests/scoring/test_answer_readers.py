"""The answer readers against the hand-labelled answers in datasets/answers/: the goal of issue 31 (no wrong answer read
as right; under 2 % of right answers read as wrong) on every shipped corpus, and `harness judge readers`."""

import json

import pytest

from harness.cli.main import main
from harness.cli.options import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from harness.errors import DatasetError
from harness.scoring.readers import ANSWERS_DIR, CORPORA, accuracy, load, misreadings, read_all
from tests.scoring.test_answer_readers_table import _row as labelled_row

SHIPPED = [name for name in CORPORA if (ANSWERS_DIR / name).is_file()]


@pytest.mark.parametrize("name", SHIPPED)
def test_no_wrong_answer_is_read_as_right_and_under_two_percent_of_right_ones_as_wrong(name):
    read = read_all(load(ANSWERS_DIR / name))
    table = accuracy(read)
    wrong = [f"{r.outcome} {r.row['id']}: {r.verdict.how}" for r in misreadings(read)]
    assert table.loc["all", "false PASS"] == 0, wrong
    assert table.loc["all", "false FAIL rate"] < 0.02, wrong
    assert set(table.index) == {"recall", "needle", "continuation", "decision", "artifact", "all"}


def test_the_table_counts_false_pass_and_false_fail_apart():
    rows = [
        _row("a", "right", "pg-16"),  # agree
        _row("b", "wrong", "pg-16"),  # false PASS
        _row("c", "right", "mysql-8"),  # false FAIL
        _row("d", "wrong", "mysql-8"),  # agree
    ]
    read = read_all(rows)
    table = accuracy(read)
    assert table.loc["recall", ["n", "right", "wrong", "false PASS", "false FAIL", "accuracy"]].tolist() == [4, 2, 2, 1, 1, 0.5]
    assert table.loc["recall", "false PASS rate"] == 0.5 and table.loc["recall", "false FAIL rate"] == 0.5
    assert [r.row["id"] for r in misreadings(read)] == ["b", "c"]  # false PASS first


def _row(rid, label, answer, **extra):
    return labelled_row(
        rid, label, answer, question="Question: What is the billing database? Reply with the value only.", **extra
    )


def test_a_bad_row_is_named_by_file_line_and_field(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(_row("a", "right", "pg-16")) + "\n" + json.dumps(_row("b", "maybe", "pg-16")) + "\n")
    with pytest.raises(DatasetError, match=r"answers.jsonl: row 2: field 'label': 'maybe': give right or wrong"):
        load(path)
    path.write_text(json.dumps({k: v for k, v in _row("a", "right", "x").items() if k != "answer"}) + "\n")
    with pytest.raises(DatasetError, match=r"row 1: field 'answer': missing"):
        load(path)
    path.write_text(json.dumps(_row("a", "right", "x", earlier=[1234])) + "\n")
    with pytest.raises(DatasetError, match=r"row 1: field 'earlier': a list of strings is expected"):
        load(path)
    path.write_bytes(json.dumps(_row("a", "right", "x")).encode() + b"\n\xff\n")
    with pytest.raises(DatasetError, match=r"row 2: not UTF-8"):
        load(path)
    with pytest.raises(DatasetError, match=r"is a directory"):
        load(tmp_path)


def test_judge_readers_prints_the_table_and_exits_by_its_contract(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(_row("a", "right", "The billing database is pg-16 (it was mysql-8).")) + "\n")
    assert main(["judge", "readers", str(good)]) == EXIT_OK
    assert "| all " in capsys.readouterr().out
    misread = tmp_path / "misread.jsonl"
    misread.write_text(json.dumps(_row("b", "wrong", "pg-16")) + "\n")
    assert main(["judge", "readers", str(misread), "--show"]) == EXIT_OK
    assert "false PASS: b" in capsys.readouterr().out
    assert main(["judge", "readers", str(misread), "--fail-on-false-pass"]) == EXIT_FAILED
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert main(["judge", "readers", str(good), str(bad)]) == EXIT_BAD_INPUT
    assert "bad.jsonl: row 1" in capsys.readouterr().err
