"""The run report's counts: per eval and arm the PASS / FAIL / INVALID / ERROR counts, the pass rate of every check over
valid runs only (Wilson 95 %), the invalid and errored runs excluded with their reasons, the means of measurements;
the faults eval read the other way round (FAIL is the fault detected); then the cases that failed, named."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from harness.report import run_report
from harness.report._document import Document
from harness.report.run_report import _injects_faults, _pass_rates, _problem_cases
from harness.rows import eval_label

INTRO = (
    "Each case run is PASS, FAIL or INVALID (a validity score failed: the run did not test what it claims, e.g. "
    "nothing was compacted or the needle was still in view). Rates are over valid runs only (PASS + FAIL), "
    "with a Wilson 95 % interval; invalid runs are counted beside them with their reasons, never as passes."
)


def _row(case_id: str, outcome: str, keys=(), *, passed, scores=None, ev="needle", arm="base", trial=0, **extra) -> dict:
    return {
        "case_id": case_id,
        "eval": ev,
        "kind": ev,
        "arm": arm,
        "trial": trial,
        "outcome": outcome,
        "outcome_keys": list(keys),
        "passed": passed,
        "scores": {**passed, **(scores or {})},
        "validity": ["compacted", "needle_in_view"],
        "explanations": {},
        **extra,
    }


def _blocks(doc: Document) -> list:
    """The document's blocks, tables as lists of records (an empty cell as None)."""
    return [(kind, _records(value) if isinstance(value, pd.DataFrame) else value) for kind, value in doc.blocks]


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: None if pd.isna(v) else v for k, v in record.items()} for record in frame.to_dict("records")]


def _pass_rate_blocks(rows: list[dict]) -> list:
    doc = Document("run")
    _pass_rates(doc, rows)
    assert doc.blocks[:2] == [("heading", (2, "Pass rates")), ("text", INTRO)]
    return _blocks(doc)[2:]


def _problem_blocks(rows: list[dict]) -> list:
    doc = Document("run")
    _problem_cases(doc, rows)
    return _blocks(doc)


OK = {"run_completed": True, "compacted": True, "needle_correct": True}
MISSED = {"run_completed": True, "compacted": True, "needle_correct": False}
UNCOMPACTED = {"run_completed": True, "compacted": False, "needle_correct": True}


def test_the_eval_of_a_row_is_its_registry_entry_or_for_an_old_row_its_kind():
    assert eval_label({"eval": "faults", "kind": "needle"}) == "faults"
    assert eval_label({"kind": "goal"}) == "goal"
    assert eval_label({"eval": None, "kind": "chain"}) == "chain cases, no eval"  # ran as no eval: never the eval of its kind


def test_only_the_faults_eval_injects_faults_and_an_unknown_eval_does_not():
    assert [_injects_faults(e) for e in ("faults", "needle", "goal", "no-such-eval")] == [True, False, False, False]


