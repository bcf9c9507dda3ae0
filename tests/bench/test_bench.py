"""The benchmark's stress run works on a small task (figures come from harness bench, not from tests)."""

from harness.bench.figures import render, stress


def test_stress_run_reports_its_measures_on_a_small_task():
    result = stress(ledgers=8)
    assert result["error"] is None and result["agent_calls"] == 2 * 8 + 1
    assert 0 <= result["recorder_share"] < 1 and result["history_last_tenth"] > result["history_first_tenth"]
    table = render(
        {
            "created_at": "now",
            "machine": {"cpus": 2, "python": "3.11"},
            "suites": [],
            "recorder": {
                "cases": ["a"],
                "repeats": 1,
                "ratio_total": 1.0,
                "ratio_ci95": [0.9, 1.1],
                "ratio_total_wall": 1.0,
                "ratio_median_pair": 1.0,
                "ratio_p90_pair": 1.0,
                "own_time_share": 0.03,
                "own_ms_per_call": 0.4,
                "recorder_ms_per_call": 0.4,
                "mean_run_s_without": 0.5,
                "mean_run_s_with": 0.5,
                "trace_save_ms_per_run": 30,
            },
            "stress": result,
        }
    )
    assert "stress run" in table and "log-log slope" in table
