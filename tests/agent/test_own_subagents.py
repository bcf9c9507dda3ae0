"""An eval's own subagents (`build_agent`'s ``subagent_models``): each gets the strategy's slot built for its own
model's window, never the parent's (deepagents#802's shape), with the recorder's probe inside it."""

import pytest

from harness.agent.build import build_agent
from harness.compaction.config import SUBAGENT_WINDOW
from harness.compaction.variants import make_config
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel
from harness.trace.recorder import Recorder


def summarizers(stack):
    return [m for m in stack if m.name == "SummarizationMiddleware"]


def build(strategy="deepagents-summarization", **kwargs):
    cfg = make_config("parent", strategy=strategy)
    rec = Recorder()
    small = ReferenceAgentModel(profile={"max_input_tokens": SUBAGENT_WINDOW})
    built = build_agent(
        cfg,
        ReferenceAgentModel(profile={"max_input_tokens": cfg.window}),
        subagent_models={"general-purpose": small},
        subagent_middleware=[rec.subagent_middleware],
        **kwargs,
    )
    return cfg, built


def test_the_subagent_gets_a_slot_of_its_own_resolved_against_its_own_window_with_the_probe_inside_it(captured):
    cfg, built = build()
    *subagents, main = captured
    assert subagents, "no subagent was built"
    for stack in subagents:  # the eval's general-purpose subagent (deepagents builds its graph more than once)
        (slot,) = summarizers(stack)
        assert slot is not built.summarization
        assert slot._get_profile_limits() == SUBAGENT_WINDOW
        assert slot._lc_helper._trigger_clauses == built.summarization._lc_helper._trigger_clauses  # the same config
        names = [m.name for m in stack]
        assert names.index("HarnessSubagentProbe") > names.index("SummarizationMiddleware")
    assert built.summarization._get_profile_limits() == cfg.window == 64_000
    assert "HarnessSubagentProbe" not in [m.name for m in main]


def test_langchains_middleware_in_a_subagent_reads_its_own_window_too(captured):
    build("langchain-summarization")
    (slot,) = summarizers(captured[0])
    assert slot._get_profile_limits() == SUBAGENT_WINDOW
    assert summarizers(captured[-1])[0]._get_profile_limits() == 64_000


def test_an_assembly_subagent_of_the_same_name_is_refused():
    with pytest.raises(ConfigError, match="declares the subagent 'general-purpose', which this eval declares itself"):
        build(assembly={"subagents": [{"name": "general-purpose", "description": "mine", "system_prompt": "mine"}]})