def test_rates_are_over_valid_runs_with_invalid_and_errored_runs_excluded_and_counted_with_their_reasons():
    error = "agent: HTTP 503 InternalServerError"
    rows = [
        _row("n1", "PASS", passed=OK, scores={"pages_read": 1, "ratio": 0.1, "never": None}),
        _row(
            "n2",
            "FAIL",
            ["needle_correct"],
            passed={**MISSED, "needle_via_history": False},
            scores={"pages_read": 2, "ratio": 0.2},
        ),
        _row("n3", "PASS", passed={**OK, "needle_via_history": True}, scores={"pages_read": None, "ratio": 0.4}),
        _row("n4", "INVALID", ["compacted"], passed={**UNCOMPACTED, "summaries_ok": True}, scores={"pages_read": 9, "never": 5}),
        _row("n5", "INVALID", ["compacted", "needle_in_view"], passed={**UNCOMPACTED, "needle_in_view": False}),
        _row("n6", "ERROR", [error], passed=OK),
        _row("n7", "ERROR", ["summarizer: APITimeoutError"], passed=OK),
        _row("n8", "ERROR", [error], passed=OK),
    ]
    assert _pass_rate_blocks(rows) == [
        ("heading", (3, "needle (8 runs)")),
        (
            "text",
            "2 PASS, 1 FAIL, 2 INVALID, 3 ERROR: rates over the 3 valid runs; excluded as INVALID: 2 (compacted: 2, "
            "needle_in_view: 1); excluded as ERROR (provider error after every retry): 3 "
            f"({error}: 2, summarizer: APITimeoutError: 1).",
        ),
        (
            "table",
            [
                {"score": "all checks", "pass rate": "67%", "95% interval": "[21%, 94%]", "n": 3},
                {"score": "run_completed", "pass rate": "100%", "95% interval": "[44%, 100%]", "n": 3},
                {"score": "needle_correct", "pass rate": "67%", "95% interval": "[21%, 94%]", "n": 3},
                {"score": "needle_via_history", "pass rate": "50%", "95% interval": "[9%, 91%]", "n": 2},
                {"score": "summaries_ok", "pass rate": "n/a", "95% interval": "-", "n": 0},  # only an invalid run had it
            ],
        ),
        (
            "table",
            [
                {"measure (valid runs)": "pages_read", "mean": 1.5, "n": 2},  # a None value is no measurement
                {"measure (valid runs)": "ratio", "mean": 0.233, "n": 3},
                {"measure (valid runs)": "never", "mean": None, "n": 0},
            ],
        ),
    ]


def test_a_group_without_invalid_or_errored_runs_excludes_nothing_and_one_without_measures_has_no_means_table():
    rows = [_row("n1", "PASS", passed=OK), _row("n2", "PASS", passed=OK)]
    assert _pass_rate_blocks(rows) == [
        ("heading", (3, "needle (2 runs)")),
        ("text", "2 PASS, 0 FAIL, 0 INVALID, 0 ERROR: rates over the 2 valid runs."),
        (
            "table",
            [
                {"score": "all checks", "pass rate": "100%", "95% interval": "[34%, 100%]", "n": 2},
                {"score": "run_completed", "pass rate": "100%", "95% interval": "[34%, 100%]", "n": 2},
                {"score": "needle_correct", "pass rate": "100%", "95% interval": "[34%, 100%]", "n": 2},
            ],
        ),
    ]


def test_the_faults_eval_reports_faults_detected_and_missed_and_each_arm_its_own_group_in_order():
    fault = {"run_completed": True, "summaries_ok": False}
    old = {"case_id": "n9", "kind": "needle", "arm": "a", "trial": 0, "passed": {"compressed": True, "needle_correct": True}}
    old["scores"] = dict(old["passed"])  # a row written before rows had an outcome, an eval or validity keys
    rows = [
        _row("needle-1", "INVALID", ["compacted"], passed={"compacted": False}, scores={"pages": 3}, arm="b"),
        _row("f1", "FAIL", ["summaries_ok"], passed=fault, ev="faults", arm="a"),
        old,
        _row("f2", "PASS", passed=OK, ev="faults", arm="a"),
        _row("f3", "FAIL", ["summaries_ok"], passed=fault, ev="faults", arm="a"),
        _row("f4", "INVALID", ["compacted"], passed=UNCOMPACTED, ev="faults", arm="a"),
        _row("f5", "ERROR", ["agent: HTTP 429"], passed=OK, ev="faults", arm="b"),
    ]
    expects = (
        "Every run of this eval has a fault injected, so **FAIL is what it expects**: the fault was detected by its "
        "checks. A PASS is a fault that went unnoticed. Detected: "
    )
    assert _pass_rate_blocks(rows) == [
        ("heading", (3, "faults, a (4 runs)")),
        (
            "text",
            "1 PASS, 2 FAIL, 1 INVALID, 0 ERROR: rates over the 3 valid runs; excluded as INVALID: 1 (compacted: 1).",
        ),
        ("text", expects + "2 of 3 valid runs (67%, 95 % interval [21%, 94%]); missed: 1."),
        ("heading", (3, "faults, b (1 runs)")),
        (
            "text",
            "0 PASS, 0 FAIL, 0 INVALID, 1 ERROR: rates over the 0 valid runs; "
            "excluded as ERROR (provider error after every retry): 1 (agent: HTTP 429: 1).",
        ),
        ("text", expects + "0 of 0 valid runs (n/a, 95 % interval -); missed: 0."),
        ("heading", (3, "needle, a (1 runs)")),
        ("text", "1 PASS, 0 FAIL, 0 INVALID, 0 ERROR: rates over the 1 valid runs."),
        (
            "table",
            [
                {"score": "all checks", "pass rate": "100%", "95% interval": "[21%, 100%]", "n": 1},
                {
                    "score": "needle_correct",
                    "pass rate": "100%",
                    "95% interval": "[21%, 100%]",
                    "n": 1,
                },  # compressed: legacy validity
            ],
        ),
        ("heading", (3, "needle, b (1 runs)")),
        (
            "text",
            "0 PASS, 0 FAIL, 1 INVALID, 0 ERROR: rates over the 0 valid runs; excluded as INVALID: 1 (compacted: 1).",
        ),
        ("table", [{"score": "all checks", "pass rate": "n/a", "95% interval": "-", "n": 0}]),  # no valid run: no means
    ]


