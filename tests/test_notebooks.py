"""Notebooks run against the harness API and are committed without outputs."""

import json
from pathlib import Path

import matplotlib
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name}: clear outputs before committing"


@pytest.fixture(scope="module")
def offline_results(tmp_path_factory):
    """A small offline run and a small offline experiment, as the notebooks' inputs."""
    from harness import load_scenarios, load_spec, make_config, run_cases, run_experiment, select

    tmp = tmp_path_factory.mktemp("nb")
    cases = select(load_scenarios(), ids=["needle-h24k-d000", "goal-ledgers-12"])
    run = run_cases(cases, make_config("forced-20"), out_dir=tmp, progress=lambda _: None)
    spec = tmp / "small.yaml"
    spec.write_text(
        "name: small\nvariants: [deepagents-default, minimal]\nthresholds: [20%]\n"
        "scenarios: {cases: [needle-h24k-d000, goal-ledgers-12]}\ntrials: 2\n"
    )
    experiment = run_experiment(load_spec(spec), out_dir=tmp, progress=lambda _: None)
    return {"HARNESS_RUN_DIR": str(run.path), "HARNESS_EXPERIMENT_DIR": str(experiment.path)}


def execute(path: Path) -> dict:
    namespace: dict = {}
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_code_runs_on_small_offline_results(path, offline_results, monkeypatch):
    for key, value in offline_results.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(path.parent)
    ns = execute(path)
    if path.name == "token_curves.ipynb":
        assert len(ns["results"]) == 2 and not ns["summaries"].empty and ns["fig"].axes
    elif path.name == "compare_variants.ipynb":
        assert set(ns["table"]["arm"]) == {"deepagents-default", "minimal"} and not ns["harness"].pass_at_k(ns["cells"]).empty
        assert ns["fig"].axes and ns["curve_fig"].axes
    else:
        raise AssertionError(f"add checks for {path.name}")
    matplotlib.pyplot.close("all")
