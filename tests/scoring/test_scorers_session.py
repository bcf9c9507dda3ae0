"""The session scorers (`harness.scoring.scorers.session`) over hand-built traces: each probe's verdict, where its
answer was, whether it counts (the control's answer, the run's end, still in view), the buckets, the validity scores
and the checks, each failing on the trace that breaks it. No agent runs here (tests/suites/test_session_replay.py
runs the eval end to end)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

from harness.scenarios.schema import Scenario, SessionProbe
from harness.scoring.scorers import scores_by_key
from harness.scoring.scorers.session import (
    BUCKET_HELP,
    BUCKETS,
    compacted_at_cut,
    probe_records,
    read_probe,
    session_record,
    session_scores,
)
from harness.scoring.scorers.types import CHECK, MEASURE, VALIDITY
from harness.trace.schema import Trace
from tests._messages import summary_message

HISTORY = "/conversation_history/session_" + "cd" * 16 + ".md"
DB = SessionProbe("db", "Which database does billing use now?", ("pg-16",), "value", 3, ("mysql-8",))
PORT = SessionProbe("port", "Which port does the billing service listen on?", ("8443",), "value", 5)
FILE = SessionProbe("file", "Which file holds the billing config?", ("/srv/billing.yaml",), "artifact", 7)


def _case(*probes: SessionProbe) -> Scenario:
    return Scenario(id="session-x", kind="session", description="", task="Continue.", probes=probes or (DB, PORT))


def _call(index: int, turn: int, keys: list[str], *, head: bool = False, tool_calls: list | None = None) -> dict[str, Any]:
    return {
        "index": index,
        "role": "agent",
        "turn": turn,
        "message_keys": keys,
        "summary_at_head": head,
        "response": {"text": "", "tool_calls": tool_calls or []},
        "error": None,
    }


def _trace(
    *,
    answers: list[str | None],
    summary: str = "The billing migration is under way.",
    control: dict[str, Any] | None | str = "right",
    strategy: str = "deepagents-summarization",
    kept: str = "ok",
    page: str | None = None,
    probes: tuple[SessionProbe, ...] = (DB, PORT),
    compaction_at: int | None = 0,
) -> Trace:
    """A session arm: one summary at the first call (``compaction_at``), then one turn per probe, each answered as
    ``answers`` says. The first call's request is the summary and a kept message (``kept``); ``page``: a history page
    the second probe's turn read (its text), so an answer found there is ``recovered``."""
    messages: list = [summary_message(summary, HISTORY), HumanMessage(kept)]
    keys = ["m0", "m1"]
    calls = []
    for turn, probe in enumerate(probes):
        messages.append(HumanMessage(probe.question))
        keys = [*keys, f"m{len(messages) - 1}"]
        read = turn == 1 and page is not None
        tool_calls = [{"name": "read_file", "args": {"file_path": HISTORY}, "id": "h1"}] if read else None
        calls.append(_call(len(calls), turn, list(keys), head=True, tool_calls=tool_calls))
        if read:
            messages += [
                AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": HISTORY}, "id": "h1"}]),
                ToolMessage(page or "", tool_call_id="h1"),
            ]
            keys = [*keys, f"m{len(messages) - 2}", f"m{len(messages) - 1}"]
            calls.append(_call(len(calls), turn, list(keys), head=True))
    trace = Trace(case_id="session-x", kind="session", config={"strategy": strategy})
    trace.messages = {f"m{i}": d for i, d in enumerate(messages_to_dict(messages))}
    trace.turns = [{"index": t, "text": p.question, "first_call": 0} for t, p in enumerate(probes)]
    trace.calls = calls
    trace.events = (
        []
        if compaction_at is None
        else [{"type": "summary", "call_index": compaction_at, "turn": 0, "tokens_before": 9000, "tokens_after": 2000}]
    )
    final: dict[str, Any] = {
        "answers": answers,
        "session": {"first_call_tokens": 9000, "first_call_message_tokens": 8000, "window": 40000, "rule": "trigger"},
    }
    if control == "right":
        final["control"] = {
            "turns": [p.question for p in probes],
            "answers": [p.expected[0] for p in probes],
            "error": None,
            "calls": len(probes),
            "peak_context": 9500,
            "tokens_sent": 19000,
            "cost_usd": None,
            "config": {"window": 60000},
        }
    elif isinstance(control, dict):
        final["control"] = control
    trace.final = final
    return trace


def _records(trace: Trace, case: Scenario | None = None) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in probe_records(trace, case or _case())}


