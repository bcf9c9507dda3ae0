"""Every door builds the same job from the same settings: `harness run --kind needle`, `harness experiment run` with
``evals: [needle]`` (and without ``evals:``: the same job as no eval), `harness.evaluate`, the validity matrix and the
NIAH check all reach `harness.suites.execute.run_eval_case` with the same eval, case, configuration, models and seed.

Each door runs until its job reaches the one function that runs a case as an eval; there the job is recorded and the
case is not run (`NotRun`), so the test costs the doors' pre-flights only."""

from __future__ import annotations

from typing import Any

import pytest

from harness.suites import execute, validity
from harness.suites.execute import NotRun

CASE = "needle-h24k-d000"


@pytest.fixture
def jobs(monkeypatch) -> list[dict[str, Any]]:
    """The jobs that reach `run_eval_case` (every module that holds it), recorded and not run."""
    seen: list[dict[str, Any]] = []

    def record(name, scenario, settings, *, fault=None, run_id="", trial=0):  # noqa: ANN001, ANN202
        seen.append(
            {
                "eval": name,
                "case": scenario.id,
                "config": settings.config.to_dict(),
                "models": (settings.models.agent_name, settings.models.summarizer_name, settings.models.simulated),
                "seed": settings.seed,
                "trial": trial,
                "fault": fault,
                "agent": settings.agent,
            }
        )
        raise NotRun("recorded by the door parity test")

    for module in (execute, validity):
        monkeypatch.setattr(module, "run_eval_case", record)
    return seen


def _spec(tmp_path, evals: bool, agent: str | None = None) -> str:
    path = tmp_path / f"parity-{evals}-{agent is not None}.yaml"
    lines = ["name: parity", "variants: [forced-20]", "thresholds: [20%]", "model: reference", "seed: 0"]
    lines += [f"agent: {agent}"] if agent else []
    lines += ["evals: [needle]", f"scenarios: {{cases: [{CASE}]}}"] if evals else [f"scenarios: {{cases: [{CASE}]}}"]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_every_door_builds_the_same_job_from_the_same_settings(jobs, tmp_path):
    from harness.api import evaluate
    from harness.cli.main import main
    from harness.runs.grid import run_experiment
    from harness.runs.niah import check_cells
    from harness.runs.spec import load_spec
    from harness.scenarios.generate import niah_grid
    from harness.suites.registry import SUITES

    doors: dict[str, dict[str, Any]] = {}

    def door(name: str) -> None:
        assert len(jobs) == 1, f"{name}: {len(jobs)} jobs reached run_eval_case"
        doors[name] = jobs.pop()

    main(["run", "--kind", "needle", "--cases", CASE, "--out", str(tmp_path / "runs"), "--run-id", "r"])
    door("harness run --kind needle")
    run_experiment(load_spec(_spec(tmp_path, evals=True)), out_dir=tmp_path / "exp", progress=lambda line: None)
    door("experiment run, evals: [needle]")
    run_experiment(load_spec(_spec(tmp_path, evals=False)), out_dir=tmp_path / "adhoc", progress=lambda line: None)
    door("experiment run, no evals:")
    evaluate("needle", cases=[CASE], runs_dir=tmp_path / "eval", workers=0)
    door("harness.evaluate")
    with pytest.raises(NotRun, match="recorded"):
        validity._run(SUITES["needle"], execute.find_case(CASE), 0, None)
    door("validity")
    check_cells(niah_grid([24000], [0.0], 7), "forced-20", progress=lambda line: None)
    door("NIAH check")

    reference = doors["harness run --kind needle"]
    assert reference["eval"] == "needle" and reference["case"] == CASE
    assert reference["config"]["name"] == "forced-20" and reference["seed"] == 0
    assert reference["models"] == ("reference-agent", "reference-summarizer", True)
    for name, job in doors.items():
        expected = dict(reference)
        if name == "experiment run, no evals:":
            expected["eval"] = None  # a grid without evals: runs its cases as no eval, and says so
        if name == "NIAH check":
            expected["case"] = job["case"]  # its own generated case, run as the needle eval
            assert job["case"].startswith("niah-l24000-d0000")
        assert job == expected, name