def test_cases_that_all_passed_are_said_to_have_passed_every_check():
    assert _problem_blocks([_row("n1", "PASS", passed=OK), _row("n2", "PASS", passed=OK, arm="other")]) == [
        ("text", "Every case passed every check.")
    ]


def test_detected_faults_are_counted_as_expected_and_nothing_else_is_listed_when_the_rest_passed():
    rows = [_row("n1", "PASS", passed=OK)] + [_row(f"f{i}", "FAIL", ["summaries_ok"], passed=OK, ev="faults") for i in (1, 2)]
    assert _problem_blocks(rows) == [
        ("text", "2 runs of faults FAILED as that eval expects: each had a fault injected and it was detected."),
        ("text", "No other case failed, was invalid or errored."),
    ]


def test_every_eval_with_detected_faults_is_named_once_in_order(monkeypatch):
    faulty = SimpleNamespace(injects_faults=True)
    monkeypatch.setattr(run_report, "SUITES", {"zeta": faulty, "alpha": faulty})
    rows = [_row(f"c{i}", "FAIL", ["x"], passed=OK, ev=ev) for i, ev in enumerate(("zeta", "alpha", "zeta"))]
    assert _problem_blocks(rows)[0] == (
        "text",
        "3 runs of alpha, zeta FAILED as that eval expects: each had a fault injected and it was detected.",
    )


def test_failed_invalid_errored_cases_and_missed_faults_are_listed_with_why():
    long_message = "x" * 299 + "yz"
    rows = [
        _row("n1", "PASS", passed=OK),
        _row(
            "n2",
            "FAIL",
            ["needle_correct", "goal_preserved"],
            passed=MISSED,
            trial=3,
            explanations={"needle_correct": "answered TANGO-8", "run_completed": "ok"},
        ),
        _row("n3", "INVALID", ["compacted"], passed=UNCOMPACTED, explanations={"compacted": "nothing was compacted"}),
        _row("n4", "ERROR", ["agent: HTTP 503"], passed=OK, error={"message": long_message}),
        _row("n5", "ERROR", ["agent: HTTP 429", "summarizer: HTTP 429"], passed=OK, error=None),
        _row("n6", "ERROR", [], passed=OK, error={"provider_error": {}}),
        _row("f1", "FAIL", ["summaries_ok"], passed=OK, ev="faults"),
        _row("f2", "PASS", passed=OK, ev="faults", trial=1),
        _row("f3", "INVALID", ["compacted"], passed=UNCOMPACTED, ev="faults", explanations={"compacted": "none"}),
    ]
    assert _problem_blocks(rows) == [
        ("text", "1 runs of faults FAILED as that eval expects: each had a fault injected and it was detected."),
        ("heading", (2, "Failed, invalid or errored cases (and faults that went unnoticed)")),
        (
            "bullets",
            [
                "**n2** (trial 3) FAIL: `needle_correct`: answered TANGO-8; `goal_preserved`: ",
                "**n3** (trial 0) INVALID: `compacted`: nothing was compacted",
                "**n4** (trial 0) ERROR: agent: HTTP 503: " + "x" * 299 + "y",
                "**n5** (trial 0) ERROR: agent: HTTP 429, summarizer: HTTP 429: ",
                "**n6** (trial 0) ERROR: : ",
                "**f2** (trial 1) PASS: the injected fault was not detected by any check",
                "**f3** (trial 0) INVALID: `compacted`: none",
            ],
        ),
    ]


