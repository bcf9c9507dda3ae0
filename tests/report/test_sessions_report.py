"""The report's section on replayed sessions (`harness.report.sessions_report`), from rows' ``session`` records."""

from __future__ import annotations

from typing import Any

from harness.report._document import Document
from harness.report.sessions_report import add_sessions_section, replay_table, retention_by_type


def _probe(pid: str, kind: str, bucket: str, valid: bool = True) -> dict[str, Any]:
    verdict = bucket if bucket in ("stale", "lost") else "right"
    return {
        "id": pid,
        "type": kind,
        "valid": valid,
        "why": "" if valid else "the control did not answer it: 'x'",
        "verdict": verdict,
        "bucket": bucket,
        "control": {"verdict": "right" if valid else "lost", "answered": None},
    }


def _row(arm: str, probes: list[dict[str, Any]], outcome: str = "PASS", usd: float | None = 0.0123) -> dict[str, Any]:
    return {
        "case_id": "s1",
        "arm": arm,
        "threshold": "20%",
        "trial": 0,
        "outcome": outcome,
        "cost": {"total": {"usd": usd}},
        "session": {
            "first_call_tokens": 15000,
            "window": 73500,
            "rule": "trigger at the first call after the cut",
            "compactions": [{"type": "summary", "call": 1, "before": 15040, "after": 4100}],
            "control": {"right": sum(p["valid"] for p in probes), "n": len(probes), "peak_context": 15400, "cost_usd": None},
            "probes": probes,
        },
    }


ROWS = [
    _row(
        "summarization",
        [_probe("a", "constraint", "retained"), _probe("b", "constraint", "recovered"), _probe("c", "decision", "stale")],
    ),
    _row(
        "masking",
        [_probe("a", "constraint", "lost"), _probe("b", "constraint", "lost", valid=False), _probe("c", "decision", "lost")],
        "FAIL",
        None,
    ),
    _row("broken", [_probe("a", "constraint", "lost")], "ERROR"),
    {"case_id": "needle-1", "arm": "summarization", "outcome": "PASS"},  # not a session: not in the section
]


def test_the_replay_table_has_one_line_per_session_row_with_its_compactions_control_and_cost():
    table = replay_table(ROWS)
    assert list(table["arm"]) == ["summarization @ 20%", "masking @ 20%"]  # ERROR rows measured nothing
    first = table.iloc[0]
    assert first["compactions (tokens)"] == "summary 15040->4100" and first["window"] == 73500
    assert first["control right"] == "3/3" and first["probes that count"] == "3/3" and first["cost"] == "$0.0123"
    second = table.iloc[1]
    assert second["control right"] == "2/3" and second["probes that count"] == "2/3"
    assert second["cost"] == "unknown" and second["control cost"] == "unknown"  # unknown is never zero


def test_retention_by_type_counts_each_bucket_over_the_probes_that_count_with_n():
    table = retention_by_type(ROWS).set_index(["arm", "probe type"])
    ours = table.loc[("summarization @ 20%", "constraint")]
    assert (ours["retained"], ours["recovered"], ours["lost"], ours["n asked"]) == ("1/2", "1/2", "0/2", 2)
    assert table.loc[("summarization @ 20%", "decision")]["stale"] == "1/1"
    theirs = table.loc[("masking @ 20%", "constraint")]
    assert (theirs["lost"], theirs["n asked"]) == ("1/1", 2)  # the probe the control missed is asked, never counted


def test_the_section_is_added_only_when_a_row_replayed_a_session():
    doc = Document("r")
    assert add_sessions_section(doc, ROWS) and "Recorded sessions replayed" in doc.markdown()
    assert "Retention and recovery per fact type" in doc.markdown()
    empty = Document("r")
    assert not add_sessions_section(empty, [ROWS[-1]]) and "Recorded sessions" not in empty.markdown()
