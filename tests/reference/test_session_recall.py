"""The reference agent and generated session probes: each answered right from the full prefix (so the full-context
control arm is gold offline), not right with the message that states it removed (don't know, or stale for a changed
decision: a lost fact shows), and recovered through the history file after a summary that kept nothing."""

from __future__ import annotations

import pytest

from harness.reference.policy import cannot_follow
from harness.session_format import render_session_question
from harness.sessions.generate import generate_probes
from tests._probe_sessions import SESSION, answer_after_summary, as_request, judge, reply, result, shared_prefix, tool

PROBES = generate_probes(SESSION)


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.id)
def test_each_probe_is_answered_right_from_the_full_prefix(probe):
    answer = reply(as_request(SESSION, probe.question))
    verdict = judge(probe, answer)
    assert verdict.correct, f"{probe.id}: {answer!r} ({verdict.how})"


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.id)
def test_without_the_message_that_states_it_the_answer_is_lost_or_stale(probe):
    prefix = [m for i, m in enumerate(SESSION) if i != probe.message]
    answer = reply(as_request(prefix, probe.question))
    verdict = judge(probe, answer)
    assert not verdict.correct
    assert verdict.stale if probe.stale else answer.startswith("I don't know the ")


@pytest.mark.parametrize("probe", PROBES, ids=lambda p: p.id)
def test_after_a_summary_that_kept_nothing_each_probe_is_recovered_from_the_history_file(probe):
    answer, pages = answer_after_summary(SESSION, probe.question)
    assert pages >= 1 and judge(probe, answer).correct, answer


def test_a_question_nothing_in_the_history_answers_is_not_known_once_the_history_is_read():
    question = render_session_question("command", "make deploy")
    answer, pages = answer_after_summary(SESSION, question)
    assert pages == 1 and answer.startswith("I don't know the exit code of `make deploy`: I read /conversation_history/")


def test_a_file_nowhere_in_view_and_a_failed_write_are_not_known():
    assert reply(as_request(SESSION, render_session_question("path", "nowhere.py"))).startswith("I don't know the path of")
    denied = [*SESSION, tool("c9", "write_file", file_path="/repo/x.md", content="A denied write"), result("c9", "Error: denied")]
    assert reply(as_request(denied, render_session_question("artifact", "A denied write"))).startswith("I don't know the file")


def test_every_session_question_is_one_the_reference_agent_can_follow():
    assert all(cannot_follow(p.question) is None for p in PROBES)


def test_the_shared_real_session_every_probe_right_in_full_lost_without_its_message_and_recovered_after_a_summary():
    prefix = shared_prefix()
    probes = generate_probes(prefix)
    assert probes
    for probe in probes:
        full = reply(as_request(prefix, probe.question))
        assert judge(probe, full).correct, f"{probe.id}: {full!r}"
        without = reply(as_request([m for i, m in enumerate(prefix) if i != probe.message], probe.question))
        assert not judge(probe, without).correct and without.startswith("I don't know the "), f"{probe.id}: {without!r}"
        recovered, pages = answer_after_summary(prefix, probe.question)
        assert pages >= 1 and judge(probe, recovered).correct, f"{probe.id}: {recovered!r} after {pages} pages"
