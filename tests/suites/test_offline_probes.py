"""A session case whose probes the offline reference agent cannot answer (a user's prose probes) is not run offline,
with a reason that names those probes and what to do (`harness.agent.models.probes_problem`, read where every door
decides: `harness.suites.execute.offline_problem`); a case whose probes are in its grammar runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.scenarios.model import SessionProbe
from harness.scenarios.schema import Scenario
from harness.suites.execute import NotRun, Settings, find_case, prepared
from tests._sessions import CASE_ID

PROSE = SessionProbe("bug-function", "Which function holds the bug?", ("_cstack",), "fact", 1)
PROSE_2 = SessionProbe("separable", "Which file holds the separability code?", ("separable.py",), "path", 1)


@pytest.fixture(scope="module")
def case() -> Scenario:
    return find_case(CASE_ID)  # the shipped session: its probes are in the grammar the reference agent answers


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings.offline()


def test_a_session_whose_probes_are_all_prose_names_them_and_what_to_do(case, settings):
    prose = replace(case, probes=(PROSE, PROSE_2), followups=(PROSE.question, PROSE_2.question))
    with pytest.raises(NotRun) as caught:
        prepared("session", prose, settings, None)
    reason = str(caught.value)
    assert reason.startswith(f"{CASE_ID}: needs a live model: 2 of its 2 probe(s) are free text"), reason
    assert "bug-function ('Which function holds the bug?')" in reason
    assert "separable ('Which file holds the separability code?')" in reason
    assert "--model provider:name" in reason and "without --probes" in reason
    assert "step grammar" not in reason  # the task is not the cause: the agent is asked the probes alone


def test_one_prose_probe_among_answerable_ones_is_named_alone_and_the_case_is_not_run(case, settings):
    # The first turn is a probe in the grammar: only the first was read before, so the case ran and the prose probe
    # got a clarification request instead of an answer.
    mixed = replace(case, probes=(*case.probes, PROSE), followups=(*case.followups, PROSE.question))
    with pytest.raises(NotRun, match=r"needs a live model: 1 of its 6 probe\(s\) are free text") as caught:
        prepared(None, mixed, settings, None)
    assert "bug-function" in str(caught.value) and "downtime" not in str(caught.value)


def test_probes_in_the_grammar_run_offline(case, settings):
    suite, _, _, _ = prepared("session", case, settings, None)  # raises NotRun if it would be skipped
    assert suite is not None and suite.name == "session"


def test_the_reason_quotes_three_probes_and_counts_the_rest():
    from harness.session_format import free_text_probes_reason

    outside = [(f"p{n}", f"Question {n}?") for n in range(1, 6)] + [("long", "Why " + "very " * 30 + "long?")]
    reason = free_text_probes_reason(outside, 9)
    assert reason.startswith("needs a live model: 6 of its 9 probe(s) are free text")
    assert "p3 ('Question 3?') and 3 more." in reason and "p4" not in reason
    shortened = free_text_probes_reason(outside[-1:], 1)
    assert "long ('Why very" in shortened and "...')" in shortened and "long?" not in shortened
