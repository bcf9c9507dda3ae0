"""The needle-in-a-haystack grid: cells, and which of them can be valid under a preset.

`harness generate needle` writes a grid of haystack length x needle depth (Kamradt's
experiment) as a scenario file. Before writing, every cell is run once offline, through
the real deepagents agent with the reference models under the chosen preset, to find the
cells that cannot be valid there: no summary before the question (the haystack is too
short for the trigger), or the needle still in view when the question comes (inside the
kept window). Those cells would be reported INVALID, so the user can adjust lengths,
depths or preset first. The check reads only the validity scores, never the answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.scenarios.schema import _scenario
from harness.scoring.scorers import VALIDITY, score_case


@dataclass(frozen=True)
class CellCheck:
    case_id: str
    length: int
    depth: float
    valid: bool
    summaries: int
    reasons: tuple[str, ...]


def check_cells(rows: list[dict], preset: str, *, seed: int = 0, progress: Callable[[str], None] = print) -> list[CellCheck]:
    """Run each generated row once offline under ``preset`` and report its validity."""
    config = make_config(preset)
    models = choose_models(None, None, window=config.window, seed=seed)
    out = []
    for i, row in enumerate(rows, start=1):
        scenario = _scenario(row, "harness generate needle")
        trace = run_case(scenario, config, models, seed=seed)
        failed = [s for s in score_case(trace, scenario) if s.role == VALIDITY and not s.value]
        first_question = min(n.turn for n in scenario.needles)
        summaries = len([e for e in trace.events_of("summary") if e["turn"] < first_question])
        out.append(
            CellCheck(
                scenario.id,
                row["haystack_tokens"],
                row["needle_depth"],
                not failed,
                summaries,
                tuple(f"{s.key}: {s.explanation}" for s in failed),
            )
        )
        progress(
            f"[{i}/{len(rows)}] {scenario.id}: {'valid' if not failed else 'INVALID'} ({summaries} summaries before the question)"
        )
    return out
