"""One feedback rule on every LangSmith path (issue 32): the pytest path (`evals/conftest._log_to_langsmith`) logs a
case's feedback through `log_row_feedback`, the export's `feedback_for`, so an INVALID or ERROR case never adds to a
check's average in LangSmith's feedback columns."""

from harness.runs.langsmith_export import feedback_for, log_row_feedback


def _row(outcome):
    return {
        "outcome": outcome,
        "validity": ["compacted"],
        "scores": {"compacted": outcome != "INVALID", "needle_correct": outcome == "PASS", "tokens_total": 1200, "note": "x"},
    }


def _logged(outcome):
    calls = []
    keys = log_row_feedback(_row(outcome), {"needle_correct": "expected 'X'"}, lambda **kw: calls.append(kw))
    return keys, calls


def test_a_valid_case_logs_its_checks_and_measures_with_their_explanations():
    keys, calls = _logged("FAIL")
    assert keys == ["outcome", "compacted", "passed", "needle_correct", "tokens_total"]
    assert {"key": "needle_correct", "score": 0.0, "comment": "expected 'X'"} in calls
    assert {"key": "outcome", "value": "FAIL"} in calls


def test_an_invalid_case_logs_no_check_and_an_error_case_only_its_outcome():
    assert _logged("INVALID")[0] == ["outcome", "compacted"]
    assert _logged("ERROR")[0] == ["outcome"]


def test_the_pytest_path_and_the_export_apply_the_same_rule():
    for outcome in ("PASS", "FAIL", "INVALID", "ERROR", "KNOWN_UPSTREAM"):
        row = _row(outcome)
        numeric = {k: v for k, v in row["scores"].items() if isinstance(v, (bool, int, float))}
        assert _logged(outcome)[0] == [f["key"] for f in feedback_for({**row, "scores": numeric})]
