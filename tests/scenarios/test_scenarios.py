import copy
import json

import pytest

from harness.errors import DatasetError
from harness.scenarios.generate import generate
from harness.scenarios.schema import DATASETS_DIR, DEFAULT_FILES, MECHANISM_FILES, MECHANISMS_DIR, load_scenarios, select
from harness.scenarios.session_case import SESSION_RECORDING


@pytest.fixture(scope="module")
def good_rows():
    with (DATASETS_DIR / "needle.jsonl").open() as fh:
        needle = json.loads(fh.readline())
    with (DATASETS_DIR / "goal.jsonl").open() as fh:
        goal = json.loads(fh.readline())
    with (MECHANISMS_DIR / "truncation.jsonl").open() as fh:
        report = json.loads(fh.readline())
    return needle, goal, report


def write(tmp_path, rows, name="cases.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_shipped_datasets_load_through_hf_datasets_and_have_enough_cases(scenarios):
    kinds = [s.kind for s in scenarios.values()]
    assert kinds.count("needle") >= 20 and kinds.count("goal") >= 10 and kinds.count("chain") == 8
    assert kinds.count("truncation") == 8 and kinds.count("probe") == 17  # 16 generated (8 families x 2) + the recorded one
    assert {s.min_summaries for s in scenarios.values() if s.kind == "chain"} == {1, 2, 4, 8}
    needle = scenarios["needle-h24k-d025"]
    assert needle.needles[0].answer and needle.followups and needle.documents
    assert select(list(scenarios.values()), kind="goal", ids=["goal-ledgers-1*"], limit=2)[0].id == "goal-ledgers-12"


def test_shipped_datasets_are_exactly_what_the_generator_writes(tmp_path):
    generate(tmp_path)
    for name in (*DEFAULT_FILES, *MECHANISM_FILES, SESSION_RECORDING, "niah/grid.jsonl"):
        assert (tmp_path / name).read_bytes() == (DATASETS_DIR / name).read_bytes(), (
            f"datasets/{name} is out of date: run harness generate"
        )


def _broken(rows, mutate):
    row = copy.deepcopy(rows)
    mutate(row)
    return row


@pytest.mark.parametrize(
    ("which", "mutate", "field", "problem"),
    [
        (0, lambda r: r.pop("task"), "task", "missing required field"),
        (0, lambda r: r.update(kind="haystack"), "kind", "unknown kind"),
        (0, lambda r: r.update(id="Needle One"), "id", "lowercase"),
        (0, lambda r: r["needles"][0].update(answer=4417), "needles[0].answer", "expected a string, got int"),
        (0, lambda r: r["needles"][0].update(answer="  "), "needles[0].answer", "non-empty"),
        (0, lambda r: r["needles"][0].update(doc="DOC-999"), "needles[0].doc", "not one of the row's documents"),
        (0, lambda r: r["needles"][0].update(depth=1.5), "needles[0].depth", "between 0 and 1"),
        (0, lambda r: r["needles"][0].update(turn=5), "needles[0].turn", "follow-up turn"),
        (
            0,
            lambda r: r.update(followups=["Question: What is the weather? Reply with the value only."]),
            "followups[0]",
            "does not ask",
        ),
        (0, lambda r: r["documents"][0].pop("text"), "documents[0].text", "missing required field"),
        (0, lambda r: r.update(colour="red"), "colour", "unknown field"),
        (0, lambda r: r.update(min_summaries=0), "min_summaries", "at least 1"),
        (0, lambda r: r.update(kind="chain", needles=[]), "needles", "a chain scenario needs at least one needle"),
        (1, lambda r: r["files"][0].update(path="ledgers/x.md"), "files[0].path", "absolute path"),
        (1, lambda r: r["expected_steps"][0].update(tool="rm_rf"), "expected_steps[0].tool", "unknown tool"),
        (2, lambda r: r.pop("expected_files"), "expected_files", "needs the file it builds"),
        (2, lambda r: r["expected_files"][0].update(path="reports/x.md"), "expected_files[0].path", "absolute path"),
        (2, lambda r: r["expected_files"][0].update(contains=[]), "expected_files[0].contains", "non-empty list"),
        (2, lambda r: r["expected_files"][0].update(contains=["1234-HERON", 7]), "expected_files[0].contains", "non-empty list"),
        (2, lambda r: r["expected_files"][0].update(size=3), "expected_files[0].size", "unknown field"),
    ],
)
def test_malformed_row_names_file_row_and_field(tmp_path, good_rows, which, mutate, field, problem):
    rows = list(good_rows)
    rows[which] = _broken(rows[which], mutate)
    path = write(tmp_path, rows)
    with pytest.raises(DatasetError) as err:
        load_scenarios([path])
    message = str(err.value)
    assert str(path) in message and f"row {which + 1}" in message and f"field {field!r}" in message, message
    assert problem in message, message


def test_invalid_json_names_the_line(tmp_path, good_rows):
    path = write(tmp_path, [good_rows[0], '{"id": "x", "kind": ', good_rows[1]])
    with pytest.raises(DatasetError, match=r"cases.jsonl: row 2: invalid JSON"):
        load_scenarios([path])


def test_invalid_json_reads_as_one_sentence(tmp_path, good_rows):
    path = write(tmp_path, [good_rows[0], '{"id": "abc'])  # the newline ends the string: "Invalid control character at"
    with pytest.raises(DatasetError) as err:
        load_scenarios([path])
    assert str(err.value) == f"{path}: row 2: invalid JSON (Invalid control character at), column 12"  # not "at at column"


def test_a_directory_is_named_as_one_with_what_to_give_instead(tmp_path):
    with pytest.raises(DatasetError) as err:
        load_scenarios([tmp_path])
    assert str(err.value) == f"{tmp_path}: is a directory; give its .jsonl files (e.g. {tmp_path / '*.jsonl'})"


def test_duplicate_ids_across_files_are_rejected(tmp_path, good_rows):
    a = write(tmp_path, [good_rows[0]], "a.jsonl")
    b = write(tmp_path, [good_rows[0]], "b.jsonl")
    with pytest.raises(DatasetError, match=r"b.jsonl: row 1 \(id 'needle-h24k-d000'\): field 'id': duplicate id"):
        load_scenarios([a, b])


def test_missing_and_empty_files_are_errors(tmp_path):
    with pytest.raises(DatasetError, match="no such file"):
        load_scenarios([tmp_path / "nope.jsonl"])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(DatasetError, match="no rows"):
        load_scenarios([empty])


def test_a_truncation_case_regenerates_with_other_documents_and_seed_0_is_the_shipped_row(scenarios):
    from harness.scenarios.generate import regenerate_truncation_case
    from harness.scenarios.schema import _scenario

    shipped = scenarios["truncation-edits-08"]
    assert _scenario(regenerate_truncation_case("truncation-edits-08", 0), shipped.source) == shipped
    other = _scenario(regenerate_truncation_case("truncation-edits-08", 3), shipped.source)
    assert other.id == shipped.id and other.documents != shipped.documents and other.expected_files != shipped.expected_files
    with pytest.raises(ValueError, match="not a truncation case id"):
        regenerate_truncation_case("needle-h24k-d000", 1)
