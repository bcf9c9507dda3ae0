"""harness generate needle: the Kamradt grid, needles at sentence boundaries, validity checked before writing."""

import json

import pytest

from harness.cli.main import EXIT_BAD_INPUT, EXIT_OK, main
from harness.scenarios.generate import niah_depths, niah_grid, niah_lengths, niah_scenario
from harness.scenarios.schema import load_scenarios


def _needle_offset(row: dict) -> float:
    """Where the needle sentence starts, as a share of the haystack's text (documents in order)."""
    text = "\n".join(d["text"] for d in row["documents"])
    needle = next(line for line in text.splitlines() if row["needles"][0]["answer"] in line)
    return text.index(needle) / len(text)


@pytest.mark.parametrize("length", [4000, 8000, 32000])
def test_the_needle_lands_at_the_requested_depth_at_a_sentence_boundary(length):
    offsets = []
    for depth in (0, 0.25, 0.5, 0.75, 1):
        row = niah_scenario(length, depth, 7)
        offset = _needle_offset(row)
        assert abs(offset - depth) < 0.03, (length, depth, offset)
        offsets.append(offset)
        needle_line = next(ln for d in row["documents"] for ln in d["text"].splitlines() if row["needles"][0]["answer"] in ln)
        assert needle_line.startswith("For the record, the ") and needle_line.endswith(".")  # a sentence of its own
    assert offsets == sorted(offsets) and len(set(offsets)) == 5  # five distinct places, even at 4k tokens


def test_the_grid_is_deterministic_and_loads_as_a_dataset(tmp_path):
    rows = niah_grid([4000, 8000], [0.0, 0.5], 7, needles=2, distractors=3)
    assert rows == niah_grid([4000, 8000], [0.0, 0.5], 7, needles=2, distractors=3)
    assert rows != niah_grid([4000, 8000], [0.0, 0.5], 8, needles=2, distractors=3)
    path = tmp_path / "grid.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = load_scenarios([path])
    assert [s.id for s in loaded] == [
        "niah-l04000-d0000-n2",
        "niah-l04000-d0500-n2",
        "niah-l08000-d0000-n2",
        "niah-l08000-d0500-n2",
    ]
    assert all(len(s.needles) == 2 and len(s.followups) == 2 for s in loaded)
    keys = [n.key for n in loaded[0].needles]
    text = "\n".join(t for _, t in loaded[0].documents)
    assert text.count("For the record, the ") == 2 + 3 and len(set(keys)) == 2


def test_kamradt_length_and_depth_spacing():
    assert niah_lengths(1000, 32000, 5) == [1000, 8800, 16500, 24200, 32000]
    assert niah_depths(5) == [0.0, 0.25, 0.5, 0.75, 1.0]
    sigmoid = niah_depths(7, "sigmoid")
    assert sigmoid[0] == 0.0 and sigmoid[-1] == 1.0 and sigmoid[3] == 0.5
    assert sigmoid[1] < 1 / 6 and sigmoid[5] > 5 / 6  # denser near both ends


def test_generate_needle_names_the_cells_that_cannot_be_valid_and_writes_the_file(tmp_path, capsys):
    out = tmp_path / "mine.jsonl"
    code = main(["generate", "needle", "--lengths", "8000,24000", "--depths", "0,1", "--out", str(out)])
    assert code == EXIT_OK
    printed = capsys.readouterr().out
    assert "checked under forced-20 (one offline run per cell): 1 valid, 3 cannot be valid" in printed
    assert "INVALID niah-l08000-d0000" in printed and "INVALID niah-l24000-d1000" in printed  # too short; needle kept in view
    assert "niah-l24000-d0000" not in printed.split("cannot be valid")[1]
    assert len(out.read_text().splitlines()) == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--depths", "0,1.5", "--lengths", "8000"], "--depths: 1.5 is outside [0, 1]"),
        (["--depths", "0,x", "--lengths", "8000"], "--depths: expected comma-separated numbers"),
        (["--depths", "0", "--lengths", "10"], "--lengths: 10 is out of range"),
        (["--depths", "0"], "give --lengths, or all of --length-min"),
        (["--depth-steps", "0", "--lengths", "8000"], "--depth-steps must be at least 1"),
        (["--depths", "0", "--lengths", "8000", "--check", "forced-99"], "unknown variant 'forced-99'"),
    ],
)
def test_bad_grid_options_exit_2_and_write_nothing(tmp_path, argv, message, capsys):
    out = tmp_path / "mine.jsonl"
    assert main(["generate", "needle", *argv, "--out", str(out)]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err and not out.exists()