def test_every_door_that_takes_an_agent_assembly_hands_it_to_the_job(jobs, tmp_path):
    """``--agent`` (`harness run`, `harness check`), a spec's ``agent:`` (with and without ``evals:``) and
    `harness.evaluate(agent=...)` give the same job: the same eval, case, configuration, models and seed as without,
    and the assembly, named as given (a worker imports it again by that name)."""
    from harness.api import evaluate
    from harness.cli.main import main
    from harness.runs.grid import run_experiment
    from harness.runs.spec import load_spec

    agent = "tests._assemblies:plain"
    doors: dict[str, dict[str, Any]] = {}

    def door(name: str) -> None:
        assert len(jobs) == 1, f"{name}: {len(jobs)} jobs reached run_eval_case"
        doors[name] = jobs.pop()

    main(["run", "--kind", "needle", "--cases", CASE, "--agent", agent, "--out", str(tmp_path / "runs"), "--run-id", "r"])
    door("harness run --kind needle --agent")
    check = ["check", "--baseline", str(tmp_path / "b.json"), "--update", "--evals", "needle", "--cases", CASE]
    main([*check, "--agent", agent, "--out", str(tmp_path / "check")])
    door("harness check --agent")
    run_experiment(load_spec(_spec(tmp_path, evals=True, agent=agent)), out_dir=tmp_path / "exp", progress=lambda line: None)
    door("experiment run, evals: [needle], agent:")
    run_experiment(load_spec(_spec(tmp_path, evals=False, agent=agent)), out_dir=tmp_path / "adhoc", progress=lambda line: None)
    door("experiment run, no evals:, agent:")
    evaluate("needle", cases=[CASE], agent=agent, runs_dir=tmp_path / "eval", workers=0)
    door("harness.evaluate(agent=...)")

    reference = doors["harness run --kind needle --agent"]
    assert reference["agent"] == agent and reference["eval"] == "needle" and reference["config"]["name"] == "forced-20"
    assert reference["models"] == ("reference-agent", "reference-summarizer", True)
    for name, job in doors.items():
        expected = dict(reference, eval=None) if name == "experiment run, no evals:, agent:" else reference
        assert job == expected, name


def test_the_agent_assembly_travels_to_workers_by_its_name(tmp_path):
    """What a spawned or forked worker gets (`RunSettings.picklable`, pickled) and what a version arm's worker reads
    (the spec, loaded again) both name the assembly, so each worker imports and calls the same factory."""
    import pickle

    from harness.runs.grid import run_settings
    from harness.runs.spec import load_spec

    agent = "tests._assemblies:plain"
    settings = run_settings(load_spec(_spec(tmp_path, evals=True, agent=agent)))
    assert settings.agent == agent
    travelled = pickle.loads(pickle.dumps(settings.picklable()))
    assert travelled.agent == agent and travelled.for_job(_job()).agent == agent


def _job() -> Any:
    from harness.compaction.variants import make_config
    from harness.runs.jobs import Job

    return Job("needle", execute.find_case(CASE), make_config("forced-20"))


def test_an_arms_own_summarizer_wins_at_every_place_that_chooses_one(tmp_path):
    """A variant that sets its own summarizer, in a spec that names another: the early checks, every cell's models,
    the reuse fingerprint and the live test all take the variant's (one rule: `arm_summary_model`); the single-config
    doors take it when no --summary-model is given."""
    from harness.agent.endpoints import summary_model_for
    from harness.cli.experiments import _grid_summary_models
    from harness.runs import grid
    from harness.runs.spec import load_spec

    own = "openai:gpt-5-mini"
    variant = tmp_path / "own-summarizer.md"
    variant.write_text(f"---\nsummary_model: {own}\n---\nSummarize.\n\n{{messages}}\n")
    path = tmp_path / "own.yaml"
    path.write_text(f"variants: [{variant}]\nthresholds: [20%]\nmodel: reference\nsummary_model: reference\n")
    spec = load_spec(path)
    ((arm, _),) = spec.arms().items()
    threshold = spec.thresholds[0]
    config = grid.cell_config(spec, arm, threshold)
    cell = grid.Cell(arm, threshold.label, CASE, 0)

    assert config.summary_model == own
    assert _grid_summary_models(spec) == [own]
    assert grid.run_settings(spec).summary_for(config) == own
    sha = grid.config_sha(config, spec.model, own, spec.seed, grid._result_settings(spec))
    assert grid.cell_sha(spec, cell, config) == sha
    assert grid._is_live(spec)
    assert summary_model_for(own, None, variant=arm) == own