def test_with_several_arms_each_listed_case_names_its_arm():
    rows = [
        _row("n1", "FAIL", ["needle_correct"], passed=MISSED, arm="small", explanations={"needle_correct": "wrong"}),
        _row("n1", "PASS", passed=OK, arm="large"),
    ]
    assert _problem_blocks(rows) == [
        ("heading", (2, "Failed, invalid or errored cases (and faults that went unnoticed)")),
        ("bullets", ["**n1** [small] (trial 0) FAIL: `needle_correct`: wrong"]),
    ]


def test_a_measure_no_valid_run_has_a_value_for_has_no_mean():
    doc = Document("run")
    _pass_rates(doc, [_row("n1", "PASS", passed=OK, scores={"pages_read": None})])
    kind, means = doc.blocks[-1]
    assert (kind, means.to_dict("records")) == ("table", [{"measure (valid runs)": "pages_read", "mean": None, "n": 0}])


def test_a_row_that_ran_as_no_eval_is_headed_as_such_never_as_the_eval_of_its_kind():
    """`harness run` without --kind writes ``eval: null``: its rows are counted under "<kind> cases, no eval", apart
    from rows that ran as the eval of that kind, and no eval's rule (the faults eval's reading) applies to them."""
    ad_hoc = _row("n1", "PASS", passed={"needle_correct": True}, ev=None) | {"kind": "faults"}
    as_eval = _row("n2", "PASS", passed={"needle_correct": True}, ev="needle")
    assert eval_label(ad_hoc) == "faults cases, no eval" and not _injects_faults(eval_label(ad_hoc))
    headings = [value for kind, value in _pass_rate_blocks([ad_hoc, as_eval]) if kind == "heading"]
    assert [h[1] for h in headings] == ["faults cases, no eval (1 runs)", "needle (1 runs)"]


def test_the_report_says_what_no_eval_means_when_a_row_ran_as_no_eval_and_only_then():
    """`make run` prints "as no eval" and heads its report "needle cases, no eval": the report defines it in one line
    (it was defined only in docs/experiments.md)."""
    said = (
        '"<kind> cases, no eval": the cases ran under the run\'s configuration with the default scorers, not as the eval '
        "of their kind (`harness run --kind KIND` or `pytest evals/ -m KIND` runs them as it, with its preset and checks)."
    )
    ad_hoc = _row("n1", "PASS", passed={"needle_correct": True}, ev=None)
    as_eval = _row("n2", "PASS", passed={"needle_correct": True}, ev="needle")
    assert _pass_rate_blocks([ad_hoc, as_eval])[0] == ("text", said)
    assert ("text", said) not in _pass_rate_blocks([as_eval])


def test_known_upstream_runs_are_counted_beside_the_others_and_said_to_count_in_no_rate():
    rows = [
        _row("n1", "PASS", passed=OK),
        _row("n2", "KNOWN_UPSTREAM", ["needle_correct"], passed=MISSED),
    ]
    texts = [value for kind, value in _pass_rate_blocks(rows) if kind == "text"]
    assert texts[0] == (
        "1 PASS, 0 FAIL, 0 INVALID, 0 ERROR, 1 KNOWN_UPSTREAM: rates over the 1 valid runs; KNOWN_UPSTREAM runs "
        "(listed under Known upstream failures) count in no rate."
    )
    (plain,) = [value for kind, value in _pass_rate_blocks(rows[:1]) if kind == "text"][:1]
    assert plain == "1 PASS, 0 FAIL, 0 INVALID, 0 ERROR: rates over the 1 valid runs."
