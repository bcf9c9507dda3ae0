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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_code_runs_on_a_small_offline_run(path, tmp_path, monkeypatch):
    from harness import load_scenarios, make_config, run_suite, select

    cases = select(load_scenarios(), ids=["needle-h24k-d000", "goal-ledgers-12"])
    run = run_suite(cases, make_config("forced-20"), out_dir=tmp_path, progress=lambda _: None)
    monkeypatch.setenv("HARNESS_RUN_DIR", str(run.path))
    monkeypatch.chdir(path.parent)
    namespace: dict = {}
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), f"{path.name}", "exec"), namespace)  # noqa: S102
    assert len(namespace["results"]) == 2 and not namespace["summaries"].empty
    assert namespace["fig"].axes
    matplotlib.pyplot.close("all")
