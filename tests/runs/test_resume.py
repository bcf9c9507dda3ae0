"""Re-running an experiment: which cells are kept, which run again and with which attempt number."""

from __future__ import annotations

from harness.runs.grid import Cell, resume_plan


def _cell(case: str) -> Cell:
    return Cell(arm="a", threshold="t", case_id=case, trial=0)


def _row(outcome: str, attempt: int | None = None) -> dict:
    row = {"outcome": outcome, "outcome_keys": ["agent: HTTP 503"] if outcome == "ERROR" else []}
    if attempt is not None:
        row["attempt"] = attempt
    return row


CELLS = [_cell("c1"), _cell("c2"), _cell("c3"), _cell("c4")]


def test_finished_cells_are_kept_and_the_others_run_in_plan_order():
    current = {CELLS[0].id: _row("PASS"), CELLS[2].id: _row("FAIL")}
    done, attempts, todo = resume_plan(CELLS, current)
    assert set(done) == {CELLS[0].id, CELLS[2].id}
    assert todo == [CELLS[1], CELLS[3]]
    assert attempts == {}


def test_an_invalid_cell_is_done_not_run_again():
    done, _, todo = resume_plan(CELLS, {CELLS[0].id: _row("INVALID")})
    assert CELLS[0].id in done and CELLS[0] not in todo


def test_an_error_cell_runs_again_as_the_next_attempt():
    current = {CELLS[0].id: _row("ERROR"), CELLS[1].id: _row("ERROR", attempt=2)}
    done, attempts, todo = resume_plan(CELLS, current)
    assert done == {}
    assert attempts == {CELLS[0].id: 2, CELLS[1].id: 3}  # a row without an attempt number was attempt 1
    assert todo == CELLS


def test_without_retry_errors_an_error_cell_counts_as_done():
    current = {CELLS[0].id: _row("ERROR")}
    done, attempts, todo = resume_plan(CELLS, current, retry_errors=False)
    assert CELLS[0].id in done and attempts == {} and todo == CELLS[1:]


def test_max_cells_caps_the_cells_to_run_not_the_plan():
    done, _, todo = resume_plan(CELLS, {CELLS[0].id: _row("PASS")}, max_cells=2)
    assert todo == CELLS[1:3]
    _, _, none = resume_plan(CELLS, {}, max_cells=0)
    assert none == []
