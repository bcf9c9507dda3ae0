"""Small modules: no module of the package or of tools/ is over 600 lines (issue 32's budget), so each can be read
whole. A module that grows past it is split by concept, as `harness.answers` was."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 600

# Modules allowed over the budget for now: none. Do not add to it: split the module instead.
BEING_SPLIT: set[str] = set()


def oversized(root: Path = ROOT) -> dict[str, int]:
    """Every module of harness/ and tools/ over `MAX_LINES` lines, with its length."""
    found = {}
    for folder in ("harness", "tools"):
        for path in sorted((root / folder).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                found[path.relative_to(root).as_posix()] = lines
    return found


def test_no_module_is_over_600_lines():
    over = {path: n for path, n in oversized().items() if path not in BEING_SPLIT}
    assert not over, f"modules over {MAX_LINES} lines (split them by concept): {over}"


def test_the_allow_list_names_only_modules_still_over_the_budget():
    """An entry whose module was split (or shrank) must leave the list, so the list only ever shrinks."""
    stale = sorted(BEING_SPLIT - oversized().keys())
    assert not stale, f"no longer over {MAX_LINES} lines, remove from BEING_SPLIT: {stale}"


def test_the_check_counts_lines_and_finds_a_long_module(tmp_path):
    (tmp_path / "harness").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "harness" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "harness" / "fits.py").write_text("x = 1\n" * MAX_LINES)
    assert oversized(tmp_path) == {"harness/long.py": MAX_LINES + 1}
