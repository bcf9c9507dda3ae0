"""The shipped scenario files' rows kept on disk (`harness.scenarios.cache`): read back while the file is unchanged,
loaded through `datasets` again when it changes, a corrupt entry ignored and rewritten, a user's own file not kept."""

from __future__ import annotations

import json

import pytest

import harness.scenarios.cache as cache
import harness.scenarios.schema as schema
from harness.scenarios.cache import cached_rows
from harness.scenarios.schema import DATASETS_DIR, all_scenario_files, load_scenarios

ROWS = [{"id": "a", "depth": 0.25, "turn": 3, "flag": True, "doc": None, "tags": ["x", "y"], "nested": {"k": 1.0}}]


class Loader:
    """A stand-in for the `datasets` load: counts its calls."""

    def __init__(self, rows):
        self.rows, self.calls = rows, 0

    def __call__(self, path):
        self.calls += 1
        return [dict(r) for r in self.rows]


@pytest.fixture
def shipped(tmp_path):
    root = tmp_path / "datasets"
    (root / "mechanisms").mkdir(parents=True)
    path = root / "mechanisms" / "cases.jsonl"
    path.write_text('{"id": "a"}\n')
    return root, path, tmp_path / "cache"


def test_an_unchanged_file_is_read_back_without_loading_it_again(shipped):
    root, path, where = shipped
    load = Loader(ROWS)
    assert cached_rows(path, load, root=root, where=where) == ROWS
    assert cached_rows(path, load, root=root, where=where) == ROWS
    assert load.calls == 1
    (entry,) = where.iterdir()
    assert entry.name == "mechanisms__cases.jsonl.json"


def test_a_changed_file_is_loaded_again_and_the_entry_rewritten(shipped):
    root, path, where = shipped
    cached_rows(path, Loader(ROWS), root=root, where=where)
    path.write_text('{"id": "b"}\n')
    changed = Loader([{"id": "b"}])
    assert cached_rows(path, changed, root=root, where=where) == [{"id": "b"}]
    assert cached_rows(path, changed, root=root, where=where) == [{"id": "b"}]
    assert changed.calls == 1


@pytest.mark.parametrize(
    "entry", ['{"key": "', "\x00\xff not json", "[1, 2]", '{"key": "KEY", "rows": "nope"}', '{"key": "KEY", "rows": [1]}']
)
def test_a_corrupt_entry_is_ignored_and_rewritten(shipped, entry):
    root, path, where = shipped
    cached_rows(path, Loader(ROWS), root=root, where=where)
    (kept,) = where.iterdir()
    key = json.loads(kept.read_text())["key"]
    kept.write_bytes(entry.replace("KEY", key).encode("utf-8", "surrogateescape"))
    load = Loader(ROWS)
    assert cached_rows(path, load, root=root, where=where) == ROWS
    assert load.calls == 1
    assert json.loads(kept.read_text()) == {"key": key, "rows": ROWS}


def test_an_unwritable_cache_is_no_error(shipped):
    root, path, where = shipped
    where.write_text("a file where the directory would be")
    load = Loader(ROWS)
    assert cached_rows(path, load, root=root, where=where) == ROWS
    assert cached_rows(path, load, root=root, where=where) == ROWS
    assert load.calls == 2


def test_rows_json_would_not_give_back_as_they_were_are_not_kept(shipped):
    import datetime

    root, path, where = shipped
    load = Loader([{"id": "a", "when": datetime.date(2026, 1, 1)}, {"id": "b", "pair": (1, 2)}])
    cached_rows(path, load, root=root, where=where)
    assert not where.exists()


def test_a_file_outside_the_shipped_datasets_is_never_kept(shipped, tmp_path):
    root, _, where = shipped
    own = tmp_path / "own.jsonl"
    own.write_text('{"id": "a"}\n')
    load = Loader(ROWS)
    cached_rows(own, load, root=root, where=where)
    cached_rows(own, load, root=root, where=where)
    assert load.calls == 2 and not where.exists()


def test_the_scenarios_read_back_equal_the_ones_datasets_loaded(monkeypatch, tmp_path):
    """The real `datasets` load of every shipped file, then the same files from the cache: the same scenarios."""
    monkeypatch.setattr(cache, "cache_dir", lambda: tmp_path)
    loads = []
    real = schema._load_hf
    monkeypatch.setattr(schema, "_load_hf", lambda p: loads.append(p) or real(p))
    files = all_scenario_files()
    cold = load_scenarios(files)
    warm = load_scenarios(files)
    assert loads == files and len(cold) > 50 and warm == cold
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        str(f.relative_to(DATASETS_DIR)).replace("/", "__") + ".json" for f in files
    )
