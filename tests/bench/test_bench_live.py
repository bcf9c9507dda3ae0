"""`harness bench`'s live rows: whole waves of cases, and a row that says the share of ideal and its CPU bound."""

import pytest

from harness.bench.figures import best_schedule_s, live_plan, render_live_row

CASES = [f"case-{i}" for i in range(20)]


@pytest.mark.parametrize(
    ("n", "waves", "cases", "trials"),
    [(1, 4, 20, 1), (4, 4, 20, 1), (16, 4, 20, 4), (32, 4, 16, 8), (64, 2, 16, 8), (40, 1, 20, 2)],
)
def test_live_plan_fills_whole_waves_when_more_are_in_flight_than_cases(n, waves, cases, trials):
    chosen, got_trials = live_plan(n, CASES, waves)
    assert (len(chosen), got_trials) == (cases, trials)
    assert chosen == CASES[:cases]
    if n > len(CASES):
        assert len(chosen) * got_trials == waves * n  # no part-full last wave


def test_a_plan_with_a_part_full_last_wave_would_be_caught():
    chosen, trials = len(CASES), 7  # the old rule for 64 in flight: 140 cells, two waves and 12 cases
    assert (chosen * trials) % 64 != 0
    assert live_plan(64, CASES, 2) != (CASES, 7)


def test_a_live_row_leads_with_the_share_of_ideal_and_gives_the_cpu_bound():
    row = {
        "concurrency": 64,
        "processes": 1,
        "latency_s": 2.0,
        "cells": 128,
        "requests": 3570,
        "peak_in_flight": 64,
        "cells_per_s": 1.05,
        "ideal_cells_per_s": 1.147,
        "share_of_ideal": 0.915,
        "client_cpu_ms_per_request": 14.2,
        "server_cpu_ms_per_request": 1.5,
        "client_cpu_ceiling_share": 1.0,
    }
    line = render_live_row(row)
    assert "`harness run --concurrency 64` vs `harness serve --latency 2`" in line
    assert "**92% of ideal**" in line and "client 14.2 ms, server 1.5 ms" in line and "caps it at 100% of ideal" in line


def test_an_older_live_row_without_cpu_figures_still_renders():
    row = {"concurrency": 16, "processes": 2, "cells": 80, "requests": 2232, "peak_in_flight": 16}
    row |= {"cells_per_s": 1.96, "ideal_cells_per_s": 2.867, "share_of_ideal": 0.684}
    line = render_live_row(row)
    assert "--processes 2" in line and "--latency 0.2" in line and "**68% of ideal**" in line and "CPU" not in line


def test_the_servers_stats_give_its_process_cpu_time():
    import time

    from harness.reference.serve import ServerState

    before = time.process_time()
    sum(i * i for i in range(200_000))  # some CPU, so a constant would not pass
    cpu = ServerState().stats()["cpu_s"]
    assert before - 0.001 <= cpu <= time.process_time() + 0.001


def test_the_best_schedule_of_a_finite_run_allows_for_its_tail():
    assert best_schedule_s([10.0] * 8, 4) == 20.0  # two full waves: the packed ideal, nothing lost to a tail
    assert best_schedule_s([10.0, 10.0, 10.0, 30.0], 2) == 30.0  # longest first, whatever the plan's order
    assert best_schedule_s([30.0, 10.0, 10.0, 10.0], 2) == 30.0
    assert best_schedule_s([30.0, 30.0, 20.0], 2) == 50.0  # a tail no order avoids: three cells in two slots
    assert best_schedule_s([], 4) == 0.0
    row = {"concurrency": 64, "processes": 1, "latency_s": 2.0, "cells": 128, "requests": 3248, "peak_in_flight": 64}
    row |= {"cells_per_s": 0.9, "ideal_cells_per_s": 1.26, "share_of_ideal": 0.714, "share_of_schedule": 0.93}
    assert "**71% of ideal**" in (line := render_live_row(row)) and "93% of the same cells' longest-first schedule" in line


def test_cases_start_longest_first_ties_in_plan_order():
    from harness.runs.run import start_order

    assert start_order([3, 9, 3, 5]) == [1, 3, 0, 2]
    assert start_order([]) == []


def test_a_case_size_counts_what_the_agent_is_given():
    from harness.scenarios.schema import Scenario

    small = Scenario(id="a", kind="needle", description="", task="t" * 10, documents=(("d1", "x" * 100),))
    big = Scenario(id="b", kind="needle", description="", task="t" * 10, documents=(("d1", "x" * 100), ("d2", "y" * 50)))
    assert (small.size_chars, big.size_chars) == (110, 160)
    assert (
        Scenario(id="c", kind="goal", description="", task="go", conversation=({"role": "user", "content": "abc"},)).size_chars
        == 5
    )


def test_the_longest_first_schedule_is_a_rule_not_the_optimum():
    assert best_schedule_s([3.0, 3.0, 2.0, 2.0, 2.0], 2) == 7.0  # 3+2+2 | 3+2 where 3+3 | 2+2+2 = 6 is possible
