"""The agent under test is the real create_deep_agent with our summarization in its stack, once."""

from deepagents.middleware import SummarizationMiddleware

from harness.agent.build import build_agent
from harness.compaction.variants import make_config
from harness.reference import ReferenceAgentModel


def summarizers(stack):
    return [m for m in stack if m.name == "SummarizationMiddleware"]


def test_exactly_one_summarization_middleware_and_it_is_ours(captured):
    cfg = make_config("forced-15")
    built = build_agent(cfg, ReferenceAgentModel(profile={"max_input_tokens": cfg.window}))
    main = captured[-1]
    assert summarizers(main) == [built.summarization]
    assert built.summarization._lc_helper._trigger_clauses == [{"fraction": 0.15}]
    assert built.summarization._lc_helper.keep == ("fraction", 0.0375)
    assert built.summarization._lc_helper.trim_tokens_to_summarize is None  # the factory's default, not the class's 4000


def test_the_general_purpose_subagent_gets_the_same_replacement(captured):
    cfg = make_config("forced-20")
    built = build_agent(cfg, ReferenceAgentModel(profile={"max_input_tokens": cfg.window}))
    subagent_stacks = captured[:-1]
    assert subagent_stacks, "no general-purpose subagent was built"
    for stack in subagent_stacks:
        assert summarizers(stack) == [built.summarization]


def test_the_recorder_sits_inside_summarization(captured):
    from harness.trace.recorder import Recorder

    cfg = make_config("forced-20")
    rec = Recorder()
    build_agent(cfg, ReferenceAgentModel(profile={"max_input_tokens": cfg.window}), middleware=[rec.middleware])
    names = [m.name for m in captured[-1]]
    assert names.index("HarnessRecorderMiddleware") > names.index("SummarizationMiddleware")


def test_a_subclass_would_have_left_two_summarizers(captured):
    """The trap build_agent avoids: a subclass reports its own name and is appended, not swapped in."""

    class Tweaked(SummarizationMiddleware):
        pass

    from deepagents import create_deep_agent
    from deepagents.backends import StateBackend

    model = ReferenceAgentModel(profile={"max_input_tokens": 64000})
    backend = StateBackend()
    create_deep_agent(model=model, backend=backend, middleware=[Tweaked(model=model, backend=backend, trigger=("fraction", 0.2))])
    assert len([m for m in captured[-1] if isinstance(m, SummarizationMiddleware)]) == 2


def test_eviction_limit_replaces_the_filesystem_middleware_only_when_changed(captured):
    from dataclasses import replace

    cfg = make_config("forced-20")
    model = ReferenceAgentModel(profile={"max_input_tokens": cfg.window})
    build_agent(cfg, model)
    default_fs = next(m for m in captured[-1] if m.name == "FilesystemMiddleware")
    build_agent(replace(cfg, eviction_tokens=500), model)
    custom_fs = next(m for m in captured[-1] if m.name == "FilesystemMiddleware")
    assert default_fs._tool_token_limit_before_evict == 20000 and custom_fs._tool_token_limit_before_evict == 500


def test_the_agent_model_profile_follows_the_config_window():
    from dataclasses import replace

    model = ReferenceAgentModel(profile={"max_input_tokens": 128_000})
    built = build_agent(replace(make_config("forced-20"), window=64_000), model)
    assert built.summarization._get_profile_limits() == 64_000
    assert model.profile["max_input_tokens"] == 128_000  # the caller's model is left as it was


def test_the_built_agent_has_the_compact_tool_and_offloads_binary_reads_only_when_asked():
    from harness.agent.build import build_agent
    from harness.agent.media import blob_store
    from harness.compaction.config import get_preset
    from harness.reference import ReferenceAgentModel

    def tools_of(preset: str) -> set[str]:
        built = build_agent(get_preset(preset), ReferenceAgentModel())
        return set(built.graph.nodes["tools"].bound.tools_by_name)

    assert "compact_conversation" in tools_of("media") and "compact_conversation" not in tools_of("forced-20")
    built = build_agent(get_preset("media-blobs"), ReferenceAgentModel())
    assert blob_store(built.backend) is not None
    assert blob_store(build_agent(get_preset("media"), ReferenceAgentModel()).backend) is None
