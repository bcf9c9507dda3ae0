"""One LangSmith writer and one feedback rule (issue 32): the pytest path (`log_test_case`, which the plugin calls for
every case) logs a case's feedback by the export's `feedback_for`, so an INVALID or ERROR case never adds to a check's
average in LangSmith's feedback columns. Both paths against the recording stand-in: tests/langsmith/test_langsmith.py."""

from types import SimpleNamespace

from harness.langsmith.export import log_test_case

SCENARIO = SimpleNamespace(id="needle-x", kind="needle", task="t", followups=())


def _row(outcome):
    return {
        "outcome": outcome,
        "validity": ["compacted"],
        "scores": {"compacted": outcome != "INVALID", "needle_correct": outcome == "PASS", "tokens_total": 1200, "note": "x"},
        "answers": [],
        "error": None,
        "events": {},
        "tokens": {},
    }


def _logged(outcome):
    sent: dict[str, list] = {"inputs": [], "outputs": [], "feedback": []}
    testing = SimpleNamespace(
        log_inputs=sent["inputs"].append,
        log_outputs=sent["outputs"].append,
        log_feedback=lambda **kw: sent["feedback"].append(kw),
    )
    scores = [SimpleNamespace(key="needle_correct", explanation="expected 'X'")]
    keys = log_test_case(SCENARIO, _row(outcome), scores, None, testing)
    return keys, sent


def test_a_valid_case_logs_its_checks_and_measures_with_their_explanations():
    keys, sent = _logged("FAIL")
    assert keys == ["outcome", "compacted", "passed", "needle_correct", "tokens_total"]
    assert {"key": "needle_correct", "score": 0.0, "comment": "expected 'X'"} in sent["feedback"]
    assert {"key": "outcome", "value": "FAIL"} in sent["feedback"]
    assert sent["inputs"] == [{"case_id": "needle-x", "kind": "needle", "task": "t", "followups": []}]
    assert sent["outputs"][0]["outcome"] == "FAIL" and sent["outputs"][0]["trace_summary"] == {}


def test_an_invalid_case_logs_no_check_and_an_error_case_only_its_outcome():
    assert _logged("INVALID")[0] == ["outcome", "compacted"]
    assert _logged("ERROR")[0] == ["outcome"]
    assert _logged("KNOWN_UPSTREAM")[0] == ["outcome", "compacted"]
