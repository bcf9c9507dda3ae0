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

from harness.compaction.variants import make_config
from harness.runs.jobs import Job, RunSettings
from harness.runs.pool import Pool, execute
from harness.scenarios.schema import _scenario
from harness.scoring.scorers import VALIDITY
from harness.suites.execute import CaseResult, NotRun


@dataclass(frozen=True)
class CellCheck:
    case_id: str
    length: int
    depth: float
    valid: bool
    summaries: int
    reasons: tuple[str, ...]


def check_cells(rows: list[dict], preset: str, *, seed: int = 0, progress: Callable[[str], None] = print) -> list[CellCheck]:
    """Run each generated row once offline as the needle eval under ``preset`` (a job of the one executor,
    `harness.runs.pool`) and report its validity."""
    config = make_config(preset)
    jobs = [Job("needle", _scenario(row, "harness generate needle"), config, 0, seed) for row in rows]
    out: list[CellCheck] = []

    def done(job: Job, outcome: CaseResult | NotRun) -> None:
        scenario, row = job.case, rows[len(out)]
        reasons: tuple[str, ...]
        if isinstance(outcome, NotRun):
            failed, summaries, reasons = True, 0, (str(outcome),)
        else:
            assert outcome.trace is not None
            bad = [s for s in outcome.scores.values() if s.role == VALIDITY and not s.value]
            first_question = min(n.turn for n in scenario.needles)
            summaries = len([e for e in outcome.trace.events_of("summary") if e["turn"] < first_question])
            failed, reasons = bool(bad), tuple(f"{s.key}: {s.explanation}" for s in bad)
        out.append(CellCheck(scenario.id, row["haystack_tokens"], row["needle_depth"], not failed, summaries, reasons))
        progress(
            f"[{len(out)}/{len(rows)}] {scenario.id}: {'valid' if not failed else 'INVALID'} ({summaries} summaries before the question)"
        )

    execute(jobs, RunSettings(), Pool(), done)
    return out