# -- read_probe ------------------------------------------------------------------------------------------------------
def test_a_value_probe_is_right_stale_or_lost():
    assert read_probe("Billing uses pg-16 now.", DB)[0] == "right"
    assert read_probe("It is mysql-8.", DB)[:2] == ("stale", "mysql-8")
    assert read_probe("I do not know.", DB)[0] == "lost"
    assert read_probe("", DB) == ("lost", None, "no answer")
    assert read_probe(None, DB) == ("lost", None, "no answer")


def test_any_expected_answer_counts_and_the_others_are_not_stale():
    probe = SessionProbe("v", "Which region hosts billing?", ("eu-west-1", "Ireland"), "value", 2)
    assert read_probe("Ireland.", probe)[0] == "right"
    assert read_probe("eu-west-1", probe)[0] == "right"
    assert read_probe("us-east-1", probe)[0] == "lost"


def test_a_file_probe_is_read_as_a_path_and_a_stale_path_is_stale():
    probe = SessionProbe("f", "Which file?", ("/srv/billing.yaml",), "path", 7, ("/srv/old.yaml",))
    assert read_probe("./srv/billing.yaml", probe)[0] == "right"
    assert read_probe("/srv/old.yaml", probe)[:2] == ("stale", "/srv/old.yaml")
    assert read_probe("/srv/other.yaml", probe)[0] == "lost"
    assert read_probe("/srv/billing.yaml", FILE)[0] == "right"  # artifact is a path type too
    assert read_probe("srv/billing.yaml", FILE)[0] == "right"


# -- probe_records: verdicts, where, buckets ----------------------------------------------------------------------------
def test_answers_found_in_the_summary_are_retained_and_every_probe_counts():
    trace = _trace(answers=["pg-16", "8443"], summary="Billing moved to pg-16; it listens on 8443.")
    records = _records(trace)
    assert [(r["verdict"], r["where"], r["bucket"], r["valid"]) for r in records.values()] == [
        ("right", "summary", "retained", True),
        ("right", "summary", "retained", True),
    ]
    assert records["db"]["turn"] == 0 and records["port"]["turn"] == 1
    assert records["db"]["control"] == {"verdict": "right", "answered": "pg-16"}
    assert records["db"]["origin"] == "user" and records["db"]["message"] == 3 and records["db"]["type"] == "value"


def test_an_answer_read_back_from_a_history_page_is_recovered():
    trace = _trace(answers=["pg-16", "8443"], summary="Billing moved to pg-16.", page="... listens on 8443 ...")
    records = _records(trace)
    assert (records["port"]["where"], records["port"]["bucket"]) == ("history", "recovered")
    assert records["db"]["bucket"] == "retained"


def test_a_right_answer_found_nowhere_is_unsourced_and_wrong_answers_are_stale_or_lost():
    trace = _trace(answers=["mysql-8", "8443"])
    records = _records(trace)
    assert (records["db"]["verdict"], records["db"]["bucket"]) == ("stale", "stale")
    assert (records["port"]["where"], records["port"]["bucket"]) == ("none", "right_unsourced")
    lost = _records(_trace(answers=["no idea", None]))
    assert [r["bucket"] for r in lost.values()] == ["lost", "lost"]


def test_an_answer_still_in_a_kept_message_does_not_count_except_under_the_none_arm():
    trace = _trace(answers=["pg-16", "8443"], kept="billing is on pg-16")
    record = _records(trace)["db"]
    assert (record["where"], record["valid"]) == ("view", False)
    assert "still in view" in record["why"]
    assert _records(trace)["port"]["valid"]
    control = _records(_trace(answers=["pg-16", "8443"], kept="billing is on pg-16", strategy="none"))["db"]
    assert (control["valid"], control["bucket"]) == (True, "retained")


def test_a_question_is_not_its_own_answer():
    probe = SessionProbe("q", "Is the database pg-16 or mysql-8?", ("pg-16",), "value", 3)
    trace = _trace(answers=["pg-16"], probes=(probe,))
    assert _records(trace, _case(probe))["q"]["where"] == "none"


@pytest.mark.parametrize(
    "control, why",
    [
        (None, "no control ran for this case"),
        ({"turns": [], "answers": [], "error": {"type": "ProviderError"}}, "the control ended in an error (ProviderError)"),
        ({"turns": [DB.question, PORT.question], "answers": ["mysql-8", None], "error": None}, "the control did not answer"),
        ({"turns": [DB.question], "answers": ["pg-16"], "error": None}, "the control did not answer it: '(no answer)'"),
    ],
)
def test_a_probe_the_control_did_not_answer_right_does_not_count_and_says_why(control, why):
    records = _records(_trace(answers=["pg-16", "8443"], control=control))
    assert not records["port"]["valid"]
    assert why in records["port"]["why"]


