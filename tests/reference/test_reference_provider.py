"""The reference models as a provider: looked up by name (``reference:ROLE``, and every spelling users type today),
built lazily through the agent layer's provider table, and read by capability, never by type."""

from __future__ import annotations

import subprocess
import sys

import pytest
from langchain_openai import ChatOpenAI

from harness.agent.models import (
    choose_models,
    in_process,
    in_process_model,
    is_simulated,
    task_problem,
)
from harness.agent.native_models import native_model
from harness.errors import ConfigError
from harness.reference import ReferenceAgentModel, ReferenceJudgeModel, ReferenceSummarizerModel
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.judge import choose_judge

pytestmark = pytest.mark.slow

ROLES = {"agent": ReferenceAgentModel, "summarizer": ReferenceSummarizerModel, "judge": ReferenceJudgeModel}


@pytest.mark.parametrize("role", sorted(ROLES))
@pytest.mark.parametrize("spec", [None, "", "reference", "reference:{role}", "reference-agent", "reference-summarizer"])
def test_every_spelling_of_the_reference_models_builds_the_model_of_the_role_asked_for(spec, role):
    spec = spec.format(role=role) if spec else spec
    model = in_process_model(spec, role, window=1000, seed=4)
    assert type(model) is ROLES[role] and is_simulated(model) and in_process(spec, role)
    if role == "summarizer":
        assert model.seed == 4


def test_the_judges_own_name_means_the_judge_and_nothing_else():
    assert type(in_process_model("reference-judge", "judge", window=1)) is ReferenceJudgeModel
    assert not in_process("reference-judge", "agent")  # a bare name the agent slot does not take: no provider


@pytest.mark.parametrize(
    ("spec", "role", "said"),
    [
        ("reference:summarizer", "agent", "--model reference:summarizer is the reference summarizer; here the agent"),
        ("reference:judge", "summarizer", "is the reference judge; here the summarizer is asked for"),
        ("reference:oracle", "agent", "the reference provider's models are reference:agent, reference:summarizer"),
    ],
)
def test_a_reference_name_of_another_role_or_none_is_refused_naming_the_option(spec, role, said):
    with pytest.raises(ConfigError, match=said):
        in_process_model(spec, role, window=1000)


def test_choose_models_and_choose_judge_go_through_the_provider_and_record_the_models_names():
    models = choose_models("reference:agent", "reference:summarizer", window=5000, seed=2)
    assert (models.agent_name, models.summarizer_name, models.simulated) == ("reference-agent", "reference-summarizer", True)
    assert models.agent.profile["max_input_tokens"] == 5000 and models.summarizer.seed == 2
    judge = choose_judge("reference:judge")
    assert (judge.name, judge.simulated, type(judge.model)) == ("reference-judge", True, ReferenceJudgeModel)
    assert choose_judge(None).name == "reference-judge"


def test_a_provider_model_is_not_simulated_and_follows_any_task():
    live = ChatOpenAI(model="gpt-5.2", api_key="x")
    assert not is_simulated(live) and not is_simulated(None)
    assert task_problem(live, "Please think about databases.") is None
    assert not in_process("openai:gpt-5.2") and not in_process("gpt-5.2")


def test_the_reference_agent_says_which_tasks_it_cannot_follow():
    agent = in_process_model(None, "agent", window=1000)
    assert task_problem(agent, "Please think about databases.").startswith("needs a live model")
    task = next(s.task for s in load_scenarios(all_scenario_files()) if s.kind == "needle")
    assert task_problem(agent, task) is None


def test_a_native_strategy_asks_the_model_to_be_served_as_the_provider():
    served = native_model("openai-compaction", "openai", in_process_model(None, "agent", window=9000), {}, window=9000)
    assert isinstance(served, ChatOpenAI) and served.model_name == "reference-agent"
    assert served.openai_api_base.startswith("http://127.0.0.1:")


def test_choosing_the_reference_agent_imports_no_reference_module_until_a_model_is_built():
    """The provider table is resolved on first use: importing the agent layer loads nothing of reference/."""
    code = (
        "import sys\n"
        "import harness.agent.models, harness.agent.runner, harness.agent.native_models\n"
        "assert not [m for m in sys.modules if m.startswith('harness.reference')], sorted(sys.modules)\n"
        "harness.agent.models.choose_models(None, None, window=1000)\n"
        "assert 'harness.reference.models' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
