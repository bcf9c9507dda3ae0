"""Notebooks run in a real Jupyter kernel (nbclient, ipykernel) against a small offline run and experiment, and
are committed without outputs.

A kernel is what a reader uses: there a figure shows only if the harness leaves matplotlib's inline backend alone
and returns something IPython can render. Executing the cells with exec() outside a kernel passed while every
chart cell of both notebooks held the text `<Figure size 1000x500 with 1 Axes>`.
"""

import json
import os
import warnings
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHART_CALLS = ("plot_token_curves(", "plt.subplots(")  # a code cell that draws a chart


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs_and_with_cell_ids(path):
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name}: clear outputs before committing"
    ids = [cell.get("id") for cell in nb["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), f"{path.name}: give every cell an id (nbformat.validator.normalize)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nbformat warns (MissingIDFieldWarning) about cells without ids
        nbformat.validate(nbformat.read(path, as_version=4))


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
    # relative to the repository root, as a user who ran `make run` there would name them: the kernel runs in notebooks/
    return {"HARNESS_RUN_DIR": os.path.relpath(run.path, ROOT), "HARNESS_EXPERIMENT_DIR": os.path.relpath(experiment.path, ROOT)}


def _outputs(cell) -> list[str]:  # noqa: ANN001
    return [kind for out in cell.outputs for kind in out.get("data", {})]


def _execute(path: Path, tmp_path: Path, monkeypatch, until: str | None = None) -> nbformat.NotebookNode:  # noqa: ANN001
    """``path`` run in a kernel whose working directory is notebooks/ (as JupyterLab's and nbconvert's are) and whose
    temporary files go to ``tmp_path/tmp``, which is empty again once the kernel has stopped; with ``until``, only the
    cells up to the first whose source ends with it."""
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel picks its own (inline) backend, as for a reader
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    nb = nbformat.read(path, as_version=4)
    if until is not None:
        nb.cells = nb.cells[: next(i for i, c in enumerate(nb.cells) if c.source.strip().endswith(until)) + 1]
    NotebookClient(nb, kernel_name="python3", timeout=180, resources={"metadata": {"path": str(path.parent)}}).execute()
    assert not list((tmp_path / "tmp").iterdir()), f"{path.name} left {list((tmp_path / 'tmp').iterdir())} behind"
    return nb


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_in_a_kernel_and_every_chart_cell_shows_one_image(path, offline_results, tmp_path, monkeypatch):
    for key, value in offline_results.items():
        monkeypatch.setenv(key, value)
    nb = _execute(path, tmp_path, monkeypatch)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]  # nbclient raises first; belt and braces
    charts = [c for c in code if any(call in c.source for call in CHART_CALLS)]
    assert len(charts) >= 2, f"{path.name}: no chart cells found"
    for cell in charts:
        # exactly one: the cell's result, not also a second copy from pyplot's own display of open figures
        assert _outputs(cell).count("image/png") == 1, f"{path.name}: chart cell shows {_outputs(cell)}\n{cell.source}"
    others = [c for c in code if c not in charts]
    assert all("image/png" not in _outputs(c) for c in others)
    if path.name == "token_curves.ipynb":
        table = next(c for c in code if "score_columns]]" in c.source)
        assert "needle-h24k-d000" in table.outputs[0]["data"]["text/plain"]
    elif path.name == "compare_variants.ipynb":
        pk = next(c for c in code if c.source.strip() == "harness.pass_at_k(cells)")
        assert "minimal" in pk.outputs[0]["data"]["text/plain"]
    elif path.name == "session_replay.ipynb":  # a shipped recording imported, then three arms, each behind the same control
        imported = next(c for c in code if "import_session(" in c.source)
        printed = "".join(o.get("text", "") for o in imported.outputs if o.get("name") == "stdout")
        assert "cut at 0.6 of its" in printed and "3 probes" in printed
        table = next(c for c in code if c.source.strip().endswith("replay_table(rows)"))
        shown = table.outputs[0]["data"]["text/plain"]
        assert "billing-runbook" in shown and "observation-masking" in shown and "3/3" in shown
    else:
        raise AssertionError(f"add checks for {path.name}")


def test_the_session_replay_reads_a_users_sessions_named_relative_to_the_repository_root(tmp_path, monkeypatch):
    """`HARNESS_SESSIONS=cases/sessions.jsonl jupyter nbconvert --execute notebooks/session_replay.ipynb`, run from the
    root, was a DatasetError (no such file): the kernel runs in notebooks/. And each run left its temporary directory."""
    from harness.sessions.importer import import_session

    recording = ROOT / "datasets" / "conversations" / "billing-runbook.jsonl"
    imported = import_session("openai", str(recording), tmp_path / "cases", case_id="my-session")
    monkeypatch.setenv("HARNESS_SESSIONS", os.path.relpath(imported.row_file, ROOT))
    nb = _execute(ROOT / "notebooks" / "session_replay.ipynb", tmp_path, monkeypatch, until="replay_table(rows)")
    code = [c for c in nb.cells if c.cell_type == "code"]
    printed = "".join(o.get("text", "") for o in code[0].outputs if o.get("name") == "stdout")
    assert "sessions.jsonl | 3 cells |" in printed and "imported" not in printed
    table = next(c for c in code if c.source.strip().endswith("replay_table(rows)"))
    assert "my-session" in table.outputs[0]["data"]["text/plain"]