def test_a_probe_never_asked_does_not_count():
    trace = _trace(answers=["pg-16"])
    trace.turns = trace.turns[:1]
    record = _records(trace)["port"]
    assert (record["turn"], record["valid"], record["verdict"], record["where"]) == (None, False, "lost", "none")
    trace.calls = [c for c in trace.calls if c["turn"] == 0]  # turn 1 asked, but no call of it was recorded
    trace.turns = _trace(answers=["pg-16"]).turns
    assert _records(trace)["port"]["where"] == "none"
    assert record["why"] == "it was never asked (the run ended first)"


def test_probes_are_found_by_their_question_in_order_after_a_task_turn():
    trace = _trace(answers=["(continued)", "pg-16", "8443"])
    trace.turns = [{"index": 0, "text": "Continue.", "first_call": 0}] + [
        {"index": i + 1, "text": p.question, "first_call": 0} for i, p in enumerate((DB, PORT))
    ]
    records = _records(trace)
    assert (records["db"]["turn"], records["port"]["turn"]) == (1, 2)
    assert (records["db"]["verdict"], records["port"]["verdict"]) == ("right", "right")


# -- the scores ------------------------------------------------------------------------------------------------------
def test_compacted_at_cut_holds_only_for_a_compaction_at_the_first_call():
    assert compacted_at_cut(_trace(answers=["pg-16", "8443"])).value is True
    late = compacted_at_cut(_trace(answers=["pg-16", "8443"], compaction_at=1))
    assert late.value is False and "came at call 1, not at the first call after the cut (0" in late.explanation
    none = compacted_at_cut(_trace(answers=["pg-16", "8443"], compaction_at=None))
    assert none.value is False and none.explanation.startswith("no compaction after the cut")
    assert "window 40000 (trigger)" in none.explanation
    empty = _trace(answers=[])
    empty.calls = []
    assert compacted_at_cut(empty).value is False


def test_every_probe_that_counts_answered_right_passes_both_checks():
    scores = scores_by_key(session_scores(_trace(answers=["pg-16", "8443"], summary="pg-16 and 8443"), _case()))
    assert scores["compacted_at_cut"].value and scores["session_probes_valid"].value
    assert scores["session_probes_correct"].value and scores["session_no_stale"].value
    assert scores["session_probes_valid"].explanation == "2 of 2 probes count"
    assert scores["session_probes_counted"].value == 2 and scores["session_retained"].value == 2
    assert scores["session_control_right"].value == 2 and scores["session_first_call_tokens"].value == 9000


def test_a_lost_answer_fails_probes_correct_and_a_stale_one_fails_no_stale():
    lost = scores_by_key(session_scores(_trace(answers=["pg-16", "no idea"]), _case()))
    assert lost["session_probes_correct"].value is False and lost["session_no_stale"].value is True
    assert lost["session_probes_correct"].explanation.startswith("port (value): lost")
    stale = scores_by_key(session_scores(_trace(answers=["mysql-8", "8443"]), _case()))
    assert stale["session_probes_correct"].value is False
    assert stale["session_no_stale"].value is False and "db answered stale: 'mysql-8'" in stale["session_no_stale"].explanation
    assert stale["session_stale"].value == 1 and stale["session_right_unsourced"].value == 1


def test_no_stale_is_asked_only_when_a_counted_probe_has_stale_answers():
    scores = scores_by_key(session_scores(_trace(answers=["8443"], probes=(PORT,)), _case(PORT)))
    assert "session_no_stale" not in scores
    stale_not_counted = _trace(answers=["pg-16", "8443"], kept="billing is on pg-16")
    assert "session_no_stale" not in scores_by_key(session_scores(stale_not_counted, _case()))


def test_no_probe_counting_is_invalid_and_the_reasons_are_listed():
    scores = scores_by_key(session_scores(_trace(answers=["pg-16", "8443"], control=None), _case()))
    valid = scores["session_probes_valid"]
    assert valid.value is False
    assert (
        valid.explanation.startswith("0 of 2 probes count; invalid: db: no control ran")
        and "; port: no control" in valid.explanation
    )
    assert scores["session_probes_correct"].value is True  # nothing counted: validity decides, not the check


def test_the_buckets_are_measures_of_the_counted_probes_only():
    trace = _trace(answers=["pg-16", "no idea"], kept="billing is on pg-16")
    scores = scores_by_key(session_scores(trace, _case()))
    assert [scores[f"session_{b}"].value for b in BUCKETS] == [0, 0, 0, 0, 1]
    assert {scores[f"session_{b}"].explanation for b in BUCKETS} == set(BUCKET_HELP.values())
    assert scores["session_probes"].value == 2 and scores["session_probes_counted"].value == 1


