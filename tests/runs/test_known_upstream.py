"""Known upstream failures (issue 20 §3): the KNOWN_UPSTREAM outcome, the pytest verdict (strict xfail, or XPASS when
the declared check passed), the report section and the pytest summary line, each shown failing on bad input."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness.pytest_plugin.verdicts import apply_upstream_verdict, upstream_summary_lines
from harness.report._document import Document
from harness.report.upstream import HEADING, add_upstream_section, upstream_lines
from harness.runs.results import VALID, is_valid, known_upstream_of, outcome_line, upstream_findings, upstream_verdict
from harness.scoring.scorers import CHECK, KNOWN_UPSTREAM, OUTCOMES, VALIDITY, Score, outcome

URL = "https://github.com/langchain-ai/deepagents/issues/6503"
DONE = Score("run_completed", True, CHECK, "")
VALID_OK = Score("compacted", True, VALIDITY, "")
VALID_BAD = Score("compacted", False, VALIDITY, "nothing compacted")
UPSTREAM_BAD = Score("media_kept_manual", False, CHECK, "the summary names no media; the archive has no <image>")
UPSTREAM_OK = Score("media_kept_manual", True, CHECK, "kept")
OTHER_BAD = Score("goal_all_steps_done", False, CHECK, "step 3 not done")


def _row(result: str, keys: list[str], passed: dict[str, bool], known: dict[str, str] | None = None) -> dict:
    return {
        "case_id": "media-parity-manual",
        "arm": "forced-20",
        "trial": 0,
        "eval": "parity",
        "outcome": result,
        "outcome_keys": keys,
        "passed": passed,
        "known_upstream": {"media_kept_manual": URL} if known is None else known,
        "explanations": {"media_kept_manual": "the summary names no media"},
    }


def test_only_declared_checks_failing_is_known_upstream_never_pass_or_fail():
    assert KNOWN_UPSTREAM in OUTCOMES and KNOWN_UPSTREAM not in VALID
    assert outcome([DONE, VALID_OK, UPSTREAM_BAD], None, {"media_kept_manual"}) == (KNOWN_UPSTREAM, ["media_kept_manual"])
    # undeclared, the same failure is a FAIL; with another check failing too, it is a FAIL
    assert outcome([DONE, VALID_OK, UPSTREAM_BAD]) == ("FAIL", ["media_kept_manual"])
    assert outcome([DONE, VALID_OK, UPSTREAM_BAD, OTHER_BAD], None, {"media_kept_manual"})[0] == "FAIL"
    # validity comes first; a declared check that passed leaves a PASS
    assert outcome([DONE, VALID_BAD, UPSTREAM_BAD], None, {"media_kept_manual"})[0] == "INVALID"
    assert outcome([DONE, VALID_OK, UPSTREAM_OK], None, {"media_kept_manual"}) == ("PASS", [])


def test_known_upstream_counts_in_no_rate_and_is_named_in_the_headline():
    row = _row(KNOWN_UPSTREAM, ["media_kept_manual"], {"media_kept_manual": False})
    assert not is_valid(row)
    assert "1 KNOWN_UPSTREAM" in outcome_line([row]) and "0/0 valid runs" in outcome_line([row])


def test_the_registry_declaration_is_what_rows_read():
    assert known_upstream_of("no-such-eval") == {}
    assert known_upstream_of("needle") == {}  # an eval without declarations


def test_pytest_verdict_xfails_a_known_upstream_case_with_its_link_and_flags_a_fixed_upstream():
    kind, reason = upstream_verdict(_row(KNOWN_UPSTREAM, ["media_kept_manual"], {"media_kept_manual": False}))
    assert kind == "xfail" and URL in reason and reason.startswith("known upstream failure")
    kind, message = upstream_verdict(_row("PASS", [], {"media_kept_manual": True}))
    assert kind == "fixed" and "upstream fixed?" in message and "XPASS(strict)" in message
    assert upstream_verdict(_row("FAIL", ["goal_all_steps_done"], {"media_kept_manual": False})) is None  # a real FAIL
    assert upstream_verdict(_row("PASS", [], {"x": True}, known={})) is None  # nothing declared


def test_apply_upstream_verdict_ends_the_test_as_xfail_or_failure():
    with pytest.raises(pytest.xfail.Exception, match="6503"):
        apply_upstream_verdict(_row(KNOWN_UPSTREAM, ["media_kept_manual"], {"media_kept_manual": False}))
    with pytest.raises(pytest.fail.Exception, match="upstream fixed"):
        apply_upstream_verdict(_row("PASS", [], {"media_kept_manual": True}))
    apply_upstream_verdict(_row("PASS", [], {"other": True}, known={}))  # nothing to do
    apply_upstream_verdict(None)


def test_report_section_lists_each_finding_with_link_and_evidence_and_a_fixed_one_as_such():
    failing = _row(KNOWN_UPSTREAM, ["media_kept_manual"], {"media_kept_manual": False})
    fixed = {**_row("PASS", [], {"media_kept_manual": True}), "case_id": "other"}
    invalid = {**_row("INVALID", ["compacted"], {"compacted": False, "media_kept_manual": False}), "case_id": "inv"}
    found = upstream_findings([failing, fixed, invalid])
    assert [(f["case_id"], f["fixed"]) for f in found] == [("media-parity-manual", False), ("other", True)]
    lines = upstream_lines([failing, fixed])
    assert URL in lines[0] and "the summary names no media" in lines[0] and "upstream fixed?" in lines[1]
    doc = Document("t")
    add_upstream_section(doc, [failing])
    assert any(HEADING in str(block) for block in doc.blocks)
    empty = Document("t")
    add_upstream_section(empty, [_row("PASS", [], {"x": True}, known={})])
    assert not any(HEADING in str(block) for block in empty.blocks)


def test_terminal_summary_has_one_line_per_known_upstream_xfail_only():
    reports = [
        SimpleNamespace(nodeid="evals/test_parity.py::t[manual]", wasxfail=f"known upstream failure: media_kept_manual ({URL})"),
        SimpleNamespace(nodeid="evals/test_x.py::t", wasxfail="some other reason"),
    ]
    lines = upstream_summary_lines(SimpleNamespace(stats={"xfailed": reports}))
    assert lines == [f"KNOWN UPSTREAM evals/test_parity.py::t[manual]: media_kept_manual ({URL})"]
    assert upstream_summary_lines(SimpleNamespace(stats={})) == []


def test_the_experiment_coverage_table_counts_known_upstream_runs_apart_and_only_when_there_are_any():
    import pandas as pd

    from harness.analysis.compare import coverage

    frame = pd.DataFrame(
        {"arm": ["a", "a"], "threshold": ["t", "t"], "eval": ["parity", "parity"], "outcome": ["PASS", KNOWN_UPSTREAM]}
    )
    row = coverage(frame).iloc[0]
    assert (row["PASS"], row["FAIL"], row[KNOWN_UPSTREAM]) == (1, 0, 1)
    assert KNOWN_UPSTREAM not in coverage(frame.iloc[:1]).columns
