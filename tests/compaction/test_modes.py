"""Trigger and keep work through the real middleware in all three modes."""

import pytest

from harness.agent.models import choose_models
from harness.agent.runner import run_case
from harness.compaction.variants import make_config
from harness.scoring.scorers import score_case, scores_by_key


@pytest.mark.parametrize(
    ("trigger", "keep", "check"),
    [
        ("messages:16", "messages:4", lambda ev, cfg: ev["messages_before"] >= 16 and ev["messages_after"] <= 5 + 1),
        ("tokens:10000", "tokens:2500", lambda ev, cfg: ev["tokens_before"] >= 10000 > ev["tokens_after"]),
        ("15%", "3%", lambda ev, cfg: ev["tokens_before"] >= cfg.trigger_tokens() > ev["tokens_after"]),
    ],
    ids=["messages", "tokens", "fraction"],
)
def test_goal_run_compresses_in_every_mode(scenarios, trigger, keep, check):
    cfg = make_config("forced-20", trigger=[trigger], keep=keep)
    scenario = scenarios["goal-ledgers-12"]
    trace = run_case(scenario, cfg, choose_models(None, None, window=cfg.window))
    events = trace.events_of("summary")
    assert events
    assert all(check(ev, cfg) for ev in events), events
    assert scores_by_key(score_case(trace, scenario))["goal_preserved"].value