def test_the_row_record_carries_the_window_rule_compactions_control_and_probes():
    record = session_record(_trace(answers=["pg-16", "8443"], summary="pg-16"), _case())
    assert record["window"] == 40000 and record["rule"] == "trigger"
    assert record["compactions"] == [{"type": "summary", "call": 0, "before": 9000, "after": 2000}]
    assert record["control"] == {
        "right": 2,
        "n": 2,
        "calls": 2,
        "peak_context": 9500,
        "tokens_sent": 19000,
        "cost_usd": None,
        "error": None,
        "window": 60000,
    }
    assert [p["id"] for p in record["probes"]] == ["db", "port"]
    assert session_record(_trace(answers=["pg-16", "8443"], control=None), _case())["control"] is None


# -- what each score says (its key, role and explanation are what reports and LangSmith show) ------------------------
def test_every_score_has_its_key_role_and_explanation():
    trace = _trace(answers=["pg-16", "8443"], summary="pg-16 and 8443")
    said = [(s.key, s.role, s.explanation) for s in session_scores(trace, _case())]
    first = "first call 9000 tokens (8000 in its messages), window 40000 (trigger)"
    assert said == [
        ("compacted_at_cut", VALIDITY, f"summary at the first call after the cut: 9000->2000 tokens ({first})"),
        ("session_probes_valid", VALIDITY, "2 of 2 probes count"),
        ("session_probes_correct", CHECK, "2 probe(s) that count, all answered right"),
        ("session_no_stale", CHECK, "no probe that counts was answered with a stale value"),
        ("session_probes", MEASURE, "probes the session asks"),
        ("session_probes_counted", MEASURE, "probes the control answered right and compaction took out of view"),
        *((f"session_{b}", MEASURE, BUCKET_HELP[b]) for b in BUCKETS),
        ("session_control_right", MEASURE, "probes the full-context control answered right"),
        ("session_first_call_tokens", MEASURE, "the first call after the cut"),
    ]


def test_compacted_at_cut_says_what_it_could_not_read():
    trace = _trace(answers=["pg-16", "8443"], compaction_at=None)
    trace.final["session"] = {}
    score = compacted_at_cut(trace)
    assert (score.key, score.role) == ("compacted_at_cut", VALIDITY)
    assert score.explanation == (
        "no compaction after the cut (first call ? tokens (? in its messages), window ? (not recorded)): "
        "the session is not tested"
    )
    late = compacted_at_cut(_trace(answers=["pg-16", "8443"], compaction_at=1))
    assert (late.key, late.role) == ("compacted_at_cut", VALIDITY)


def test_the_reasons_a_probe_does_not_count_are_said_in_full():
    kept = _records(_trace(answers=["pg-16", "8443"], kept="billing is on pg-16"))["db"]
    assert kept["why"] == ("its answer was still in view when it was asked (a kept message states it): compaction was not tested")
    long = "x" * 200
    control = {"turns": [DB.question, PORT.question], "answers": ["pg-16", long], "error": None}
    assert _records(_trace(answers=["pg-16", "8443"], control=control))["port"]["why"] == (
        f"the control did not answer it: {'x' * 160!r}"
    )
    assert _records(_trace(answers=["pg-16", "8443"]))["db"]["why"] == ""


def test_a_probe_asked_twice_is_found_in_order_and_an_answer_past_the_controls_list_is_none():
    trace = _trace(answers=["pg-16", "pg-16"], probes=(DB, DB))
    records = probe_records(trace, _case(DB, DB))
    assert [r["turn"] for r in records] == [0, 1]
    control = {"turns": [DB.question, PORT.question], "answers": ["pg-16"], "error": None}
    record = _records(_trace(answers=["pg-16", "8443"], control=control))["port"]
    assert record["control"] == {"verdict": "lost", "answered": None}


def test_where_reads_only_the_question_turns_calls_and_history_pages():
    # turn 0's first call holds the answer in a kept message; turn 1's first call is asked with it out of view
    trace = _trace(answers=["pg-16", "8443"], summary="Billing moved to pg-16.", page="... listens on 8443 ...")
    trace.calls[0]["message_keys"] = ["m0", "m1", "m2"]
    records = _records(trace)
    assert records["port"]["where"] == "history"
    unread = _trace(answers=["pg-16", "8443"], summary="Billing moved to pg-16.", page="nothing useful")
    assert _records(unread)["port"]["where"] == "none"


def test_the_value_read_is_said_for_a_lost_or_right_answer():
    assert read_probe("mysql-9", DB)[1] == "mysql-9"
    assert read_probe("./srv/billing.yaml", FILE)[1] is not None
    assert read_probe("/srv/other.yaml", FILE)[1] is not None
    probe = SessionProbe("v", "Which region hosts billing?", ("eu-west-1", "Ireland"), "value", 2)
    assert read_probe("Ireland", probe)[1] == "Ireland"
