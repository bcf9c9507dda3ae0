"""The import figure of `harness bench`: the generated session it times imports, and the figure renders as a table row."""

from __future__ import annotations

import json
from pathlib import Path

from harness.sessions.bench import generated_session, import_figure


def test_the_generated_session_is_as_long_as_asked_and_imports(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    generated_session(path, 101)
    lines = path.read_text().splitlines()
    assert len(lines) == 101 and json.loads(lines[0])["role"] == "system"
    figure = import_figure(200)
    assert figure["messages"] == 200 and 0 < figure["cut"] < 200 and figure["tokens"] > 0 and figure["wall_s"] > 0


def test_the_import_part_renders_its_row() -> None:
    from harness.bench.figures import PARTS, render

    assert "import" in PARTS
    result = {
        "created_at": "2026-11-28T21:00:00+00:00",
        "machine": {"cpus": 2, "python": "3.11"},
        "import": {"messages": 10_000, "tokens": 700_000, "cut": 6000, "wall_s": 2.5, "target_s": 5.0},
    }
    assert (
        "| `harness import` of a generated 10,000-message session (700,000 tokens; fresh process, imports included; "
        in render(result)
    )
