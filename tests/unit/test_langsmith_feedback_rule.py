"""One feedback rule on every LangSmith path (issue 32): the pytest path (`evals/conftest._log_to_langsmith`) logs a
case's feedback through `log_row_feedback`, the export's `feedback_for`, so an INVALID or ERROR case never adds to a
check's average in LangSmith's feedback columns."""

from harness.runs.langsmith_export import log_row_feedback


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


def test_the_pytest_evals_path_logs_through_the_one_rule(monkeypatch):
    """evals/conftest.py's `_log_to_langsmith`, driven with a stand-in for the plugin's `langsmith.testing`: an
    INVALID case logs its outcome and validity score, never a check."""
    import importlib.util
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    from langsmith import testing

    spec = importlib.util.spec_from_file_location(
        "_evals_conftest", Path(__file__).resolve().parents[2] / "evals" / "conftest.py"
    )
    conftest = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "_evals_conftest", conftest)
    spec.loader.exec_module(conftest)
    logged = []
    monkeypatch.setattr(testing, "log_inputs", lambda *a, **k: None)
    monkeypatch.setattr(testing, "log_outputs", lambda *a, **k: None)
    monkeypatch.setattr(testing, "log_feedback", lambda **kw: logged.append(kw["key"]))
    monkeypatch.setattr(conftest, "LANGSMITH", SimpleNamespace(enabled=True, notes=[]))
    scenario = SimpleNamespace(id="needle-x", kind="needle", task="t", followups=())
    row = {**_row("INVALID"), "answers": [], "error": None, "events": {}, "tokens": {}}
    conftest._log_to_langsmith(scenario, row, [], None)
    assert logged == ["outcome", "compacted"]
